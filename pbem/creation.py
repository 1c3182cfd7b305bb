"""Creating games: a request for a new game checked (``new_game``, ``new_games`` for a
tournament's many), stored with its seats, its first due rows and its links (``create``,
``create_many``), and ``signals.games_created`` sent, in one write transaction.
"""
from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence, TypeVar

import engine
import sqlite_utils
from engine import bots

from . import clocks, due, languages, links, positions, sanctions, signals
from .events import InvalidRequest, Refused, checked_name, valid_email
from .matches import Match, Seat, bot_name, summary
from .store import utc
from .store.db import insert_rows, write

GAME_ID_BYTES = 6  # random bytes of a game's id (not a secret: its links are)
T = TypeVar("T")


@dataclass(frozen=True)
class Created:
    match: Match
    tokens: tuple[str | None, ...]  # each seat's secret link token; None for an open seat
                                    # and a computer player's
    joins: tuple[str | None, ...]   # each open seat's join link token; None for the others
    spectator_token: str | None     # None, as all the links: a game not announced


@dataclass(frozen=True)
class NewGame:
    """A checked request for a game (``new_game``), ready to store."""
    game: engine.Game
    seats: list[Seat]
    seed: str
    start: engine.State
    clock: dict[str, Any]  # clocks.settings
    public: bool
    client: str | None
    rated: bool
    rating_min: int | None
    rating_max: int | None
    claimed: Mapping[int, int]
    languages: list[str]  # each seat's (its emails')

    @property
    def waiting(self) -> bool:
        return any(s.open for s in self.seats)


def create(db: sqlite_utils.Database, game_id: Any, players: Any, options: Any,
           seed: str | None = None, clock: Any = None, public: Any = False, *,
           addressless: bool = False, client: str | None = None, rated: Any = False,
           rating_range: Any = None, claimed: Mapping[int, int] | None = None,
           offered: Mapping[int, int] | None = None, announce: bool = True) -> Created:
    """Validate a request for a new game, store it and queue its start emails. The seed
    (which decides every chance event) is fresh and secret unless one is given; ``clock``
    is the time control (``clocks.settings``), None for none. A player entry
    ``{"open": true}`` leaves that seat open, with a join link (``lobby``); ``public``
    lists the open seats in the lobby. ``{"bot": level}`` makes the seat a computer player
    of that level (``engine.bots.LEVELS``), which the background jobs play. ``addressless``
    lets a player have no email (as one who took an open seat without one may, in a rematch).
    ``client`` is stored with a game between computers: who started it
    (``computer.client_key``). ``claimed``: the seats of players known across games (their
    ids, by seat), which a ``rated`` game needs (``checked_rating``); none of them may be
    suspended for a rated game or a public challenge (``sanctions``). ``offered``: open seats
    offered to one player each (a bot account's id, by seat; ``botaccounts.offers`` checks
    them), whom the game challenges and nobody else may take them. ``announce`` False:
    no start emails (a tournament tells its players of a round's games in one email)."""
    requested = new_game(game_id, players, options, seed, clock, public,
                         addressless=addressless, client=client, rated=rated,
                         rating_range=rating_range, claimed=claimed, offered=offered)
    if requested.rated or requested.public:
        sanctions.refuse_suspended(db, requested.claimed.values())
    return create_many(db, [requested], announce=announce)[0]


def new_game(game_id: Any, players: Any, options: Any, seed: str | None = None,
             clock: Any = None, public: Any = False, *, addressless: bool = False,
             client: str | None = None, rated: Any = False, rating_range: Any = None,
             claimed: Mapping[int, int] | None = None,
             offered: Mapping[int, int] | None = None) -> NewGame:
    """``create``'s checks of a request, without storing anything."""
    game = _checked_game(game_id)
    seats = [replace(s, offered_to=(offered or {}).get(s.seat)) if s.open else s
             for s in _checked_players(players, addressless)]
    spoken = _checked_languages(players)
    seed = secrets.token_hex(16) if seed is None else seed
    start = _checked(game.start, len(seats), options if options is not None else {}, seed)
    clock = _checked(clocks.settings, clock)
    waiting = any(s.open for s in seats)
    if not isinstance(public, bool):
        raise InvalidRequest("'public' must be true or false.")
    if public and (not waiting or all(s.open for s in seats)):
        raise InvalidRequest("A public challenge needs a player waiting and at least one "
                             "open seat.")
    claimed = claimed or {}
    rating_min, rating_max = checked_rating(seats, claimed, rated, rating_range, public,
                                            clock)
    return NewGame(game, seats, seed, start, clock, public, client, rated, rating_min,
                   rating_max, claimed, spoken)


def new_games(game_id: Any, entrants: Any, tables: Sequence[Sequence[int]], options: Any,
              clock: Any = None, *, rated: bool = False,
              claimed: Mapping[int, int] | None = None) -> list[NewGame]:
    """``new_game``'s checks for many games of one kind among the same players (a
    tournament's): ``entrants`` are player entries as ``new_game`` takes them, and each of
    ``tables`` seats some of them, by index, in seat order. The game, its options, its clock
    and each entrant are checked once, not once per game (a round robin of 100 makes 4,950).
    ``claimed``: the entrants' player ids, by index. ``rated``: each game that can be (not
    one between computers, nor, in a tournament made before rated games needed a clock,
    one without a clock)."""
    game = _checked_game(game_id)
    entered = _checked_players(entrants)
    spoken = _checked_languages(entrants)
    options = _checked(game.resolve_options, options)
    clock = _checked(clocks.settings, clock)
    for size in {len(table) for table in tables}:
        _checked(game.start, size, options, "")  # a number of players the game has
    claimed = claimed or {}
    # each entrant's Seat at each place it may take
    placed = [[Seat(place, s.name, s.email, s.bot) for place in range(max(game.player_counts))]
              for s in entered]
    requested = []
    for table in tables:
        seats = [placed[entrant][place] for place, entrant in enumerate(table)]
        ids = {place: claimed[entrant] for place, entrant in enumerate(table)
               if entrant in claimed}
        rates = rated and rated_clock(clock) is None and not all(s.bot for s in seats)
        checked_rating(seats, ids, rates, None, False, clock)
        seed = secrets.token_hex(16)
        requested.append(NewGame(game, seats, seed, game.initial_state(len(seats), options, seed),
                                 clock, False, None, rates, None, None, ids,
                                 [spoken[entrant] for entrant in table]))
    return requested


def _checked_game(game_id: Any) -> engine.Game:
    try:
        return engine.get(game_id)
    except engine.UnknownGame as error:
        raise InvalidRequest("%(error)s Games: %(games)s.", error=error.args[0],
                             games=tuple(engine.GAMES)) from None


def _checked(check: Callable[..., T], *args: Any) -> T:
    """``check(*args)``, a ValueError it raises (words for players) refused as the
    request's."""
    try:
        return check(*args)
    except ValueError as error:
        raise InvalidRequest(error.args[0]) from None


def create_many(db: sqlite_utils.Database, requested: Sequence[NewGame], *,
                announce: bool = True) -> list[Created]:
    """Store the games ``new_game`` checked, as ``create`` does, with one insert into each
    table for them all (a tournament starts thousands)."""
    now = utc.iso(utc.now())
    texts: dict[int, str] = {}  # each options and clock as stored: a tournament's games share
    for r in requested:        # theirs, encoded once
        for value in (r.start.options, r.clock):
            if id(value) not in texts:
                texts[id(value)] = json.dumps(value)
    timed = {key: clocks.stored(texts[key]) for key in {id(r.clock) for r in requested}}
    made = [Match(id=game_id, game=r.game, players=len(r.seats),
                  options=dict(r.start.options), seed=r.seed, created_at=now, seats=tuple(r.seats),
                  states=positions.Positions.starting(r.game, r.start), current=r.start,
                  clock=timed[id(r.clock)], rated=bool(r.rated))
            for game_id, r in zip(links.new_tokens(len(requested), GAME_ID_BYTES), requested)]
    with write(db):
        insert_rows(db, "games", [{
            "id": match.id, "game": r.game.id, "players": match.players,
            "options": texts[id(r.start.options)], "seed": r.seed, "created_at": now,
            **summary(r.start, r.waiting), "updated_at": now, "clock": texts[id(r.clock)],
            "public": int(r.public), "client": r.client, "rated": int(r.rated),
            "rating_min": r.rating_min, "rating_max": r.rating_max}
            for match, r in zip(made, requested)])
        insert_rows(db, "seats", [{"game_id": match.id, "seat": s.seat, "name": s.name,
                                   "email": s.email, "bot": s.bot,
                                   "player_id": r.claimed.get(s.seat), "language": language,
                                   "offered_to": s.offered_to}
                                  for match, r in zip(made, requested)
                                  for s, language in zip(r.seats, r.languages)])
        due.schedule_new(db, made)
        # a game not announced gets no links: whoever made it mints its own as it tells the
        # players (a tournament's round email), rather than three per game nobody is given
        created = _minted(db, made) if announce else [
            Created(match, (None,) * match.players, (None,) * match.players, None)
            for match in made]
        signals.games_created.send(db, games=created, announce=announce)
    return created


def _minted(db: sqlite_utils.Database, made: list[Match]) -> list[Created]:
    """New games with a secret link for each seat of a person, a join link for each open
    seat, and a spectator link."""
    seat_tokens = iter(links.mint_all(db, [(match.id, s.seat) for match in made
                                           for s in match.seats if not (s.open or s.bot)]))
    joins = iter(links.mint_all(db, [(match.id, s.seat) for match in made
                                     for s in match.seats if s.open],
                                table=links.INVITATIONS))
    spectators = links.mint_all(db, [(match.id, None) for match in made])
    return [Created(match,
                    tuple(None if s.open or s.bot else next(seat_tokens) for s in match.seats),
                    tuple(next(joins) if s.open else None for s in match.seats),
                    spectator)
            for match, spectator in zip(made, spectators)]


def _checked_players(players: Any, addressless: bool = False) -> list[Seat]:
    if not isinstance(players, list) or not players:
        raise InvalidRequest("'players' must be a list of {name, email} entries (or "
                             "{open: true} for a seat left open, {bot: level} for the "
                             "computer).")
    seats = []
    for number, entry in enumerate(players):
        if not isinstance(entry, dict):
            raise InvalidRequest("Player %(number)s must have a name and an email address.",
                                 number=number + 1)
        if not isinstance(entry.get("open", False), bool):
            raise InvalidRequest("Player %(number)s: 'open' must be true or false.",
                                 number=number + 1)
        if entry.get("open"):
            seats.append(Seat(number, None, None))
            continue
        if "bot" in entry:
            level = entry["bot"]
            if not isinstance(level, str) or level not in bots.LEVELS:
                raise InvalidRequest("Player %(number)s: 'bot' must be one of the computer's "
                                     "levels: %(levels)s.", number=number + 1,
                                     levels=tuple(bots.LEVELS))
            seats.append(Seat(number, bot_name(level), None, level))
            continue
        name, email = entry.get("name"), entry.get("email")
        name = checked_name(name, engine.Text("Player %(number)s", number=number + 1))
        if addressless and email is None:
            seats.append(Seat(number, name, None))
            continue
        if not isinstance(email, str) or not valid_email(email.strip()):
            raise InvalidRequest("Player %(number)s needs a valid email address.",
                                 number=number + 1)
        seats.append(Seat(number, name, email.strip()))
    return seats


def rated_clock(clock: Mapping[str, Any]) -> engine.Text | None:
    """Why a rated game cannot be played on ``clock`` (``clocks.settings``), or None: it
    needs one, which ends the game as a loss for the one whose time runs out, or a losing
    player could stop moving forever (or until a draw on time)."""
    if clock["mode"] == "none":
        return engine.Text("A rated game needs a clock: without one, a losing player could "
                           "stop moving forever.")
    if clock["on_timeout"] != "loss":
        return engine.Text("A rated game's clock ends it as a loss for the one whose time runs "
                           "out ('on_timeout': 'loss').")
    return None


def checked_rating(seats: Sequence[Seat], claimed: Mapping[int, int], rated: Any,
                   rating_range: Any, public: bool,
                   clock: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """Refuse a rated game that cannot be one: two players, each a player known across
    games (``claimed``), a computer level or an open seat (taken by such a player), not all
    the computer's, on a clock (``rated_clock``). Returns the range of ratings ``{"min",
    "max"}`` (either may be left out) that a public rated challenge asks of whoever takes
    its seats."""
    if not isinstance(rated, bool):
        raise InvalidRequest("'rated' must be true or false.")
    if not rated:
        if rating_range is not None:
            raise Refused("Only a rated game asks for a rating range.")
        return None, None
    if len(seats) != 2:
        raise Refused("Rated games are two-player games.")
    if (no_clock := rated_clock(clock)) is not None:
        raise Refused(no_clock)
    for s in seats:
        if not (s.open or s.bot or s.seat in claimed):
            raise Refused("Player %(number)s: in a rated game each seat is a player's key "
                          "({\"key\"}), the computer ({\"bot\": level}) or left open.",
                          number=s.seat + 1)
    if all(s.bot for s in seats):
        raise Refused("A rated game needs a player who is not the computer.")
    if len(set(claimed.values())) < len(claimed):
        raise Refused("A player cannot play both sides of a rated game.")
    if rating_range is None:
        return None, None
    if not public or not isinstance(rating_range, dict) or set(rating_range) - {"min", "max"} \
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 4000
                       for v in rating_range.values()):
        raise Refused("'rating_range' is for a public rated challenge: {\"min\", \"max\"}, "
                      "whole ratings from 0 to 4000, either may be left out.")
    low, high = rating_range.get("min"), rating_range.get("max")
    if low is not None and high is not None and low > high:
        raise Refused("The rating range's 'min' must not be above its 'max'.")
    return low, high


def _checked_languages(players: list[dict[str, Any]]) -> list[str]:
    """Each seat's language (its emails'), English unless its entry names another."""
    spoken = []
    for number, entry in enumerate(players):
        language = entry.get("language", languages.DEFAULT)
        if not languages.known(language):
            raise InvalidRequest("Player %(number)s: 'language' must be one of %(languages)s.",
                                 number=number + 1, languages=tuple(languages.LANGUAGES))
        spoken.append(language)
    return spoken
