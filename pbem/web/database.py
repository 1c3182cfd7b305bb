"""The request's database connection (flaskr's ``get_db``)."""
from __future__ import annotations

import sqlite_utils
from flask import Flask, current_app, g

from ..store.db import thread_connection, usable


def get_db() -> sqlite_utils.Database:
    """The request's database connection: its thread's, opened by the thread's first
    request and kept for the next ones (a connection per request costs its opening and,
    when the last one closes, a checkpoint of the WAL with its syncs)."""
    if "db" not in g:
        g.db = thread_connection(current_app.config["DATABASE"])
    return g.db


def close_db(_error: BaseException | None = None) -> None:
    db = g.pop("db", None)
    if db is not None and usable(db) and db.conn.in_transaction:
        db.conn.execute("ROLLBACK")  # the thread's next request starts afresh


def init_app(app: Flask) -> None:
    app.teardown_appcontext(close_db)
