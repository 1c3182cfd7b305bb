"""The example bot (``examples/bot.py``) against a real server: gunicorn with the project's
settings in a process of its own, and the bot in another, as its developer runs them. A
person registers the bot, offers it a seat, and plays it to the end of the game."""
from __future__ import annotations

import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pbem.store.db import connect
from helpers import SIGN_IN_LINK, free_port
from test_production import GUNICORN, stop, wait_up
from test_several_machines import call, machine_env

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "bot.py"


def sign_up(base: str, database: str, handle: str) -> str:
    """A new player, by the link the server queued for ``<handle>@example.org``: its key."""
    email = f"{handle.lower()}@example.org"
    assert call(f"{base}/api/sign-in", {"email": email})[0] == 202
    db = connect(database)
    try:
        body = db.execute("SELECT body FROM outbox WHERE recipient = ? AND kind = 'sign_in'",
                          [email]).fetchone()[0]
    finally:
        db.close()
    status, signed = call(base + SIGN_IN_LINK.search(body).group(1), {"handle": handle})
    assert status == 201, signed
    return signed["key"]


# what the bot reads and sends, not how it is stored: test_platform keeps the stream on both
@pytest.mark.one_database
def test_the_example_bot_takes_the_seat_it_is_offered_and_plays_the_game_to_its_end(
        tmp_path, database):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [str(GUNICORN)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=machine_env(tmp_path, database, "web", PBEM_BIND=f"127.0.0.1:{port}",
                        PBEM_PUBLIC_URL=base, PBEM_WORKERS="1",
                        # Ann and the bot are one address here, moving a move a second
                        PBEM_RATELIMIT_ENABLED="false",
                        # streams end soon: the bot reconnects with Last-Event-ID meanwhile
                        PBEM_EVENTS_STREAM_SECONDS="2", PBEM_EVENTS_POLL_SECONDS="0.1"))
    bot, said = None, []  # the bot's process, and what it prints as it prints it
    try:
        wait_up(server, base)
        ann = sign_up(base, database, "Ann")
        status, robo = call(f"{ann}/bot", {"handle": "Robo", "games": ["mastery"]})
        assert status == 201, robo
        bot = subprocess.Popen([sys.executable, str(EXAMPLE), robo["key"]], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        reader = threading.Thread(target=lambda: said.extend(bot.stdout), daemon=True)
        reader.start()
        status, created = call(f"{base}/api/games", {"game": "mastery", "players": [
            {"key": ann}, {"handle": "Robo"}], "clock": {"mode": "per_move", "days": 3}})
        assert status == 201, created

        # Ann plays her moves as her turns come, told by her own events (the long poll)
        rng, seen, ended = random.Random(7), 0, None
        deadline = time.monotonic() + 120
        while ended is None:
            assert time.monotonic() < deadline, "the game did not end in two minutes"
            assert bot.poll() is None, "".join(said)
            status, polled = call(f"{ann}/events?after={seen}&wait=5")
            assert status == 200, polled
            seen = polled["last"]
            for told in polled["events"]:
                if told["event"] == "game_end":
                    ended = told["data"]
                elif told["event"] == "turn":
                    api = told["data"]["api"]
                    position = call(api)[1]
                    if 0 in position["to_move"]:
                        assert call(f"{api}/moves", {
                            "move": rng.choice(position["legal_moves"]),
                            "version": position["version"]})[0] == 200
        assert ended["id"] == created["id"] and ended["outcome"]["reason"]
        status, record = call(f"{ended['api']}/record")
        moves = [e for e in record["events"] if e["action"] == "move"]
        assert {e["seat"] for e in moves} == {0, 1} and record["outcome"] is not None
        # the bot's seat is the bot's: its own key lists the game, its moves made there
        games = call(robo["key"])[1]["games"]
        assert [g["id"] for g in games] == [created["id"]] and games[0]["seat"] == 1
        while not any("is over" in line for line in said) and time.monotonic() < deadline:
            time.sleep(0.1)  # the bot hears of the end too
    finally:
        if bot is not None:
            bot.terminate()
            bot.wait(timeout=30)
            reader.join(timeout=30)
        served = stop(server)
    output = "".join(said)
    assert "joined" in output and "played" in output and "is over" in output, output
    assert "Traceback" not in output + served, output + served
