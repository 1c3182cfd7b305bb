"""A throwaway PostgreSQL cluster for the tests (and ``./dev bench postgres``): the
machine's own PostgreSQL server programs (Debian's ``initdb`` and ``pg_ctl``), started on a
free loopback port with its data in a temporary folder, and schemas for the tests: a new
one (``Cluster.schema``), or one per worker emptied for each test (``ReusedSchema``). Nothing the tests write needs to survive a crash, so by default it
does not wait for the disk."""
from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Iterator

DATABASE = "pbem_test"


def server_programs() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``: Debian's newest version, else on PATH."""
    versions = [path.parent for path in Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")
                if path.parent.parent.name.isdigit()]
    if versions:
        return max(versions, key=lambda folder: int(folder.parent.name))
    found = shutil.which("pg_ctl")
    return Path(found).resolve().parent if found and shutil.which("initdb") else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Unavailable(Exception):
    """Why no cluster can be started here (PostgreSQL is not installed)."""


class Cluster:
    def __init__(self, folder: Path, port: int, as_user: list[str], programs: Path):
        self.folder, self.port, self.as_user, self.programs = folder, port, as_user, programs

    @classmethod
    def start(cls, max_connections: int = 100, durable: bool = False) -> Cluster:
        """A running cluster; ``durable``: its commits wait for the disk, as a real server's
        do (the benchmark), rather than not (the tests)."""
        programs = server_programs()
        if programs is None:
            raise Unavailable("PostgreSQL's server programs (initdb, pg_ctl) are not installed "
                              "(Debian: apt-get install postgresql)")
        folder = Path(tempfile.mkdtemp(prefix="pbem-postgres-"))
        as_user: list[str] = []
        if os.geteuid() == 0:  # the server refuses to run as root: run it as postgres
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise Unavailable("PostgreSQL does not run as root, and there is no "
                                  "postgres user to run it as") from None
            os.chown(folder, owner.pw_uid, owner.pw_gid)
            as_user = ["runuser", "-u", "postgres", "--"]
        cluster = cls(folder, free_port(), as_user, programs)
        cluster._run("initdb", "-D", str(folder / "data"), "--auth=trust", "-U", "postgres",
                     "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
        fast = "" if durable else \
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
        cluster._run("pg_ctl", "-D", str(folder / "data"), "-l", str(folder / "log"), "-w",
                     "-o", f"-p {cluster.port} -k {folder} -c listen_addresses=127.0.0.1 "
                     f"{fast}-c max_connections={max_connections}", "start")
        import psycopg
        with psycopg.connect(cluster.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {DATABASE}")
        return cluster

    def _run(self, program: str, *args: str) -> None:
        done = subprocess.run([*self.as_user, str(self.programs / program), *args],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              cwd=self.folder)
        if done.returncode:
            log = self.folder / "log"
            raise RuntimeError(f"{program} failed: {done.stderr}"
                               f"{log.read_text() if log.exists() else ''}")

    def url(self, database: str = DATABASE) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    @contextlib.contextmanager
    def schema(self) -> Iterator[str]:
        """A new, empty schema: the ``DATABASE`` URL of connections that use it."""
        import psycopg
        name = f"test_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        try:
            yield f"{self.url()}?options=-csearch_path%3D{name}"
        finally:
            with psycopg.connect(self.url(), autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA {name} CASCADE")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


# What a schema holds besides rows: its relations (with their number of columns), triggers,
# functions and applied migrations. The rate limits' table is made by the app when first
# needed: ``_empty`` drops it, so that each test finds the schema as built.
SHAPE = """
SELECT string_agg(part, ',' ORDER BY part) FROM (
    SELECT c.relname || ':' || c.relkind::text || ':' || (
        SELECT count(*) FROM pg_attribute a
        WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS part
    FROM pg_class c
    WHERE c.relnamespace = current_schema()::regnamespace
      AND c.relname NOT LIKE 'rate_limit_counts%'
    UNION ALL
    SELECT 'trigger:' || t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
    UNION ALL
    SELECT 'function:' || proname FROM pg_proc
    WHERE pronamespace = current_schema()::regnamespace
    UNION ALL
    SELECT 'migration:' || version::text FROM schema_migrations) AS parts
"""


class ReusedSchema:
    """One schema built once (by ``build``, given its URL) and emptied before each test:
    making a schema and applying the migrations take far longer than emptying its tables.
    A test that changed the schema itself (a trigger planted, a table or migration added)
    leaves it to be dropped, and the next test gets a new one. One connection, kept, looks
    and empties, in two round trips: a new connection and a statement per table took three
    times as long."""

    def __init__(self, cluster: Cluster, build):
        self.cluster, self.build = cluster, build
        self.url: str | None = None
        self.shape: str | None = None
        self._schema: contextlib.ExitStack | None = None
        self._conn = None
        self._emptying = ""

    def emptied(self) -> str:
        """The URL of the schema, with the schema as built and no row but the migrations'."""
        import psycopg
        if self._conn is not None:
            try:
                if self._shape(self._conn) == self.shape:
                    self._conn.execute(self._emptying)
                    return self.url  # type: ignore[return-value]
            except psycopg.OperationalError:  # a test ended the connection: start anew
                pass
            self.close()
        self._schema = contextlib.ExitStack()
        self.url = self._schema.enter_context(self.cluster.schema())
        self.build(self.url)
        self._conn = psycopg.connect(self.url, autocommit=True)
        self.shape = self._shape(self._conn)
        self._emptying = self._statements(self._conn)
        return self.url

    @staticmethod
    def _shape(conn) -> str:
        return conn.execute(SHAPE).fetchall()[0][0]

    @staticmethod
    def _statements(conn) -> str:
        """What empties the schema, in one transaction: DELETE, not TRUNCATE (on a few dozen
        tables it is fifty times faster), with the log's triggers off, which refuse both, as
        they should in use: not here, between tests."""
        conn.execute("SET session_replication_role = replica")
        conn.execute("SET lock_timeout = '10s'")  # a test left a transaction open: say so
        tables = [table for (table,) in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
            "AND tablename <> 'schema_migrations'")]
        sequences = [name for (name,) in conn.execute(
            "SELECT relname FROM pg_class WHERE relkind = 'S' "
            "AND relnamespace = current_schema()::regnamespace")]
        return "; ".join(["BEGIN", *(f"DELETE FROM {table}" for table in tables),
                          *(f"SELECT setval('{name}', 1, false)" for name in sequences),
                          "DROP TABLE IF EXISTS rate_limit_counts", "COMMIT"])

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        if self._schema is not None:
            self._schema.close()
        self.url = self._schema = self._conn = None
