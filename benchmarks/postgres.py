"""Several web processes on one database, SQLite beside PostgreSQL: ``./dev bench postgres``.

For each engine, with one and then two web processes (gunicorn with the project's
``gunicorn.conf.py``, one worker each: as two machines would run it), clients on loopback
(``--clients`` threads per web process) measure
- moves committed per second: each client plays its own Mastery game through the JSON API
  (``POST .../moves``, each move its own durable transaction with its emails);
- play pages served per second: each client reloads its game's play page.

PostgreSQL is a throwaway cluster of the machine's PostgreSQL server programs (as the tests
start it, ``tests/postgres.py``), on a free loopback port, with durable commits (fsync and
synchronous_commit on, as SQLite's synchronous=FULL), or the server of ``--database URL``
(each run makes its tables in a schema of its own there, and drops it).
Everything runs on this machine, so clients, web processes and PostgreSQL share its cores.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import engine  # noqa: E402
import postgres  # noqa: E402  (tests/postgres.py)
import serving  # noqa: E402

GUNICORN = Path(sys.executable).with_name("gunicorn")
MASTERY = engine.get("mastery")
OPTIONS = {"repetition_draw": False}


def serve(database: str, folder: Path, processes: int) -> tuple[list[subprocess.Popen], list[str]]:
    """``processes`` web processes on ``database``: the processes and their base URLs."""
    started, ports = [], []
    for number in range(processes):
        port = serving.free_port()
        env = {**os.environ, "PBEM_DATABASE": database, "PBEM_BIND": f"127.0.0.1:{port}",
               "PBEM_WORKERS": "1", "PBEM_INSTANCE": str(folder / f"web{number}"),
               "PBEM_PUBLIC_URL": "https://games.example.org", "PBEM_SECRET_KEY": "bench",
               "PBEM_MAIL_FOLDER": str(folder / "mail"), "PBEM_RATELIMIT_ENABLED": "false"}
        started.append(subprocess.Popen([str(GUNICORN)], cwd=ROOT, env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        ports.append(port)
    for process, port in zip(started, ports):
        serving.wait_for(port, process)
    return started, [f"http://127.0.0.1:{port}" for port in ports]


def call(url: str, body: dict | None = None) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read()


class Player:
    """One client: its own game on one web process, played with random moves."""

    def __init__(self, base: str, seed: int):
        self.base, self.rng = base, random.Random(seed)
        self.new_game()

    def new_game(self) -> None:
        status, body = call(f"{self.base}/api/games", {"game": "mastery", "options": OPTIONS,
                                                       "players": [
            {"name": "A", "email": "a@example.org"}, {"name": "B", "email": "b@example.org"}]})
        assert status == 201, body
        created = json.loads(body)
        self.apis = [seat["api"].replace("https://games.example.org", self.base)
                     for seat in created["seats"]]
        self.page = created["seats"][0]["url"].replace("https://games.example.org", self.base)
        self.state = MASTERY.start(2, OPTIONS, "")  # Mastery leaves nothing to chance

    def move(self) -> bool:
        """Play one random move; False if it was not recorded."""
        if self.state.outcome is not None:
            self.new_game()
        [seat] = self.state.to_move
        move = self.rng.choice(MASTERY.legal_moves(self.state, seat))
        status, _ = call(f"{self.apis[seat]}/moves", {"move": move, "ply": self.state.ply})
        self.state = MASTERY.apply(self.state, seat, move)
        return status == 200

    def load_page(self) -> bool:
        return call(self.page)[0] == 200


def rate(players: list[Player], action, seconds: float) -> float:
    """How many times per second the players together do ``action`` successfully."""
    done, stop = [0] * len(players), time.monotonic() + seconds

    def run(index: int) -> None:
        while time.monotonic() < stop:
            done[index] += action(players[index])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(players))]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(done) / (time.monotonic() - start)


def measure(database: str, processes: int, clients: int, seconds: float) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as folder:
        started, bases = serve(database, Path(folder), processes)
        try:
            players = [Player(bases[i % processes], i) for i in range(processes * clients)]
            for player in players:  # games at ply 10, as pages are mostly asked for
                for _ in range(10):
                    player.move()
            moves = rate(players, Player.move, seconds)
            pages = rate(players, Player.load_page, seconds)
        finally:
            for process in started:
                process.terminate()
                process.wait()
    return moves, pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10, help="per figure (default 10)")
    parser.add_argument("--clients", type=int, default=4,
                        help="client threads per web process (default 4)")
    parser.add_argument("--database", metavar="URL",
                        help="an empty PostgreSQL database instead of a throwaway cluster")
    arguments = parser.parse_args()
    cluster = None
    if arguments.database:
        url = arguments.database
    else:
        cluster = postgres.Cluster.start(durable=True)
        url = cluster.url()
    try:
        print(f"{'engine':<12}{'web processes':>15}{'moves/s':>10}{'play pages/s':>14}")
        for name in ("SQLite", "PostgreSQL"):
            for processes in (1, 2):
                with tempfile.TemporaryDirectory() as folder, fresh_schema(url) as schema:
                    database = schema if name == "PostgreSQL" else f"{folder}/bench.sqlite"
                    moves, pages = measure(database, processes, arguments.clients,
                                           arguments.seconds)
                print(f"{name:<12}{processes:>15}{moves:>10.1f}{pages:>14.1f}", flush=True)
    finally:
        if cluster is not None:
            cluster.stop()
    print(f"({arguments.clients} clients per web process, {arguments.seconds:g} s each, "
          f"{os.cpu_count()} cores shared by everything)")


@contextlib.contextmanager
def fresh_schema(url: str) -> Iterator[str]:
    """A new schema of the database ``url`` for one run: the URL of connections to it."""
    import psycopg
    name = f"bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    try:
        yield f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{name}"
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {name} CASCADE")


if __name__ == "__main__":
    main()
