"""A complete bot for this server: it listens to its player's events and plays every game it
is in with the project's own computer player (``engine.bots``). Standard library only,
besides the project's ``engine`` package (run it with the project's virtualenv).

    .venv/bin/python examples/bot.py https://games.example.org/api/player/<its key>

docs/bots.md explains it step by step. In short:

1. It says which games it plays (``POST <key>/bot``): those without hidden information,
   whose whole position it can rebuild from the game's record.
2. It reads ``GET <key>/events`` (Server-Sent Events) and, when that connection ends (the
   server closes each one after a minute or so), connects again with ``Last-Event-ID``, so
   it misses nothing in between.
3. ``challenge``: a game offers it a seat; it takes it, ``POST <join>`` with its key.
4. ``turn``: one of its seats is to move; it reads the seat (``GET <api>``) and the game's
   record, rebuilds the position, asks ``engine.bots.choose`` for a move and sends it
   (``POST <api>/moves`` with the version it saw).
5. ``game_end``: it says so, and goes on listening.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.request
from typing import Any, Iterator

import engine
from engine import bots

TIMEOUT = 90  # seconds without a byte before the connection counts as lost (the server
              # sends a heartbeat every 15)


def call(url: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    """GET ``url`` (or POST ``body`` to it as JSON): the status and the JSON answer."""
    request = urllib.request.Request(
        url, data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            status, text = answer.status, answer.read()
    except urllib.error.HTTPError as refused:
        status, text = refused.code, refused.read()
    try:
        return status, json.loads(text or b"{}")
    except ValueError:  # not JSON: a proxy's error page
        return status, {"error": text.decode(errors="replace")[:200]}


def events(key: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The player's events, (event, data), for ever: one stream after another, each
    resumed after the last event id the one before gave."""
    last_id, retry = None, 1.0
    while True:
        headers = {"Accept": "text/event-stream"}
        if last_id is not None:
            headers["Last-Event-ID"] = last_id
        try:
            with urllib.request.urlopen(urllib.request.Request(f"{key}/events", headers=headers),
                                        timeout=TIMEOUT) as stream:
                kind, data = "message", ""
                for raw in stream:
                    line = raw.decode().rstrip("\r\n")
                    if not line:  # a blank line ends an event
                        if data:
                            yield kind, json.loads(data)
                        kind, data = "message", ""
                    elif line.startswith(":"):
                        continue  # a comment: the heartbeat
                    else:
                        name, _, value = line.partition(":")
                        value = value.removeprefix(" ")
                        if name == "id":
                            last_id = value
                        elif name == "event":
                            kind = value
                        elif name == "data":
                            data = f"{data}\n{value}" if data else value
                        elif name == "retry" and value.isdigit():
                            retry = int(value) / 1000
        except urllib.error.HTTPError as refused:  # 503: the server is full for now
            retry = float(refused.headers.get("Retry-After", 5))
            log(f"the server answered {refused.code}; again in {retry:g} s")
        except OSError as lost:  # the network, or a server restarting
            log(f"connection lost ({lost}); again in {retry:g} s")
        time.sleep(retry)


def position(game: engine.Game, seat_api: str, seen: dict[str, Any]) -> engine.State:
    """The game's position, rebuilt from its record: the moves of the line as it stands
    (those a takeback undid left out), replayed from the start."""
    status, record = call(f"{seat_api}/record")
    if status != 200:
        raise RuntimeError(f"the record answered {status}: {record.get('error')}")
    moves = [(entry["seat"], entry["move"]) for entry in record["events"]
             if entry["action"] == "move" and not entry.get("taken_back")]
    # games without hidden information start the same whatever the seed
    state = game.replay(len(seen["players"]), record["options"], "", moves)
    if game.view(state, seen["seat"]) != seen["view"]:
        raise RuntimeError("the rebuilt position differs from the server's")
    return state


def play(seat_api: str, level: str) -> None:
    """Move for the seat, if it is to move, until it is not (a stale version: read again)."""
    for _ in range(3):
        status, seen = call(seat_api)
        if status != 200 or seen["outcome"] or seen["seat"] not in seen["to_move"]:
            return
        game = engine.get(seen["game"])
        state = position(game, seat_api, seen)
        move = bots.choose(game, state, seen["seat"], level=level,
                           seed=f"{seat_api}:{seen['version']}")
        status, answer = call(f"{seat_api}/moves", {"move": move, "version": seen["version"]})
        if status == 200:
            log(f"{seen['game']}: played {move}")
            return
        if status != 409:  # 409: the game moved on since it read it
            log(f"{seen['game']}: {move} refused ({status}): {answer.get('error')}")
            return


def declare(key: str, games: list[str]) -> None:
    """Say which games the bot plays (rated games: as its owner chose)."""
    status, answer = call(f"{key}/bot", {"games": games})
    if status != 200:
        sys.exit(f"Could not declare the bot's games ({status}): {answer.get('error')}")
    log(f"{answer['handle']} (run by {answer['owner']}) plays {', '.join(answer['games'])}")


def log(text: str) -> None:
    print(time.strftime("%H:%M:%S"), text, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("key", help="the bot's player key (its API base URL)")
    parser.add_argument("--level", choices=tuple(bots.LEVELS), default="easy",
                        help="how hard the computer thinks (default: easy)")
    options = parser.parse_args()
    key = options.key.rstrip("/")
    declare(key, [game.id for game in engine.GAMES.values() if not game.hidden_information])
    for kind, data in events(key):
        if kind == "challenge":
            status, answer = call(data["join"], {"key": key})
            log(f"{data['game']} {data['id']}: " + ("joined" if status == 201 else
                                                   f"not joined: {answer.get('error')}"))
        elif kind == "turn":
            play(data["api"], options.level)
        elif kind == "game_end":
            log(f"{data['game']} {data['id']} is over: {data['outcome']}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
