"""PostgreSQL (psycopg 3), for installations served by several machines: a connection that
the app uses exactly as it uses SQLite through sqlite-utils.

The app's SQL is written once, in what both engines run, with SQLite's placeholders (``?``
and ``:name``); its schema once too, with sqlite-utils' ``table.create`` (``pbem/db.py``).
``PostgresDatabase`` offers the part of sqlite-utils' interface the app uses: it turns the
placeholders into psycopg's, Python types into PostgreSQL's, and gives rows that read by
position or by name like ``sqlite3.Row``. What really differs between the engines (how a
write transaction starts, the triggers that keep the event log append-only, row and
advisory locks) is in ``pbem/db.py``, beside SQLite's.

Text columns compare byte by byte (``COLLATE "C"``), as in SQLite, whatever the database's
locale: times are ISO 8601 text and must sort as text.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import psycopg
from psycopg import pq

# SQLite numbers a table's rows in the order they were inserted (``rowid``), and the app
# sorts by it where times tie; PostgreSQL's tables get such a column too, hidden like
# SQLite's from ``columns_dict``.
ROWID = "rowid"
TYPES = {str: 'TEXT COLLATE "C"', int: "BIGINT", float: "DOUBLE PRECISION", bytes: "BYTEA"}
PYTHON_TYPES = {"text": str, "bigint": int, "integer": int, "double precision": float,
                "bytea": bytes}

# What a placeholder can hide in: a string literal, a quoted name, a cast (``::``).
_TOKEN = re.compile(r"'(?:[^']|'')*'|\"[^\"]*\"|::|\?|:(\w+)|%")


@functools.lru_cache(maxsize=1024)
def translated(sql: str) -> str:
    """``sql`` with psycopg's placeholders: ``?`` becomes ``%s``, ``:name`` ``%(name)s``,
    and every other ``%`` (in a LIKE pattern, say) is doubled."""
    def swap(found: re.Match) -> str:
        text = found.group(0)
        if text == "?":
            return "%s"
        if found.group(1):
            return f"%({found.group(1)})s"
        return text.replace("%", "%%")
    return _TOKEN.sub(swap, sql)


class Row(tuple):
    """A row as ``sqlite3.Row`` gives it: by position, or by column name."""

    _names: dict[str, int]

    def __new__(cls, values: Sequence[Any], names: dict[str, int]) -> Row:
        row = super().__new__(cls, values)
        row._names = names
        return row

    def __getitem__(self, key):
        return super().__getitem__(self._names[key] if isinstance(key, str) else key)

    def keys(self) -> list[str]:
        return list(self._names)


def _rows(cursor: psycopg.Cursor):
    names = {column.name: i for i, column in enumerate(cursor.description or ())}
    return lambda values: Row(values, names)


class Connection:
    """The part of ``sqlite3.Connection`` the app uses. Autocommit, as the app's SQLite
    connections are (``isolation_level=None``): a transaction is begun explicitly."""

    def __init__(self, url: str):
        self.raw = psycopg.connect(url, autocommit=True, row_factory=_rows)
        self._trace: Callable[[str], None] | None = None
        # An acknowledged move must survive a crash, as on SQLite: a server set not to wait
        # for the disk at commit is asked to, for this connection (stronger settings, such
        # as waiting for a standby, are kept).
        if self.raw.execute("SHOW synchronous_commit").fetchone()[0] == "off":
            self.raw.execute("SET synchronous_commit = on")

    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != pq.TransactionStatus.IDLE

    @property
    def usable(self) -> bool:
        """False once the server has gone (restarted, or the network lost): connect again."""
        return not (self.raw.closed or self.raw.broken)

    def set_trace_callback(self, trace: Callable[[str], None] | None) -> None:
        """Have ``trace`` called with every statement run, its values in place (as
        sqlite3's is)."""
        self._trace = trace

    def _traced(self, sql: str, parameters: Any) -> None:
        self._trace(sql if parameters is None else
                    psycopg.ClientCursor(self.raw).mogrify(translated(sql), parameters))

    def execute(self, sql: str, parameters: Sequence[Any] | Mapping[str, Any] | None = None
                ) -> psycopg.Cursor:
        if self._trace:
            self._traced(sql, parameters)
        if parameters is None:
            return self.raw.execute(sql)
        return self.raw.execute(translated(sql), parameters)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> psycopg.Cursor:
        rows = list(rows)
        if self._trace:
            for row in rows:
                self._traced(sql, row)
        cursor = self.raw.cursor()
        cursor.executemany(translated(sql), rows)
        return cursor

    def close(self) -> None:
        self.raw.close()


class PostgresDatabase:
    """The part of ``sqlite_utils.Database`` the app uses, on PostgreSQL. ``url`` is a
    libpq connection URL (``postgresql://user:password@host:port/database``)."""

    dialect = "postgresql"

    def __init__(self, url: str):
        self.url = url
        self.conn = Connection(url)

    def execute(self, sql: str, parameters: Sequence[Any] | Mapping[str, Any] | None = None
                ) -> psycopg.Cursor:
        return self.conn.execute(sql, parameters)

    def query(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None
              ) -> Iterator[dict[str, Any]]:
        cursor = self.execute(sql, params)
        names = [column.name for column in cursor.description]
        return (dict(zip(names, row)) for row in cursor)

    def __getitem__(self, name: str) -> Table:
        return Table(self, name)

    def table_names(self) -> list[str]:
        return [row[0] for row in self.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = "
            "current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name")]

    def close(self) -> None:
        self.conn.close()


class Table:
    """The part of ``sqlite_utils.db.Table`` the app uses: creating a table and its
    indexes (named as sqlite-utils names them), adding columns, and writing rows."""

    def __init__(self, db: PostgresDatabase, name: str):
        self.db, self.name = db, name

    def create(self, columns: Mapping[str, type], pk: str | Sequence[str],
               foreign_keys: Iterable[tuple[str, str, str]] = (),
               not_null: Iterable[str] = (), if_not_exists: bool = False) -> Table:
        keys = (pk,) if isinstance(pk, str) else tuple(pk)
        numbered = len(keys) == 1 and columns[keys[0]] is int  # as SQLite's INTEGER PRIMARY KEY
        required = set(not_null)
        parts = [f"{column} BIGINT GENERATED BY DEFAULT AS IDENTITY" if numbered and
                 column == keys[0] else
                 f"{column} {TYPES[kind]}{' NOT NULL' if column in required else ''}"
                 for column, kind in columns.items()]
        if not numbered:
            parts.append(f"{ROWID} BIGINT GENERATED ALWAYS AS IDENTITY")
        parts.append(f"PRIMARY KEY ({', '.join(keys)})")
        parts += [f"FOREIGN KEY ({column}) REFERENCES {table} ({other})"
                  for column, table, other in foreign_keys]
        self.db.execute(f"CREATE TABLE {'IF NOT EXISTS ' if if_not_exists else ''}"
                        f"{self.name} ({', '.join(parts)})")
        return self

    def create_index(self, columns: Sequence[str], index_name: str | None = None,
                     unique: bool = False, if_not_exists: bool = False) -> Table:
        name = index_name or f"idx_{self.name}_{'_'.join(columns)}"
        self.db.execute(f"CREATE {'UNIQUE ' if unique else ''}INDEX "
                        f"{'IF NOT EXISTS ' if if_not_exists else ''}{name} "
                        f"ON {self.name} ({', '.join(columns)})")
        return self

    @property
    def columns_dict(self) -> dict[str, type]:
        return {row[0]: PYTHON_TYPES[row[1]] for row in self.db.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = ? AND column_name <> ? "
            "ORDER BY ordinal_position", [self.name, ROWID])}

    def add_column(self, name: str, kind: type, not_null_default: Any = None) -> Table:
        constraint = "" if not_null_default is None else \
            f" NOT NULL DEFAULT {_literal(not_null_default)}"
        self.db.execute(f"ALTER TABLE {self.name} ADD COLUMN {name} {TYPES[kind]}{constraint}")
        return self

    def exists(self) -> bool:
        return self.name in self.db.table_names()

    @property
    def pks(self) -> list[str]:
        return [row[0] for row in self.db.execute(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
            "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = ?::regclass AND i.indisprimary "
            "ORDER BY array_position(i.indkey, a.attnum)", [self.name])]

    @property
    def count(self) -> int:
        return self.db.execute(f"SELECT count(*) FROM {self.name}").fetchone()[0]

    def insert(self, record: Mapping[str, Any]) -> Table:
        return self.insert_all([record])

    def insert_all(self, records: Iterable[Mapping[str, Any]]) -> Table:
        records = list(records)
        if records:
            columns = list(records[0])
            self.db.conn.executemany(
                f"INSERT INTO {self.name} ({', '.join(columns)}) "
                f"VALUES ({', '.join('?' * len(columns))})",
                [[record[column] for column in columns] for record in records])
        return self

    def update(self, pk_values: Any, updates: Mapping[str, Any]) -> Table:
        keys = pk_values if isinstance(pk_values, (list, tuple)) else [pk_values]
        self.db.execute(f"UPDATE {self.name} SET {', '.join(f'{c} = ?' for c in updates)} "
                        f"WHERE {' AND '.join(f'{c} = ?' for c in self.pks)}",
                        [*updates.values(), *keys])
        return self

    def upsert(self, record: Mapping[str, Any], pk: str | Sequence[str]) -> Table:
        keys = (pk,) if isinstance(pk, str) else tuple(pk)
        columns = list(record)
        changes = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in keys)
        self.db.execute(f"INSERT INTO {self.name} ({', '.join(columns)}) "
                        f"VALUES ({', '.join('?' * len(columns))}) "
                        f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {changes}",
                        list(record.values()))
        return self


def _literal(value: Any) -> str:
    if isinstance(value, (int, float)):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"
