"""``flask --app pbem copy-db --to postgresql://...``: an SQLite installation moved to
PostgreSQL whole, every table and row, and its games playing on there with the links the
players already have."""
from __future__ import annotations

import random
from datetime import timedelta

import pytest

from pbem import create_app, players
from pbem.store import utc
from pbem.mail import preferences
from pbem.jobs import scheduler
from pbem.store.db import connect, write
from pbem.web.database import get_db
from pbem.matches import CACHE

from helpers import path_of, sign_up
from test_cli import flask
from test_push import Device

ANN, BOB = {"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}
HOOK = "http://127.0.0.1:9/hook"  # never answers: its posts stay in the outbox


@pytest.fixture
def installation(tmp_path, monkeypatch):
    """An SQLite installation that has used every table."""
    monkeypatch.setenv("PBEM_INSTANCE", str(tmp_path / "instance"))
    CACHE.clear()
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "pbem.sqlite"),
                      "MAIL_FOLDER": str(tmp_path / "mail"), "SECRET_KEY": "test",
                      "PUBLIC_URL": "http://localhost", "WEBHOOK_ALLOW_PRIVATE": True,
                      "PUSH_ALLOW_PRIVATE": True})
    client = app.test_client()

    def create(players, **extra):
        answer = client.post("/api/games", json={"game": "mastery", "players": players, **extra})
        assert answer.status_code == 201, answer.json
        return answer.json

    def post(path, body, method="post"):
        answer = getattr(client, method)(path, json=body)
        assert answer.status_code < 300, (path, answer.json)
        return answer.json

    clock = {"mode": "per_move", "days": 1, "vacation_days": 5}
    played = create([ANN, BOB], clock=clock)
    apis = [path_of(seat["api"]) for seat in played["seats"]]
    post(f"{apis[0]}/moves", {"move": "d4xc5", "ply": 0})
    post(f"{apis[0]}/chat", {"text": "Good luck!"})
    post(f"{apis[0]}/notes", {"text": "Watch the centre."}, "put")
    post(f"{apis[0]}/webhook", {"url": HOOK}, "put")
    post(f"{apis[0]}/push", Device(HOOK.replace("hook", "push")).subscription, "put")
    post(f"{apis[0]}/feed", {})
    answer = client.get(apis[1]).json
    post(f"{apis[0]}/conditional", {"lines": [[answer["legal_moves"][0], "f4xe5"]]}, "put")
    post(f"{apis[1]}/vacation", {"days": 1})
    create([ANN, BOB], clock=clock)  # Ann's deadline warning comes 13 hours on
    reminded = create([ANN, BOB], clock=clock)  # ... and there, a reminder she chose
    post(f"{path_of(reminded['seats'][0]['api'])}/email", {"deadline_reminders": [12]}, "put")

    waiting = create([ANN, {"open": True}], public=True)  # a lobby challenge, its join link
    create([BOB, {"open": True}])
    taken = create([ANN, {"open": True}])
    post(path_of(taken["seats"][1]["join"]), {"name": "Cid"})
    computer = create([ANN, {"bot": "easy"}])
    post(f"{path_of(computer['seats'][0]['api'])}/moves", {"move": "d4xc5", "ply": 0})
    assert scheduler.play_bots(app) == 1
    # a game long enough for a stored position (a snapshot)
    long = create([ANN, BOB], options={"repetition_draw": False})
    long_apis = [path_of(seat["api"]) for seat in long["seats"]]
    rng = random.Random(1)
    for ply in range(20):
        [seat] = client.get(long_apis[0]).json["to_move"]
        moves = client.get(long_apis[seat]).json["legal_moves"]
        post(f"{long_apis[seat]}/moves", {"move": rng.choice(moves), "ply": ply})
    over = create([ANN, BOB])
    over_apis = [path_of(seat["api"]) for seat in over["seats"]]
    post(f"{over_apis[0]}/resign", {})
    post(f"{over_apis[0]}/rematch", {})
    post(f"{over_apis[1]}/rematch", {})

    # players known across games, and a rated game between them that ended
    with app.test_request_context():
        keys = [sign_up(client, get_db(), handle) for handle in ("Cid", "Dee")]
    def rated_game() -> dict:
        rated = create([{"key": key} for key in keys], rated=True, clock=clock)
        rated_apis = [path_of(seat["api"]) for seat in rated["seats"]]
        for ply in range(4):  # two moves each: its end counts
            moves = client.get(rated_apis[ply % 2]).json["legal_moves"]
            post(f"{rated_apis[ply % 2]}/moves", {"move": moves[0], "ply": ply})
        post(f"{rated_apis[0]}/resign", {})
        return rated

    rated, _counted = rated_game(), rated_game()  # the first to be annulled
    # a tournament of theirs, started: its entries and its game
    cup = post(f"{path_of(keys[0])}/tournaments",
               {"name": "Cup", "game": "mastery", "format": "round-robin"})
    for key in keys:
        post(f"{path_of(key)}/tournaments/{cup['id']}/entry", {})
    post(f"{path_of(keys[0])}/tournaments/{cup['id']}/start", {})

    with app.test_request_context():
        db = get_db()
        with write(db):
            preferences.set_preference(db, over["id"], 1, "digest")
            preferences.set_home_opt_out(db, "bob@example.org", True)
            # a player, and a sign-in link not used yet
            ann = players.sign_in(db, players.mint_sign_in(db, "ann@example.org"), "ann")
            players.mint_sign_in(db, "ann@example.org")
            ann_key = players.key(ann)
    # a block, a bot account, a seat's mute, a report, a moderator's annulment of a rated game
    post(f"{path_of(keys[0])}/blocks", {"handle": "Dee"})
    post(f"{path_of(keys[0])}/bot", {"handle": "Robo", "games": ["mastery"]})  # a bot account
    assert client.post(f"{path_of(over['seats'][1]['url'])}/mute",
                       data={"seat": "0", "on": "yes"}).status_code == 303
    post(f"{path_of(keys[0])}/reports", {"handle": "Dee", "reason": "other", "text": "Odd."})
    assert flask(app, "moderators", "add", "ann").exit_code == 0
    post(f"/api/player/{ann_key}/moderation/actions",
         {"handle": "Cid", "action": "annul", "game": rated["id"], "note": ""})
    now = utc.now()
    assert scheduler.check_clocks(app, now + timedelta(hours=13)) == (0, 2)
    scheduler.recorded(scheduler.play_bots, app, "play-bots", 3)  # the job's run, noted
    assert flask(app, "operators", "add", "Cid").exit_code == 0
    scheduler.send_digests(app, now.replace(hour=23))
    scheduler.deliver_mail(app)
    client.post("/home", data={"email": "ann@example.org"})  # its email waits in the outbox
    client.get(path_of(played["seats"][0]["url"]))  # a browser remembers a seat, then forgets
    client.post("/games/forget", data={"confirm": "yes"})
    record = client.get(f"{apis[0]}/record?format=apgamerecord").get_data(as_text=True)
    assert client.post("/records", data={"pasted": record}).status_code == 303  # reviewed
    return app, {"played": apis, "waiting": waiting["id"]}


def rows_of(db, table: str) -> list[tuple]:
    columns = sorted(db[table].columns_dict)
    return [tuple(row) for row in db.execute(
        f"SELECT {', '.join(columns)} FROM {table} ORDER BY {', '.join(db[table].pks)}")]


def test_copy_db_moves_every_row_to_postgresql_and_the_games_play_on(installation,
                                                                      postgres_cluster):
    app, games = installation
    source = connect(app.config["DATABASE"])
    # not schema_migrations: each database's own record of when it got its schema
    tables = [table for table in source.table_names() if table != "schema_migrations"]
    assert {"games", "seats", "events", "links", "invitations", "outbox", "notes",
            "conditional_lines", "email_links", "home_links", "home_optouts", "digest_days",
            "clock_warnings", "due", "snapshots"} <= set(tables)
    assert all(source[table].count for table in tables), \
        [table for table in tables if not source[table].count]  # the test uses every table
    assert source.execute("SELECT count(*) FROM outbox WHERE status = 'sent'").fetchone()[0]
    assert source.execute("SELECT count(*) FROM outbox WHERE status = 'pending'").fetchone()[0]

    with postgres_cluster.schema() as url:
        done = flask(app, "copy-db", "--to", url)
        assert done.exit_code == 0, done.output
        assert "events: " in done.output and "postgres@127.0.0.1" in done.output
        target = connect(url)
        for table in tables:
            assert rows_of(target, table) == rows_of(source, table), table
        # the copy is refused a second time: the target holds games now
        again = flask(app, "copy-db", "--to", url)
        assert again.exit_code != 0 and "already holds games" in again.output
        assert target["events"].count == source["events"].count

        # the installation, now on PostgreSQL, goes on with the links its players have
        CACHE.clear()
        moved = create_app({"TESTING": True, "DATABASE": url, "SECRET_KEY": "test",
                            "MAIL_FOLDER": app.config["MAIL_FOLDER"],
                            "PUBLIC_URL": "http://localhost", "WEBHOOK_ALLOW_PRIVATE": True,
                            "AWAY_MINUTES": 0})  # as conftest's app: each turn told at once
        client = moved.test_client()
        apis = games["played"]
        state = client.get(apis[1]).json
        assert state["ply"] == 1 and [c["text"] for c in state["chat"]] == ["Good luck!"]
        assert client.get(f"{apis[0]}/notes").json["text"] == "Watch the centre."
        reply = state["legal_moves"][0]
        answer = client.post(f"{apis[1]}/moves", json={"move": reply, "ply": 1})
        assert answer.status_code == 200
        assert answer.json["ply"] == 3  # Ann's conditional reply was played at once
        assert [c["id"] for c in client.get("/api/challenges").json["challenges"]] == \
            [games["waiting"]]
        # new emails and players are numbered after the copied ones
        newest = target.execute("SELECT max(id) FROM outbox").fetchone()[0]
        assert newest > source.execute("SELECT max(id) FROM outbox").fetchone()[0]
        with moved.test_request_context():
            copied = source.execute("SELECT max(id) FROM players").fetchone()[0]
            assert players.create(get_db(), "bob", "bob@example.org").id == copied + 1
        target.close()
    source.close()


def test_copy_db_refuses_a_target_that_is_not_empty_and_names_no_password(installation,
                                                                          tmp_path):
    app, _ = installation
    copy = tmp_path / "copy.sqlite"
    first = flask(app, "copy-db", "--to", str(copy))  # SQLite to SQLite works the same
    assert first.exit_code == 0, first.output
    assert connect(str(copy))["events"].count == connect(app.config["DATABASE"])["events"].count
    again = flask(app, "copy-db", "--to", str(copy))
    assert again.exit_code != 0 and "already holds games" in again.output
    refused = flask(app, "copy-db", "--to", "postgresql://pbem:hunter2@127.0.0.1:1/pbem")
    assert refused.exit_code != 0 and "hunter2" not in refused.output
