"""A throwaway PostgreSQL cluster for the tests (and ``./dev bench postgres``): the
machine's own PostgreSQL server programs (Debian's ``initdb`` and ``pg_ctl``), started on a
free loopback port with its data in a temporary folder, and one fresh schema per test
(``Cluster.schema``). Nothing the tests write needs to survive a crash, so by default it
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
