"""Finding opponents: the open seats of games, and the lobby of public challenges.

A game may be created with seats left open (``creation.create``). Each open seat has a join
link, a secret like the play links (only its hash is stored, in ``invitations``); a game
made public lists its open seats in the lobby (``challenges``), where each may be taken by
anyone, with no secret (the pages and the API: ``pbem/web/lobby.py``). ``take_seat`` seats
a player in either.

Nothing here shows more of a game than its options: a seat is named as on the form that
creates a game (``Match.open_seat_name``), since Magnetic Field deals its colours by chance,
from the secret seed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import engine
import sqlite_utils

from . import (blocks, botaccounts, clocks, commands, fairplay, glicko, languages, links,
               matches, players, ratings, sanctions)
from .events import Command, Joiner, Refused
from .matches import Match
from .store import utc
from .store.db import write


def options_text(match: Match, reader: int | None) -> list[str]:
    """The game's options in words as the player of seat ``reader`` reads them, the form's
    own words (e.g. ["Starting position: Crown"]); a spectator (None) reads those that say
    the same to everyone (the players' sides say the rest: "You play Blue" would not)."""
    return [f"{languages.translated(option.label)}: " + languages.translated(
                option.choice_label(match.options.get(option.name, option.default),
                                    reader or 0))
            for option in match.game.options
            if reader is not None or not any(isinstance(words, tuple)
                                             for words in option.choice_words.values())]


@dataclass(frozen=True)
class Filters:
    """What a visitor narrows the lobby to (its page's form, the API's query string):
    a game (engine id), a clock mode (``clocks.MODES``), a range of the waiting
    players' ratings in their game (unrated challenges then drop out) and the least share
    of their finished games that the waiting players completed (``fairplay.Record``; those
    without an account or a finished game then drop out). Unknown or empty values filter
    nothing."""
    game: str | None = None
    clock: str | None = None
    min_rating: int | None = None
    max_rating: int | None = None
    min_completion: int | None = None

    @classmethod
    def of(cls, args: Mapping[str, str]) -> Filters:
        def whole(name: str) -> int | None:
            try:
                return int(args.get(name, ""))
            except ValueError:  # not a whole number ("", "1.5", "²", "--5"): no filter
                return None
        game, clock = args.get("game", ""), args.get("clock", "")
        return cls(game if game in engine.GAMES else None,
                   clock if clock in clocks.MODES else None,
                   whole("min_rating"), whole("max_rating"), whole("min_completion"))

    @property
    def active(self) -> bool:
        return self != Filters()

    @property
    def by_rating(self) -> bool:
        return self.min_rating is not None or self.max_rating is not None

    def admits(self, rating: float) -> bool:
        return (self.min_rating is None or rating >= self.min_rating) \
            and (self.max_rating is None or rating <= self.max_rating)


def challenges(db: sqlite_utils.Database, filters: Filters = Filters(),
               viewer: players.Player | None = None) -> list[tuple[Match, int]]:
    """Every open seat of the public games that wait for players and have not expired,
    oldest first, as far as ``filters`` let them through; for ``viewer``, not those of
    players they block or who block them (``blocks.estranged``)."""
    since = utc.iso(utc.now() - matches.CHALLENGE_LIFETIME)
    found: list[tuple[Match, int]] = []
    for row in db.query("SELECT id FROM games WHERE public = 1 AND status = 'waiting' "
                        "AND created_at > ? ORDER BY created_at, rowid", [since]):
        match = matches.load(db, row["id"])
        if filters.game not in (None, match.game.id) \
                or filters.clock not in (None, (match.clock.mode if match.clock else "none")):
            continue
        if filters.by_rating:
            standings = ratings.seat_standings(db, match)
            if not all(s.seat in standings and filters.admits(standings[s.seat].rating.rating)
                       for s in match.seats if not s.open):
                continue
        if filters.min_completion is not None and not _completed(db, match,
                                                                 filters.min_completion):
            continue
        if viewer is not None and blocks.estranged(db, match.id, viewer):
            continue
        found.extend((match, seat) for seat in match.open_seats
                     if match.seats[seat].offered_to is None)  # a bot's is not for anyone
    return found


def _completed(db: sqlite_utils.Database, match: Match, least: int) -> bool:
    """Whether every waiting player of the challenge completed at least ``least`` percent
    of their finished games (a seat without an account has no record: it does not)."""
    seated = ratings.seat_players(db, match.id)
    waiting = [s.seat for s in match.seats if not s.open]
    if not all(seat in seated for seat in waiting):
        return False
    found = fairplay.records(db, [seated[seat] for seat in waiting])
    return all((record := found.get(seated[seat])) is not None
               and record.completion is not None and record.completion >= least
               for seat in waiting)


def take_seat(db: sqlite_utils.Database, game_id: str, seat: int,
              player: players.Player | None, joiner: Joiner, language: str) -> tuple[Match, str]:
    """Seat ``joiner`` in the open seat ``seat`` of ``game_id``, for ``player`` (signed in,
    or by their key; None: nobody), its emails in ``language``: the game after the join and
    the seat's new secret link. A rated seat is the player's, by handle. Raises an
    ``ActionError`` (nothing changed) when the seat may not be taken."""
    with write(db):
        match = matches.load(db, game_id)
        if 0 <= seat < match.players and (
                refusal := botaccounts.seat_refusal(db, match, seat, player)):
            raise Refused(refusal)
        if refusal := blocks.refusal(db, game_id, player):
            raise Refused(refusal)
        if player is not None:  # a suspended player takes no rated or public seat
            if match.rated or _public(db, game_id):
                sanctions.refuse_suspended(db, [player.id])
            fairplay.refuse_over_room(db, [player.id])
        if match.rated:  # a rated seat: a player's, by handle
            if refusal := rated_seat_refusal(db, match, player):
                raise Refused(refusal)
            assert player is not None  # the refusal's: nobody signed in
            joiner = Joiner(player.handle, player.email)
        matches.set_language(db, game_id, seat, language)
        if player is not None:  # before the join: what it sets off knows whose seat
            players.claim(db, player, game_id, seat)
        after = commands.submit(db, game_id, seat, Command.of("join", joiner)).match
        return after, links.mint(db, game_id, seat)


def _public(db: sqlite_utils.Database, game_id: str) -> bool:
    return db.execute("SELECT public FROM games WHERE id = ?", [game_id]).fetchone()[0] == 1


def rated_seat_refusal(db: sqlite_utils.Database, match: Match,
                        player: players.Player | None) -> engine.Text | None:
    """Why ``player`` (None: nobody signed in) may not take a seat of the rated game
    ``match``: only a player (signed in, or with their key) not already in the game, whose
    rating is in the range the challenge asks for."""
    if player is None:
        return engine.Text("This is a rated game: sign in to take its seat (or, with the API, "
                           "send your player key as 'key').")
    if player.id in ratings.seat_players(db, match.id).values():
        return engine.Text("You already play in this game.")
    low, high = rating_range(db, match.id)
    standing = ratings.of_players(db, match.game.id, [player.id]).get(player.id)
    rating = standing.rating.rating if standing else glicko.RATING
    if (low is not None and rating < low) or (high is not None and rating > high):
        return engine.Text("This challenge asks for a rating in %(game)s %(range)s; yours is "
                           "%(rating)s.", game=match.game.title,
                           range=ratings.range_text(low, high), rating=round(rating))
    return None


def rating_range(db: sqlite_utils.Database, game_id: str) -> tuple[int | None, int | None]:
    """The ratings a rated challenge asks of whoever takes its seats: (lowest, highest),
    either None."""
    return tuple(db.execute("SELECT rating_min, rating_max FROM games WHERE id = ?",
                            [game_id]).fetchone())
