"""The event log: append-only, ordered, replayed into the same state, cached."""
from __future__ import annotations

import sqlite3
import threading

import pytest

import engine
from pbem import creation, matches
from pbem.store.db import BEGIN, connect, dialect

from helpers import database_errors


def play(client, api: str, move: str, ply: int):
    response = client.post(f"{api}/moves", json={"move": move, "ply": ply})
    assert response.status_code == 200, response.json
    return response.json


def test_the_event_log_refuses_update_and_delete(app, client, new_game):
    game = new_game()
    play(client, game.apis[0], "d4xc5", 0)
    db = connect(app.config["DATABASE"])
    with pytest.raises(database_errors(), match="append-only"):
        db.execute("UPDATE events SET move = 'e3-e4' WHERE game_id = ?", [game.id])
    with pytest.raises(database_errors(), match="append-only"):
        db.execute("DELETE FROM events WHERE game_id = ?", [game.id])
    if dialect(db) == "postgresql":  # which can empty a table without deleting rows
        with pytest.raises(database_errors(), match="append-only"):
            db.execute("TRUNCATE events")
    assert [r["move"] for r in db.query("SELECT move FROM events")] == ["d4xc5"]


def test_sequence_numbers_are_unique_per_game(app, client, new_game):
    game = new_game()
    play(client, game.apis[0], "d4xc5", 0)
    db = connect(app.config["DATABASE"])
    with pytest.raises(database_errors(), match="(?i)unique"):
        db.execute("INSERT INTO events (game_id, seq, seat, kind, move, created_at) "
                   "VALUES (?, 1, 1, 'move', 'e5xd4', 'now')", [game.id])
    other = new_game()  # another game starts its own sequence at 1
    play(client, other.apis[0], "d4xc5", 0)
    assert [r["seq"] for r in db.query("SELECT seq FROM events ORDER BY game_id")] == [1, 1]


def test_a_fresh_replay_of_the_log_equals_the_live_state(app, client, new_game):
    game = new_game()
    body = None
    for ply, (seat, move) in enumerate([(0, "d4xc5"), (1, "b6xc5"), (0, "f4xe5"), (1, "~e5-g5")]):
        body = play(client, game.apis[seat], move, ply)
    with app.app_context():
        live = matches.load(connect(app.config["DATABASE"]), game.id)
        matches.CACHE.clear()
        fresh = matches.load(connect(app.config["DATABASE"]), game.id)
    assert fresh.current == live.current and fresh.states == live.states
    replayed = engine.get("mastery").replay(2, fresh.options, fresh.seed,
                                            [(e.seat, e.move) for e in fresh.moves])
    assert replayed == live.current
    assert body["ply"] == 4


def test_the_cache_catches_up_with_events_written_by_another_process(app, client, new_game):
    game = new_game()
    db = connect(app.config["DATABASE"])
    assert matches.load(db, game.id).ply == 0  # now cached
    # another worker process appends a move: this process's cache must not serve stale data
    db.execute("INSERT INTO events (game_id, seq, seat, kind, move, created_at) "
               "VALUES (?, 1, 0, 'move', 'd4xc5', '2026-01-01T00:00:00+00:00')", [game.id])
    assert client.get(game.apis[1]).json["ply"] == 1
    assert matches.load(db, game.id).moves[-1].move == "d4xc5"


def test_rejected_requests_write_nothing(app, client, new_game):
    game = new_game()
    db = connect(app.config["DATABASE"])

    def snapshot():
        return (list(db.query("SELECT * FROM events")), list(db.query("SELECT * FROM games")),
                list(db.query("SELECT id FROM outbox")))

    before = snapshot()
    for body, status in [({"move": "d4-d9", "ply": 0}, 422), ({"move": "d4xc5", "ply": 3}, 409),
                         ({"move": "d4xc5"}, 400), ({"ply": 0}, 400)]:
        assert client.post(f"{game.apis[0]}/moves", json=body).status_code == status
    assert client.post(f"{game.apis[1]}/moves", json={"move": "e5xd4", "ply": 0}).status_code == 422
    assert snapshot() == before


def test_simultaneous_submissions_record_one_move(app, new_game):
    game = new_game()
    results = []
    barrier = threading.Barrier(4)

    def submit():
        client = app.test_client()
        barrier.wait()
        results.append(client.post(f"{game.apis[0]}/moves",
                                   json={"move": "d4xc5", "ply": 0}).status_code)

    threads = [threading.Thread(target=submit) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # one records it; the others are the same move from a ply now stale (the API's contract)
    assert sorted(results) == [200, 409, 409, 409]
    db = connect(app.config["DATABASE"])
    assert db.execute("SELECT count(*) FROM events").fetchone()[0] == 1


def test_the_games_summary_follows_the_log(app, client, new_game):
    game = new_game()
    play(client, game.apis[0], "d4xc5", 0)
    client.post(f"{game.apis[1]}/resign", json={})
    row = next(connect(app.config["DATABASE"]).query("SELECT * FROM games"))
    assert (row["status"], row["ply"], row["to_move"]) == ("finished", 1, "[]")
    assert '"winners": [0]' in row["outcome"]


def test_the_database_file_is_created_and_initialised_if_missing(tmp_path):
    from pbem import create_app
    path = tmp_path / "deep" / "new.sqlite"
    create_app({"DATABASE": str(path), "MAIL_FOLDER": str(tmp_path / "mail"), "SECRET_KEY": "x"})
    tables = set(connect(str(path)).table_names())
    assert {"games", "seats", "events", "links", "outbox", "home_links"} <= tables


def test_a_worker_thread_keeps_one_connection(app, client, new_game):
    from pbem.web.database import get_db

    game = new_game()
    with app.test_request_context():
        first = get_db()
        first.conn.execute(BEGIN[dialect(first)])  # a request that ends inside a transaction
    play(client, game.apis[0], "d4xc5", 0)  # the test client's requests run in this thread
    with app.test_request_context():
        assert get_db() is first and not first.conn.in_transaction
    other = []

    def another_thread():
        other.append(app.test_client().get(game.apis[1]).json["ply"])
        with app.test_request_context():
            other.append(get_db())

    thread = threading.Thread(target=another_thread)
    thread.start()
    thread.join()
    assert other[0] == 1 and other[1] is not first  # each thread has its own
    assert connect(app.config["DATABASE"]).execute(
        "SELECT count(*) FROM events").fetchone()[0] == 1


def test_a_move_reads_the_log_once_and_commits_once(app, client, new_game):
    from pbem.web.database import get_db

    game = new_game()
    statements = []
    with app.test_request_context():  # the connection this thread's requests use
        get_db().conn.set_trace_callback(statements.append)
    try:
        play(client, game.apis[0], "d4xc5", 0)
    finally:
        with app.test_request_context():
            get_db().conn.set_trace_callback(None)
    assert sum("FROM events" in sql for sql in statements) == 1
    assert sum(sql.startswith(("BEGIN", "COMMIT")) for sql in statements) == 2
    # (24: the due rows of the turn it begins include the held-back "Your move" email's,
    # the push of the turn reads the seat's channels and devices, its email the seat's
    # language; PostgreSQL's lock of the game is one more; SQLite traces the trigger that
    # counts the game's moves as one more; the players of the seat it gives the turn to are
    # looked up once, for their streams of events; the page after it checks that the
    # player's address does not bounce)
    assert len(statements) <= 30, statements


def test_a_process_starting_while_another_writes_to_a_new_file_waits_for_it(tmp_path):
    """Switching a new SQLite file to WAL needs the file to itself, and SQLite does not wait
    for that as for a lock: gunicorn and the job process starting together on a new file
    must not fail with "database is locked"."""
    path = str(tmp_path / "new.sqlite")
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE t (x)")  # the file in its first journal mode, then written
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO t VALUES (1)")
    threading.Timer(0.5, other.execute, ["COMMIT"]).start()
    db = connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


# Each kind of game: players known across games in a rated game on a clock (a tournament's),
# a public challenge with an open seat, a game against the computer.
REQUESTS = [
    dict(players=[{"name": "Ann", "email": "ann@example.org"},
                  {"name": "Bob", "email": "bob@example.org"}],
         clock={"mode": "per_move", "days": 3}, rated=True, claimed="both"),
    dict(players=[{"name": "Ann", "email": "ann@example.org"}, {"open": True}], public=True),
    dict(players=[{"bot": "easy"}, {"name": "Bob", "email": "bob@example.org"}]),
]
GAME_TABLES = ["seats", "links", "invitations", "due", "events", "outbox"]


VARYING = {"id", "rowid", "game_id", "token_hash", "created_at", "updated_at", "at",
           "next_attempt_at", "message_id", "unique_key", "headers", "body", "html"}


def stored_rows(db, game_id: str, made: creation.Created) -> dict[str, list[dict]]:
    """Every row of the game, its ids, secrets and times left out (each game has its own)."""
    def kept(row) -> dict:
        return {column: value.replace(game_id, "<game>") if isinstance(value, str) else value
                for column, value in dict(row).items() if column not in VARYING}
    rows = {"games": [kept(row) for row in db.query("SELECT * FROM games WHERE id = ?",
                                                    [game_id])]}
    for table in GAME_TABLES:
        rows[table] = sorted((kept(row) for row in db.query(
            f"SELECT * FROM {table} WHERE game_id = ?", [game_id])), key=repr)
    rows["tokens"] = [token is not None for token in (*made.tokens, *made.joins)]
    return rows


def test_games_made_together_are_made_as_one_at_a_time(app, db):
    """``create_many`` (a tournament's thousands of games) stores each game as ``create``
    stores it alone: the same rows in every table, apart from ids, secrets and times."""
    with app.test_request_context():
        from pbem import players
        from pbem.web.database import get_db

        ann, bob = (players.create(get_db(), handle, f"{handle.lower()}@example.org")
                    for handle in ("Ann", "Bob"))

        def arguments(request: dict) -> dict:
            claimed = {0: ann.id, 1: bob.id} if request.get("claimed") else None
            return {**request, "claimed": claimed, "seed": "same"}

        alone = [creation.create(get_db(), "mastery", options={"setup": "crown"},
                                **arguments(request), announce=announce)
                 for announce in (True, False) for request in REQUESTS]
        together = creation.create_many(get_db(), [
            creation.new_game("mastery", options={"setup": "crown"}, **arguments(request))
            for request in REQUESTS], announce=True)
        together += creation.create_many(get_db(), [
            creation.new_game("mastery", options={"setup": "crown"}, **arguments(request))
            for request in REQUESTS], announce=False)
    assert len(together) == len(alone) == 2 * len(REQUESTS)
    for one, many in zip(alone, together):
        assert matches.load(db, many.match.id) == many.match
        assert stored_rows(db, many.match.id, many) == stored_rows(db, one.match.id, one)
        assert stored_rows(db, one.match.id, one)["seats"]  # the rows compared are there


def test_many_rows_inserted_at_once_are_stored_as_given(db):
    """A plain INSERT of many rows (on PostgreSQL, COPY) keeps every value as it is: text
    with tabs, line breaks, backslashes and what COPY's text format would read as NULL."""
    db.execute("CREATE TABLE scratch (number BIGINT, words TEXT, amount DOUBLE PRECISION)")
    rows = [(1, "plain", 0.5), (2, "tab\there\nline\\N \\ \\t", -2.25), (None, None, None),
            (3, "\\N", 1e300), (4, "Здравствуйте, ☃", 0.0), (2**62, "", 3.0)]
    db.conn.executemany("INSERT INTO scratch (number, words, amount) VALUES (?, ?, ?)", rows)
    stored = db.execute("SELECT number, words, amount FROM scratch").fetchall()
    assert sorted(map(tuple, stored), key=repr) == sorted(rows, key=repr)
