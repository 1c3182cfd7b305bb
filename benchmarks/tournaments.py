"""Tournaments at scale (``./dev bench tournaments``): the pairings alone, and a round
robin started in a real database.

- a round robin of 100 players paired (4,950 games, ``pairings.round_robin``);
- a Swiss of 1,000 players: each of its rounds paired (``pairings.swiss``), with random
  results between them;
- the same Swiss, and one of 999 (a bye each round), with the results that used to take
  minutes to pair: the later entrant wins every game, for a tournament's most rounds (50),
  and the slowest round;
- a round robin of 100 players started in an SQLite database: the organiser's start
  (``tournaments.start``, which leaves the games to the job process), then the job's
  making of its 4,950 games (``tournaments.make_due``), each an ordinary game, and one
  email to each player, in one transaction; with ``--postgresql``, in PostgreSQL too: a
  throwaway cluster of the machine's server programs with durable commits (as ``./dev
  bench postgres`` starts it).

CPU time is printed beside the time on the clock (on a shared machine the second swings
with the others' load).
"""
from __future__ import annotations

import argparse
import importlib
import random
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from pbem import create_app, pairings, players, tournaments  # noqa: E402
from pbem.store.db import upgrade  # noqa: E402
from pbem.web.database import get_db  # noqa: E402
from pbem.web import tournaments as web_tournaments  # noqa: E402
# tests/postgres.py, the tests' throwaway cluster: looked up by name, as the tests are not
# type-checked
postgres = importlib.import_module("postgres")


@contextmanager
def timed(what: str) -> Iterator[None]:
    cpu, wall = time.process_time(), time.perf_counter()
    yield
    print(f"{what}: {time.process_time() - cpu:.3f} s CPU, "
          f"{time.perf_counter() - wall:.3f} s on the clock")


def swiss(count: int, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    names = [f"p{i}" for i in range(count)]
    games: list[pairings.Game] = []
    for number in range(1, rounds + 1):
        with timed(f"Swiss of {count} players, round {number} paired"):
            pairing = pairings.swiss(names, games)
        games += _played(number, pairing, count, lambda a, b: rng.choice((0, 0.5, 1)))


def swiss_later_entrants_win(count: int, rounds: int) -> None:
    """Every game won by the player who entered later: the ones who met, or had a bye, pile
    up at the bottom of the standings."""
    games: list[pairings.Game] = []
    taken = []
    for number in range(1, rounds + 1):
        cpu, wall = time.process_time(), time.perf_counter()
        pairing = pairings.swiss(list(range(count)), games)
        taken.append((time.process_time() - cpu, time.perf_counter() - wall, number))
        games += _played(number, pairing, count, lambda a, b: 1 if a > b else 0)
    worst, on_the_clock, number = max(taken)
    print(f"Swiss of {count} players whose later entrants always win, {rounds} rounds paired: "
          f"the slowest round {number}, {worst:.3f} s CPU ({on_the_clock:.3f} s on the clock); "
          f"all {sum(t[0] for t in taken):.3f} s CPU")


def _played(number: int, pairing: pairings.Pairing | None, count: int,
            result) -> list[pairings.Game]:
    """A round's games, each with ``result(first, second)``, and its bye."""
    assert pairing is not None and len(pairing.pairs) == count // 2
    return [pairings.Game(number, a, b, result(a, b)) for a, b in pairing.pairs] + (
        [pairings.Game(number, pairing.bye, None, 1)] if pairing.bye is not None else [])


def round_robin_started(count: int, engine: str, database: str | None = None) -> None:
    """``database`` None: a new SQLite file."""
    folder = tempfile.mkdtemp()
    if database:
        upgrade(database)  # (a new SQLite file gets its schema from the app)
    app = create_app({"DATABASE": database or f"{folder}/bench.sqlite", "SECRET_KEY": "bench",
                      "MAIL_FOLDER": f"{folder}/mail", "PUBLIC_URL": "http://localhost"})
    with app.app_context():
        db = get_db()
        entrants = [players.create(db, f"player{i}", f"player{i}@example.org")
                    for i in range(count)]
        tournament = tournaments.create(db, entrants[0], web_tournaments.checked({
            "name": "Bench", "game": "mastery", "format": "round-robin"}))
        for player in entrants:
            tournaments.enter(db, tournament.id, player)
        with timed(f"round robin of {count} players: the organiser's start in {engine}"):
            tournaments.start(db, tournament.id, entrants[0])
        with timed(f"round robin of {count} players: its games made by the job process in "
                   f"{engine} ({count * (count - 1) // 2} games, {count} emails)"):
            assert tournaments.make_due(db) == 1
        made = db.execute("SELECT COUNT(*) FROM tournament_games").fetchone()[0]
        assert made == count * (count - 1) // 2, made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--round-robin", type=int, default=100, metavar="PLAYERS")
    parser.add_argument("--swiss", type=int, default=1000, metavar="PLAYERS")
    parser.add_argument("--rounds", type=int, default=5, help="the Swiss's rounds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-database", action="store_true",
                        help="the pairings only, not the round robin's games")
    parser.add_argument("--postgresql", action="store_true",
                        help="start the round robin in PostgreSQL too")
    args = parser.parse_args()
    with timed(f"round robin of {args.round_robin} players paired"):
        rounds = pairings.round_robin(list(range(args.round_robin)))
    assert sum(map(len, rounds)) == args.round_robin * (args.round_robin - 1) // 2
    swiss(args.swiss, args.rounds, args.seed)
    for count in (args.swiss, args.swiss - 1):  # odd: a bye each round too
        # (a field pairs for sure while nobody has met a quarter of it)
        swiss_later_entrants_win(count, min(tournaments.MOST_ROUNDS, count // 4))
    if args.no_database:
        return
    round_robin_started(args.round_robin, "SQLite")
    if args.postgresql:
        cluster = postgres.Cluster.start(durable=True)
        try:
            with cluster.schema() as database:
                round_robin_started(args.round_robin, "PostgreSQL", database)
        finally:
            cluster.stop()


if __name__ == "__main__":
    main()
