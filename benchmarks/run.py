"""Prints the server's figures beside their limits, each limit measured in the same run on
the same machine (``./dev bench``, a few minutes; ``./dev bench pages mail`` for some):

- pages: play pages of every game served per second by gunicorn (``serving.WORKERS`` sync
  workers) on loopback, beside a bare Flask page under the same server: viewed again (from
  the render cache, by a browser sending its session cookie), asked again with their ETag
  (304), drawn afresh, and the page of a click on it drawn afresh (CPU time); and the live
  pages' polls;
- cold: a Mastery play page at ply 400 in a process that has not loaded the game, beside the
  same page drawn from the game in the cache (CPU time), and the memory the match cache
  holds for that game;
- records: the review page of the longest uploaded record the server reviews, beside a
  game's pages (CPU time), and what its upload and kept replay cost;
- commits: moves recorded per second through the same server (each a POST to the JSON API,
  committed with the email it queues), beside raw SQLite commits with the same settings
  and the same sync after each;
- move: the CPU of one move through the JSON API in this process (Flask's test client, a
  game on a clock), beside a bare Flask page through the same client;
- mail: "your move" emails (text, HTML and the board's picture) delivered per second to a
  local SMTP server (aiosmtpd), beside raw smtplib sending the same messages over one
  connection to it, and the CPU the picture takes;
- strangers: the delay of an email while 3 webhooks answer a byte every few seconds and 12
  never answer, the job process running as in production;
- jobs: one pass of every scheduler job over 100,000 active games loaded straight into the
  database, a few of them due, and the games each pass read (the computer players' job:
  finding its turns, not playing them);
- fairness: a person's wait for the easy computer's reply while 1,000 games between
  computers run, the job process running as in production;
- capacity: the active games one machine carries, from those figures;
- engine: random playouts per second for every game, and Magnet's move generation.
"""
from __future__ import annotations

import email
import email.policy
import gc
import html
import json
import os
import random
import re
import smtplib
import statistics
import sys
import tempfile
import time
import tracemalloc
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent / "tests"))  # helpers

import engine
from pbem import commands, computer, create_app, creation, matches, positions
from pbem.mail import bounces, outbox, pictures, reminders, webhooks
from pbem.mail import compose
from pbem.web import play, records
from pbem.store.db import connect, write
from pbem.events import Command, Move
from pbem.matches import CACHE

import bare
import serving
from helpers import SlowReceiver  # tests/helpers.py

SECONDS = 5.0  # each rate is measured this long, after a second of warm-up
PLAYERS = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]
FIGURES: dict[str, float] = {}  # what the capacity estimate is made of


def row(what: str, value: str, cpu: float | None = None, limit: str = "",
        ratio: float | None = None) -> None:
    """One figure: its value, the CPU it took (ms each), and its ratio to its limit."""
    print(f"  {what:<50} {value:>12} {'' if cpu is None else f'{cpu:8.2f} ms':>12}   "
          f"{limit:<20} {'' if ratio is None else f'{ratio:5.2f}'}")


def new_app(folder: str, **config):
    return create_app({"DATABASE": f"{folder}/bench.sqlite", "MAIL_FOLDER": f"{folder}/mail",
                       "SECRET_KEY": "bench", "PUBLIC_URL": "http://127.0.0.1",
                       "RATELIMIT_ENABLED": False, **config})


def options(game: engine.Game) -> dict:
    """No draws by repetition, so that random games last."""
    return {o.name: False for o in game.options if o.name == "repetition_draw"}


def path(url: str) -> str:
    return re.sub(r"^https?://[^/]+", "", url)


def game_at_ply(client, game_id: str, plies: int, seed: int) -> str:
    """A game with ``plies`` random moves played through the API; the path of the play page
    of a seat to move then ("" if the game ended first)."""
    created = client.post("/api/games", json={
        "game": game_id, "options": options(engine.get(game_id)), "players": PLAYERS}).json
    apis = [path(seat["api"]) for seat in created["seats"]]
    rng = random.Random(seed)
    for ply in range(plies):
        to_move = client.get(apis[0]).json["to_move"]
        if not to_move:
            return ""
        body = client.get(apis[to_move[0]]).json
        seat = to_move[0]
        client.post(apis[seat] + "/moves", json={"move": rng.choice(body["legal_moves"]),
                                                 "ply": ply})
    answer = client.get(apis[0]).json
    if answer["outcome"]:
        return ""
    return path(created["seats"][answer["to_move"][0]]["url"])


def page_at_ply(client, game_id: str, plies: int) -> str:
    seed = 0
    while not (url := game_at_ply(client, game_id, plies, seed)):
        seed += 1  # a random game may end early: try another
    return url


# -- pages --------------------------------------------------------------------------------

def page_figures(plies: int = 12, repeats: int = 30) -> None:
    """The pages of every game at ``plies``, each drawn afresh ``repeats`` times."""
    print(f"Pages: requests/s through gunicorn ({serving.WORKERS} sync workers, loopback, "
          f"16 clients), and the server's CPU per request")
    with serving.gunicorn("bare:app") as server:
        bare = serving.hammer(server, [serving.repeat(("GET", "/", b""))] * 16, SECONDS)
    row("bare Flask page (the limit)", f"{bare.rate:8.0f} /s", bare.cpu_ms)
    with tempfile.TemporaryDirectory() as folder:
        client = new_app(folder).test_client()
        every = client.application.config["LIVE_UPDATE_SECONDS"]  # how often an open page polls
        pages = {game_id: page_at_ply(client, game_id, plies) for game_id in engine.GAMES}
        drawing = {game_id: drawn_afresh(client, url, repeats) for game_id, url in pages.items()}
        etags = {game_id: client.get(url).headers["ETag"] for game_id, url in pages.items()}
        # a browser views a page again with the session cookie its last view left it
        # (which remembers that game as its latest: the view leaves the cookie as it is)
        cookies = {game_id: browser_cookie(client, url) for game_id, url in pages.items()}
        poll = pages["mastery"] + "/version"
        with serving.gunicorn("pbem:create_app()", server_env(folder)) as server:
            viewed, checked, drawn, clicked = [], [], [], []
            for game_id, url in pages.items():
                title = engine.get(game_id).title
                again = serving.hammer(
                    server, [serving.repeat(("GET", url, b"", cookies[game_id]))] * 16,
                    SECONDS)
                assert not again.failed, f"{again.failed} failed requests for {game_id}"
                row(f"{title} play page, ply {plies}, viewed again", f"{again.rate:8.0f} /s",
                    again.cpu_ms, "bare Flask page", again.rate / bare.rate)
                etag = {"If-None-Match": etags[game_id], **cookies[game_id]}
                same = serving.hammer(
                    server, [serving.repeat(("GET", url, b"", etag))] * 16, SECONDS)
                assert not same.failed, f"{same.failed} failed requests for {game_id}"
                row("  asked with its ETag: 304", f"{same.rate:8.0f} /s", same.cpu_ms,
                    "bare Flask page", same.rate / bare.rate)
                fresh, click, cached = drawing[game_id]
                row("  drawn afresh (CPU in this process)", "", fresh,
                    f"viewed again {cached:.2f} ms", fresh / cached)
                row("  a click on it drawn afresh", "", click,
                    f"viewed again {cached:.2f} ms", click / cached)
                viewed.append(again.cpu_ms)
                checked.append(same.cpu_ms)
                # as the server would draw them
                drawn.append(again.cpu_ms + fresh - cached)
                clicked.append(again.cpu_ms + click - cached)
            version = {"If-None-Match": client.get(poll).headers["ETag"]}
            polled = serving.hammer(
                server, [serving.repeat(("GET", poll, b"", version))] * 16, SECONDS)
    row("live page poll, nothing new: 304", f"{polled.rate:8.0f} /s", polled.cpu_ms,
        "bare Flask page", polled.rate / bare.rate)
    for pages_open in (1000, 10_000):
        load = pages_open / every
        row(f"  {pages_open:,} open pages polling every {every:g} s",
            f"{load * polled.cpu_ms / 10:7.1f} %", None, "of one core")
    FIGURES["page"] = statistics.mean(viewed)
    FIGURES["304"] = statistics.mean(checked)
    FIGURES["drawn"] = statistics.mean(drawn)
    FIGURES["click"] = statistics.mean(clicked)


def browser_cookie(client, url: str) -> dict[str, str]:
    """The Cookie header of a browser that has just viewed ``url``."""
    client.get(url)
    return {"Cookie": f"session={client.get_cookie('session').value}"}


def drawn_afresh(client, url: str, repeats: int = 30) -> tuple[float, float, float]:
    """CPU ms (medians) of a page drawn afresh (nothing of it in the render cache, the game
    in the match cache); of the page of its first click drawn afresh, once the page has
    been drawn (the legal moves of the position are known: a move is built by clicks on
    one position); and of the page viewed again, in this process."""
    page = client.get(url).get_data(as_text=True)
    link = re.search(r'href="([^"]*\?path=[^"]*)"', page)
    assert link is not None, "the page has something to click"
    click = html.unescape(link.group(1))

    def drawn() -> None:  # the position's page drawn: its legal moves are known
        play.RENDERS.clear()
        client.get(url)

    return (statistics.median(cpu_ms(client, url, play.RENDERS.clear) for _ in range(repeats)),
            statistics.median(cpu_ms(client, click, drawn) for _ in range(repeats)),
            statistics.median(cpu_ms(client, url) for _ in range(repeats * 3)))


def cpu_ms(client, url: str, before=lambda: None) -> float:
    """The CPU ms of one request for ``url`` in this process, after ``before`` (which drops
    what the request should not find in the caches)."""
    before()
    start = time.process_time()
    assert client.get(url).status_code == 200
    return (time.process_time() - start) * 1000


def server_env(folder: str) -> dict[str, str]:
    return {"PBEM_INSTANCE": f"{folder}/instance", "PBEM_DATABASE": f"{folder}/bench.sqlite",
            "PBEM_MAIL_FOLDER": f"{folder}/mail", "PBEM_SECRET_KEY": "bench",
            "PBEM_PUBLIC_URL": "http://127.0.0.1", "PBEM_RATELIMIT_ENABLED": "false"}


def cold_figures(repeats: int = 30, ply: int = 400) -> None:
    """A Mastery play page as the process that serves it first loads the game (its caches
    dropped), beside the same page drawn afresh from the game in the cache: at ``ply``
    (400), and 15 plies later, the most moves after a stored position
    (``positions.EVERY``); process CPU time, which other programs on the machine do not
    inflate. And the memory of the game at ``ply`` in the cache."""
    print("Cold cache: a Mastery play page, CPU ms in this process (medians)")
    with tempfile.TemporaryDirectory() as folder:
        app = new_app(folder)
        client = app.test_client()
        loads = []  # what loading the game adds to a page, ms
        for plies in (ply, ply + positions.EVERY - 1):
            url = page_at_ply(client, "mastery", plies)

            def unloaded() -> None:
                CACHE.clear()
                play.RENDERS.clear()

            warm = statistics.median(cpu_ms(client, url, play.RENDERS.clear)
                                     for _ in range(repeats * 5))
            cold = statistics.median(cpu_ms(client, url, unloaded) for _ in range(repeats))
            row(f"drawn from the cached game at ply {plies} (limit)", "", warm)
            row(f"drawn from a cold game at ply {plies}", "", cold, "2 x the cached game",
                cold / warm)
            loads.append(cold - warm)
        FIGURES["load"] = max(0.0, *loads)  # below zero is the timer's noise, at a low ply
        db = connect(app.config["DATABASE"])
        game_id = db.execute("SELECT id FROM games WHERE ply = ?", [ply]).fetchone()[0]
        CACHE.clear()
        gc.collect()
        tracemalloc.start()
        match = matches.load(db, game_id)
        held = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        assert match.ply == ply
        row(f"memory of the game at ply {ply} in the cache", f"{held / 1024:8.0f} KB")


# -- records ------------------------------------------------------------------------------

def longest_record(plies: int) -> dict:
    """An Abstract Play record of ``plies`` moves of Mastery, as dear to review as such a
    record can be: no draws by repetition, no capture, and every move, where one can, to a
    board not seen before (a Mastery position keeps every board seen so far)."""
    game = engine.get("mastery")
    state, rng = game.start(2, {"repetition_draw": False}, ""), random.Random(0)
    moves: list[str] = []
    while len(moves) < plies:
        seat = state.to_move[0]
        quiet = [move for move in game.legal_moves(state, seat) if "x" not in move]
        rng.shuffle(quiet)
        following = [(move, game.apply(state, seat, move)) for move in quiet]
        going_on = [(move, after) for move, after in following if after.outcome is None]
        move, state = next(((move, after) for move, after in going_on
                            if (after.board, 1 - seat) not in state.seen), going_on[0])
        moves.append(move)
    return {"header": {"game": {"name": "Mastery", "variants": ["repetition_draw=false"]},
                       "players": [{"name": "Ann"}, {"name": "Bob"}]},
            "moves": [moves[n:n + 2] for n in range(0, plies, 2)]}


def record_figures(repeats: int = 30, ply: int = 400, plies: int = records.MOST_PLIES) -> None:
    """The review page of the longest record the server reviews (``longest_record`` of
    ``plies``), at
    the ply that replays the most moves from a kept position, drawn afresh; beside a
    Mastery game's play page at ``ply`` and its history page a ply earlier (15 moves after
    a kept position), drawn afresh from the cached game. Process CPU time (medians); and
    what the upload took, what its replay keeps, and what a full replay, which each
    review page made before, takes."""
    print("Records: the review page of the longest record reviewed, beside a game's pages, "
          "CPU ms in this process (medians)")
    with tempfile.TemporaryDirectory() as folder:
        app = new_app(folder)
        client = app.test_client()
        url = page_at_ply(client, "mastery", ply)
        for what, page in ((f"a game's play page at ply {ply}", url),
                           (f"its history page at ply {ply - 1} (limit)",
                            f"{url}/history/{ply - 1}")):
            limit = statistics.median(cpu_ms(client, page, play.RENDERS.clear)
                                      for _ in range(repeats))
            row(what, "", limit)
        record = longest_record(plies)
        start = time.process_time()
        uploaded = client.post("/records", data={"pasted": json.dumps(record)})
        upload = (time.process_time() - start) * 1000
        assert uploaded.status_code == 303
        worst = f"{path(uploaded.headers['Location']).rsplit('/', 1)[0]}/{plies - 1}"
        review = statistics.median(cpu_ms(client, worst, play.RENDERS.clear)
                                   for _ in range(repeats))
        size = len(client.get(worst).data)
        start = time.process_time()
        records.replay(record)
        replay = (time.process_time() - start) * 1000
        db = connect(app.config["DATABASE"])
        kept = db.execute("SELECT sum(length(state)) FROM record_positions").fetchone()[0]
        db.close()
    row(f"review page at ply {plies - 1} of {plies}", "", review,
        "the history page", review / limit)
    row("its size", f"{size / 1024:8.0f} KB")
    row("the upload (replayed once, kept)", "", upload)
    row("the positions kept of it", f"{kept / 1024:8.0f} KB")
    row("a full replay of the record (each page, before)", "", replay)


# -- commits ------------------------------------------------------------------------------

def commit_figures(clients: int = 8, games: int = 32) -> None:
    """Moves recorded per second through the server: each client plays its own games (so
    no move is refused as stale), move after move, with moves worked out beforehand from
    the engine (Mastery has no chance); each move is committed with the email it queues.
    Beside it, raw SQLite commits with the same settings and the same sync (``db.write``),
    one row each."""
    print(f"Commits: per second ({clients} clients through the same server; raw: one thread)")
    game = engine.get("mastery")
    with tempfile.TemporaryDirectory() as folder:
        client = new_app(folder).test_client()
        plans = []
        for number in range(games):
            created = client.post("/api/games", json={
                "game": game.id, "options": options(game), "players": PLAYERS}).json
            apis = [path(seat["api"]) for seat in created["seats"]]
            state, rng = game.start(2, options(game), ""), random.Random(number)
            moves: list[tuple[str, str, bytes]] = []  # (method, path, body) of each request
            while state.outcome is None and len(moves) < 400:
                seat = state.to_move[0]
                move = rng.choice(game.legal_moves(state, seat))
                moves.append(("POST", f"{apis[seat]}/moves",
                              json.dumps({"move": move, "ply": len(moves)}).encode()))
                state = game.apply(state, seat, move)
            plans.append(moves)

        def player(mine: list[list]):
            requests = iter([request for moves in mine for request in moves])
            return lambda: next(requests, None)

        with serving.gunicorn("pbem:create_app()", server_env(folder)) as server:
            load = serving.hammer(
                server, [player(plans[n::clients]) for n in range(clients)], SECONDS)
        assert not load.failed, f"{load.failed} moves refused"
        raw = connect(f"{folder}/raw.sqlite")
        raw.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
        commits, start = 0, time.perf_counter()
        while time.perf_counter() - start < SECONDS:
            with write(raw):
                raw.execute("INSERT INTO t (v) VALUES (?)", ["x" * 100])
            commits += 1
        raw_rate = commits / (time.perf_counter() - start)
        raw.close()
    row("raw SQLite commits, each synced, one thread (limit)", f"{raw_rate:8.0f} /s")
    row("moves through the server (POST, with email)", f"{load.rate:8.0f} /s", load.cpu_ms,
        "raw SQLite commits", load.rate / raw_rate)
    FIGURES["move"], FIGURES["commits"] = load.cpu_ms, raw_rate


# -- a move in process ----------------------------------------------------------------------

def move_figures(games: int = 4, plies: int = 60) -> None:
    """The CPU of one move through the JSON API in this process (Flask's test client, no
    server), in games of every kind on a Fischer clock played to ``plies`` with random
    legal moves (each read from the API beforehand, untimed), beside a bare Flask page
    through a test client (the ratio: the page's time over the move's)."""
    print("Move: CPU per request in this process (Flask's test client)")
    page = bare.app.test_client()
    for _ in range(200):
        page.get("/")
    pages = []
    for _ in range(2000):
        start = time.process_time()
        page.get("/")
        pages.append(time.process_time() - start)
    bare_ms = statistics.median(pages) * 1000
    row("bare Flask page, test client (the limit)", "", bare_ms)
    clock = {"mode": "fischer", "initial_days": 7, "increment_days": 1, "max_days": 14}
    with tempfile.TemporaryDirectory() as folder:
        client = new_app(folder).test_client()
        every: list[float] = []
        for game_id in engine.GAMES:
            times: list[float] = []
            for number in range(games):
                created = client.post("/api/games", json={
                    "game": game_id, "options": options(engine.get(game_id)),
                    "players": PLAYERS, "clock": clock}).json
                apis = [path(seat["api"]) for seat in created["seats"]]
                rng = random.Random(number)
                for ply in range(plies):
                    to_move = client.get(apis[0]).json["to_move"]
                    if not to_move:
                        break
                    body = client.get(apis[to_move[0]]).json
                    move = rng.choice(body["legal_moves"])
                    start = time.process_time()
                    answer = client.post(f"{apis[to_move[0]]}/moves",
                                         json={"move": move, "ply": ply})
                    times.append(time.process_time() - start)
                    assert answer.status_code == 200, answer.json
            move_ms = statistics.median(times) * 1000
            every.extend(times)
            row(f"a move of {engine.get(game_id).title} (median of {len(times)})", "",
                move_ms, "bare Flask page", bare_ms / move_ms)
    move_ms = statistics.median(every) * 1000
    row("a move through the API, every game", "", move_ms, "bare Flask page",
        bare_ms / move_ms)


# -- mail ---------------------------------------------------------------------------------

def mail_figures(count: int = 200) -> None:
    """``count`` queued "your move" emails of Mastery (the text, the HTML and the board
    drawn as a PNG when each is built), each of another position (those of random games,
    as a server's emails are: the same picture twice only where two seats see the same
    position), delivered by ``outbox.deliver_due`` until none is due: by a process that
    has drawn nothing yet, then again by one that drew those boards' parts before (as a
    deliverer that has run a while has: a game's parts are a few thousand), beside smtplib
    sending the same messages over one connection, made beforehand: as ``EmailMessage``
    objects (``send_message``, the limit), and as the bytes the deliverer sends
    (``sendmail``, a faster one still); and the CPU the pictures take of it, drawn again
    both ways."""
    print(f"Mail: messages/s to a local SMTP server ({count} messages), and the sender's CPU")
    body = "Hello Ann,\n\n" + "Bob played d4xc5. " * 60 + "\n"
    with tempfile.TemporaryDirectory() as folder, serving.smtp_sink() as port:
        app = new_app(folder, SMTP_HOST="127.0.0.1", SMTP_PORT=port)
        db = connect(app.config["DATABASE"])
        with app.app_context(), write(db):
            boards = positions_drawn(db, count)
            db.execute("DELETE FROM outbox")  # the games' own emails: only those below are timed

        def queued() -> None:
            with app.app_context(), write(db):
                for number, (board, drawing) in enumerate(boards):
                    html = compose.html_part("Your move", f"{body}\n{board}\n", "", {},
                                             primary="", board=board, drawing=drawing)
                    outbox.queue(db, recipient=f"player{number}@example.org",
                                 body=f"{body}\n{board}\n", html=html, board=drawing,
                                 subject=f"Your move — Mastery: Ann vs Bob [{number}]",
                                 headers={"References": "<game@pbem.localhost>"})

        queued()
        built = [outbox.build(dict(row), app.config["MAIL_FROM"], app.config["PUBLIC_URL"])
                 for row in db.execute("SELECT * FROM outbox").fetchall()]
        messages = [email.message_from_bytes(message.data, policy=email.policy.SMTP)
                    for message in built]

        def timed(send) -> tuple[float, float]:
            """Messages per second and CPU ms each, over one connection."""
            start, cpu = time.perf_counter(), time.process_time()
            with smtplib.SMTP("127.0.0.1", port) as smtp:
                send(smtp)
            return (count / (time.perf_counter() - start),
                    (time.process_time() - cpu) * 1000 / count)

        def delivered() -> tuple[float, float]:
            """Messages per second and CPU ms each, delivering what is queued."""
            transport = outbox.transport_from_config(app.config)
            sent, start, cpu = 0, time.perf_counter(), time.process_time()
            while done := outbox.deliver_due(
                    db, transport, app.config["MAIL_FROM"], app.config["PUBLIC_URL"],
                    return_paths=bounces.ReturnPaths.of(app.config))[0]:  # as the job does
                sent += done
            assert sent == count
            return sent / (time.perf_counter() - start), \
                (time.process_time() - cpu) * 1000 / count

        def drawn() -> float:
            """CPU ms each of drawing the emails' pictures."""
            start = time.process_time()
            for _board, drawing in boards:
                for _cid, svg in pictures.numbered(drawing):
                    pictures.png(svg)
            return (time.process_time() - start) * 1000 / count

        raw, raw_cpu = timed(lambda smtp: [smtp.send_message(m) for m in messages])
        raw_bytes, bytes_cpu = timed(lambda smtp: [
            smtp.sendmail(m.sender, [m.recipient], m.data) for m in built])
        forget_pictures()  # building the messages above drew them
        rate, rate_cpu = delivered()
        queued()
        pictures.png.cache_clear()  # its pictures and their bands, not their parts
        pictures.BANDS.clear()
        warm, warm_cpu = delivered()
        db.close()
        forget_pictures()
        picture_cpu = drawn()
        pictures.png.cache_clear()
        pictures.BANDS.clear()
        warm_picture_cpu = drawn()
    size = statistics.mean(len(message.data) for message in built) / 1000
    row(f"raw smtplib send_message (the limit; {size:.0f} kB each)", f"{raw:8.0f} /s", raw_cpu)
    row("raw smtplib sendmail of the bytes", f"{raw_bytes:8.0f} /s", bytes_cpu)
    row("mail.deliver_due, drawing every part", f"{rate:8.0f} /s", rate_cpu, "send_message",
        rate / raw)
    row("", "", None, "sendmail of bytes", rate / raw_bytes)
    row("  of which the board's picture (PNG)", "", picture_cpu, "", picture_cpu / rate_cpu)
    row("mail.deliver_due, the parts drawn before", f"{warm:8.0f} /s", warm_cpu,
        "send_message", warm / raw)
    row("", "", None, "sendmail of bytes", warm / raw_bytes)
    row("  of which the board's picture (PNG)", "", warm_picture_cpu, "",
        warm_picture_cpu / warm_cpu)
    FIGURES["mail"] = warm_cpu  # a deliverer that runs for days has drawn its games' parts


def positions_drawn(db, count: int) -> list[tuple[str, str]]:
    """The boards (text, drawing) that ``count`` "your move" emails of random Mastery games
    show their player, move after move: the seat to move's view, the last move marked."""
    boards: list[tuple[str, str]] = []
    rng = random.Random(5)
    while len(boards) < count:
        match = creation.create(db, "mastery", PLAYERS, {}).match
        while match.current.outcome is None and len(boards) < count:
            seat = match.current.to_move[0]
            move = rng.choice(match.game.legal_moves(match.current, seat))
            commands.submit(db, match.id, seat, Command.of("move", Move(move)), match.ply)
            match = matches.load(db, match.id)
            if match.current.outcome is None:
                to_move = match.current.to_move[0]
                drawing = compose.board_drawing(match, to_move)
                assert drawing is not None  # (Mastery's boards are drawn)
                boards.append((compose.board_text(match, to_move), drawing))
    return boards


def forget_pictures() -> None:
    """Empty the caches of drawn pictures, as in a process that has drawn none."""
    pictures.png.cache_clear()
    pictures.PARTS.clear()
    pictures.BANDS.clear()


# -- strangers' receivers ------------------------------------------------------------------

def stranger_figures(dribbling: int = 3, silent: int = 12, emails: int = 8,
                     dribble: float = 3.0, patience: float = 300) -> None:
    """The delay of an email (a sign-in link) while the outbox holds posts to ``dribbling``
    webhooks that answer a byte every ``dribble`` seconds and ``silent`` ones that never
    answer: the job process runs as in production (``run-scheduler``), but looks for mail
    every second (``MAIL_INTERVAL_SECONDS``, 20 by default, would add a wait of its own);
    once the posts are under way, an email is queued every second, each timed until it is
    sent (at most ``patience`` seconds)."""
    print(f"Strangers: the delay of an email while {dribbling} webhooks answer a byte every "
          f"{dribble:g} s and {silent} never answer")
    receivers = [SlowReceiver(dribble) for _ in range(dribbling)] + \
        [SlowReceiver() for _ in range(silent)]
    with tempfile.TemporaryDirectory() as folder, serving.smtp_sink() as port:
        app = new_app(folder)
        db = connect(app.config["DATABASE"])
        with write(db):
            for receiver in receivers:
                outbox.queue(db, recipient=receiver.url, subject="", channel="webhook",
                             body=webhooks.payload("g1", "chat", "Ann: hello"))
        delays, started = [], time.monotonic()
        with serving.job_process({**server_env(folder), "PBEM_SMTP_HOST": "127.0.0.1",
                                  "PBEM_SMTP_PORT": str(port), "PBEM_MAIL_INTERVAL_SECONDS": "1",
                                  "PBEM_WEBHOOK_ALLOW_PRIVATE": "true"}):
            while not any(receiver.connections for receiver in receivers):
                assert time.monotonic() - started < 60, "the posts are under way"
                time.sleep(0.05)
            for number in range(emails):
                with write(db):
                    queued = outbox.queue(db, recipient=f"player{number}@example.org",
                                          subject="Your sign-in link", body="Hello",
                                          kind="sign_in")
                asked = time.monotonic()
                while db.execute("SELECT status FROM outbox WHERE message_id = ?",
                                 [queued]).fetchone()[0] != "sent" \
                        and time.monotonic() - asked < patience:
                    time.sleep(0.02)
                delays.append(time.monotonic() - asked)
                time.sleep(max(0.0, 1 - delays[-1]))
        db.close()
    for receiver in receivers:
        receiver.close()
    row(f"an email's delay, median of {emails}", f"{statistics.median(delays):8.2f} s", None,
        "the next look, 1 s")
    row("  the longest", f"{max(delays):8.2f} s")


# -- the scheduler's jobs -----------------------------------------------------------------

CLOCK = json.dumps({"mode": "per_move", "days": 3, "weekends": "count",
                    "on_timeout": "loss", "vacation_days": 0})


def crowd(db, now: datetime, games: int, due: int) -> None:
    """``games`` active Mastery games straight into the database, each with a clock of 3
    days a move and Ann to move since it began: the first ``due`` began 3.5 days ago (out
    of time), the next ``due`` 2.5 days ago (a deadline warning and a reminder due), the
    next ``due`` recently with Ann on the daily digest (due for it), the next ``due`` with
    the computer in Ann's seat (its move due), and all the others in the last 40 hours
    (nothing due)."""
    game = engine.get("mastery")
    settings = json.dumps(game.start(2, {}, "").options)

    def began(number: int) -> datetime:
        if number < 2 * due:
            return now - timedelta(hours=84 if number < due else 60)
        return now - timedelta(hours=40 * number / games)

    def at(moment: datetime) -> str:
        return moment.isoformat(timespec="seconds")

    def computer_plays(number: int) -> bool:
        return 3 * due <= number < 4 * due

    with write(db):
        db.conn.executemany(
            "INSERT INTO games (id, game, players, options, seed, created_at, status, ply, "
            "to_move, outcome, updated_at, clock) VALUES (?, 'mastery', 2, ?, 'seed', ?, "
            "'active', 0, '[0]', NULL, ?, ?)",
            ((f"g{n:06d}", settings, at(began(n)), at(began(n)), CLOCK) for n in range(games)))
        db.conn.executemany(
            "INSERT INTO seats (game_id, seat, name, email, notify, bot) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            ((f"g{n:06d}", seat, name, f"{name.lower()}{n}@example.org",
              "digest" if seat == 0 and 2 * due <= n < 3 * due else "each", None)
             if seat or not computer_plays(n) else
             (f"g{n:06d}", seat, "Computer (easy)", None, "each", "easy")
             for n in range(games) for seat, name in enumerate(("Ann", "Bob"))))
        db.conn.executemany(
            "INSERT INTO due (game_id, seat, kind, at) VALUES (?, 0, ?, ?)",
            ((f"g{n:06d}", kind, at(began(n) + timedelta(days=days)))
             for n in range(games)
             for kind, days in (("computer" if computer_plays(n) else "reminder", 0),
                                ("waiting", 0), ("warning", 2), ("timeout", 3))))


def job_figures(games: int = 100_000, due: int = 50) -> None:
    print(f"Jobs: one pass over {games:,} active games, {due} due for each job (time, CPU, "
          f"games read), then a second pass")
    with tempfile.TemporaryDirectory() as folder:
        app = new_app(folder)
        db = connect(app.config["DATABASE"])
        now = datetime.now(timezone.utc).replace(hour=12)
        start = time.perf_counter()
        crowd(db, now, games, due)
        print(f"  (loaded in {time.perf_counter() - start:.1f} s)")
        read: set[str] = set()

        def traced(sql: str) -> None:
            found = re.search(r"FROM events WHERE game_id = '([^']+)'", sql)
            if found:
                read.add(found.group(1))

        db.conn.set_trace_callback(traced)
        jobs: list[tuple[str, Callable[..., int], tuple]] = [
            ("timeouts", commands.record_timeouts, (now,)),
            ("deadline warnings", reminders.send_deadline_warnings, (now,)),
            ("reminders", reminders.send_reminders, (now, 48)),
            ("digests", reminders.send_digests, (now, 7)),
            ("computer's turns found (not played)",
             lambda db, now: len(computer.due_turns(db, now)), (now,))]
        with app.app_context():
            for label in ("", " again"):  # nothing left to do but the computer's moves
                for name, job, args in jobs:
                    read.clear()
                    CACHE.clear()
                    start, cpu = time.perf_counter(), time.process_time()
                    done = job(db, *args)
                    row(f"{name}{label}: {done} done",
                        f"{(time.perf_counter() - start) * 1000:8.0f} ms",
                        (time.process_time() - cpu) * 1000, f"read {len(read)} games")
        db.close()


# -- fairness -----------------------------------------------------------------------------

THINK = 5.0  # the most seconds the person thinks before a move


def fairness_figures(games: int = 1000, moves: int = 10) -> None:
    """How long a person playing the easy computer waits for its reply while ``games``
    games between easy computers run (every game in turn): the job process runs as in
    production (``run-scheduler``, with the default settings) once the computers play,
    the person moves through the app after up to ``THINK`` seconds, and the reply is
    awaited in the database. Beside
    it, the moves the games between computers got meanwhile."""
    print(f"Fairness: a person's wait for the easy computer's reply, {games:,} games between "
          f"easy computers running")
    kinds = list(engine.GAMES.values())
    with tempfile.TemporaryDirectory() as folder:
        app = new_app(folder)
        db = connect(app.config["DATABASE"])
        with app.app_context():
            for number in range(games):
                game = kinds[number % len(kinds)]
                creation.create(db, game.id, [{"bot": "easy"}] * game.player_counts[0],
                               options(game))
        client, rng, waits, api = app.test_client(), random.Random(1), list[float](), ""
        with serving.job_process(server_env(folder)):
            deadline = time.monotonic() + 60
            while not between_computers(db) and time.monotonic() < deadline:
                time.sleep(0.1)  # the job process starts; the new games fall due
            before, start = between_computers(db), time.perf_counter()
            while len(waits) < moves:
                answer = client.get(api).json if api else None
                if answer is None or answer["outcome"]:
                    created = client.post("/api/games", json={
                        "game": "mastery", "players": [PLAYERS[0], {"bot": "easy"}]}).json
                    game_id, api = created["id"], path(created["seats"][0]["api"])
                    continue
                time.sleep(rng.uniform(0, THINK))  # so that moves fall anywhere in a run
                moved = client.post(api + "/moves", json={
                    "move": rng.choice(answer["legal_moves"]), "ply": answer["ply"]}).json
                sent = time.perf_counter()
                while not moved["outcome"] and db.execute(
                        "SELECT ply FROM games WHERE id = ?", [game_id]).fetchone()[0] \
                        == moved["ply"]:
                    time.sleep(0.02)
                if not moved["outcome"]:
                    waits.append(time.perf_counter() - sent)
            played = (between_computers(db) - before) / (time.perf_counter() - start)
        db.close()
    row(f"the reply's wait, median of {moves}", f"{statistics.median(waits):8.1f} s", None,
        "a few seconds")
    row("  the longest", f"{max(waits):8.1f} s")
    row("moves between computers meanwhile", f"{played:8.1f} /s")


def between_computers(db) -> int:
    """The moves recorded so far in games without a person."""
    return db.execute("SELECT count(*) FROM events WHERE kind = 'move' AND game_id NOT IN "
                      "(SELECT game_id FROM seats WHERE email IS NOT NULL)").fetchone()[0]


# -- capacity -----------------------------------------------------------------------------

DAY = 86400
PEAK = 10  # the busiest hour's rate, as a multiple of the day's mean
PER_GAME = {"moves": 2, "page views": 20, "emails": 2}  # a game's day


# The page views of a move drawn afresh: the mover's first look at the position (the game
# cold: hours have passed since the last move, and the process's match cache holds a few
# thousand of a million games), then, as much as a click drawn afresh costs, the two
# clicks that build the move and the page after it (the game warm: they follow the first
# look within minutes; the page after it has no legal moves to generate for its viewer).
FRESH_PER_MOVE = 4


def capacity() -> None:
    """Active games one machine carries at the peak rate of ``PER_GAME``: all its cores'
    CPU divided by one game's share at the costs measured above, beside its disk, where
    every move is a synced commit; from CPU time rather than this run's rates, which other
    programs on the machine slow down. A page from a cold game costs the page drawn afresh
    and the game's loading at its dearest measured (a log of 415 events, 15 moves past its
    stored position). Page views three ways: every one drawn afresh from a cold game (in
    no process's cache, the bound below); ``FRESH_PER_MOVE`` a move drawn afresh, the
    first of them from a cold game, and the others viewed again from the render cache;
    and every one viewed again (the bound above)."""
    cores = os.cpu_count() or 1
    views, moves = PER_GAME["page views"], PER_GAME["moves"]
    cold = FIGURES["drawn"] + FIGURES.get("load", 0)  # replaying a long log, at most
    fresh = min(views, moves * FRESH_PER_MOVE)
    print(f"Capacity: active games at {', '.join(f'{n} {what}' for what, n in PER_GAME.items())} "
          f"per game a day, x{PEAK} at peak")
    for how, page_ms in (
            ("all views drawn afresh, the game cold", views * cold),
            (f"{fresh} drawn afresh ({moves} cold), {views - fresh} viewed again",
             moves * cold + (fresh - moves) * FIGURES["click"]
             + (views - fresh) * FIGURES["page"]),
            ("all viewed again (render cache)", views * FIGURES["page"])):
        day_ms = {"moves": moves * FIGURES["move"], "pages": page_ms,
                  "emails": PER_GAME["emails"] * FIGURES["mail"]}  # a game's day
        by_cpu = cores * DAY * 1000 / (PEAK * sum(day_ms.values()))
        spent = " ".join(f"{what} {ms / sum(day_ms.values()):.0%}"
                         for what, ms in day_ms.items())
        row(f"CPU ({cores} cores): {how}", f"{by_cpu:12,.0f}", None, spent)
    by_disk = FIGURES["commits"] * DAY / (PEAK * PER_GAME["moves"])
    row("disk: a synced commit per move", f"{by_disk:12,.0f}", None, "goal 1,000,000")


# -- the engine ---------------------------------------------------------------------------

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


def magnet_figures(seconds: float = 3.0, least_games: int = 20) -> None:
    """Magnet's move generation works from the mover's knowledge, comparing orders of the
    pieces under every hypothesis about the hidden values: its cost per position, in the
    positions of ``least_games`` random games or more (20 positions a game at least)."""
    game = engine.get("magnet")
    rng = random.Random(2)
    positions: list[tuple[engine.State, int]] = []
    games, game_times = 0, list[float]()
    while len(positions) < 20 * least_games or games < least_games:
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


def engine_figures() -> None:
    playout_figures()
    magnet_figures()


SECTIONS: dict[str, Callable[[], None]] = {
    "pages": page_figures, "cold": cold_figures, "records": record_figures,
    "commits": commit_figures, "move": move_figures,
    "mail": mail_figures, "strangers": stranger_figures, "jobs": job_figures,
    "fairness": fairness_figures,
    "engine": engine_figures}

if __name__ == "__main__":
    chosen = sys.argv[1:] or list(SECTIONS)
    unknown = set(chosen) - set(SECTIONS)
    if unknown:
        sys.exit(f"Sections: {', '.join(SECTIONS)} (unknown: {', '.join(sorted(unknown))})")
    for section in chosen:
        SECTIONS[section]()
    if {"pages", "cold", "commits", "mail"} <= set(chosen):
        capacity()
