"""The scheduler's jobs find their work through the ``due`` rows that every event writes
(pbem/due.py): a pass reads the logs of the games that are due and of no other game, where
it once replayed every active game.

What a pass reads is observed on its own SQLite connection: loading a game always reads its
event log. Time is never faked: the jobs take ``now``.
"""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from pbem import commands, due, matches
from pbem.mail import preferences, reminders
from pbem.jobs import scheduler
from pbem.store.db import connect
from pbem.matches import CACHE

from helpers import path_of

HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


def new(client, days: int | None = None, vacation_days: int = 0) -> dict:
    """A Mastery game of Ann (to move) and Bob; ``days``: a per-move clock."""
    body = {"game": "mastery", "players": [{"name": "Ann", "email": "ann@example.org"},
                                           {"name": "Bob", "email": "bob@example.org"}]}
    if days:
        body["clock"] = {"mode": "per_move", "days": days, "vacation_days": vacation_days}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.json
    return {"id": response.json["id"], "apis": [path_of(s["api"]) for s in response.json["seats"]],
            "urls": [path_of(s["url"]) for s in response.json["seats"]]}


class Reads:
    """A connection that notes the games whose event log it reads."""

    def __init__(self, app):
        self.db = connect(app.config["DATABASE"])
        self.games: set[str] = set()
        self.db.conn.set_trace_callback(self._statement)

    def _statement(self, sql: str) -> None:
        found = re.search(r"FROM events WHERE game_id = '([^']+)'", sql)
        if found:
            self.games.add(found.group(1))

    def run(self, job, *args) -> int:
        """Run ``job(db, *args)`` as the scheduler does; the games it read are in ``games``."""
        self.games = set()
        return job(self.db, *args)


def test_the_clock_job_reads_only_the_games_whose_deadline_or_warning_is_due(app, client):
    late = new(client, days=1)      # its deadline passes at 24 h
    warned = new(client, days=2)    # warned from 24 h on (a day before its deadline)
    later = new(client, days=5)
    untimed = new(client)
    over = new(client, days=1)
    assert client.post(f"{over['apis'][0]}/resign", json={}).status_code == 200
    reads = Reads(app)
    at = datetime.now(timezone.utc) + 36 * HOUR
    with app.test_request_context():
        assert reads.run(commands.record_timeouts, at) == 1
        assert reads.games == {late["id"]}
        assert reads.run(reminders.send_deadline_warnings, at) == 1
        assert reads.games == {warned["id"]}
        # done: the next pass reads nothing at all
        assert reads.run(commands.record_timeouts, at) == 0
        assert reads.run(reminders.send_deadline_warnings, at) == 0
        assert reads.games == set()
        # days later, the games whose time has come
        at += 4 * DAY
        assert reads.run(commands.record_timeouts, at) == 2
        assert reads.games == {warned["id"], later["id"]}
    assert not {untimed["id"], over["id"]} & reads.games
    assert client.get(late["apis"][1]).json["outcome"]["reason"] == "Ann ran out of time"


def test_reminders_read_only_the_games_due_and_wait_for_a_vacation_to_end(app, client):
    resting = new(client, days=30, vacation_days=10)
    plain, other = new(client), new(client)
    assert client.post(f"{resting['apis'][0]}/vacation", json={"days": 5}).status_code == 200
    reads = Reads(app)
    start = datetime.now(timezone.utc)
    with app.test_request_context():
        assert reads.run(reminders.send_reminders, start + 47 * HOUR, 48) == 0
        assert reads.games == set()
        assert reads.run(reminders.send_reminders, start + 49 * HOUR, 48) == 2
        assert reads.games == {resting["id"], plain["id"], other["id"]}
        # reminded, or on vacation for three more days: nothing to read until then
        assert reads.run(reminders.send_reminders, start + 3 * DAY, 48) == 0
        assert reads.games == set()
        assert reads.run(reminders.send_reminders, start + 6 * DAY, 48) == 1
        assert reads.games == {resting["id"]}


def test_the_digest_reads_only_the_games_that_wait_for_a_seat_that_chose_it(app, client, db):
    mine = new(client)       # Ann's move: waits for her
    theirs = new(client)     # she moves: then it waits for Bob
    each = new(client)       # waits for Ann, who wants an email every turn
    for game in (mine, theirs):
        preferences.set_preference(db, game["id"], 0, "digest")
    move = client.get(theirs["apis"][0]).json["legal_moves"][0]
    response = client.post(f"{theirs['apis'][0]}/moves", json={"move": move, "ply": 0})
    assert response.status_code == 200
    reads = Reads(app)
    with app.test_request_context():
        assert reads.run(reminders.send_digests, datetime.now(timezone.utc).replace(hour=23), 7) == 1
    assert reads.games == {mine["id"]}
    assert each["id"] not in reads.games


def test_a_reminder_held_back_by_the_email_choice_comes_back_with_every_turn(app, client):
    game = new(client)
    settings = game["urls"][0] + "/email"
    field = f"notify-{game['id']}-0"
    assert client.post(settings, data={field: "none"}).status_code == 303
    start = datetime.now(timezone.utc)
    assert scheduler.send_reminders(app, start + 49 * HOUR) == 0
    assert client.post(settings, data={field: "each"}).status_code == 303
    assert scheduler.send_reminders(app, start + 49 * HOUR) == 1


def due_rows_match_the_logs(db) -> None:
    """Every game's due rows are the ones its log asks for now (``due.plan``)."""
    CACHE.clear()  # replayed afresh from the log
    for (game_id,) in db.execute("SELECT id FROM games").fetchall():
        rows = {tuple(r) for r in db.execute(
            "SELECT seat, kind, at FROM due WHERE game_id = ?", [game_id])}
        assert rows == set(due.plan(matches.load(db, game_id))), game_id


def test_every_way_an_event_is_recorded_rewrites_the_games_due_rows(app, client, db):
    def post(path: str, body: dict | None = None, status: int = 200) -> dict:
        response = client.post(path, json=body or {})
        assert response.status_code == status, response.json
        due_rows_match_the_logs(db)
        return response.json

    ann = {"name": "Ann", "email": "ann@example.org"}
    bob = {"name": "Bob", "email": "bob@example.org"}
    # an open seat: while the game waits, only its expiry is due (Ann is told if nobody
    # joins in time); the join starts it
    waiting = post("/api/games", {"game": "mastery", "players": [ann, {"open": True}],
                                  "clock": {"mode": "per_move", "days": 3, "vacation_days": 5}},
                   201)
    assert [(r["seat"], r["kind"]) for r in db.query(
        "SELECT seat, kind FROM due WHERE game_id = ?", [waiting["id"]])] == [(0, "expiry")]
    joined = post(path_of(waiting["seats"][1]["join"]), {"name": "Bob"}, 201)
    withdrawn = post("/api/games", {"game": "mastery", "players": [ann, {"open": True}]}, 201)
    post(path_of(withdrawn["seats"][0]["api"]) + "/withdraw")
    # moves, chat, offers, a vacation, a resignation and a rematch
    dark, light = (path_of(s["api"]) for s in waiting["seats"][:1] + [joined])
    move = client.get(dark).json["legal_moves"][0]
    post(f"{dark}/moves", {"move": move, "ply": 0})
    post(f"{dark}/chat", {"text": "Your move."}, 201)
    post(f"{light}/vacation", {"days": 2})
    post(f"{dark}/draw", {"answer": "offer"})
    post(f"{light}/draw", {"answer": "decline"})
    post(f"{light}/resign")
    post(f"{light}/rematch", status=202)
    post(f"{dark}/rematch", status=201)
    # a team game's talk of resigning, which only the team sees
    team = post("/api/games", {"game": "the-right-moves", "players": [
        {"name": n, "email": f"{n}@example.org"} for n in ("ann", "bob", "cid", "dee")]}, 201)
    apis = [path_of(s["api"]) for s in team["seats"]]
    post(f"{apis[0]}/resign")
    post(f"{apis[2]}/resign", {"answer": "decline"})
    # the computer's moves, and a timeout recorded by the clock job
    against = post("/api/games", {"game": "mastery", "players": [{"bot": "easy"}, bob],
                                  "clock": {"mode": "per_move", "days": 1}}, 201)
    assert [(r["game_id"], r["seat"]) for r in db.query(
        "SELECT game_id, seat FROM due WHERE kind = 'computer'")] == [(against["id"], 0)]
    assert scheduler.play_bots(app) == 1
    due_rows_match_the_logs(db)
    assert scheduler.check_clocks(app, datetime.now(timezone.utc) + 2 * DAY) == (1, 1)
    assert not list(db.query("SELECT 1 FROM due WHERE game_id = ?", [against["id"]]))
