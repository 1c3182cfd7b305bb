"""``flask --app pbem backup PATH`` and ``restore PATH`` (``pbem/store/backup.py``): the
restore drill of docs/operations.md, on both engines. A backup made while the server
writes, restored into an empty database, holds every row, and every game answers the
same there as it did."""
from __future__ import annotations

import contextlib
import sqlite3

import pytest

from pbem import create_app, matches
from pbem.matches import CACHE
from pbem.store import utc
from pbem.store.db import connect
from pbem.web.database import get_db
from pbem.web.api import game_json

from test_cli import flask
from test_copy_db import installation, rows_of  # noqa: F401 - a fixture, and what compares

pytestmark = pytest.mark.usefixtures("installation")


def answers(app) -> dict[tuple[str, int | None], dict]:
    """Every game's answer to each of its seats and to a spectator, in ``app``'s database."""
    CACHE.clear()  # each database's games as they load from it
    with app.test_request_context():
        db = get_db()
        return {(game_id, seat): game_json(match, seat)
                for (game_id,) in db.execute("SELECT id FROM games ORDER BY id").fetchall()
                for match in [matches.load(db, game_id)]
                for seat in [*range(match.players), None]}


def restored_app(app, database: str):
    return create_app({"TESTING": True, "DATABASE": database, "SECRET_KEY": "test",
                       "MAIL_FOLDER": app.config["MAIL_FOLDER"], "PUBLIC_URL": "http://localhost"})


def same_rows(first: str, second: str) -> None:
    one, other = connect(first), connect(second)
    try:
        tables = [table for table in one.table_names() if table != "schema_migrations"]
        assert set(tables) <= set(other.table_names())
        for table in tables:
            assert rows_of(other, table) == rows_of(one, table), table
    finally:
        one.close()
        other.close()


def test_a_backup_made_while_the_server_writes_restores_whole_on_both_engines(
        installation, tmp_path, postgres_cluster, monkeypatch):
    app, _ = installation
    now = utc.now()
    monkeypatch.setattr(utc, "now", lambda: now)  # the clocks as they stand, each time
    before = answers(app)
    # a writer holds the database's write lock meanwhile: the backup neither waits for it
    # nor holds what it has not committed
    with contextlib.closing(sqlite3.connect(app.config["DATABASE"])) as writer:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("INSERT INTO digest_days (day, created_at) VALUES ('unsaid', 'now')")
        made = flask(app, "backup", str(tmp_path / "backup.sqlite"))
        writer.execute("ROLLBACK")
    assert made.exit_code == 0, made.output
    backup = tmp_path / "backup.sqlite"
    assert backup.stat().st_mode & 0o077 == 0  # every seed and address: its owner's alone
    assert not list(tmp_path.glob(".backup.sqlite*"))
    with contextlib.closing(sqlite3.connect(backup)) as copy:
        assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert not copy.execute("SELECT 1 FROM digest_days WHERE day = 'unsaid'").fetchall()

    # restored into an empty SQLite file, and into an empty PostgreSQL schema
    empty = tmp_path / "restored.sqlite"
    with postgres_cluster.schema() as url:
        for target in (str(empty), url):
            restoring = restored_app(app, target)
            done = flask(restoring, "restore", str(backup))
            assert done.exit_code == 0, done.output
            assert "events: " in done.output and "Restored" in done.output
            same_rows(app.config["DATABASE"], target)
            assert answers(restoring) == before
            again = flask(restoring, "restore", str(backup))  # it holds games now
            assert again.exit_code != 0 and "already holds games" in again.output

        # a backup of PostgreSQL (every row from one snapshot, as an SQLite file) restores
        # into SQLite, whole
        served = restored_app(app, url)
        assert flask(served, "backup", str(tmp_path / "of-postgresql.sqlite")).exit_code == 0
    back = restored_app(app, str(tmp_path / "from-postgresql.sqlite"))
    assert flask(back, "restore", str(tmp_path / "of-postgresql.sqlite")).exit_code == 0
    same_rows(app.config["DATABASE"], str(tmp_path / "from-postgresql.sqlite"))
    assert answers(back) == before


def test_backup_and_restore_refuse_what_would_lose_something(installation, tmp_path):
    app, _ = installation
    taken = tmp_path / "taken.sqlite"
    taken.write_text("an earlier backup")
    refused = flask(app, "backup", str(taken))
    assert refused.exit_code != 0 and "already exists" in refused.output
    assert taken.read_text() == "an earlier backup"
    missing = flask(app, "restore", str(tmp_path / "nothing.sqlite"))
    assert missing.exit_code != 0 and "no backup" in missing.output
    assert flask(app, "backup", str(tmp_path / "fresh.sqlite")).exit_code == 0
    into_itself = flask(app, "restore", str(tmp_path / "fresh.sqlite"))
    assert into_itself.exit_code != 0 and "already holds games" in into_itself.output
