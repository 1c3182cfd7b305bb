"""How many programs listening to their events one machine holds (``./dev bench
listeners``): gunicorn with the project's own settings (``gunicorn.conf.py``: its workers,
each with its threads), on an SQLite file, on loopback.

For each number of listeners (``--listeners``), that many players each hold a stream of
their events open (``GET <key>/events``, reconnecting as each stream ends), while two of
them play a game through the JSON API, one move after another: each move's answer time,
and the time from a move's answer to the ``turn`` event on its opponent's stream, are
measured. Above ``EVENTS_LISTENERS`` per worker the server refuses a stream (503), and
those refusals are counted: the figure that matters is the most listeners with every
stream open, the moves answered in time (a median under 100 ms here) and every turn told
within 2 s.
"""
from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from pbem import create_app, players  # noqa: E402
from pbem.store.db import write  # noqa: E402
from pbem.web.database import get_db  # noqa: E402

import serving  # noqa: E402

HEARTBEAT = 5  # seconds

class Listener:
    """One player's stream, read for as long as the benchmark runs."""

    def __init__(self, port: int, key: str) -> None:
        self.port, self.path = port, f"/api/player/{key}/events"
        self.turns: list[tuple[float, dict]] = []  # (arrival, data)
        self.refused = 0
        self.open = False

    async def run(self, until: float) -> None:
        last = None
        while time.monotonic() < until:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            resume = f"Last-Event-ID: {last}\r\n" if last else ""
            writer.write(f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{resume}"
                         f"Accept: text/event-stream\r\nConnection: close\r\n\r\n".encode())
            status = int((await reader.readline())[9:12])
            if status != 200:
                self.refused += 1
                writer.close()
                await asyncio.sleep(5)
                continue
            self.open = True
            kind = None
            while time.monotonic() < until:
                try:
                    line = await asyncio.wait_for(reader.readline(), until - time.monotonic())
                except TimeoutError:
                    break
                if not line:
                    break  # the stream's time is up: reconnect
                text = line.decode().strip()
                if text.startswith("id: "):
                    last = text[4:]
                elif text.startswith("event: "):
                    kind = text[7:]
                elif text.startswith("data: ") and kind == "turn":
                    self.turns.append((time.monotonic(), json.loads(text[6:])))
            self.open = False
            writer.close()


def call(port: int, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request(method, path, json.dumps(body) if body is not None else None,
                       {"Content-Type": "application/json"})
    answer = connection.getresponse()
    status, data = answer.status, json.loads(answer.read() or b"{}")
    connection.close()
    return status, data


async def measure(port: int, keys: list[str], count: int, moves: int) -> dict[str, float]:
    """``count`` listeners (the two players among them), and ``moves`` moves between them."""
    until = time.monotonic() + 3600
    listeners = [Listener(port, key) for key in keys[:count]]
    tasks = [asyncio.create_task(listener.run(until)) for listener in listeners]
    deadline = time.monotonic() + 60
    while sum(listener.open for listener in listeners) + sum(
            listener.refused > 0 for listener in listeners) < count \
            and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    connected = sum(listener.open for listener in listeners)
    answers, delays = [], []
    loop = asyncio.get_running_loop()
    status, game = await loop.run_in_executor(None, lambda: call(port, "POST", "/api/games", {
        "game": "mastery", "players": [{"key": keys[0]}, {"key": keys[1]}]}))
    apis = ["/api/play/" + seat["api"].rsplit("/", 1)[1] for seat in game["seats"]]
    for _ in range(moves):
        status, seen = await loop.run_in_executor(None, call, port, "GET", apis[0])
        if seen["outcome"]:
            break
        [seat] = seen["to_move"]
        if seat:
            status, seen = await loop.run_in_executor(None, call, port, "GET", apis[1])
        told = len(listeners[1 - seat].turns)
        start = time.monotonic()
        status, moved = await loop.run_in_executor(
            None, call, port, "POST", f"{apis[seat]}/moves",
            {"move": seen["legal_moves"][0], "version": seen["version"]})
        answered = time.monotonic()
        answers.append((answered - start) * 1000)
        if status != 200 or moved["outcome"] or 1 - seat not in moved["to_move"]:
            continue  # no turn to tell the other
        while len(listeners[1 - seat].turns) == told and time.monotonic() < answered + 10:
            await asyncio.sleep(0.01)
        if len(listeners[1 - seat].turns) > told:
            delays.append(listeners[1 - seat].turns[told][0] - answered)
        else:
            delays.append(float("inf"))
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"connected": connected, "refused": sum(listener.refused for listener in listeners),
            "move_median": statistics.median(answers), "move_max": max(answers),
            "told_median": statistics.median(delays), "told_max": max(delays)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listeners", default="50,200,380",
                        help="the numbers of listeners to measure, comma-separated")
    parser.add_argument("--moves", type=int, default=20, help="moves played at each number")
    parser.add_argument("--workers", default="4", help="gunicorn's (PBEM_WORKERS)")
    parser.add_argument("--threads", default="128", help="each worker's (PBEM_THREADS)")
    parser.add_argument("--per-worker", default="96",
                        help="listeners each worker holds (EVENTS_LISTENERS)")
    options = parser.parse_args()
    counts = [int(n) for n in options.listeners.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        database = f"{folder}/bench.sqlite"
        app = create_app({"DATABASE": database, "SECRET_KEY": "bench",
                          "PUBLIC_URL": "http://127.0.0.1"})
        with app.app_context():
            db = get_db()
            with write(db):
                made = [players.create(db, f"player{n}", f"player{n}@example.org")
                        for n in range(max(counts))]
            keys = [players.key(player) for player in made]
        port = serving.free_port()
        env = {**os.environ, "PBEM_DATABASE": database, "PBEM_SECRET_KEY": "bench",
               "PBEM_INSTANCE": f"{folder}/instance", "PBEM_PUBLIC_URL": "http://127.0.0.1",
               "PBEM_BIND": f"127.0.0.1:{port}", "PBEM_WORKERS": options.workers,
               "PBEM_THREADS": options.threads, "PBEM_EVENTS_LISTENERS": options.per_worker,
               "PBEM_RATELIMIT_ENABLED": "false", "PBEM_MAIL_FOLDER": f"{folder}/mail",
               # a heartbeat every 5 s rather than 15: the server finds the streams of one
               # step closed (at its next write) before the next step opens more
               "PBEM_EVENTS_HEARTBEAT_SECONDS": str(HEARTBEAT)}
        server = subprocess.Popen([str(serving.BIN / "gunicorn"), "--access-logfile", "/dev/null"],
                                  cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
        try:
            serving.wait_for(port, server)
            print(f"gunicorn: {options.workers} workers of {options.threads} threads, "
                  f"{options.per_worker} listeners each; {os.cpu_count()} cores, load "
                  f"{os.getloadavg()[0]:.1f}")
            print(f"{'listeners':>10} {'open':>6} {'refused':>8} {'move median':>12} "
                  f"{'move max':>9} {'told median':>12} {'told max':>9}")
            for count in counts:
                # a write to a stream whose client left succeeds once (the kernel takes
                # it), and the next fails: two heartbeats free the last step's streams
                time.sleep(2 * HEARTBEAT + 2)
                cpu = serving.Server(port, server.pid).cpu()
                start = time.monotonic()
                figures = asyncio.run(measure(port, keys, count, options.moves))
                used = (serving.Server(port, server.pid).cpu() - cpu) / (
                    time.monotonic() - start)
                print(f"{count:>10} {figures['connected']:>6} {figures['refused']:>8} "
                      f"{figures['move_median']:>9.0f} ms {figures['move_max']:>6.0f} ms "
                      f"{figures['told_median']:>10.2f} s {figures['told_max']:>7.2f} s"
                      f"   (server CPU {used * 100:.0f}% of a core)")
        finally:
            server.terminate()
            server.wait(timeout=60)


if __name__ == "__main__":
    main()
