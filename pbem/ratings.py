"""Players' ratings: Glicko-2 (``glicko``), one rating per game (engine id) per player.

A rated game is a two-player game whose seats are all players known across games (a
signed-in player's, or a computer level's: each level is a rated player, ``computer-<level>``).
When it ends, in the transaction that records the end, its two players' ratings change as
after a rating period of that one game (``record_end``, subscribed to
``signals.event_recorded``): games are applied in the order they end, and a deviation never
grows between them. Each player's rating is held (``db.hold_name``) while it changes, so two
games ending at once on PostgreSQL both count. A rating is provisional while its deviation is
over 110: leaderboards leave those players out, labels mark them "1620?". A rated game that
ends before each player has made two moves (``counted``) changes no rating, as lichess
aborts such games: agreed draws and resignations at the first move, or a first move never
made, buy no place on a leaderboard.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

import sqlite_utils
from flask_babel import gettext

from . import glicko, matches, players, signals
from .matches import Event, Match
from .store.db import hold_name
from .store import utc


@dataclass(frozen=True)
class Standing:
    """A player's rating in one game, as stored."""
    handle: str
    game: str
    rating: glicko.Rating
    games: int

    @property
    def provisional(self) -> bool:
        return self.rating.provisional

    @property
    def label(self) -> str:
        """How pages show it: "1620", or "1620?" while provisional."""
        return f"{round(self.rating.rating)}{'?' if self.provisional else ''}"

    def to_json(self) -> dict[str, Any]:
        return {"rating": round(self.rating.rating, 2),
                "deviation": round(self.rating.deviation, 2),
                "games": self.games, "provisional": self.provisional}


COLUMNS = ("SELECT players.handle, ratings.game, ratings.rating, ratings.deviation, "
           "ratings.volatility, ratings.games FROM ratings "
           "JOIN players ON players.id = ratings.player_id ")


def _standing(row: dict[str, Any]) -> Standing:
    return Standing(row["handle"], row["game"],
                    glicko.Rating(row["rating"], row["deviation"], row["volatility"]),
                    row["games"])


def of_player(db: sqlite_utils.Database, player_id: int) -> dict[str, Standing]:
    """A player's ratings, by game id."""
    return {row["game"]: _standing(row) for row in db.query(
        COLUMNS + "WHERE ratings.player_id = ? ORDER BY ratings.game", [player_id])}


def of_players(db: sqlite_utils.Database, game: str,
               player_ids: Iterable[int | None]) -> dict[int, Standing]:
    """The ratings in ``game`` of those players who have one, by player id."""
    wanted = sorted({player for player in player_ids if player is not None})
    if not wanted:
        return {}
    marks = ", ".join("?" * len(wanted))
    return {row["player_id"]: _standing(row) for row in db.query(
        COLUMNS.replace("SELECT ", "SELECT ratings.player_id, ", 1)
        + f"WHERE ratings.game = ? AND ratings.player_id IN ({marks})", [game, *wanted])}


def leaderboard(db: sqlite_utils.Database, game: str) -> list[Standing]:
    """The established players of ``game``, highest rating first (provisional ones and
    closed accounts left out)."""
    return [_standing(row) for row in db.query(
        COLUMNS + "WHERE ratings.game = ? AND ratings.deviation <= ? "
        "AND players.closed_at IS NULL "
        "ORDER BY ratings.rating DESC, players.handle", [game, glicko.PROVISIONAL_ABOVE])]


def seat_players(db: sqlite_utils.Database, game_id: str, *,
                 make: bool = False) -> dict[int, int]:
    """The player of each seat known to be one, by seat: a signed-in player's seat, and a
    computer level's (whose player ``make`` makes the first time it plays a rated game)."""
    found = {}
    for row in db.query("SELECT seat, player_id, bot FROM seats WHERE game_id = ?", [game_id]):
        player = row["player_id"]
        if player is None and row["bot"] is not None:
            player = (computer_player if make else _player_of)(db, computer_handle(row["bot"]))
        if player is not None:
            found[row["seat"]] = player
    return found


def computer_handle(level: str) -> str:
    return f"computer-{level}"


# Where each computer level's rating begins in each two-player game: the Elo ratings that
# make the benchmark's games between the levels (and against random moves and the tactical
# baseline) most likely, the middle level at a new player's 1500: `./dev bench bots
# --strength --ratings` plays them and prints this (docs/benchmarks.md has the run). A
# level starts there, established (``COMPUTER_DEVIATION``), and moves with its games as
# anyone's rating does.
COMPUTER_RATINGS: dict[str, dict[str, int]] = {
    "mastery": {"easy": 971, "medium": 1500, "hard": 2029},
    "the-right-moves": {"easy": 971, "medium": 1500, "hard": 2029},
    "magnet": {"easy": 1287, "medium": 1500, "hard": 1713},
    "magnetic-field": {"easy": 1179, "medium": 1500, "hard": 1713},
}
# The benchmark's few dozen games fix a level's rating about this well (points of
# deviation): established, so its first rated games do not throw it about.
COMPUTER_DEVIATION = 100.0


def first_rating(handle: str, game: str) -> glicko.Rating:
    """The rating a player has in ``game`` before their first rated game in it: a new
    player's, or a computer level's fitted one (a game of a plugin: a new player's)."""
    prefix = computer_handle("")
    fitted = COMPUTER_RATINGS.get(game, {}).get(handle.removeprefix(prefix)) \
        if handle.startswith(prefix) else None
    return glicko.Rating() if fitted is None else glicko.Rating(fitted, COMPUTER_DEVIATION)


def _player_of(db: sqlite_utils.Database, handle: str) -> int | None:
    player = players.by_handle(db, handle)
    return player.id if player else None


def computer_player(db: sqlite_utils.Database, handle: str) -> int:
    """The player id of a computer level (by its handle), made the first time: a player
    with no address, whom nobody signs in as."""
    if (found := _player_of(db, handle)) is None:
        hold_name(db, "players")  # as players.create: another process may be making it
        db.execute("INSERT INTO players (handle, skeleton, created_at) SELECT ?, ?, ? "
                   "WHERE NOT EXISTS (SELECT 1 FROM players WHERE lower(handle) = ?)",
                   [handle, players.skeleton(handle), utc.iso(utc.now()), handle])
        found = _player_of(db, handle)
    assert found is not None  # made just above, in this transaction
    return found


def range_text(low: int | None, high: int | None) -> str:
    """A challenge's range of ratings in words: "from 1400 to 1800", "from 1400", "up to
    1800"."""
    if high is None:
        return "" if low is None else gettext("from %(low)s", low=low)
    return gettext("up to %(high)s", high=high) if low is None \
        else gettext("from %(low)s to %(high)s", low=low, high=high)


def seat_standings(db: sqlite_utils.Database, match: Match) -> dict[int, Standing]:
    """The rating in its game of each seat's player who has one, by seat; in a rated game
    a player's first rating (1500, provisional) until they have one."""
    seated = seat_players(db, match.id)
    standings = of_players(db, match.game.id, seated.values())
    handles = {seat.seat: computer_handle(seat.bot) if seat.bot else "" for seat in match.seats}
    return {seat: standings.get(player) or Standing(
        "", match.game.id, first_rating(handles[seat], match.game.id), 0)
            for seat, player in seated.items() if player in standings or match.rated}


def seat_labels(db: sqlite_utils.Database, match: Match) -> list[str]:
    """Each seat's player's name as pages show it: with their rating in the game, "Ann
    (1620?)" ("?" while provisional), when they have one; once a rated game is over, with
    what it did to the rating, "Ann (1500 → 1662)"."""
    changes = {row["seat"]: f"{round(row['rating_before'])} → {round(row['rating_after'])}"
               for row in db.query("SELECT seat, rating_before, rating_after FROM "
                                   "rating_changes WHERE game_id = ?", [match.id])}
    standings = seat_standings(db, match) if not changes else {}
    labels = {**{seat: standing.label for seat, standing in standings.items()}, **changes}
    return [f"{s.name} ({labels[s.seat]})" if s.seat in labels else s.name or ""
            for s in match.seats]


MOVES_COUNTED = 2  # the moves each player makes before a rated game's end counts


def counted(match: Match) -> bool:
    """Whether a rated game's end changes ratings: once each player has made two moves (of
    the line as it stands: a move taken back is not made)."""
    made = Counter(move.seat for move in match.moves)
    return all(made[seat] >= MOVES_COUNTED for seat in range(match.players))


@signals.event_recorded.connect
def record_end(db: sqlite_utils.Database, *, before: Match, after: Match, event: Event,
               latest: Match) -> None:
    """When a rated game ends with a result (a win or a draw; not a game withdrawn before
    it started) once each player has made two moves (``counted``), its two players' new
    ratings, in the transaction that records the end."""
    outcome = after.current.outcome
    if (before.finished or outcome is None or before.waiting or after.players != 2
            or not (outcome.draw or outcome.winners) or not after.rated
            or not counted(after)):
        return
    seated = seat_players(db, after.id, make=True)
    if len(seated) != 2 or seated[0] == seated[1]:
        return
    _apply(db, after, seated, utc.iso(utc.now()))


def _score(match: Match) -> float:
    """Seat 0's score in the finished two-player game: a win 1, a draw 1/2."""
    outcome = match.current.outcome
    assert outcome is not None
    return 0.5 if outcome.draw else 1.0 if 0 in outcome.winners else 0.0


def _apply(db: sqlite_utils.Database, match: Match, seated: dict[int, int], at: str) -> None:
    """The game's rating period for its two players (by seat), written as of ``at``."""
    for player in sorted(seated.values()):  # one order of holding players: no deadlock
        hold_name(db, f"rating:{player}:{match.game.id}")
    current = {seat: _rating(db, player, match.game.id) for seat, player in seated.items()}
    new = glicko.game(current[0][0], current[1][0], _score(match))
    for seat, player in seated.items():
        (old, games), rating = current[seat], new[seat]
        db.execute("DELETE FROM ratings WHERE player_id = ? AND game = ?",
                   [player, match.game.id])
        db.execute("INSERT INTO ratings (player_id, game, rating, deviation, volatility, "
                   "games, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   [player, match.game.id, rating.rating, rating.deviation,
                    rating.volatility, games + 1, at])
        db.execute("INSERT INTO rating_changes (game_id, seat, player_id, rating_before, "
                   "rating_after, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                   [match.id, seat, player, old.rating, rating.rating, at])


def annul(db: sqlite_utils.Database, match: Match) -> bool:
    """Take back what the rated game ``match`` did to ratings (a moderator's ``annul``): the
    ratings of its game are computed again from the start, every rated game that changed
    them applied again in the order they ended but this one. False if it changed no rating
    (or was annulled already)."""
    if db.execute("SELECT 1 FROM rating_changes WHERE game_id = ?",
                  [match.id]).fetchone() is None:
        return False
    db.execute("INSERT INTO annulled_games (game_id, annulled_at) VALUES (?, ?) "
               "ON CONFLICT (game_id) DO NOTHING", [match.id, utc.iso(utc.now())])
    recompute(db, match.game.id)
    return True


def recompute(db: sqlite_utils.Database, game: str) -> None:
    """Every rating in ``game`` from the start: the rated games that changed them applied
    again, in the order they ended (as recorded), those annulled left out. The players'
    ratings are held while it runs, as a game's end holds them."""
    hold_name(db, f"ratings:{game}")
    ended: dict[str, tuple[str, dict[int, int]]] = {}
    for row in db.execute(
            "SELECT c.game_id, c.seat, c.player_id, c.created_at FROM rating_changes c "
            "JOIN games g ON g.id = c.game_id WHERE g.game = ? "
            "ORDER BY c.created_at, c.rowid", [game]).fetchall():
        ended.setdefault(row[0], (row[3], {}))[1][row[1]] = row[2]
    annulled = {row[0] for row in db.execute(
        "SELECT a.game_id FROM annulled_games a JOIN games g ON g.id = a.game_id "
        "WHERE g.game = ?", [game])}
    db.execute("DELETE FROM rating_changes WHERE game_id IN (SELECT id FROM games "
               "WHERE game = ?)", [game])
    db.execute("DELETE FROM ratings WHERE game = ?", [game])
    for game_id, (at, seated) in ended.items():
        if game_id not in annulled:
            _apply(db, matches.load(db, game_id), seated, at)


def _rating(db: sqlite_utils.Database, player: int, game: str) -> tuple[glicko.Rating, int]:
    """A player's rating in ``game`` and the rated games it counts; before the first, the
    player's ``first_rating``."""
    row = db.execute("SELECT rating, deviation, volatility, games FROM ratings "
                     "WHERE player_id = ? AND game = ?", [player, game]).fetchone()
    if row is None:
        handle = db.execute("SELECT handle FROM players WHERE id = ?", [player]).fetchone()[0]
        return first_rating(handle, game), 0
    return glicko.Rating(row[0], row[1], row[2]), row[3]
