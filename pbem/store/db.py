"""The database: one connection per thread of a worker (``thread_connection``), the
schema, write transactions, and the locks that let several machines share the work.

``DATABASE`` is an SQLite file (the embedded default, through sqlite-utils) or a
``postgresql://`` URL (``pbem/store/postgres.py``, which the app uses through the same interface).
The SQL and the schema are written once, for both; the few things that differ are here.
The schema is ``pbem/store/migrations``: numbered SQL files that ``migrate`` applies, each once.

A game's history is the ``events`` table: an append-only log ordered by a per-game sequence
number, which triggers protect from UPDATE and DELETE. Everything else about a game is
either fixed at creation (``games``, ``seats``) or a summary rebuilt from the log.

Writers: SQLite has one at a time (``BEGIN IMMEDIATE`` takes the whole database). On
PostgreSQL, writers of different games go on side by side, and those of one game take turns
(``hold_game``: a write transaction that reads a game holds its row until the commit), so a
move is still checked against the position it is recorded in.
"""
from __future__ import annotations

import contextlib
import functools
import os
import re
import secrets
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import click
import sqlite_utils

from . import utc


def is_url(database: str) -> bool:
    """Whether the DATABASE setting names a PostgreSQL server rather than an SQLite file."""
    return str(database).startswith(("postgresql://", "postgres://"))


def shown(database: str) -> str:
    """The DATABASE setting as it may be printed: a URL without its password."""
    without = re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", str(database))
    return re.sub(r"(password=)[^&\s]*", r"\1***", without)


def connect(path: str) -> sqlite_utils.Database:
    """A new connection to the database ``path``: an SQLite file, or a PostgreSQL URL."""
    if is_url(path):
        from .postgres import PostgresDatabase  # psycopg is loaded only where it is used
        return PostgresDatabase(path)  # type: ignore[return-value]  # the same methods
    private_file(Path(path))  # the database holds every game: nobody else may read it
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    _write_ahead_log(conn)
    # A commit does not wait for the disk inside SQLite's write lock (FULL would): ``write``
    # syncs the log after the lock is released, so the next writer goes on meanwhile and
    # writers that commit together share one sync. Checkpoints sync as they did.
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("SELECT count(*) FROM sqlite_master")  # opens the log, making it if need be
    sync(Path(path).parent)  # ... and the log's name reaches the disk too
    database = sqlite_utils.Database(conn)
    database.log_path = f"{os.path.abspath(path)}-wal"  # type: ignore[attr-defined]  # ours
    return database


def _write_ahead_log(conn: sqlite3.Connection, timeout: float = 30) -> None:
    """Put the file in WAL mode (readers never wait for the writer). A new file's first
    switch needs the file to itself, and SQLite does not wait for that as it waits for
    locks: processes starting together on a new file (gunicorn and the job process) try
    again."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def sync(path: str | Path) -> None:
    """Wait until the file (or folder) ``path`` is on the disk."""
    handle = os.open(path, os.O_RDONLY)
    try:
        os.fdatasync(handle)
    finally:
        os.close(handle)


def private_file(path: Path) -> None:
    """Create ``path``, if it is missing, readable and writable by its owner alone (SQLite
    gives its -wal and -shm files the database file's permissions)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass


_thread = threading.local()


def thread_connection(path: str) -> sqlite_utils.Database:
    """This thread's connection to the database ``path``, opened (and checked migrated)
    the first time and kept for the thread's next requests."""
    key = (os.getpid(), path)  # a forked worker opens its own
    if getattr(_thread, "key", None) != key or not usable(_thread.db):
        if getattr(_thread, "key", (None,))[0] == os.getpid():
            # another database (tests): one connection per thread; or a PostgreSQL
            # connection the server dropped (a restart): the next request connects again
            _thread.db.close()
        database = connect(path)
        try:
            require_migrated(database)  # once per connection: a clear error, not a missing column
        except SchemaBehind:
            database.close()
            raise
        _thread.db, _thread.key = database, key
    return _thread.db


def dialect(db: sqlite_utils.Database) -> str:
    """"sqlite" or "postgresql"."""
    return getattr(db, "dialect", "sqlite")


def usable(db: sqlite_utils.Database) -> bool:
    """False once a PostgreSQL server has dropped the connection (an SQLite file's stays)."""
    return getattr(db.conn, "usable", True)


# How a write transaction begins. SQLite: with the write lock (IMMEDIATE), so two requests
# for the same game serialise instead of failing to upgrade a read lock. PostgreSQL: each
# statement sees what was committed before it (READ COMMITTED), and a game's writers take
# turns on its row (``hold_game``).
BEGIN = {"sqlite": "BEGIN IMMEDIATE", "postgresql": "BEGIN"}


@contextlib.contextmanager
def write(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """A write transaction (``BEGIN``), committed and on the disk when the block ends, so
    that an acknowledged move survives a power cut. Inside another write transaction it is
    a savepoint of that one: the outer commit decides for both."""
    if db.conn.in_transaction:
        savepoint = f"nested_{secrets.token_hex(8)}"
        db.execute(f"SAVEPOINT {savepoint}")
        try:
            yield db
        except BaseException:
            if db.conn.in_transaction:  # an error may have ended the whole transaction
                db.execute(f"ROLLBACK TO SAVEPOINT {savepoint}")
                db.execute(f"RELEASE SAVEPOINT {savepoint}")
            raise
        db.execute(f"RELEASE SAVEPOINT {savepoint}")
        return
    db.conn.execute(BEGIN[dialect(db)])
    try:
        yield db
    except BaseException:
        if usable(db):
            db.conn.execute("ROLLBACK")
        raise
    db.conn.execute("COMMIT")
    # SQLite's log, with everything committed so far by any process (it stays while a
    # connection is open, as this one is); PostgreSQL's COMMIT has waited for its disk
    if dialect(db) == "sqlite":
        sync(db.log_path)  # type: ignore[attr-defined]  # set by connect


def hold_game(db: sqlite_utils.Database, game_id: str) -> None:
    """Inside a write transaction: keep the game's other writers waiting until this one
    commits, so that what it read of the game stays true. SQLite's write transaction holds
    the whole database already; on PostgreSQL this locks the game's row (NO KEY UPDATE:
    rows that only refer to the game, such as new links, are not held up)."""
    if dialect(db) == "postgresql":
        db.execute("SELECT 1 FROM games WHERE id = ? FOR NO KEY UPDATE", [game_id])


def claiming(db: sqlite_utils.Database) -> str:
    """What a SELECT of rows to work on (due emails) ends with, so that two job runners
    never take the same rows: on PostgreSQL, rows another transaction has claimed are
    skipped. SQLite has one writer at a time, which is claim enough."""
    return " FOR UPDATE SKIP LOCKED" if dialect(db) == "postgresql" else ""


# The number of a PostgreSQL advisory lock named by the parameter, within this
# installation (its schema: several may share a database).
LOCK_KEY = "hashtextextended(current_schema() || ':' || ?, 0)"


def try_lock(db: sqlite_utils.Database, name: str) -> bool:
    """Take the PostgreSQL advisory lock ``name`` for the connection's session, if no other
    session holds it: a job only one process may do at a time. Release it with ``unlock``
    (or by closing the connection)."""
    return db.execute(f"SELECT pg_try_advisory_lock({LOCK_KEY})", [name]).fetchone()[0]


def unlock(db: sqlite_utils.Database, name: str) -> None:
    db.execute(f"SELECT pg_advisory_unlock({LOCK_KEY})", [name])


def hold_name(db: sqlite_utils.Database, name: str) -> None:
    """Inside a write transaction: keep the other writers that hold ``name`` waiting until
    this one commits. SQLite's write transaction holds the whole database already; on
    PostgreSQL this takes the transaction's advisory lock ``name``."""
    if dialect(db) == "postgresql":
        db.execute(f"SELECT pg_advisory_xact_lock({LOCK_KEY})", [name])


@contextlib.contextmanager
def claimed(db: sqlite_utils.Database, name: str) -> Iterator[bool]:
    """Whether this process has the job ``name`` to itself for the block: on PostgreSQL,
    whether no other session held its advisory lock (which this one then holds until the
    block ends); on SQLite, always (one machine's job process, ``pbem/jobs/scheduler.py``)."""
    if dialect(db) != "postgresql":
        yield True
        return
    mine = try_lock(db, name)
    try:
        yield mine
    finally:
        if mine and usable(db):
            unlock(db, name)


def insert_rows(db: sqlite_utils.Database, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert ``rows`` (each with the same columns) in one statement: sqlite-utils'
    ``insert_all`` checks the table's columns on every call, which thousands of small
    inserts feel."""
    if rows:
        columns = list(rows[0])
        db.conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) "
                            f"VALUES ({', '.join('?' * len(columns))})",
                            [[row[column] for column in columns] for row in rows])


# The schema: numbered SQL files, ``NNNN_what.sql``, each applied once and in order, with,
# where the engines truly differ, ``NNNN_what.sqlite.sql`` or ``.postgresql.sql`` after it.
MIGRATIONS = Path(__file__).parent / "migrations"
# What a database records of them (created here, not by a migration: the first one needs it).
MIGRATIONS_TABLE = ("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER NOT NULL "
                    "PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")


class SchemaBehind(click.ClickException):
    """The database lacks migrations this code needs."""


def migrations(engine: str) -> dict[int, list[Path]]:
    """version -> the files that make it, on ``engine`` ("sqlite" or "postgresql")."""
    found: dict[int, list[Path]] = {}
    # each version's file for both engines first, then its engine's own
    for path in sorted(MIGRATIONS.glob("[0-9][0-9][0-9][0-9]_*.sql"),
                       key=lambda path: (path.name[:4], path.name.count("."), path.name)):
        version = int(path.name[:4])
        if path.name.count(".") == 1 and version in found:  # two branches took one number
            raise RuntimeError(f"Two migrations are numbered {version:04d} "
                               f"({found[version][0].name}, {path.name}): give the newer "
                               f"one the next free number.")
        if path.name.count(".") == 1 or path.name.endswith(f".{engine}.sql"):
            found.setdefault(version, []).append(path)
    return found


def applied(db: sqlite_utils.Database) -> set[int]:
    """The versions of the migrations the database has."""
    if "schema_migrations" not in db.table_names():
        return set()
    return {row[0] for row in db.execute("SELECT version FROM schema_migrations")}


def pending(db: sqlite_utils.Database) -> list[int]:
    done = applied(db)
    return [version for version in migrations(dialect(db)) if version not in done]


def migrate(db: sqlite_utils.Database) -> list[str]:
    """Apply the migrations the database lacks, each once, in one write transaction; returns
    the names of those applied. Processes starting together take turns (SQLite's write
    lock; on PostgreSQL, an advisory lock, shared by every machine): the later ones find
    nothing left to do. A database made before migrations gets the first one marked as
    applied, once checked that it has all of it."""
    if not pending(db):
        return []  # the usual start: one query, no lock
    names = []
    with write(db):
        hold_name(db, "migrations")
        if "schema_migrations" not in db.table_names() and "games" in db.table_names():
            _adopt(db)
        _run_sql(db, MIGRATIONS_TABLE)
        for version in pending(db):
            paths = migrations(dialect(db))[version]
            for path in paths:
                _run_sql(db, path.read_text())
            names.append(_record(db, version))
    return names


def require_migrated(db: sqlite_utils.Database) -> None:
    """Refuse, in one clear sentence, to work on a database that lacks migrations."""
    if missing := pending(db):
        raise SchemaBehind(
            f"The database lacks {len(missing)} migration(s) of this version of the server "
            f"(from {missing[0]:04d}): run `flask --app pbem init-db` to apply them.")


def _adopt(db: sqlite_utils.Database) -> None:
    """Record the first migration as applied to a database made before migrations, by
    ``init-db`` or a server start of the release before them (021c809), which created the
    same schema in Python."""
    with contextlib.closing(sqlite3.connect(":memory:")) as baseline:
        for path in migrations("sqlite")[1]:
            for statement in _statements(path.read_text()):
                baseline.execute(statement)
        lacking = [f"{table}.{column}" for (table,) in baseline.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")
            for (column,) in baseline.execute("SELECT name FROM pragma_table_info(?)", [table])
            if not db[table].exists() or column not in db[table].columns_dict]
    if lacking:  # that release upgraded older databases in place: they go through it
        raise SchemaBehind(f"The database was made by a server older than the release before "
                           f"migrations (021c809) and lacks {', '.join(lacking)}: start that "
                           f"release on it once (its `flask --app pbem init-db` is enough), "
                           f"then this version.")
    _run_sql(db, MIGRATIONS_TABLE)
    _record(db, 1)


def _record(db: sqlite_utils.Database, version: int) -> str:
    """Note the migration ``version`` as applied; returns its name."""
    name = migrations(dialect(db))[version][0].stem
    db.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
               [version, name, utc.iso(utc.now())])
    return name


def _run_sql(db: sqlite_utils.Database, sql: str) -> None:
    """Run the statements of a migration, inside the caller's transaction (sqlite3's
    ``executescript`` would commit first)."""
    if dialect(db) == "postgresql":
        from .postgres import ddl
        db.execute(ddl(sql))  # several statements at once: psycopg does, without parameters
        return
    for statement in _statements(sql):
        db.execute(statement)


def _statements(sql: str) -> Iterator[str]:
    """SQLite's statements in ``sql``, one by one (a trigger's body has semicolons too)."""
    statement = ""
    for line in sql.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            yield statement
            statement = ""
    if statement.strip():
        yield statement  # the last one, without its semicolon


def upgrade(database: str) -> list[str]:
    """Apply the missing migrations to the database named by the DATABASE setting."""
    db = connect(database)
    try:
        return migrate(db)
    finally:
        db.close()


def initialise(database: str) -> list[str]:
    """What an app's start does to its database (``create_app``): an SQLite file, the
    embedded default on one machine, is made if missing and brought up to date; a
    PostgreSQL database (or schema) with nothing in it gets the schema. One that holds a
    schema is left as it is: while it lacks migrations, ``require_migrated`` refuses it,
    saying to run ``init-db``, which an operator of several machines runs once for all."""
    if not is_url(database):
        return upgrade(database)
    if database in _HOLDING_A_SCHEMA:
        return []
    db = connect(database)
    try:
        names = migrate(db) if "games" not in db.table_names() else []
    finally:
        db.close()
    _HOLDING_A_SCHEMA.add(database)
    return names


# The PostgreSQL databases this process has found holding a schema, which they keep: each
# is looked at once (a test suite makes an app per test, on one database).
_HOLDING_A_SCHEMA: set[str] = set()


def copy(source: sqlite_utils.Database, target: sqlite_utils.Database) -> dict[str, int]:
    """Copy every row of ``source`` into ``target``, which gets the schema here and must
    hold no game yet: an installation moving to another database (SQLite to PostgreSQL).
    The rows are read from one snapshot of ``source`` and written in one transaction, so
    the copy is whole or nothing. Returns how many rows each table received."""
    migrate(target)
    wanted = set(target.table_names()) - {"schema_migrations"}  # the target's own
    # each table after those it refers to, as the migrations made them
    order = creation_order()
    tables = sorted((table for table in source.table_names() if table in wanted),
                    key=lambda table: order.index(table) if table in order else len(order))
    copied = {}
    source.conn.execute(SNAPSHOT[dialect(source)])
    try:
        with write(target):
            if target.execute("SELECT count(*) FROM games").fetchone()[0]:
                raise click.ClickException("The database copied to already holds games: "
                                           "copy only into a new, empty one.")
            for table in tables:
                copied[table] = _copy_table(source, target, table)
    finally:
        source.conn.execute("ROLLBACK")
    return copied


@functools.cache
def creation_order() -> list[str]:
    """The schema's tables in the order its migrations create them (each after those it
    refers to), as SQLite records them; PostgreSQL lists tables by name."""
    with contextlib.closing(sqlite3.connect(":memory:")) as schema:
        for paths in migrations("sqlite").values():
            for path in paths:
                for statement in _statements(path.read_text()):
                    schema.execute(statement)
        return [name for (name,) in schema.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")]


# A read transaction that sees one moment of the database, even while others write.
SNAPSHOT = {"sqlite": "BEGIN", "postgresql": "BEGIN ISOLATION LEVEL REPEATABLE READ"}


# The columns the target's triggers count again as the rows they count are copied (each
# game's moves, from its events: migration 0018), so they are not copied themselves.
COUNTED = {"games": {"moves"}}


def _copy_table(source: sqlite_utils.Database, target: sqlite_utils.Database,
                table: str) -> int:
    types = source[table].columns_dict
    columns = [column for column in types if column not in COUNTED.get(table, ())]
    keys = source[table].pks
    numbered = len(keys) == 1 and types[keys[0]] is int
    # in the order they were written (the lobby lists games that way where times tie)
    rows = source.execute(f"SELECT {', '.join(columns)} FROM {table} "
                          f"ORDER BY {keys[0] if numbered else 'rowid'}")
    count = 0
    while batch := rows.fetchmany(1000):
        target.conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) "
                                f"VALUES ({', '.join('?' * len(columns))})",
                                [tuple(row) for row in batch])
        count += len(batch)
    if numbered and dialect(target) == "postgresql":  # go on numbering after the copies
        target.execute(f"SELECT setval(pg_get_serial_sequence(?, ?), "
                       f"COALESCE(MAX({keys[0]}), 0) + 1, false) FROM {table}",
                       [table, keys[0]])
    return count
