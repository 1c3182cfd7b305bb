"""The schema's migrations (``pbem/store/migrations``): each applied once, in order, by one process
at a time; a database made before them upgrades to the schema a new one gets."""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import pbem.store.db
from pbem import create_app, invites, players
from pbem.store.db import (
    SchemaBehind, applied, connect, dialect, hold_name, is_url, migrate, migrations,
    require_migrated, write)

from helpers import database_errors
from test_cli import flask

BEFORE_MIGRATIONS = Path(__file__).parent / "schema_before_migrations"
PLAY_LINK = re.compile(r"http://localhost/play/[\w-]+")


@pytest.fixture
def empty(request, tmp_path, database):
    """A new database with nothing in it, of the test's engine (``database`` has its schema)."""
    if not is_url(database):
        yield str(tmp_path / "empty.sqlite")
        return
    with request.getfixturevalue("postgres_cluster").schema() as url:
        yield url


def made_before_migrations(url: str, lacking: str = "-"):
    """The database ``url`` with the schema the server made before migrations (a dump of
    it), but for the added column named ``lacking``, if any."""
    db = connect(url)
    schema = re.sub(rf', "{lacking}" [^,)]*|ALTER TABLE \w+ ADD COLUMN {lacking} [^;]*;', "",
                    (BEFORE_MIGRATIONS / f"{dialect(db)}.sql").read_text())
    run_script(db, schema)
    return db


def run_script(db, sql: str) -> None:
    """Run the statements of ``sql`` on ``db``, as they are (no translation)."""
    if dialect(db) == "sqlite":
        db.conn.executescript(sql)
    else:
        db.execute(sql)


def schema_of(db) -> dict[str, list]:
    """Every table's columns and constraints, every index and trigger, named and defined
    as the engine describes them (SQLite: its own statements, their spelling set aside)."""
    if dialect(db) == "sqlite":
        def spelt(sql):
            sql = re.sub(r'["\[\]]', "", sql or "")
            return re.sub(r"\s*([(),])\s*", r"\1", " ".join(sql.split()))
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = "
                                               "'table' AND name <> 'schema_migrations'")]
        return {
            "columns": sorted((table, *row) for table in tables for row in db.execute(
                "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)",
                [table])),
            "foreign keys": sorted((table, *row) for table in tables for row in db.execute(
                "SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?)", [table])),
            "indexes and triggers": sorted(
                (row[0], row[1], row[2], spelt(row[3])) for row in db.execute(
                    "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN "
                    "('index', 'trigger') AND tbl_name <> 'schema_migrations'")),
        }
    schema = db.execute("SELECT current_schema()").fetchone()[0]

    def described(query: str) -> list[tuple]:
        return sorted(tuple(str(value).replace(f"{schema}.", "") for value in row)
                      for row in db.execute(query))
    return {
        "columns": described(
            "SELECT table_name, column_name, data_type, is_nullable, column_default, "
            "collation_name, is_identity, identity_generation FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'"),
        "constraints": described(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM "
            "pg_constraint WHERE connamespace = current_schema()::regnamespace "
            "AND conrelid <> 'schema_migrations'::regclass"),
        "indexes": described("SELECT tablename, indexname, indexdef FROM pg_indexes WHERE "
                             "schemaname = current_schema() AND tablename <> 'schema_migrations'"),
        "triggers": described("SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger "
                              "WHERE NOT tgisinternal AND tgrelid::regclass::text = 'events'"),
        "functions": described("SELECT proname, prosrc FROM pg_proc "
                               "WHERE pronamespace = current_schema()::regnamespace"),
    }


def test_a_database_made_before_migrations_gets_the_schema_of_a_new_one(database, empty):
    old = made_before_migrations(empty)
    old.execute("INSERT INTO games (id, game, players, options, seed, created_at) "
                "VALUES ('g1', 'mastery', 2, '{}', 's', 'now')")
    assert migrate(old) == [paths[0].stem for version, paths in migrations(dialect(old)).items()
                            if version > 1]
    assert applied(old) == set(migrations(dialect(old)))
    new = connect(database)
    migrate(new)  # (SQLite's new file is made whole by the app's start)
    assert schema_of(old) == schema_of(new)
    assert [row[0] for row in old.execute("SELECT id FROM games")] == ["g1"]


def test_a_game_of_the_release_before_migrations_plays_on_after_the_upgrade(app, client, empty):
    old = made_before_migrations(empty)
    run_script(old, (BEFORE_MIGRATIONS / "data.sql").read_text())
    pbem.store.db.upgrade(empty)  # as ``init-db`` does
    app.config["DATABASE"] = empty
    queued = old.execute("SELECT recipient, body FROM outbox WHERE status = 'pending' "
                         "ORDER BY id").fetchall()
    plays = {recipient: "/api" + urlsplit(PLAY_LINK.findall(body)[-1]).path
             for recipient, body in queued if PLAY_LINK.search(body)}
    for ply, address in enumerate(["ann@example.org", "bob@example.org"], start=4):
        state = client.get(plays[address]).json
        assert state["ply"] == ply and state["outcome"] is None
        answer = client.post(f"{plays[address]}/moves",
                             json={"move": state["legal_moves"][0], "ply": ply})
        assert answer.status_code == 200, answer.json
    assert old.execute("SELECT count(*) FROM events").fetchone()[0] == 6
    assert old.execute("SELECT ply FROM games").fetchone()[0] == 6
    # the release's emails wait to be sent beside the new ones, which have HTML
    assert old.execute("SELECT count(*) FROM outbox WHERE status = 'pending' AND id <= ?",
                       [len(queued)]).fetchone()[0] == len(queued)
    assert old.execute("SELECT count(*) FROM outbox WHERE id > ? AND html IS NOT NULL",
                       [len(queued)]).fetchone()[0] > 0


def test_a_database_older_than_migrations_know_is_refused_saying_what_it_lacks(empty):
    old = made_before_migrations(empty, lacking="stand_in")
    with pytest.raises(SchemaBehind, match=r"lacks seats\.stand_in: start that release on it "
                                           r"once .*init-db.*, then this version\.$"):
        migrate(old)
    assert "schema_migrations" not in old.table_names()


def test_init_db_applies_each_migration_once(empty):
    db = connect(empty)
    names = [paths[0].stem for paths in migrations(dialect(db)).values()]
    assert names[0] == "0001_initial"
    assert migrate(db) == names
    assert migrate(db) == []
    assert [row[0] for row in db.execute("SELECT name FROM schema_migrations "
                                         "ORDER BY version")] == names


def test_processes_starting_together_apply_the_migrations_once(empty):
    holder = connect(empty)
    upgrade = "import sys, pbem.store.db; print(pbem.store.db.upgrade(sys.argv[1]))"
    with write(holder):  # the migrations' lock, held while both start and ask for it
        hold_name(holder, "migrations")
        processes = [subprocess.Popen([sys.executable, "-c", upgrade, empty],
                                      stdout=subprocess.PIPE, text=True) for _ in range(2)]
        waiting_for_lock(holder, processes, empty)
    printed = sorted(process.communicate(timeout=60)[0].strip() for process in processes)
    assert [process.returncode for process in processes] == [0, 0]
    assert printed == [str([paths[0].stem for paths in migrations(dialect(holder)).values()]),
                       "[]"]
    assert holder.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == \
        len(migrations(dialect(holder)))



def open_files(pid: int) -> set[str]:
    """The files a process has open (Linux shows them), skipping any it closes meanwhile."""
    found = set()
    for fd in glob.glob(f"/proc/{pid}/fd/*"):
        try:
            found.add(os.path.realpath(os.readlink(fd)))
        except OSError:  # closed, or the process gone, between the listing and the look
            pass
    return found

def waiting_for_lock(db, processes: list[subprocess.Popen], url: str,
                     sessions_each: int = 1) -> None:
    """Until the processes wait for a lock ``db`` holds, each in ``sessions_each`` of its
    connections: PostgreSQL lists the sessions it blocks (only its own: other tests share the
    cluster); on SQLite, once they have the file open (Linux shows it), they ask for it a
    moment later."""
    postgresql = dialect(db) == "postgresql"
    deadline = time.monotonic() + 60
    blocked = ("SELECT count(DISTINCT pid) FROM pg_locks"
               " WHERE NOT granted AND pg_backend_pid() = ANY(pg_blocking_pids(pid))")
    while not (db.execute(blocked).fetchone()[0] == len(processes) * sessions_each
               if postgresql else
               all(url in open_files(p.pid) for p in processes)):
        assert all(p.poll() is None for p in processes), "a process ended without waiting"
        assert time.monotonic() < deadline, "the processes never asked for the lock"
        time.sleep(0.05)
    if not postgresql:
        time.sleep(0.5)


def test_a_new_migration_file_is_applied_by_init_db_and_needed_before_serving(
        app, tmp_path, monkeypatch):
    folder = tmp_path / "migrations"
    shutil.copytree(pbem.store.db.MIGRATIONS, folder)
    (folder / "0099_colours.sql").write_text(
        "ALTER TABLE games ADD COLUMN colour TEXT NOT NULL DEFAULT 'blue';\n"
        "CREATE TABLE palettes (\n    name TEXT PRIMARY KEY,\n    colours TEXT  -- JSON\n);\n"
        "CREATE INDEX palettes_colours ON palettes (colours);\n")
    monkeypatch.setattr(pbem.store.db, "MIGRATIONS", folder)

    behind = flask(app, "list-games")
    assert behind.exit_code != 0
    assert "lacks 1 migration(s) of this version of the server (from 0099)" in behind.output
    assert "flask --app pbem init-db" in behind.output
    upgraded = flask(app, "init-db")
    assert upgraded.exit_code == 0 and "Applied 0099_colours." in upgraded.output
    assert flask(app, "init-db").output.strip() == f"Initialised {app.config['DATABASE']}"
    assert flask(app, "list-games").exit_code == 0
    db = connect(app.config["DATABASE"])
    assert db["games"].columns_dict["colour"] is str
    db.execute("INSERT INTO palettes (name, colours) VALUES ('sea', '[]')")
    db.execute("INSERT INTO palettes (name, colours) VALUES ('sky', '[]')")
    # in the order they were written, on both engines
    assert [row[0] for row in db.execute("SELECT name FROM palettes ORDER BY rowid")] == \
        ["sea", "sky"]


def test_two_migrations_with_one_number_are_refused(tmp_path, monkeypatch):
    shutil.copytree(pbem.store.db.MIGRATIONS, tmp_path / "migrations")
    (tmp_path / "migrations" / "0001_another.sql").write_text("SELECT 1;\n")
    monkeypatch.setattr(pbem.store.db, "MIGRATIONS", tmp_path / "migrations")
    with pytest.raises(RuntimeError, match=r"numbered 0001 \(0001_another.sql, 0001_initial.sql\)"):
        migrations("sqlite")


def test_the_app_gives_an_empty_database_its_schema_and_refuses_one_behind(
        empty, tmp_path, monkeypatch):
    """create_app with a new SQLite file or an empty PostgreSQL database
    initialises it; one that lacks later migrations is refused until ``init-db``."""
    monkeypatch.setenv("PBEM_INSTANCE", str(tmp_path / "instance"))
    config = {"TESTING": True, "DATABASE": empty, "SECRET_KEY": "test",
              "MAIL_FOLDER": str(tmp_path / "mail")}
    client = create_app(config).test_client()
    made = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]})
    assert made.status_code == 201, made.json
    assert applied(connect(empty)) == set(migrations(dialect(connect(empty))))

    folder = tmp_path / "migrations"
    shutil.copytree(pbem.store.db.MIGRATIONS, folder)
    (folder / "0099_colours.sql").write_text("ALTER TABLE games ADD COLUMN colour TEXT;\n")
    monkeypatch.setattr(pbem.store.db, "MIGRATIONS", folder)
    if is_url(empty):  # SQLite's embedded default is brought up to date at each start
        create_app(config)  # a new connection to it is refused (once per connection)
        with pytest.raises(SchemaBehind, match=r"lacks 1 migration.*init-db"):
            require_migrated(connect(empty))


def migrated_before(version: int, database: str, tmp_path, monkeypatch):
    """A connection to ``database`` given the migrations before ``version`` alone, as the
    release before it left it (``monkeypatch.undo()`` brings the later ones back)."""
    before = tmp_path / "before"
    before.mkdir()
    for path in pbem.store.db.MIGRATIONS.glob("*.sql"):
        if int(path.name[:4]) < version:
            shutil.copy(path, before)
    monkeypatch.setattr(pbem.store.db, "MIGRATIONS", before)
    db = connect(database)
    migrate(db)
    return db


def test_migration_0013_writes_of_older_rows_what_the_code_writes_of_new_ones(
        empty, tmp_path, monkeypatch):
    """0013 writes in SQL the skeletons of the handles before it (``players.skeleton``) and
    the mailboxes of the "Your games" links and opt-outs (``invites.address_key``); a seat
    that had answered its invitation has answered."""
    db = migrated_before(13, empty, tmp_path, monkeypatch)
    handles = ["Alice", "AIice", "c0mputer_EASY", "Mimi-1", "OO0_oo", players.HANDLE_CHARACTERS]
    for handle in handles:
        db.execute("INSERT INTO players (handle, created_at) VALUES (?, 'now')", [handle])
    typed = ["Vic@Gmail.com", "v.i.c+games@googlemail.com", "Ann+x@Example.org",
             "bob@example.org.", "o'neil+a.b@gmail.com", "x!#$%&'*/=?^_`{|}~-@example.org",
             "plain@example.org"]
    for n, email in enumerate(typed):
        db.execute("INSERT INTO home_links (token_hash, email, created_at) VALUES (?, ?, ?)",
                   [f"hash{n}", email, f"2026-01-0{n + 1}"])
        db.execute("INSERT INTO home_optouts (email, created_at) VALUES (?, ?) "
                   "ON CONFLICT DO NOTHING", [email.lower(), f"2026-01-0{n + 1}"])
    db.execute("INSERT INTO games (id, game, players, options, seed, created_at) "
               "VALUES ('g1', 'mastery', 2, '{}', 's', 'now')")
    for seat, answered in ((0, 1), (1, 0)):
        db.execute("INSERT INTO seats (game_id, seat, name, email) VALUES ('g1', ?, 'A', ?)",
                   [seat, f"p{seat}@example.org"])
        db.execute("INSERT INTO invites (game_id, seat, address, sent, answered, created_at) "
                   "VALUES ('g1', ?, ?, 1, ?, 'now')", [seat, f"p{seat}@example.org", answered])

    monkeypatch.undo()
    assert migrate(db)[0] == "0013_mailboxes_sessions_lookalikes"  # (and any later ones)
    assert dict(db.execute("SELECT handle, skeleton FROM players").fetchall()) == {
        handle: players.skeleton(handle) for handle in handles}
    assert dict(db.execute("SELECT email, address FROM home_links").fetchall()) == {
        email: invites.address_key(email) for email in typed}
    first_opt_outs: dict[str, str] = {}  # a mailbox opted out since its first address did
    for n, email in enumerate(typed):
        first_opt_outs.setdefault(invites.address_key(email), f"2026-01-0{n + 1}")
    assert dict(db.execute("SELECT address, created_at FROM home_optouts").fetchall()) == \
        first_opt_outs
    assert [tuple(row) for row in db.execute("SELECT seat, answered FROM seats ORDER BY seat")
            ] == [(0, 1), (1, 0)]


def test_migration_0018_counts_the_moves_and_deliveries_made_before_it(
        empty, tmp_path, monkeypatch):
    """0018 counts each game's moves and the outbox's attempts so far as its triggers count
    the later ones: a move more, an attempt more, counted once."""
    db = migrated_before(18, empty, tmp_path, monkeypatch)
    db.execute("INSERT INTO games (id, game, players, options, seed, created_at) "
               "VALUES ('g1', 'mastery', 2, '{}', 's', 'now')")
    for seq, kind in enumerate(("move", "chat", "move", "takeback_accept", "move"), start=1):
        db.execute("INSERT INTO events (game_id, seq, kind, created_at) VALUES ('g1', ?, ?, "
                   "'now')", [seq, kind])
    for number, (channel, status, attempts) in enumerate(
            [("email", "sent", 1), ("email", "sent", 3), ("email", "failed", 8),
             ("email", "pending", 2), ("webhook", "pending", 0)]):
        db.execute("INSERT INTO outbox (id, channel, status, attempts) VALUES (?, ?, ?, ?)",
                   [number + 1, channel, status, attempts])

    monkeypatch.undo()
    assert migrate(db)[0] == "0018_operations"  # (and any later ones)
    assert db.execute("SELECT moves FROM games").fetchone()[0] == 3
    counted = {(row[0], row[1]): row[2] for row in db.execute("SELECT * FROM delivery_counts")}
    assert counted == {("email", "sent"): 2, ("email", "failed"): 1,
                       ("email", "deferred"): 0 + 2 + 7 + 2}
    db.execute("INSERT INTO events (game_id, seq, kind, created_at) VALUES ('g1', 6, 'move', "
               "'now')")
    db.execute("UPDATE outbox SET attempts = 1, status = 'sent' WHERE id = 5")
    db.execute("UPDATE outbox SET next_attempt_at = 'later' WHERE id = 4")  # a lease: no try
    assert db.execute("SELECT moves FROM games").fetchone()[0] == 4
    assert db.execute("SELECT count FROM delivery_counts WHERE channel = 'webhook' "
                      "AND outcome = 'sent'").fetchone()[0] == 1


def test_migration_0019_leaves_the_players_before_it_unsanctioned(empty, tmp_path, monkeypatch):
    """0019 (blocks, reports, moderation): a player made before it is neither muted,
    suspended nor closed, and its moderation log is append-only from the start."""
    db = migrated_before(19, empty, tmp_path, monkeypatch)
    db.execute("INSERT INTO players (handle, skeleton, email, created_at) VALUES "
               "('Ann', 'ann', 'ann@example.org', 'now')")
    monkeypatch.undo()
    assert migrate(db)[0] == "0019_moderation"  # (and any later ones)
    assert tuple(db.execute("SELECT muted_at, suspended_at, closed_at FROM players")
                 .fetchone()) == (None, None, None)
    db.execute("INSERT INTO moderation_log (moderator_id, moderator, handle, action, note, "
               "created_at) VALUES (1, 'Mod', 'Ann', 'warn', '', 'now')")
    with pytest.raises(Exception, match="append-only"):
        db.execute("UPDATE moderation_log SET note = 'changed'")


def test_migration_0020_leaves_older_seats_their_one_warning_and_every_mailbox_open(
        empty, tmp_path, monkeypatch):
    """0020: a seat from before it has no reminders of its own (the one warning) and was
    never in a digest; no mailbox bounces, and one is noted once, by its secret's hash."""
    db = migrated_before(20, empty, tmp_path, monkeypatch)
    db.execute("INSERT INTO games (id, game, players, options, seed, created_at) "
               "VALUES ('g1', 'mastery', 2, '{}', 's', 'now')")
    db.execute("INSERT INTO seats (game_id, seat, name, email, notify) "
               "VALUES ('g1', 0, 'Ann', 'ann@example.org', 'digest')")
    monkeypatch.undo()
    assert migrate(db)[0] == "0020_bounces_reminders"
    assert tuple(db.execute("SELECT notify, deadline_reminders, digested_at FROM seats")
                 .fetchone()) == ("digest", None, None)
    db.execute("INSERT INTO mailboxes (address, return_hash, created_at) "
               "VALUES ('ann@example.org', 'h1', 'now')")
    with pytest.raises(database_errors()):
        db.execute("INSERT INTO mailboxes (address, return_hash, created_at) "
                   "VALUES ('bob@example.org', 'h1', 'now')")
    assert [tuple(row) for row in db.execute(
        "SELECT bouncing_since, temporary_failures FROM mailboxes")] == [(None, 0)]


def test_migration_0021_leaves_older_seats_offered_to_nobody_and_keeps_events_unchanged(
        empty, tmp_path, monkeypatch):
    """0021 adds the players' events, which no UPDATE changes, and the bot accounts; the
    seats before it are offered to nobody in particular."""
    db = migrated_before(21, empty, tmp_path, monkeypatch)
    db.execute("INSERT INTO games (id, game, players, options, seed, created_at) "
               "VALUES ('g1', 'mastery', 2, '{}', 's', 'now')")
    db.execute("INSERT INTO seats (game_id, seat) VALUES ('g1', 1)")
    monkeypatch.undo()
    assert migrate(db)[0] == "0021_platform"
    assert db.execute("SELECT offered_to FROM seats").fetchone()[0] is None
    db.execute("INSERT INTO player_events (player_id, seq, kind, game_id, seat, version, "
               "created_at) VALUES (1, 1, 'turn', 'g1', 1, 0, 'now')")
    with pytest.raises(database_errors(), match="append-only"):
        db.execute("UPDATE player_events SET version = 2")
    db.execute("DELETE FROM player_events")  # with its player
    assert db.execute("SELECT count(*) FROM bot_accounts").fetchone()[0] == 0
