"""Backups of the whole database, made while the server runs, and their restore into an
empty database (``flask --app pbem backup PATH``, ``restore PATH``).

A backup is always an SQLite file, whichever engine the site runs on: of SQLite, a copy
made by SQLite's online backup API (one consistent moment, while the server goes on
writing); of PostgreSQL, every table and row copied from one snapshot (``db.copy``, a
repeatable read) into a new SQLite file: a portable dump that needs no ``pg_dump`` of the
server's version, and that restores into either engine. ``restore`` brings a backup made
by an older release up to date on a copy of its own (never changing the backup), then
copies it into the configured database, which must hold no game yet.
"""
from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Iterator

import click
import sqlite_utils

from .db import (sync, applied, connect, copy, dialect, is_url, migrate, migrations,
                 private_file, shown)


def backup(database: str, path: Path) -> None:
    """Write a consistent copy of the whole of ``database`` (the DATABASE setting) to the
    new file ``path``, readable by its owner alone: it holds every secret seed and address.
    Written beside it first, then renamed, so that ``path`` is never half a backup."""
    if path.exists():
        raise click.ClickException(f"{path} already exists: back up to a new file.")
    partial = path.with_name(f".{path.name}.partial")
    private_file(partial)
    try:
        if is_url(database):
            with contextlib.closing(connect(database)) as served, \
                    contextlib.closing(connect(str(partial))) as dump:
                copy(served, dump)
        else:
            with contextlib.closing(sqlite3.connect(database, timeout=30)) as source, \
                    contextlib.closing(sqlite3.connect(partial)) as target:
                source.backup(target)  # all at once: one snapshot, writers go on meanwhile
        sync(partial)
        os.replace(partial, path)
        sync(path.parent)
    finally:
        for leftover in (partial, partial.with_name(partial.name + "-wal"),
                         partial.with_name(partial.name + "-shm")):
            leftover.unlink(missing_ok=True)


def restore(path: Path, database: str) -> dict[str, int]:
    """Load the backup ``path`` into ``database``, which must hold no game (refused
    otherwise, and nothing is written); returns how many rows each table received."""
    if not path.is_file():
        raise click.ClickException(f"There is no backup at {path}.")
    target = connect(database)
    try:
        if "games" in target.table_names() and \
                target.execute("SELECT count(*) FROM games").fetchone()[0]:
            raise click.ClickException(f"{shown(database)} already holds games: restore only "
                                       f"into a new, empty database.")
        with _up_to_date(path) as source:
            return copy(source, target)
    finally:
        target.close()


@contextlib.contextmanager
def _up_to_date(path: Path) -> Iterator[sqlite_utils.Database]:
    """The backup ``path`` as this release's schema has it: a copy of it in a temporary
    folder, given the migrations it lacks (which rewrite older rows as they must be)."""
    with tempfile.TemporaryDirectory(prefix="pbem-restore-") as folder:
        working = Path(folder) / "backup.sqlite"
        with contextlib.closing(sqlite3.connect(path)) as backup_file, \
                contextlib.closing(sqlite3.connect(working)) as copied:
            backup_file.backup(copied)
        db = connect(str(working))
        try:
            unknown = applied(db) - set(migrations(dialect(db)))
            if unknown:
                raise click.ClickException(
                    f"{path} was made by a newer release of the server (its migration "
                    f"{max(unknown):04d}): restore it with that release.")
            migrate(db)
            yield db
        finally:
            db.close()
