"""Prints the server's speed figures: ``./dev bench``.

- the time to serve a Mastery play page at ply 10 and at ply 400 (warm cache, as a player
  reloading the page sees it), through the real app and a real SQLite file;
- the cost of the open pages' live-update polls (``/version`` answered 304): per poll, and
  for N pages each polling every 3 seconds;
- engine random playouts per second for every game;
- Magnet: legal-move generations per second (positions taken from random playouts) and the
  time of one full random game.
"""
from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from pbem import create_app, matches  # noqa: E402
from pbem.db import connect, get_db, write  # noqa: E402
from pbem.matches import CACHE  # noqa: E402


def game_at_ply(client, plies: int, seed: int) -> str:
    """A Mastery game with ``plies`` random moves played through the API (repetition off,
    so it lasts); returns the play page path of the seat to move."""
    created = client.post("/api/games", json={
        "game": "mastery", "options": {"repetition_draw": False},
        "players": [{"name": "A", "email": "a@example.org"},
                    {"name": "B", "email": "b@example.org"}]}).json
    apis = [s["api"] for s in created["seats"]]
    rng = random.Random(seed)
    for ply in range(plies):
        body = client.get(apis[ply % 2]).json
        if body["outcome"]:
            return ""
        client.post(apis[ply % 2] + "/moves",
                    json={"move": rng.choice(body["legal_moves"]), "ply": ply})
    return created["seats"][plies % 2]["url"]


def time_page(client, url: str, repeats: int = 200) -> tuple[float, float]:
    """Median milliseconds to serve ``url``: wall-clock and this process's CPU time (which
    other programs running on the machine do not inflate)."""
    client.get(url)  # warm the cache
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        response = client.get(url)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        assert response.status_code == 200
    return statistics.median(wall) * 1000, statistics.median(cpu) * 1000


def page_figures() -> None:
    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"DATABASE": f"{folder}/bench.sqlite", "MAIL_FOLDER": f"{folder}/mail",
                          "SECRET_KEY": "bench"})
        client = app.test_client()
        for plies in (10, 400):
            url = ""
            seed = 0
            while not url:  # a random game may end early; try another seed
                url = game_at_ply(client, plies, seed)
                seed += 1
            wall, cpu = time_page(client, url)
            print(f"Mastery play page at ply {plies:>3}: {wall:6.2f} ms wall, {cpu:6.2f} ms CPU "
                  "(medians of 200)")
        CACHE.clear()
        start = time.perf_counter()
        client.get(url)
        print(f"Mastery play page at ply 400, cold cache (one replay): "
              f"{(time.perf_counter() - start) * 1000:6.2f} ms")
        poll_figures(client, url)


POLL_SECONDS = 3  # how often an open page polls (static/app.js, POLL_MS)


def poll_figures(client, url: str, seconds: float = 3.0) -> None:
    """An open page's poll as it is sent while nothing happens: the page's event count in
    If-None-Match, answered 304. Requests per second one process sustains (one thread, no
    HTTP parsing: the app's own cost), and what N open pages ask of it."""
    version = url + "/version"
    etag = client.get(version).headers["ETag"]
    polls, cpu, start = 0, time.process_time(), time.perf_counter()
    while time.perf_counter() - start < seconds:
        assert client.get(version, headers={"If-None-Match": etag}).status_code == 304
        polls += 1
    rate = polls / (time.perf_counter() - start)
    cpu_ms = (time.process_time() - cpu) / polls * 1000
    print(f"Live-update poll (304 Not Modified): {rate:7.0f} /s in one thread, "
          f"{cpu_ms:5.2f} ms CPU each")
    for pages in (100, 1000, 10_000):
        load = pages / POLL_SECONDS
        print(f"  {pages:>6} open pages, one poll each {POLL_SECONDS} s: {load:6.0f} requests/s, "
              f"{load * cpu_ms / 10:5.1f}% of one core")


def commit_figures(seconds: float = 3.0) -> None:
    """Moves recorded per second, each its own durable transaction with the emails it
    causes (``matches.act``, as a request does), beside the raw commit rate of SQLite
    with the same settings: the limit a move's commit can approach."""
    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"DATABASE": f"{folder}/bench.sqlite", "MAIL_FOLDER": f"{folder}/mail",
                          "SECRET_KEY": "bench", "PUBLIC_URL": "http://bench.example"})
        with app.test_request_context():
            db = get_db()
            created = matches.create(db, "the-right-moves", [
                {"name": "A", "email": "a@example.org"}, {"name": "B", "email": "b@example.org"}],
                {"repetition_draw": False})
            game, rng, moves = engine.get("the-right-moves"), random.Random(3), 0
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                match = matches.load(db, created.match.id)
                if match.finished:
                    created = matches.create(db, "the-right-moves", [
                        {"name": "A", "email": "a@example.org"},
                        {"name": "B", "email": "b@example.org"}], {"repetition_draw": False})
                    continue
                seat = match.current.to_move[0]
                move = rng.choice(game.legal_moves(match.current, seat))
                matches.act(db, match.id, seat, "move", move, match.ply)
                moves += 1
            elapsed = time.perf_counter() - start
            mode = db.execute("PRAGMA synchronous").fetchone()[0]
        raw = connect(f"{folder}/raw.sqlite")
        raw.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
        commits, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            with write(raw):
                raw.execute("INSERT INTO t (v) VALUES (?)", ["x" * 100])
            commits += 1
        raw_rate = commits / (time.perf_counter() - start)
        raw.close()
    names = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}
    print(f"Moves committed: {moves / elapsed:7.1f} /s (each with its emails); raw SQLite "
          f"commits with the same settings: {raw_rate:7.1f} /s (synchronous={names[mode]})")


def playout_figures(seconds: float = 3.0) -> None:
    for game in engine.GAMES.values():
        rng = random.Random(1)
        games = plies = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            players = game.player_counts[0]
            state, moves = engine.random_playout(game, game.start(players, {}, str(games)), rng)
            games += 1
            plies += len(moves)
        elapsed = time.perf_counter() - start
        print(f"{game.title:<16} random playouts: {games / elapsed:7.1f} games/s, "
              f"{plies / elapsed:8.0f} moves/s, {plies / games:6.1f} moves per game")


def magnet_figures(seconds: float = 3.0) -> None:
    """Magnet's move generation works from the mover's knowledge, comparing orders of the
    pieces under every hypothesis about the hidden values: its cost per position."""
    game = engine.get("magnet")
    rng = random.Random(2)
    positions, games, game_times = [], 0, []
    while len(positions) < 400 or games < 20:
        state = game.start(2, {"random_setup": True}, f"bench-{games}")
        start = time.perf_counter()
        end, moves = engine.random_playout(game, state, rng)
        game_times.append(time.perf_counter() - start)
        games += 1
        for seat, move in moves:
            if state.outcome is None:
                positions.append((state, state.to_move[0]))
            state = game.apply(state, seat, move)
    generated = sizes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state, seat = positions[generated % len(positions)]
        sizes += len(game.legal_moves(state, seat))
        generated += 1
    elapsed = time.perf_counter() - start
    print(f"Magnet legal-move generation: {generated / elapsed:7.1f} positions/s "
          f"({sizes / generated:.0f} moves each on average, {len(positions)} positions "
          f"from {games} random games)")
    print(f"Magnet one full random game: {statistics.median(game_times) * 1000:6.1f} ms median, "
          f"{max(game_times) * 1000:6.1f} ms slowest of {games}")


if __name__ == "__main__":
    if sys.argv[1:] == ["commits"]:
        commit_figures()
        sys.exit()
    page_figures()
    commit_figures()
    playout_figures()
    magnet_figures()
