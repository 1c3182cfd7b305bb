"""Bot accounts: players run by a program rather than by a person at a page.

A signed-in person registers a bot they own (``register``): a player row of its own, with a
handle and a key but no address (a program reads its events, ``player_events``, and plays
through the seat API; it gets no email). A player may also mark itself a bot
(``declare``: its own owner). Either way the bot says which games and clocks it accepts
and whether its owner lets it play rated games; it is listed on the "Bots" page and in the
new-game form as an opponent. Being a player, whatever applies to players (signing out
everywhere, deletion, a suspension) applies to it; deleting its owner deletes it.

A new game offers a bot a seat with ``{"handle"}`` (``offers``): the seat is left open,
offered to that player alone (``Seat.offered_to``), and the bot is told by a ``challenge``
event carrying its own join link; its program takes the seat with ``POST <join>`` and its
key, or lets the challenge expire as any open seat does.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import engine
import sqlite_utils

from . import clocks, matches, players
from .matches import InvalidRequest, Refused
from .players import Player
from .store import utc
from .store.db import hold_name, write


@dataclass(frozen=True)
class Bot:
    player: Player
    owner: str  # the handle of the player who registered it
    owner_id: int
    games: tuple[str, ...]  # the game ids it plays
    clocks: tuple[str, ...]  # the clock modes it accepts (``clocks.MODES``)
    rated: bool  # its owner lets it play rated games

    def to_json(self) -> dict[str, Any]:
        return {"handle": self.player.handle, "bot": True, "owner": self.owner,
                "games": list(self.games), "clocks": list(self.clocks), "rated": self.rated}

    def refusal(self, game: engine.Game, clock: Mapping[str, Any], rated: bool
                ) -> engine.Text | None:
        """Why the bot does not take a seat of such a game, or None if it does."""
        if game.id not in self.games:
            return engine.Text("The bot %(handle)s does not play %(game)s.",
                               handle=self.player.handle, game=game.title)
        if clock["mode"] not in self.clocks:
            return engine.Text("The bot %(handle)s does not play on that clock.",
                               handle=self.player.handle)
        if rated and not self.rated:
            return engine.Text("The owner of the bot %(handle)s does not let it play rated "
                               "games.", handle=self.player.handle)
        return None


_SELECT = ("SELECT b.games, b.clocks, b.rated, b.owner_id, o.handle AS owner, p.id, "
           "p.handle, p.email, p.generation, p.language FROM bot_accounts b "
           "JOIN players p ON p.id = b.player_id JOIN players o ON o.id = b.owner_id")


def _bot(row: Any) -> Bot:
    player = Player(row["id"], row["handle"], row["email"], row["generation"], row["language"])
    return Bot(player, row["owner"], row["owner_id"], tuple(json.loads(row["games"])),
               tuple(json.loads(row["clocks"])), bool(row["rated"]))


def of(db: sqlite_utils.Database, player: Player) -> Bot | None:
    """The player's bot account, or None for a person."""
    row = db.execute(f"{_SELECT} WHERE b.player_id = ?", [player.id]).fetchone()
    return _bot(row) if row else None


def listed(db: sqlite_utils.Database, owner: Player | None = None) -> list[Bot]:
    """Every bot (or those of ``owner``), by handle."""
    where, values = ("WHERE b.owner_id = ? ", [owner.id]) if owner else ("", [])
    return [_bot(row) for row in db.execute(f"{_SELECT} {where}ORDER BY lower(p.handle)",
                                            values)]


def checked_games(games: Any) -> tuple[str, ...]:
    if not isinstance(games, list) or not games or not all(
            isinstance(game, str) and game in engine.GAMES for game in games):
        raise InvalidRequest("'games' must list the games the bot plays, of %(games)s.",
                             games=tuple(engine.GAMES))
    return tuple(dict.fromkeys(games))


def checked_clocks(modes: Any) -> tuple[str, ...]:
    """The clock modes a bot accepts; left out (None): every one."""
    if modes is None:
        return clocks.MODES
    if not isinstance(modes, list) or not modes or not all(mode in clocks.MODES
                                                             for mode in modes):
        raise InvalidRequest("'clocks' must list the clock modes the bot accepts, of "
                             "%(modes)s.", modes=clocks.MODES)
    return tuple(mode for mode in clocks.MODES if mode in modes)


def _checked_rated(rated: Any) -> bool:
    if not isinstance(rated, bool):
        raise InvalidRequest("'rated' must be true or false: whether the bot may play rated "
                             "games.")
    return rated


def _store(db: sqlite_utils.Database, bot: Player, owner: Player, games: Sequence[str],
           modes: Sequence[str], rated: bool) -> Bot:
    db.execute("INSERT INTO bot_accounts (player_id, owner_id, games, clocks, rated, "
               "created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (player_id) DO UPDATE SET "
               "games = excluded.games, clocks = excluded.clocks, rated = excluded.rated",
               [bot.id, owner.id, json.dumps(list(games)), json.dumps(list(modes)), int(rated),
                utc.iso(utc.now())])
    found = of(db, bot)
    assert found is not None  # just written
    return found


def register(db: sqlite_utils.Database, owner: Player, handle: Any, games: Any,
             modes: Any = None, rated: Any = False) -> Bot:
    """A new bot account owned by ``owner`` (a person: a bot registers no bots), under
    ``handle``; its key is ``players.key`` of its player. The handle of a bot of
    ``owner``'s changes what that bot accepts instead."""
    with write(db):
        if (owned := of(db, owner)) is not None:
            raise Refused("%(handle)s is a bot: only a person registers bots.",
                          handle=owned.player.handle)
        games, modes, rated = checked_games(games), checked_clocks(modes), _checked_rated(rated)
        known = players.by_handle(db, handle) if isinstance(handle, str) else None
        if known is not None and (own := of(db, known)) is not None and own.owner_id == owner.id:
            hold_name(db, f"bot:{known.id}")
            return _store(db, known, owner, games, modes, rated)
        if isinstance(handle, str) and players.skeleton(handle).startswith(
                players.skeleton(players.RESERVED)):
            raise players.HandleTaken("Handles that begin with %(reserved)s are the "
                                      "computer's.", reserved=players.RESERVED)
        bot = players.create(db, handle, None, owner.language)
        return _store(db, bot, owner, games, modes, rated)


def declare(db: sqlite_utils.Database, player: Player, games: Any, modes: Any = None,
            rated: Any = None) -> Bot:
    """Mark ``player`` a bot run by a program (its own owner), or change what a bot
    accepts. A bot another player owns keeps its owner, and plays rated games only as its
    owner lets it: its own ``rated`` is left as the owner set it."""
    with write(db):
        hold_name(db, f"bot:{player.id}")
        known = of(db, player)
        owner = players.find(db, known.owner_id) if known else None
        games, modes = checked_games(games), checked_clocks(modes)
        if known is not None and known.owner_id != player.id:
            rated = known.rated
        return _store(db, player, owner or player, games, modes,
                      _checked_rated(False if rated is None else rated))


def offers(db: sqlite_utils.Database, entries: Any, game_id: Any, clock: Any,
           rated: Any) -> tuple[Any, dict[int, int]]:
    """The players' entries of a new game with each ``{"handle"}`` (a bot's) made an open
    seat, and the bots' ids by seat, for ``creation.create``'s ``offered``. A handle that is
    no bot's, or a bot that does not play such a game, is refused."""
    if not isinstance(entries, list) or not any(
            isinstance(entry, dict) and "handle" in entry for entry in entries):
        return entries, {}
    game = engine.GAMES.get(game_id) if isinstance(game_id, str) else None
    try:
        clock = clocks.settings(clock)
    except ValueError:
        clock = None
    offered, resolved = {}, []
    for number, entry in enumerate(entries):
        if isinstance(entry, dict) and "handle" in entry:
            handle = entry["handle"]
            player = players.by_handle(db, handle) if isinstance(handle, str) else None
            bot = of(db, player) if player else None
            if bot is None:
                raise InvalidRequest("Player %(number)s: 'handle' must be a bot's handle (see "
                                     "the bots, /api/bots).", number=number + 1)
            if game is not None and clock is not None and (
                    refusal := bot.refusal(game, clock, rated is True)):
                raise Refused(refusal)
            offered[number] = bot.player.id
            entry = {"open": True}
        resolved.append(entry)
    return resolved, offered


def seat_refusal(db: sqlite_utils.Database, match: matches.Match, seat: int,
                 player: Player | None) -> engine.Text | None:
    """Why ``player`` (None: someone not signed in) may not take ``seat``: one offered to
    another player, or a rated game's whose bot its owner keeps from rated games."""
    if player is not None and match.rated and (
            refusal := rated_refusal(db, [player.id])) is not None:
        return refusal
    offered_to = match.seats[seat].offered_to
    if offered_to is None or (player is not None and player.id == offered_to):
        return None
    offered = players.find(db, offered_to)
    return engine.Text("This seat is offered to %(handle)s alone.",
                       handle=offered.handle if offered else matches.FORMER_PLAYER)


def rated_refusal(db: sqlite_utils.Database, player_ids: Iterable[int]) -> engine.Text | None:
    """Why a rated game may not seat these players: a bot among them whose owner keeps it
    from rated games; None if none is."""
    for player_id in player_ids:
        player = players.find(db, player_id)
        bot = of(db, player) if player else None
        if bot is not None and not bot.rated:
            return engine.Text("The owner of the bot %(handle)s does not let it play rated "
                               "games.", handle=bot.player.handle)
    return None
