"""Players across games: an optional identity, a proven email address and a public handle.

Secret links still play every game; a player only gathers seats. A visitor proves an
address by a one-time sign-in link emailed to it (``mint_sign_in``, ``sign_in``): a secret
of 192 bits, only its hash stored, valid for ``SIGN_IN_VALID``, used once. The first sign-in
of an address makes its player, under a handle chosen then. A player's seats
(``seats_of``) are every seat whose email is the proven address (games from before the
proof too) and every seat taken while signed in or with the player key (``claim``).

The player key (a secret API base, ``/api/player/<key>``) and each seat link given to a
player (``seat_link``) are derived from the server's secret key, the player's id and
generation: the same each time they are asked for, stored only hashed (the links in
``links`` with the player's id), and all replaced at once by ``sign_out_everywhere``, which
moves the generation on. Anyone holding the server's secret key can forge a session cookie
anyway, so deriving from it adds no other way in. A browser signed in holds the secret of a
session (``open_session``), whose hash is a row of ``player_sessions``: signing out deletes the
row, so that a copy of the cookie signs nobody in.

Handles are unique by how they look (``skeleton``): ignoring case, Unicode's confusable
characters (Alice, AIice and A1ice look alike) and ``_`` against ``-``.

Nothing here is shown to anyone but the player except the handle: profiles show games as a
spectator sees them, and only those the player took part in knowingly (``public_seats``):
anyone may type an address into a new game.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
import string
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import sqlite_utils
from confusable_homoglyphs.confusables import confusables_data
from engine import Text

from . import invites, languages, links, matches, sanctions, server
from .store.db import hold_name, write
from .store import utc

HANDLE_CHARACTERS = string.ascii_letters + string.digits + "_-"
HANDLE = re.compile(r"[A-Za-z0-9_-]{3,20}")
HANDLE_RULE = Text("A handle is 3 to 20 letters (A-Z, a-z), digits, _ or -.")
SIGN_IN_VALID = timedelta(hours=2)  # mail can be slow: at least an hour
RESERVED = "computer-"  # the handles of the computer's levels (rated players)


def _looks_like(character: str) -> str:
    """What a character of a handle looks like, whatever its case, in lower case: the
    prototype that Unicode's confusables (UTS #39) give it or its other case (the data lists
    a prototype's look-alikes under it, and under each look-alike its one prototype): I, i,
    L and 1 all look like l, O and 0 like o, m like rn."""
    for form in (character, character.swapcase()):
        found = confusables_data.get(form, [])
        if len(found) == 1:
            return found[0]["c"].casefold()
    return character.casefold()


LOOKS_LIKE = str.maketrans({**{c: _looks_like(c) for c in HANDLE_CHARACTERS}, "_": "-"})


def skeleton(handle: str) -> str:
    """What ``handle`` looks like: two handles with one skeleton are taken for each other
    (Alice, ALICE, AIice and A1ice; computer_easy and c0mputer-easy). Migration 0013 wrote
    the skeletons of the handles made before it in SQL, the same way."""
    return handle.translate(LOOKS_LIKE)


class HandleTaken(matches.ActionError):
    status = 409


class AccountClosed(matches.ActionError):
    status = 403


@dataclass(frozen=True)
class Player:
    id: int
    handle: str
    email: str | None  # the proven address; None: a computer player
    generation: int
    # the language of the emails to the player rather than to a seat of theirs (sign-in
    # links, "Your games", tournaments): the page's they first signed in from, or chosen
    language: str = languages.DEFAULT


def _player(row: Any) -> Player:
    return Player(row["id"], row["handle"], row["email"], row["generation"], row["language"])


def _one(db: sqlite_utils.Database, where: str, value: Any) -> Player | None:
    row = db.execute(f"SELECT id, handle, email, generation, language FROM players "
                     f"WHERE {where}",
                     [value]).fetchone()
    return _player(row) if row else None


def find(db: sqlite_utils.Database, player_id: int) -> Player | None:
    return _one(db, "id = ?", player_id)


def by_handle(db: sqlite_utils.Database, handle: str) -> Player | None:
    if not HANDLE.fullmatch(handle):  # no player has it (and PostgreSQL refuses a NUL)
        return None
    return _one(db, "lower(handle) = lower(?)", handle)


def by_email(db: sqlite_utils.Database, email: str) -> Player | None:
    return _one(db, "email = ?", email.strip().lower())


def checked_handle(handle: Any) -> str:
    if not isinstance(handle, str) or not HANDLE.fullmatch(handle):
        raise matches.InvalidRequest(HANDLE_RULE)
    return handle


def create(db: sqlite_utils.Database, handle: Any, email: str | None,
           language: str = languages.DEFAULT) -> Player:
    """A new player (``email`` None: a computer player), emailed in ``language``; a taken
    handle → HandleTaken."""
    handle = checked_handle(handle)
    with write(db):
        hold_name(db, "players")  # two new players with one handle: the second one waits
        _refuse_taken(db, handle)
        email = email.strip().lower() if email else None
        player_id = db.execute(
            "INSERT INTO players (handle, skeleton, email, language, created_at) "
            "VALUES (?, ?, ?, ?, ?) RETURNING id",
            [handle, skeleton(handle), email, language, utc.iso(utc.now())]).fetchone()[0]
        player = Player(player_id, handle, email, 0, language)
        _rekey(db, player)
    return player


def rename(db: sqlite_utils.Database, player: Player, handle: Any) -> Player:
    handle = checked_handle(handle)
    with write(db):
        hold_name(db, "players")
        _refuse_taken(db, handle, player)
        db.execute("UPDATE players SET handle = ?, skeleton = ? WHERE id = ?",
                   [handle, skeleton(handle), player.id])
    return replace(player, handle=handle)


def set_language(db: sqlite_utils.Database, player: Player, language: str) -> Player:
    """Email the player in ``language`` from now on (one the site speaks)."""
    language = languages.known(language) or languages.DEFAULT
    db.execute("UPDATE players SET language = ? WHERE id = ?", [language, player.id])
    return replace(player, language=language)


def languages_of(db: sqlite_utils.Database, player_ids: list[int]) -> dict[int, str]:
    """Each player's language, by id (a tournament's entrants, in one query)."""
    marks = ", ".join("?" * len(player_ids))
    return {row[0]: row[1] for row in db.execute(
        f"SELECT id, language FROM players WHERE id IN ({marks})", player_ids)} \
        if player_ids else {}


def _refuse_taken(db: sqlite_utils.Database, handle: str, renamed: Player | None = None
                  ) -> None:
    """Refuse a handle that another player's (not ``renamed``'s) is, or looks like."""
    taken = db.execute("SELECT handle FROM players WHERE skeleton = ? AND id <> ? "
                       "ORDER BY lower(handle) <> lower(?)",
                       [skeleton(handle), renamed.id if renamed else 0, handle]).fetchone()
    if taken is not None and taken[0].lower() == handle.lower():
        raise HandleTaken("The handle %(handle)s is taken. Please choose another one.",
                          handle=handle)
    if taken is not None:
        raise HandleTaken("The handle %(handle)s looks too much like %(taken)s, another "
                          "player's. Please choose another one.", handle=handle,
                          taken=taken[0])


# -- secrets derived from the server's secret key ---------------------------------------------

def _derived(*parts: object) -> str:
    """A token of TOKEN_SHAPE (192 bits) that only the server's secret key makes."""
    digest = hmac.new(str(server.setting("SECRET_KEY")).encode(),
                      " ".join(map(str, parts)).encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:links.TOKEN_BYTES]).decode()


def key(player: Player) -> str:
    """The player key: the secret base of the player's API (``/api/player/<key>``)."""
    return _derived("player-key", player.id, player.generation)


def _rekey(db: sqlite_utils.Database, player: Player) -> None:
    db.execute("UPDATE players SET key_hash = ? WHERE id = ?",
               [links.token_hash(key(player)), player.id])


def by_key(db: sqlite_utils.Database, token: str) -> Player | None:
    """The player of a key: as the sign-in answered it (the API base's URL) or its token;
    none for a closed account."""
    token = token.rstrip("/").rsplit("/", 1)[-1]
    if not links.TOKEN_SHAPE.fullmatch(token):
        return None
    return _one(db, "key_hash = ? AND closed_at IS NULL", links.token_hash(token))


def seat_link(db: sqlite_utils.Database, player: Player, game_id: str, seat: int) -> str:
    """The player's secret link to one of their seats: the same every time (stored, hashed,
    the first time), replaced when the player signs out everywhere."""
    token = _derived("seat", player.id, player.generation, game_id, seat)
    hashed = links.token_hash(token)
    if db.execute("SELECT 1 FROM links WHERE token_hash = ?", [hashed]).fetchone() is None:
        with write(db):  # once: a script polling the key writes nothing
            db.execute("INSERT INTO links (token_hash, game_id, seat, created_at, player_id) "
                       "VALUES (?, ?, ?, ?, ?) ON CONFLICT (token_hash) DO NOTHING",
                       [hashed, game_id, seat, utc.iso(utc.now()), player.id])
    return token


def join_link(db: sqlite_utils.Database, player: Player, game_id: str, seat: int) -> str:
    """The player's secret join link to an open seat offered to them (a bot's challenge),
    made as ``seat_link`` is: the same every time, stored hashed (among the join links) the
    first time, replaced when the player signs out everywhere."""
    token = _derived("join", player.id, player.generation, game_id, seat)
    hashed = links.token_hash(token)
    if db.execute(f"SELECT 1 FROM {links.INVITATIONS} WHERE token_hash = ?",
                  [hashed]).fetchone() is None:
        with write(db):
            db.execute(f"INSERT INTO {links.INVITATIONS} (token_hash, game_id, seat, "
                       f"created_at) VALUES (?, ?, ?, ?) ON CONFLICT (token_hash) DO NOTHING",
                       [hashed, game_id, seat, utc.iso(utc.now())])
    return token


# -- seats ------------------------------------------------------------------------------------

def seats_of(db: sqlite_utils.Database, player: Player) -> list[tuple[str, int]]:
    """The player's seats, (game id, seat), the most recently active game first: those of
    the proven address (compared without case, as ``/home`` does) and those claimed."""
    return _seats(db, "s.player_id = ? OR lower(s.email) = ?", player)


def public_seats(db: sqlite_utils.Database, player: Player) -> list[tuple[str, int]]:
    """The seats a public profile lists, as ``seats_of``: those the player took part in
    knowingly. Those claimed (taken with the key or signed in; rated and tournament games'
    are), and those of the proven address that it answered (``invites.answered``: acted on
    through a link emailed to it, or opened with the player's own link). A seat that only
    carries the address, which anyone may type into a new game, is not listed: a stranger
    can neither plant a game on a profile nor learn from one whose address it is."""
    return _seats(db, "s.player_id = ? OR (lower(s.email) = ? AND s.answered = 1)", player)


def _seats(db: sqlite_utils.Database, where: str, player: Player) -> list[tuple[str, int]]:
    rows = db.execute(
        f"SELECT s.game_id, s.seat FROM seats s JOIN games g ON g.id = s.game_id "
        f"WHERE {where} ORDER BY g.updated_at DESC, g.id, s.seat", [player.id, player.email or ""])
    return [(row[0], row[1]) for row in rows]


def owns(db: sqlite_utils.Database, player: Player, game_id: str, seat: int) -> bool:
    return (game_id, seat) in seats_of(db, player)


def owners(db: sqlite_utils.Database, game_id: str, seat: int) -> list[Player]:
    """The players whose seat it is (``seats_of``): whoever took it, and the player of its
    address."""
    return [_player(row) for row in db.execute(
        "SELECT p.id, p.handle, p.email, p.generation, p.language FROM players p JOIN seats s "
        "ON s.game_id = ? AND s.seat = ? WHERE p.id = s.player_id OR p.email = lower(s.email) "
        "ORDER BY p.id", [game_id, seat]).fetchall()]


def claim(db: sqlite_utils.Database, player: Player, game_id: str, seat: int) -> None:
    """Make a seat the player's (taken while signed in, or with the key)."""
    with write(db):
        db.execute("UPDATE seats SET player_id = ? WHERE game_id = ? AND seat = ?",
                   [player.id, game_id, seat])


# -- signing in -------------------------------------------------------------------------------

def mint_sign_in(db: sqlite_utils.Database, email: str) -> str | None:
    """A new sign-in link for ``email`` (a valid address), or None when the address has had
    the most the RATE_LIMIT_SIGN_IN_EMAILS setting allows (counted per mailbox, as
    invitations are: ``invites.address_key``). The caller emails it."""
    email = email.strip().lower()
    address = invites.address_key(email)
    now = utc.now()
    with write(db):
        hold_name(db, f"sign-in:{address}")  # two requests at once count each other
        if invites.over_recipient_limit("RATE_LIMIT_SIGN_IN_EMAILS", now, lambda since: (
                db.execute("SELECT COUNT(*) FROM sign_in_links WHERE address = ? AND "
                           "created_at >= ?", [address, since]).fetchone()[0])):
            return None
        db.execute("DELETE FROM sign_in_links WHERE created_at < ?",
                   [(now - timedelta(days=2)).isoformat(timespec="seconds")])
        token = links.new_token()
        db.execute("INSERT INTO sign_in_links (token_hash, email, address, created_at, "
                   "expires_at) VALUES (?, ?, ?, ?, ?)",
                   [links.token_hash(token), email, address, now.isoformat(timespec="seconds"),
                    (now + SIGN_IN_VALID).isoformat(timespec="seconds")])
    return token


def sign_in_email(db: sqlite_utils.Database, token: str) -> str | None:
    """The address a sign-in link proves, while it is unused and unexpired; else None.
    Reading it uses nothing up."""
    if not links.TOKEN_SHAPE.fullmatch(token):
        return None
    row = db.execute("SELECT email FROM sign_in_links WHERE token_hash = ? AND used_at IS NULL "
                     "AND expires_at > ?", [links.token_hash(token), utc.iso(utc.now())]).fetchone()
    return row[0] if row else None


def sign_in(db: sqlite_utils.Database, token: str, handle: Any = None,
            language: str = languages.DEFAULT) -> Player | None:
    """Use a sign-in link: its address's player (made the first time, under ``handle``,
    emailed in ``language``; renamed later when ``handle`` is given). None for a used,
    expired or unknown link. A missing or taken handle refuses (InvalidRequest,
    HandleTaken) and leaves the link unused (the transaction that used it rolls back)."""
    if not links.TOKEN_SHAPE.fullmatch(token):
        return None
    with write(db):
        now = utc.iso(utc.now())
        used = db.execute("UPDATE sign_in_links SET used_at = ? WHERE token_hash = ? AND "
                          "used_at IS NULL AND expires_at > ? RETURNING email",
                          [now, links.token_hash(token), now]).fetchone()
        if used is None:
            return None
        # the address's other links end with this one: an older link, left in a mailbox
        # or read by someone else meanwhile, signs nobody in later
        db.execute("UPDATE sign_in_links SET used_at = ? WHERE email = ? AND used_at IS NULL",
                   [now, used[0]])
        player = by_email(db, used[0])
        if player is not None and sanctions.of(db, player.id).closed:
            raise AccountClosed("The site's moderators have closed this account: it cannot "
                                "sign in.")
        if isinstance(handle, str) and skeleton(handle).startswith(skeleton(RESERVED)):
            raise HandleTaken("Handles that begin with %(reserved)s are the computer's.",
                              reserved=RESERVED)
        if player is None:
            if handle is None:
                raise matches.InvalidRequest("Choose a handle: the name other players will "
                                             "know you by. %(rule)s", rule=HANDLE_RULE)
            player = create(db, handle, used[0], language)
        elif handle is not None and handle != player.handle:
            player = rename(db, player, handle)
    return player


def by_session(db: sqlite_utils.Database, secret: object, since: datetime) -> Player | None:
    """The player a browser's session ``secret`` (its signed cookie's) signs in: its row,
    unless the session was ended (here or everywhere) or began before ``since`` (older than
    the cookie may be)."""
    if not isinstance(secret, str) or not links.TOKEN_SHAPE.fullmatch(secret):
        return None  # signed out, or a cookie from before sessions had rows
    row = db.execute(
        "SELECT p.id, p.handle, p.email, p.generation, p.language FROM player_sessions s "
        "JOIN players p ON p.id = s.player_id WHERE s.token_hash = ? AND s.created_at > ? "
        "AND p.closed_at IS NULL",
        [links.token_hash(secret), utc.iso(since)]).fetchone()
    return _player(row) if row else None


def open_session(db: sqlite_utils.Database, player: Player, since: datetime) -> str:
    """A new session of ``player``: its secret, for the browser's signed cookie (its hash is
    the row of ``player_sessions``); the sessions that began before ``since`` go."""
    secret = links.new_token()
    with write(db):
        db.execute("DELETE FROM player_sessions WHERE created_at <= ?", [utc.iso(since)])
        db.execute("INSERT INTO player_sessions (token_hash, player_id, created_at) "
                   "VALUES (?, ?, ?)", [links.token_hash(secret), player.id, utc.iso(utc.now())])
    return secret


def end_session(db: sqlite_utils.Database, secret: object) -> None:
    """End a session on the server, so that a copy of its cookie signs nobody in."""
    if isinstance(secret, str):
        with write(db):
            db.execute("DELETE FROM player_sessions WHERE token_hash = ?",
                       [links.token_hash(secret)])


def sign_out_everywhere(db: sqlite_utils.Database, player: Player) -> Player:
    """Every session, the key and the seat links given to the player stop working (the
    caller signs its own browser in again)."""
    with write(db):
        player = replace(player, generation=player.generation + 1)
        db.execute("UPDATE players SET generation = ? WHERE id = ?",
                   [player.generation, player.id])
        db.execute("DELETE FROM links WHERE player_id = ?", [player.id])
        db.execute("DELETE FROM player_sessions WHERE player_id = ?", [player.id])
        _rekey(db, player)
    return player


def delete(db: sqlite_utils.Database, player: Player) -> None:
    """Forget the player: their games stay, as played, with their name there made
    ``matches.FORMER_PLAYER`` and their address gone (nor is any email of them sent or kept);
    every row of a table keyed by the player (a ``player_id`` column: their ratings, their
    links, their roles, their events) goes, and so do the bot accounts they own."""
    with write(db):
        for (bot_id,) in db.execute("SELECT player_id FROM bot_accounts WHERE owner_id = ? "
                                    "AND player_id <> owner_id", [player.id]).fetchall():
            owned = find(db, bot_id)  # a bot account goes with its owner
            if owned is not None:
                delete(db, owned)
        for game_id, seat in seats_of(db, player):
            matches.anonymise(db, game_id, seat, matches.FORMER_PLAYER)
        if player.email:
            db.execute("DELETE FROM outbox WHERE lower(recipient) = ?", [player.email])
            db.execute("DELETE FROM home_links WHERE lower(email) = ?", [player.email])
            db.execute("DELETE FROM invites WHERE address = ?",
                       [invites.address_key(player.email)])
        for table in db.table_names():
            if table == "seats":
                db.execute("UPDATE seats SET player_id = NULL WHERE player_id = ?", [player.id])
                db.execute("UPDATE seats SET offered_to = NULL WHERE offered_to = ?",
                           [player.id])
            elif "player_id" in db[table].columns_dict:
                db.execute(f"DELETE FROM {table} WHERE player_id = ?", [player.id])
        if player.email:
            db.execute("DELETE FROM sign_in_links WHERE email = ?", [player.email])
        # others' blocks of them go; reports about them, or theirs, stay for the moderators
        db.execute("DELETE FROM blocks WHERE blocked_id = ?", [player.id])
        db.execute("UPDATE reports SET reporter_id = NULL WHERE reporter_id = ?", [player.id])
        db.execute("UPDATE reports SET reported_id = NULL WHERE reported_id = ?", [player.id])
        db.execute("DELETE FROM players WHERE id = ?", [player.id])
