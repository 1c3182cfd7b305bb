"""Tournaments: players enter, rounds of ordinary games are paired (``pairings``), and the
standings are counted from the results.

Every game of a tournament is an ordinary game of this server (emails, clocks and their
vacation days, computers as players, chat, review), made by ``creation.create`` between two
entrants known across games (``players``). When one ends (``game_ended``, subscribed to
``signals.event_recorded``, in the transaction that records the end) its result is kept
here and the tournament moves on (``_advance``): a round robin made all its games at the
start and finishes when they are over; a Swiss pairs its next round once every game of the
round has ended; a knockout replays a drawn game at once, colours swapped, and pairs the
winners once every tie of the round is decided. Where that makes more games than
``TOURNAMENT_GAMES_AT_ONCE`` (a large field's start or next round), the request that called
for them (the start, the move that ended a round's last game) leaves them to the job
process, which makes them within seconds (``make_due``), so that no player waits on
thousands of games or a pairing of 1,000. A round may have a deadline, after which
the job process adjudicates its unfinished games (``adjudicate_due``): a draw, or a loss
for the one with less time left. A player who withdraws after the start loses their
unfinished games on forfeit and is paired no more. The server records those ends as its own
events (``adjudicated``, ``forfeited``), as it does a timeout: nobody offered, accepted or
resigned anything.
"""
from __future__ import annotations

import contextlib
import gc
import hmac
import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any, Iterator, Sequence

import engine
import sqlite_utils
from engine import bots

from . import (clocks, commands, creation, links, matches, pairings, players, ratings, sanctions,
               server, signals)
from .events import Command, SeatTaken, Verdict
from .matches import ActionError, Event, InvalidRequest, Match, Refused
from .store.db import claimed, hold_name, insert_rows, write
from .store import utc

FORMATS = ("round-robin", "swiss", "knockout", "league")
FORMAT_NAMES = {"round-robin": engine.Text("round robin"), "swiss": engine.Text("Swiss system"),
                "knockout": engine.Text("knockout"), "league": engine.Text("league")}
ADJUDICATIONS = ("draw", "time")
TIEBREAKS = {"round-robin": pairings.SONNEBORN_BERGER, "league": pairings.SONNEBORN_BERGER,
             "swiss": pairings.BUCHHOLZ}
# The largest fields, by what the benchmarks show one start or round costs (docs/
# benchmarks.md): a round robin of 100 makes 4,950 games at its start (9,900 double) in
# about a second; a Swiss or a knockout of 1,000 pairs a round of 500 games in under one.
MOST_PLAYERS = 1000
MOST_ROUND_ROBIN = 100
MOST_ROUNDS = 50
MOST_OPEN = 5  # tournaments not yet started that one organiser may hold


def most_players(format_: str, division_size: int | None = None) -> int:
    """The most players a tournament of ``format_`` takes: a round robin 100; a league as
    many as make about the games of a round robin of 100 a season (1,000 in divisions of up
    to 10, 202 in divisions of 50); a Swiss or a knockout 1,000."""
    if format_ == "round-robin":
        return MOST_ROUND_ROBIN
    if format_ == "league" and division_size:
        return min(MOST_PLAYERS, MOST_ROUND_ROBIN * (MOST_ROUND_ROBIN - 1)
                   // (division_size - 1))
    return MOST_PLAYERS


class Forbidden(ActionError):
    """What only the organiser may do."""
    status = 403


class NoTournament(ActionError):
    status = 404


@dataclass(frozen=True)
class Tournament:
    id: str
    name: str
    game: engine.Game
    options: dict[str, Any]
    clock: dict[str, Any]
    format: str
    rounds: int | None  # swiss: its rounds; round-robin, league: 2 for a double one
    division_size: int | None  # league: players in a division
    promote: int | None  # league: how many go up and down a division each season
    season: int
    previous_id: str | None  # league: the season before
    min_players: int
    max_players: int | None
    rated: bool
    public: bool
    organiser_id: int
    organiser: str  # the organiser's handle
    starts_at: str | None
    round_days: int | None
    adjudication: str
    status: str
    round: int
    round_deadline: str | None
    games_due_at: str | None  # since when games wait for the job process to make them
    created_at: str
    updated_at: str

    @property
    def most_players(self) -> int:
        """The most entries it takes: its own maximum, within its format's (one made
        before the formats had theirs may have none, or a larger one)."""
        largest = most_players(self.format, self.division_size)
        return min(self.max_players or largest, largest)

    @property
    def tiebreak(self) -> str | None:
        return TIEBREAKS.get(self.format)

    @property
    def format_name(self) -> engine.Text:
        """The format in the reader's words ("round robin", "круговой" for "round-robin")."""
        return FORMAT_NAMES[self.format]


@dataclass(frozen=True)
class Entrant:
    player_id: int
    handle: str
    email: str | None  # None: a computer level (its handle computer-<level>)
    seed: int
    withdrawn: bool
    division: int | None  # league: 1 the top one
    next_season: bool  # league: not opted out of the next season

    @property
    def level(self) -> str | None:
        """The computer's level that plays this entrant, or None for a person."""
        return self.handle.removeprefix(ratings.computer_handle("")) if self.email is None \
            else None


@dataclass(frozen=True)
class Pairing:
    """One row of ``tournament_games``: a game, or a bye (``game_id`` None)."""
    round: int
    number: int
    game_id: str | None
    first_id: int
    second_id: int | None
    points: float | None
    ended_at: str | None
    outcome: dict[str, Any] | None  # the game's, as the API shows it
    created_at: str | None  # the game's

    def result(self) -> pairings.Game:
        return pairings.Game(self.round, self.first_id, self.second_id,
                             1.0 if self.second_id is None else self.points)


# -- reading ------------------------------------------------------------------------------

COLUMNS = ("SELECT t.*, p.handle AS organiser FROM tournaments t "
           "JOIN players p ON p.id = t.organiser_id ")


def _tournament(row: Any) -> Tournament:
    row = dict(row)
    return Tournament(
        id=row["id"], name=row["name"], game=engine.get(row["game"]),
        options=json.loads(row["options"]), clock=json.loads(row["clock"]),
        format=row["format"], rounds=row["rounds"], division_size=row["division_size"],
        promote=row["promote"], season=row["season"], previous_id=row["previous_id"],
        min_players=row["min_players"],
        max_players=row["max_players"], rated=bool(row["rated"]), public=bool(row["public"]),
        organiser_id=row["organiser_id"], organiser=row["organiser"],
        starts_at=row["starts_at"], round_days=row["round_days"],
        adjudication=row["adjudication"], status=row["status"], round=row["round"],
        round_deadline=row["round_deadline"], games_due_at=row["games_due_at"],
        created_at=row["created_at"],
        updated_at=row["updated_at"])


def find(db: sqlite_utils.Database, tournament_id: str) -> Tournament | None:
    rows = list(db.query(COLUMNS + "WHERE t.id = ?", [tournament_id]))
    return _tournament(rows[0]) if rows else None


def listed(db: sqlite_utils.Database, statuses: tuple[str, ...] = ("open", "running",
                                                                    "finished"),
           most: int = 100) -> list[Tournament]:
    """The public tournaments in those states, the newest first."""
    marks = ", ".join("?" * len(statuses))
    return [_tournament(row) for row in db.query(
        COLUMNS + f"WHERE t.public = 1 AND t.status IN ({marks}) "
        "ORDER BY t.created_at DESC, t.id LIMIT ?", [*statuses, most])]


def entrants(db: sqlite_utils.Database, tournament: Tournament) -> list[Entrant]:
    """In seed order (the order of entry)."""
    return [Entrant(row["player_id"], row["handle"], row["email"], row["seed"],
                    row["withdrawn_at"] is not None, row["division"], bool(row["next_season"]))
            for row in db.query(
        "SELECT e.player_id, p.handle, p.email, e.seed, e.withdrawn_at, e.division, "
        "e.next_season "
        "FROM tournament_players e JOIN players p ON p.id = e.player_id "
        "WHERE e.tournament_id = ? ORDER BY e.seed", [tournament.id])]


def games(db: sqlite_utils.Database, tournament: Tournament,
          from_round: int = 0) -> list[Pairing]:
    """Its games and byes (from round ``from_round`` on), round by round."""
    return [Pairing(row["round"], row["number"], row["game_id"], row["first_id"],
                    row["second_id"], row["points"], row["ended_at"],
                    json.loads(row["outcome"]) if row["outcome"] else None, row["created_at"])
            for row in db.query(
        "SELECT tg.*, g.outcome, g.created_at FROM tournament_games tg "
        "LEFT JOIN games g ON g.id = tg.game_id WHERE tg.tournament_id = ? AND tg.round >= ? "
        "ORDER BY tg.round, tg.number", [tournament.id, from_round])]


def watch_tokens(game_ids: Sequence[str]) -> list[str]:
    """The spectator links' secrets of a tournament's games, as public as the tournament
    (its cross-table links to them): each derived from the server's secret key and the
    game, so the same each time, and stored only hashed, as every link is
    (``_store_rounds``)."""
    key = str(server.setting("SECRET_KEY")).encode()
    return [links.token_text(hmac.digest(key, f"tournament-watch {game_id}".encode(),
                                         "sha256")[:links.TOKEN_BYTES])
            for game_id in game_ids]


@dataclass(frozen=True)
class Table:
    """What a tournament's page and JSON show."""
    tournament: Tournament
    entrants: list[Entrant]
    games: list[Pairing]
    standings: list[pairings.Standing]
    winner: Entrant | None

    def handle(self, player_id: int | None) -> str | None:
        return self._handles.get(player_id)

    @cached_property
    def _handles(self) -> dict[int | None, str]:  # a round robin's JSON asks 9,900 times
        return {e.player_id: e.handle for e in self.entrants}


def table(db: sqlite_utils.Database, tournament: Tournament) -> Table:
    entered = entrants(db, tournament)
    played = games(db, tournament)
    seeds = [e.player_id for e in entered]
    # players who deleted their identity (``players.delete`` takes their entry): their
    # games still count, under no handle
    seeds += list(dict.fromkeys(p for g in played for p in (g.first_id, g.second_id)
                                if p is not None and p not in seeds))
    results = [g.result() for g in played]
    if tournament.format == "knockout":
        rounds = pairings.knockout(seeds, results, _withdrawn(entered))
        standing = pairings.knockout_standings(seeds, results, rounds)
        won = pairings.knockout_winner(rounds) if tournament.status == "finished" else None
    else:  # a league's standings division by division (the others: one division)
        standing = []
        for division in divisions(entered) if tournament.format == "league" else [seeds]:
            members = set(division)
            standing += pairings.standings(division, [
                g for g in results if g.first in members
                and (g.second is None or g.second in members)], tournament.tiebreak)
        won = standing[0].player if tournament.status == "finished" and standing else None
    by_id = {e.player_id: e for e in entered}
    return Table(tournament, entered, played, standing,
                 by_id.get(won) if won is not None else None)


def divisions(entered: list[Entrant]) -> list[list[int]]:
    """The players of each division, the top one first (one for all but a league)."""
    found: dict[int, list[int]] = {}
    for entrant in entered:
        found.setdefault(entrant.division or 1, []).append(entrant.player_id)
    return [found[number] for number in sorted(found)]


# -- making one ---------------------------------------------------------------------------

@dataclass(frozen=True)
class NewTournament:
    """A request for a tournament, read and checked (``web.tournaments.checked``)."""
    name: str
    game: engine.Game
    options: dict[str, Any]
    clock: dict[str, Any]  # clocks.settings
    format: str
    rounds: int | None
    division_size: int | None
    promote: int | None
    min_players: int
    max_players: int
    rated: bool
    public: bool
    starts_at: str | None
    round_days: int | None
    adjudication: str


def create(db: sqlite_utils.Database, organiser: players.Player,
           request: NewTournament) -> Tournament:
    """A new tournament that ``organiser`` runs, open for entries: a rated one needs a
    clock that rated games can be played on (``creation.rated_clock``), and an organiser
    holds at most ``MOST_OPEN`` that have not started."""
    sanctions.refuse_suspended(db, [organiser.id])
    if request.rated and (no_clock := creation.rated_clock(request.clock)) is not None:
        raise Refused(no_clock)
    now = utc.iso(utc.now())
    tournament_id = secrets.token_urlsafe(6)
    with write(db):
        hold_name(db, f"organiser:{organiser.id}")  # two at once count each other
        waiting = db.execute("SELECT COUNT(*) FROM tournaments WHERE organiser_id = ? AND "
                             "status = 'open'", [organiser.id]).fetchone()[0]
        if waiting >= MOST_OPEN:
            raise Refused("You already organise %(most)s tournaments that have not started: "
                          "start or cancel one of them first.", most=MOST_OPEN)
        db["tournaments"].insert({
            "id": tournament_id, "name": request.name, "game": request.game.id,
            "options": json.dumps(request.options), "clock": json.dumps(request.clock),
            "format": request.format, "rounds": request.rounds,
            "division_size": request.division_size, "promote": request.promote,
            "min_players": request.min_players, "max_players": request.max_players,
            "rated": int(request.rated), "public": int(request.public),
            "organiser_id": organiser.id, "starts_at": request.starts_at,
            "round_days": request.round_days, "adjudication": request.adjudication,
            "status": "open", "round": 0, "created_at": now, "updated_at": now})
    return _fresh(db, tournament_id)


# -- entries ------------------------------------------------------------------------------

def _held(db: sqlite_utils.Database, tournament_id: str) -> Tournament:
    """The tournament as it is now, inside a write transaction that keeps other changes to
    it waiting (entries counted against its maximum, rounds started once)."""
    hold_name(db, f"tournament:{tournament_id}")
    return _fresh(db, tournament_id)


def _fresh(db: sqlite_utils.Database, tournament_id: str) -> Tournament:
    tournament = find(db, tournament_id)
    if tournament is None:
        raise NoTournament("There is no such tournament.")
    return tournament


def enter(db: sqlite_utils.Database, tournament_id: str, player: players.Player) -> None:
    with write(db):
        tournament = _held(db, tournament_id)
        if tournament.status != "open":
            raise SeatTaken("The tournament has started: entries are closed.")
        entered = entrants(db, tournament)
        if any(e.player_id == player.id for e in entered):
            return
        if len(entered) >= tournament.most_players:
            raise SeatTaken("The tournament is full (%(most)s players).",
                            most=tournament.most_players)
        sanctions.refuse_suspended(db, [player.id])
        db.execute("INSERT INTO tournament_players (tournament_id, player_id, seed) "
                   "VALUES (?, ?, ?)",
                   [tournament.id, player.id, max((e.seed for e in entered), default=0) + 1])
        _touch(db, tournament)


def enter_computer(db: sqlite_utils.Database, tournament_id: str, by: players.Player,
                   level: Any) -> None:
    """The organiser enters the computer at ``level`` (each level is a player)."""
    if not isinstance(level, str) or level not in bots.LEVELS:
        raise InvalidRequest("'bot' must be one of the computer's levels: %(levels)s.",
                             levels=tuple(bots.LEVELS))
    with write(db):
        _organised(db, tournament_id, by)
        handle = ratings.computer_handle(level)
        enter(db, tournament_id, players.Player(ratings.computer_player(db, handle), handle,
                                                None, 0))


def withdraw(db: sqlite_utils.Database, tournament_id: str, player_id: int) -> None:
    """Before the start the entry goes; after it, the player is paired no more and their
    unfinished games are lost on forfeit."""
    with write(db):
        tournament = _held(db, tournament_id)
        if tournament.status == "open":
            db.execute("DELETE FROM tournament_players WHERE tournament_id = ? AND "
                       "player_id = ?", [tournament.id, player_id])
        elif tournament.status == "running":
            db.execute("UPDATE tournament_players SET withdrawn_at = ? WHERE tournament_id = ? "
                       "AND player_id = ? AND withdrawn_at IS NULL",
                       [utc.iso(utc.now()), tournament.id, player_id])
            for game in games(db, tournament):
                if game.game_id and game.points is None and player_id in (game.first_id,
                                                                          game.second_id):
                    _forfeit(db, game.game_id, 0 if player_id == game.first_id else 1)
            # a knockout's tie may be decided now
            _advance(db, _fresh(db, tournament.id), _at_once())
        else:
            raise Refused("The tournament is over.")
        _touch(db, tournament)


def _forfeit(db: sqlite_utils.Database, game_id: str, seat: int) -> None:
    """End ``seat``'s game as lost on forfeit, unless its clock has already run out (then
    the clock job ends it)."""
    try:
        commands.submit(db, game_id, seat, Command.of("forfeited"), server=True)
    except Refused:
        pass


# -- the organiser's tools ----------------------------------------------------------------

def _organised(db: sqlite_utils.Database, tournament_id: str,
               by: players.Player) -> Tournament:
    tournament = _held(db, tournament_id)
    if tournament.organiser_id != by.id:
        raise Forbidden("Only the tournament's organiser may do that.")
    return tournament


def remove(db: sqlite_utils.Database, tournament_id: str, by: players.Player,
           handle: str) -> None:
    with write(db):
        tournament = _organised(db, tournament_id, by)
        entrant = next((e for e in entrants(db, tournament)
                        if e.handle.lower() == str(handle).lower()), None)
        if entrant is None:
            raise InvalidRequest("%(handle)s has not entered this tournament.", handle=handle)
        withdraw(db, tournament_id, entrant.player_id)


def cancel(db: sqlite_utils.Database, tournament_id: str, by: players.Player) -> None:
    """Stop it: no more rounds; the games being played go on as ordinary games."""
    with write(db):
        tournament = _organised(db, tournament_id, by)
        if tournament.status in ("finished", "cancelled"):
            raise Refused("The tournament is over.")
        _finish(db, tournament, "cancelled")


def start(db: sqlite_utils.Database, tournament_id: str, by: players.Player | None) -> None:
    """Close the entries and make the first round's games (a round robin's every game), or
    leave them to the job process if they are many; ``by`` None: the job, at the start
    time."""
    with write(db), _cycles_uncollected():
        tournament = _held(db, tournament_id) if by is None else \
            _organised(db, tournament_id, by)
        if tournament.status != "open":
            raise Refused("The tournament has already started.")
        entered = entrants(db, tournament)
        if len(entered) < tournament.min_players:
            raise Refused("The tournament needs at least %(least)s players (%(count)s "
                          "entered).", least=tournament.min_players, count=len(entered))
        if len(entered) > tournament.most_players:  # entered before the formats' limits
            raise Refused("The tournament has more players than it can take (%(count)s "
                          "entered, at most %(most)s): remove some first.",
                          count=len(entered), most=tournament.most_players)
        db.execute("UPDATE tournaments SET status = 'running' WHERE id = ?", [tournament.id])
        _advance(db, _fresh(db, tournament.id), _at_once())


@contextlib.contextmanager
def _cycles_uncollected() -> Iterator[None]:
    """Python's cyclic garbage collector paused for the block, as Mercurial pauses it while
    it builds large structures: a round robin's start makes hundreds of thousands of
    objects, in no cycle (each is freed when its last reference goes), and the collector
    walked every object of the process twice meanwhile, a seventh of the start's CPU. A
    cycle made meanwhile is collected after."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


# -- rounds -------------------------------------------------------------------------------

def _withdrawn(entered: list[Entrant]) -> set[int]:
    return {e.player_id for e in entered if e.withdrawn}


def _at_once() -> int:
    """The most games a tournament makes where something calls for them (a start, a
    round's last game ending, a withdrawal): more are left to the job process."""
    return int(server.setting("TOURNAMENT_GAMES_AT_ONCE"))


def _left_to_job(db: sqlite_utils.Database, tournament: Tournament, count: int,
                 most: int | None) -> bool:
    """Whether ``count`` new games are more than ``most`` (None: no limit): then the job
    process is to make them (``make_due``), and the tournament says since when."""
    if most is None or count <= most:
        return False
    db.execute("UPDATE tournaments SET games_due_at = COALESCE(games_due_at, ?) WHERE id = ?",
               [utc.iso(utc.now()), tournament.id])
    return True


def _advance(db: sqlite_utils.Database, tournament: Tournament, most: int | None) -> None:
    """Make the games that are due now (the first round's, a round robin's every one, the
    next round, a knockout's replays), or finish the tournament once none can be; more than
    ``most`` of them (None: any number) are left to the job process."""
    if tournament.status != "running":
        return
    entered = entrants(db, tournament)
    if tournament.round == 0 and tournament.format in ("round-robin", "league"):
        _round_robins(db, tournament, entered, most)
        return
    seeds = [e.player_id for e in entered]
    played = games(db, tournament)
    results = [g.result() for g in played]
    if tournament.format != "knockout" and any(g.points is None and g.game_id
                                               for g in played):
        return  # the round goes on (a knockout replays a drawn game meanwhile)
    if tournament.format == "round-robin":
        _finish(db, tournament, "finished")
    elif tournament.format == "league":
        _finish(db, tournament, "finished")
        _next_season(db, _fresh(db, tournament.id))
    elif tournament.format == "swiss":
        pairing = None
        if tournament.round < (tournament.rounds or 0):
            if _left_to_job(db, tournament, (len(seeds) - len(_withdrawn(entered))) // 2,
                            most):
                return
            pairing = pairings.swiss(seeds, results, _withdrawn(entered))
        if pairing is None or not pairing.pairs:
            _finish(db, tournament, "finished")
            return
        _begin(db, tournament, tournament.round + 1, pairing.pairs, pairing.bye)
    else:
        rounds = pairings.knockout(seeds, results, _withdrawn(entered))
        if pairings.knockout_winner(rounds) is not None:
            _finish(db, tournament, "finished")
            return
        due = [pair for pair in (tie.next_game() for tie in rounds[-1]) if pair]
        if due and not _left_to_job(db, tournament, len(due), most):
            _begin(db, tournament, len(rounds), due, None)


def _round_robins(db: sqlite_utils.Database, tournament: Tournament, entered: list[Entrant],
                  most: int | None) -> None:
    """A round robin's every game (a league's: one round robin a division), at its start:
    among those who did not withdraw while the job process had them to make."""
    playing = [e for e in entered if not e.withdrawn]
    seeds = [e.player_id for e in playing]
    if any(e.division for e in playing):  # a league's next season: as it was made
        split = divisions(playing)
    else:
        split = pairings.divisions(seeds, tournament.division_size or len(seeds))
    every: list[tuple[int, list[tuple[int, int]]]] = []
    for division in split:
        every += enumerate(pairings.round_robin(division, double=tournament.rounds == 2),
                           start=1)
    if _left_to_job(db, tournament, sum(len(pairs) for _, pairs in every), most):
        return
    for number, division in enumerate(split, start=1):
        db.conn.executemany(
            "UPDATE tournament_players SET division = ? WHERE tournament_id = ? AND "
            "player_id = ?", [(number, tournament.id, p) for p in division])
    new = _store_rounds(db, tournament, every, None, entered)
    _started(db, tournament, max((number for number, _ in every), default=0),
             new)  # one deadline for all


def _begin(db: sqlite_utils.Database, tournament: Tournament, number: int,
           pairs: list[tuple[int, int]], bye: int | None) -> None:
    """Start round ``number`` (or, in a knockout, add its replays)."""
    _started(db, tournament, number, _store_rounds(db, tournament, [(number, pairs)], bye))


def _started(db: sqlite_utils.Database, tournament: Tournament, number: int,
             new: list[Pairing]) -> None:
    """Note round ``number`` as the latest (a new one with its deadline) and tell the
    players of its ``new`` games."""
    if number != tournament.round:
        deadline = tournament.round_days and utc.iso(
            utc.now() + timedelta(days=tournament.round_days))
        db.execute("UPDATE tournaments SET round = ?, round_deadline = ?, updated_at = ? "
                   "WHERE id = ?", [number, deadline or None, utc.iso(utc.now()), tournament.id])
    signals.round_started.send(db, tournament=_fresh(db, tournament.id), games=new)


def _store_rounds(db: sqlite_utils.Database, tournament: Tournament,
                  rounds: list[tuple[int, list[tuple[int, int]]]], bye: int | None,
                  entered: list[Entrant] | None = None) -> list[Pairing]:
    """Create the games of each (round number, pairs) of ``rounds`` (the first of each pair
    has the first move), a round robin's every round at once, in one insert into each table;
    and ``bye`` in the last of them. Returns them."""
    everyone = entered or entrants(db, tournament)
    index = {e.player_id: i for i, e in enumerate(everyone)}
    counts = dict(db.execute("SELECT round, COUNT(*) FROM tournament_games WHERE "
                             "tournament_id = ? GROUP BY round", [tournament.id]).fetchall())
    spoken = players.languages_of(db, list(index))  # each game's emails in its player's
    paired = [(number, first, second) for number, pairs in rounds for first, second in pairs]
    requested = creation.new_games(
        tournament.game.id,
        [{"bot": e.level} if e.level else
         {"name": e.handle, "email": e.email, "language": spoken[e.player_id]}
         for e in everyone],
        [(index[first], index[second]) for _, first, second in paired],
        tournament.options, tournament.clock, rated=tournament.rated,
        claimed={i: e.player_id for i, e in enumerate(everyone) if not e.level})
    stored = []
    for created, (number, first, second) in zip(
            creation.create_many(db, requested, announce=False), paired):
        counts[number] = counts.get(number, 0) + 1
        stored.append(Pairing(number, counts[number], created.match.id, first, second, None,
                              None, None, created.match.created_at))
    if bye is not None:
        number = rounds[-1][0]
        stored.append(Pairing(number, counts.get(number, 0) + 1, None, bye, None, None, None,
                              None, None))
    now = utc.iso(utc.now())
    watched = [g.game_id for g in stored if g.game_id]
    insert_rows(db, "links", [{"token_hash": links.token_hash(token), "game_id": game_id,
                               "seat": None, "created_at": now}
                              for token, game_id in zip(watch_tokens(watched), watched)])
    db.conn.executemany(
        "INSERT INTO tournament_games (tournament_id, round, number, game_id, first_id, "
        "second_id) VALUES (?, ?, ?, ?, ?, ?)",
        [(tournament.id, g.round, g.number, g.game_id, g.first_id, g.second_id)
         for g in stored])
    return stored


def _finish(db: sqlite_utils.Database, tournament: Tournament, status: str) -> None:
    db.execute("UPDATE tournaments SET status = ?, round_deadline = NULL, games_due_at = NULL, "
               "updated_at = ? WHERE id = ?", [status, utc.iso(utc.now()), tournament.id])
    signals.tournament_finished.send(db, tournament=_fresh(db, tournament.id))


def _touch(db: sqlite_utils.Database, tournament: Tournament) -> None:
    db.execute("UPDATE tournaments SET updated_at = ? WHERE id = ?",
               [utc.iso(utc.now()), tournament.id])


@signals.event_recorded.connect
def game_ended(db: sqlite_utils.Database, *, before: Match, after: Match, event: Event,
               latest: Match) -> None:
    """Keep the result of a tournament's game as it ends, and move the tournament on."""
    if before.finished or not after.finished:
        return
    row = db.execute("SELECT tournament_id FROM tournament_games WHERE game_id = ?",
                     [after.id]).fetchone()
    if row is None:
        return
    outcome = after.current.outcome
    points = 0.5 if outcome.draw or not outcome.winners else 1.0 if 0 in outcome.winners \
        else 0.0
    tournament = _held(db, row[0])
    db.execute("UPDATE tournament_games SET points = ?, ended_at = ? WHERE game_id = ?",
               [points, event.created_at, after.id])
    _advance(db, tournament, _at_once())


# -- leagues -------------------------------------------------------------------------------

def opt_out(db: sqlite_utils.Database, tournament_id: str, player: players.Player) -> None:
    """Leave a league at the end of this season: not re-entered in the next."""
    with write(db):
        tournament = _held(db, tournament_id)
        if tournament.format != "league":
            raise Refused("Only a league has a next season.")
        db.execute("UPDATE tournament_players SET next_season = 0 WHERE tournament_id = ? AND "
                   "player_id = ?", [tournament.id, player.id])


def staying(entered: list[Entrant]) -> int:
    """How many of a league season's players go on to the next: all but those who withdrew
    or opted out (fewer than its fewest players, and the league ends)."""
    return sum(1 for e in entered if not e.withdrawn and e.next_season)


def last_season(shown: Table) -> int | None:
    """A league season over with too few players staying for another (the end of the
    league, which its page and its last emails explain): how many stay; else None."""
    t = shown.tournament
    count = staying(shown.entrants)
    return count if t.format == "league" and t.status == "finished" \
        and count < t.min_players else None


def next_of(db: sqlite_utils.Database, tournament: Tournament) -> str | None:
    row = db.execute("SELECT id FROM tournaments WHERE previous_id = ?",
                     [tournament.id]).fetchone()
    return row[0] if row else None


def _next_season(db: sqlite_utils.Database, tournament: Tournament) -> None:
    """Start a finished league's next season with its players re-entered (but those who
    withdrew or opted out), the best of each division promoted and the last relegated."""
    shown = table(db, tournament)
    leaving = {e.player_id for e in shown.entrants if e.withdrawn or not e.next_season}
    by_division: dict[int, list[int]] = {}
    division_of = {e.player_id: e.division or 1 for e in shown.entrants}
    for standing in shown.standings:
        by_division.setdefault(division_of[standing.player], []).append(standing.player)
    if staying(shown.entrants) < tournament.min_players:
        return  # the league ends: its page and its last emails say why
    split = pairings.next_season([by_division[number] for number in sorted(by_division)],
                                 tournament.promote or 1, leaving)
    now = utc.iso(utc.now())
    season_id = secrets.token_urlsafe(6)
    db.execute(
        "INSERT INTO tournaments (id, name, game, options, clock, format, rounds, "
        "division_size, promote, season, previous_id, min_players, max_players, rated, public, "
        "organiser_id, round_days, adjudication, status, round, created_at, updated_at) "
        "SELECT ?, name, game, options, clock, format, rounds, division_size, promote, "
        "season + 1, id, min_players, max_players, rated, public, organiser_id, round_days, "
        "adjudication, 'open', 0, ?, ? FROM tournaments WHERE id = ?",
        [season_id, now, now, tournament.id])
    db.conn.executemany(
        "INSERT INTO tournament_players (tournament_id, player_id, seed, division) "
        "VALUES (?, ?, ?, ?)",
        [(season_id, player, seed, number) for seed, (number, player) in enumerate(
            ((number, player) for number, division in enumerate(split, start=1)
             for player in division), start=1)])
    start(db, season_id, None)


# -- the job process ----------------------------------------------------------------------

def start_due(db: sqlite_utils.Database, now: datetime) -> int:
    """Start the tournaments whose start time has come (or cancel those with too few
    players). Returns how many were started or cancelled."""
    due = [row[0] for row in db.execute(
        "SELECT id FROM tournaments WHERE status = 'open' AND starts_at IS NOT NULL AND "
        "starts_at <= ? ORDER BY starts_at", [utc.iso(now)]).fetchall()]
    for tournament_id in due:
        try:
            start(db, tournament_id, None)
        except Refused:  # too few players (or started meanwhile): no tournament
            with write(db):
                tournament = _held(db, tournament_id)
                if tournament.status == "open":
                    _finish(db, tournament, "cancelled")
    return len(due)


def make_due(db: sqlite_utils.Database) -> int:
    """Make the games left to the job process (a large field's start or next round), the
    longest waiting first, each tournament's in its own transaction. One process does it at
    a time (on PostgreSQL the others skip the job), and each tournament's are made once
    (looked at again while it is held). Returns how many tournaments moved on."""
    made = 0
    with claimed(db, "tournament-games") as mine:
        if not mine:
            return 0
        for tournament_id, in db.execute("SELECT id FROM tournaments WHERE games_due_at IS "
                                         "NOT NULL ORDER BY games_due_at").fetchall():
            with write(db), _cycles_uncollected():
                tournament = _held(db, tournament_id)
                if tournament.games_due_at is None:
                    continue
                db.execute("UPDATE tournaments SET games_due_at = NULL WHERE id = ?",
                           [tournament.id])
                _advance(db, tournament, None)
            made += 1
    return made


def adjudicate_due(db: sqlite_utils.Database, now: datetime) -> int:
    """End the unfinished games of rounds whose deadline has passed, as each tournament's
    organiser chose: a draw, or a loss for the one with less time left on the clock (a
    draw without a clock). Returns how many games were ended."""
    ended = 0
    for tournament_id, in db.execute(
            "SELECT id FROM tournaments WHERE status = 'running' AND round_deadline <= ?",
            [utc.iso(now)]).fetchall():
        with write(db):
            tournament = _held(db, tournament_id)
            deadline = tournament.round_deadline
            if deadline is None or utc.parse(deadline) > now:
                continue
            db.execute("UPDATE tournaments SET round_deadline = NULL WHERE id = ?",
                       [tournament.id])
            for game in games(db, tournament):
                if game.game_id and game.points is None:
                    ended += _adjudicate(db, matches.load(db, game.game_id),
                                         tournament.adjudication, now)
    return ended


def _adjudicate(db: sqlite_utils.Database, match: Match, how: str, now: datetime) -> int:
    """End one game, as the server: a loss for the one with less time left (``how``
    "time", with uneven clocks), else a draw."""
    remaining = [clock.remaining for clock in clocks.of_match(match, now) or ()]
    lost = how == "time" and bool(remaining) and remaining[0] != remaining[1]
    loser = remaining.index(min(remaining)) if lost else 0  # a draw's event names the first
    try:
        commands.submit(db, match.id, loser, Command.of("adjudicated", Verdict(draw=not lost)),
                        now=now, server=True)
    except Refused:  # a clock ran out first: the clock job ends it
        return 0
    return 1
