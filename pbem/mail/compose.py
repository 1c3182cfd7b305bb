"""How every email is made: the one composer of turn emails, answers to emailed replies,
digests and "Your games" emails.

An email is its plain text (the body a template wrote, then the footer) and an HTML
alternative of the same words: the board shown as the pictures of the seat's own page
where the text shows it, each line that is one of the email's links as a button, those
links inside a line as links, and the footer's links. The composer queues it in the outbox
(``outbox.queue``; ``message`` builds the message from the row) with its headers.

Every email ends with a link to its email settings and an unsubscribe link (also in the
``List-Unsubscribe`` header, one-click per RFC 8058). Those links carry their own secret
(``email_links``, only hashes stored), which opens the settings and nothing else: mail
providers see the header's URL, so it must not be able to play for anyone.

An email to a seat of a game (``to_seat``) shows only what that seat may know: the board
is drawn from the seat's view, and its link and reply address open that seat alone. All
emails of one game share a thread root (References, In-Reply-To), so mail clients keep
them in one thread; each subject says first what happened ("Your move — Mastery: Ann vs
Bob [id]"). Emails to an address (``to_address``: digests, "Your games") belong to no
game's thread.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, NamedTuple

import sqlite_utils
from flask import current_app, render_template
from flask_babel import gettext

import engine

from .. import languages, links
from . import outbox, pictures
from ..boards import board_for
from ..matches import Match
from ..store import utc


def thread_root(match: Match) -> str:
    return f"<game-{match.id}@{current_app.config['MAIL_DOMAIN']}>"


def game_title(match: Match) -> str:
    """The game in a line: "Mastery: Ann vs Bob [id]"."""
    return (f"{languages.translated(match.game.title)}: {languages.translated(match.sides)} "
            f"[{match.id}]")


def subject(match: Match, what: str) -> str:
    """A game email's subject: ``what`` happened, then the game ("Your move — Mastery: Ann
    vs Bob [id]"). Names are as players typed them: the outbox makes them header-safe."""
    return f"{what} — {game_title(match)}"


def who(match: Match, seat: int) -> engine.Text:
    """"Dark (Ann)": a player by side and name (the side in the reader's language)."""
    return engine.Text("%(side)s (%(name)s)", side=match.seat_name(seat),
                       name=match.seats[seat].name)


# -- the board, as one seat may know it ------------------------------------------------------

def board_text(match: Match, seat: int | None) -> str:
    """The current position as plain text, from what ``seat`` may know."""
    return board_for(match.game.id).text(match.game.view(match.current, seat), seat)


def board_drawing(match: Match, seat: int) -> str | None:
    """The current position as ``seat``'s page draws it (SVG), from what it may know, the
    last move marked; nothing on it can be clicked. None where the page draws no picture
    (the generic board of a plugin's view): the email shows the board as text."""
    game, last, board = match.game, match.moves[-1] if match.moves else None, \
        board_for(match.game.id)
    drawing = str(board.render(
        game.view(match.current, seat), seat=seat,
        last=board.move_cells(game.public_move(last.seat, last.move, seat, match.current))
        if last else set()))
    return drawing if pictures.drawings(drawing) else None


# -- emails to a seat ------------------------------------------------------------------------

@dataclass(frozen=True)
class Seat:
    """What an email to one seat of a game shows, for its template: a fresh secret link to
    the seat's page (``link``; its ``token`` is also the email's reply address) and the
    board as the seat may know it (``board``, text)."""

    match: Match
    seat: int
    token: str
    link: str
    board: str


def seat(db: sqlite_utils.Database, match: Match, seat: int) -> Seat:
    """The parts of an email to ``seat``."""
    token, link = play_link(db, match.id, seat)
    return Seat(match, seat, token, link, board_text(match, seat))


def play_link(db: sqlite_utils.Database, game_id: str, seat: int) -> tuple[str, str]:
    """(token, URL): a new secret link to ``seat``'s page, for an email. Only hashes of
    secret links are stored, so each email carries a freshly minted link to the seat."""
    token = links.mint(db, game_id, seat, emailed=True)
    return token, links.email_url("play.page", role="play", token=token)


def to_seat(db: sqlite_utils.Database, to: Seat, what: str, body: str, *, kind: str,
            buttons: Mapping[str, str] | None = None, replied: str | None = None,
            headers: Mapping[str, str] | None = None,
            unique_key: str | None = None) -> str:
    """Queue an email about ``to.match`` to the seat's address: ``what`` happened (the
    subject's first words), ``body`` the text its template wrote with ``to``'s parts. The
    board, where ``body`` shows it, becomes the seat's pictures in the HTML; ``to.link``
    is its main button, ``buttons`` (URL: label) its other links. In the game's thread
    (under the player's own message ``replied``, if any); replies go to the seat's reply
    address. Returns the Message-ID."""
    match, root = to.match, thread_root(to.match)
    drawing = board_drawing(match, to.seat) if to.board and to.board in body else None
    return _queue(db, match.seats[to.seat].email, subject(match, what), body,
                  _footer(db, "seat", game_id=match.id, seat=to.seat), kind=kind,
                  buttons={to.link: gettext("Open the game"), **(buttons or {})}, primary=to.link,
                  board=to.board, drawing=drawing, game_id=match.id, seat=to.seat,
                  unique_key=unique_key,
                  headers={"References": f"{root} {replied}" if replied else root,
                           "In-Reply-To": replied or root, **(headers or {}),
                           **links.reply_to_header(to.token, match.known_events(to.seat))})


# -- emails to an address --------------------------------------------------------------------

def to_address(db: sqlite_utils.Database, recipient: str, subject: str, body: str, *,
               kind: str, buttons: Mapping[str, str], primary: str | None = None,
               unique_key: str | None = None) -> str:
    """Queue an email of ``kind`` "digest" or "home" to ``recipient``: its footer's links
    change that kind of email for the address. ``buttons``: its links (URL: label), the
    ``primary`` one shown prominently. Returns the Message-ID."""
    return _queue(db, recipient, subject, body, _footer(db, kind, email=recipient), kind=kind,
                  buttons=buttons, primary=primary, unique_key=unique_key)


def _queue(db: sqlite_utils.Database, recipient: str | None, subject: str, body: str,
           footer: Footer, *, kind: str, buttons: Mapping[str, str], primary: str | None,
           board: str = "", drawing: str | None = None, game_id: str | None = None,
           seat: int | None = None, headers: Mapping[str, str] | None = None,
           unique_key: str | None = None) -> str:
    """The one way an email enters the outbox: its text and footer, the HTML of both, and
    the footer's List-Unsubscribe headers after ``headers``."""
    if not recipient:
        raise ValueError("an email needs a recipient")
    return outbox.queue(
        db, recipient=recipient, subject=subject, body=body + footer.text, game_id=game_id,
        domain=current_app.config["MAIL_DOMAIN"], kind=kind, seat=seat, unique_key=unique_key,
        board=drawing, html=html_part(subject, body, footer.text, {**buttons, **footer.buttons},
                                      primary=primary, board=board, drawing=drawing),
        headers={**(headers or {}), **footer.headers})


# -- the footer: settings and unsubscribe links ----------------------------------------------

class Footer(NamedTuple):
    text: str
    headers: dict[str, str]  # List-Unsubscribe
    buttons: dict[str, str]  # its links and their labels, for the HTML part


def _footer(db: sqlite_utils.Database, purpose: str, **target: Any) -> Footer:
    """The settings and unsubscribe footer of an email, and its List-Unsubscribe headers."""
    token = mint_email_link(db, purpose, **target)
    unsubscribe = links.email_url("preferences.unsubscribe", token=token)
    settings = links.email_url("preferences.settings", token=token)
    text = render_template("email/footer.txt", purpose=purpose, unsubscribe=unsubscribe,
                           settings=settings)
    return Footer("\n" + text.rstrip("\n") + "\n",
                  {"List-Unsubscribe": f"<{unsubscribe}>",
                   "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"},
                  {settings: gettext("Email settings"), unsubscribe: gettext("Unsubscribe")})


def mint_email_link(db: sqlite_utils.Database, purpose: str, *, game_id: str | None = None,
                    seat: int | None = None, email: str | None = None) -> str:
    """A new secret for an email's settings and unsubscribe links: ``purpose`` "seat" (one
    seat's emails), "digest" or "home" (an address's digests or "Your games" emails); or
    for a seat's feed ("feed")."""
    token = links.new_token()
    db.execute("INSERT INTO email_links (token_hash, purpose, game_id, seat, email, created_at) "
               "VALUES (?, ?, ?, ?, ?, ?)",
               [links.token_hash(token), purpose, game_id, seat, email, utc.iso(utc.now())])
    return token


def resolve_email_link(db: sqlite_utils.Database, token: str) -> dict[str, Any] | None:
    if not links.TOKEN_SHAPE.fullmatch(token):
        return None
    rows = list(db.query("SELECT purpose, game_id, seat, email FROM email_links "
                         "WHERE token_hash = ?", [links.token_hash(token)]))
    return dict(rows[0]) if rows else None


# -- the HTML part ---------------------------------------------------------------------------

def html_part(subject: str, body: str, footer: str, buttons: Mapping[str, str], *,
              primary: str | None, board: str, drawing: str | None) -> str:
    """The HTML part of an email whose plain text is ``body`` and ``footer``: the same
    words, the ``board`` (its text in ``body``) shown as the pictures of ``drawing`` (if
    any), each line that is one of the links of ``buttons`` (URL: label) as a button
    (``primary`` the prominent one), and those links inside a line as links. No other text
    becomes a link, and the template escapes everything."""
    before, found, after = body.partition(board) if drawing else (body, "", "")
    shown = [(cid, pictures.label(svg)) for cid, svg in pictures.numbered(drawing)] \
        if found and drawing else []
    blocks = _blocks(before, buttons) + ([{"pictures": shown}] if found else []) \
        + _blocks(after, buttons)
    return render_template("email/message.html", subject=subject, blocks=blocks,
                           footer=_blocks(footer.lstrip("\n").removeprefix("-- \n"), buttons),
                           primary=primary)


# A line break in the middle of a sentence (after a small letter or a comma, before a small
# letter or a bracket): the plain text's wrapping, which the HTML leaves to the screen.
WRAPPED = re.compile(r"(?<=[a-zа-яё,])\n(?=[a-zа-яё(])")


def _blocks(text: str, buttons: Mapping[str, str]) -> list[dict[str, Any]]:
    """``text``'s paragraphs as the HTML template shows them: {"lines": [[(words, url or
    None), ...], ...]} for text, {"button": url, "label": label} for a line that is a link
    (indented or not)."""
    blocks: list[dict[str, Any]] = []
    for paragraph in re.split(r"\n\s*\n", text.strip("\n")):
        lines: list[list[tuple[str, str | None]]] = []
        for line in WRAPPED.sub(" ", paragraph).split("\n"):
            if line.strip() in buttons:
                blocks += [{"lines": lines}] if lines else []
                blocks.append({"button": line.strip(), "label": buttons[line.strip()]})
                lines = []
                continue
            lines.append(_linked(line, buttons))
        blocks += [{"lines": lines}] if lines else []
    return blocks


def _linked(line: str, urls: Iterable[str]) -> list[tuple[str, str | None]]:
    """``line`` in pieces, (words, None) and (url, url) for each of ``urls`` in it: at each
    place the longest that begins there. (Found with ``str.find``: a pattern made of an
    email's own links would be compiled anew for every email, and push the program's other
    patterns out of ``re``'s cache.)"""
    pieces: list[tuple[str, str | None]] = []
    at = 0
    while found := [(start, -len(url), url) for url in urls
                    if url and (start := line.find(url, at)) >= 0]:
        start, _, url = min(found)
        pieces += [(line[at:start], None), (url, url)]
        at = start + len(url)
    return pieces + [(line[at:], None)]
