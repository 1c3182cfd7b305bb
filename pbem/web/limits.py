"""Rate limits per client address (Flask-Limiter) on every endpoint that sends mail or
creates games, so the server cannot be used to flood a mailbox, and on the pages that
draw a game, so that one client cannot keep the workers to itself.

Only requests that succeed count: a refused request sends nothing. The limits are
settings (``RATE_LIMIT_*``, in Flask-Limiter's notation such as "10 per minute; 60 per
hour"); ``RATELIMIT_STORAGE_URI`` says where the counts live. The default is a SQLite file
in the instance folder (``SQLiteCounts``), shared by every worker process of the machine,
so that N gunicorn workers do not give a client N times a limit; with a PostgreSQL
``DATABASE``, that database (``PostgresCounts``), shared by every machine. A ``redis://``
or ``memcached://`` URI shares them between machines too. Behind a reverse proxy, set ``PROXIES``
so that the client's address is the one the proxy saw.
"""
from __future__ import annotations

import math
import os
import sqlite3
from typing import Any, Callable

from flask import Flask, current_app, request
from flask_babel import LazyString, lazy_gettext
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits.storage import Storage

from ..store import utc
from ..store.db import connect, is_url

limiter = Limiter(key_func=get_remote_address)

DEFAULTS: dict[str, Any] = {  # the settings, as create_app takes them
    "RATE_LIMIT_CREATE": "10 per minute; 60 per hour; 200 per day",  # new games, seats taken
    "RATE_LIMIT_HOME": "3 per minute; 10 per hour; 30 per day",      # "Your games" emails
    "RATE_LIMIT_ACTIONS": "60 per minute; 1000 per hour",  # moves, offers: mail opponents
    # games whose every seat is a computer's: they take the job process's time
    "RATE_LIMIT_COMPUTER_GAMES": "10 per hour; 30 per day",
    # per recipient address, from games it has not answered (pbem/invites.py)
    "RATE_LIMIT_INVITATIONS": "5 per day",
    "RATE_LIMIT_SIGN_IN": "3 per minute; 10 per hour; 30 per day",  # sign-in emails asked
    "RATE_LIMIT_SIGN_IN_EMAILS": "3 per hour; 10 per day",  # per recipient (pbem/players.py)
    # email sent again to an address that bounces (pbem/mail/bounces.py)
    "RATE_LIMIT_EMAIL_RETRIES": "3 per hour; 10 per day",
    # the computer's view of a position in the analysis: seconds of a worker's time each
    "RATE_LIMIT_COMPUTER_VIEWS": "6 per minute; 60 per day",
    # game pages, their history and uploaded records' review pages (GET): drawing them takes
    # a worker's time, far above what stepping through a game with the arrow keys asks
    "RATE_LIMIT_PAGES": "600 per minute; 10000 per hour",
}


def _setting(name: str) -> Callable[[], str]:
    return lambda: current_app.config[name]


def _succeeded(response) -> bool:
    return response.status_code < 400


def _limit(setting: str, refusal: LazyString, exempt_when: Callable[[], bool] | None = None,
           methods: tuple[str, ...] = ("POST", "PUT")):
    return limiter.shared_limit(
        _setting(setting), scope=setting.lower(), methods=list(methods),
        deduct_when=_succeeded, exempt_when=exempt_when,
        error_message=lambda: str(refusal))  # in the language of the request refused


creating = _limit("RATE_LIMIT_CREATE", lazy_gettext(
    "Too many new games from your address. Please wait a while and try again."))
joining = _limit("RATE_LIMIT_CREATE", lazy_gettext(  # the same allowance as ``creating``
    "Too many seats taken from your address. Please wait a while and try again."))
registering = _limit("RATE_LIMIT_CREATE", lazy_gettext(  # bot accounts: the same allowance
    "Too many bots registered from your address. Please wait a while and try again."))
asking_home = _limit("RATE_LIMIT_HOME", lazy_gettext(
    "Too many requests for your games from your address. Please wait a while and try "
    "again."))
asking_sign_in = _limit("RATE_LIMIT_SIGN_IN", lazy_gettext(
    "Too many requests for sign-in links from your address. Please wait a while and try "
    "again."))
acting = _limit("RATE_LIMIT_ACTIONS", lazy_gettext(
    "Too many actions from your address. Please wait a while and try again."))
retrying = _limit("RATE_LIMIT_EMAIL_RETRIES", lazy_gettext(
    "Too many tries to send email again from your address. Please wait a while and try "
    "again."), exempt_when=lambda: "retry" not in request.form)
assessing = _limit("RATE_LIMIT_COMPUTER_VIEWS", lazy_gettext(
    "Too many requests for the computer's view from your address. Please wait a while and "
    "try again."))

viewing = _limit("RATE_LIMIT_PAGES", lazy_gettext(
    "Too many pages asked for from your address. Please wait a while and try again."),
    methods=("GET",))


def between_computers(asks: Callable[[], bool]):
    """The allowance of new games between computers, counted for the requests that
    ``asks`` says ask for one (besides ``creating``)."""
    return _limit("RATE_LIMIT_COMPUTER_GAMES", lazy_gettext(
        "Too many games between computers from your address. Please wait a while and try "
        "again."), exempt_when=lambda: not asks())


class SQLiteCounts(Storage):
    """Fixed-window counts in a SQLite file (``sqlite:///path``): one machine's processes
    share them. Counts need no durability, so commits are not synced to disk."""

    STORAGE_SCHEME = ["sqlite"]
    TABLE = "counts"

    def __init__(self, uri: str, wrap_exceptions: bool = False, **options) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self.uri = uri
        self._connection: tuple[int, Any] | None = None

    @property
    def base_exceptions(self) -> type[Exception]:
        return sqlite3.Error

    def _db(self):
        # one connection per process: gunicorn forks workers after the app is made
        if self._connection is None or self._connection[0] != os.getpid():
            self._connection = (os.getpid(), self._connect())
        return self._connection[1]

    def _connect(self) -> sqlite3.Connection:
        path = self.uri.removeprefix("sqlite://")
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = OFF")
        db.execute("CREATE TABLE IF NOT EXISTS counts (key TEXT PRIMARY KEY, "
                   "count INTEGER NOT NULL, expires REAL NOT NULL)")
        return db

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        now = utc.now().timestamp()
        # a window that has expired starts again from this amount
        return self._db().execute(
            f"INSERT INTO {self.TABLE} AS c (key, count, expires) "
            "VALUES (:key, :amount, :expires) ON CONFLICT (key) DO UPDATE SET "
            "count = CASE WHEN c.expires <= :now THEN :amount ELSE c.count + :amount END, "
            "expires = CASE WHEN c.expires <= :now THEN :expires ELSE c.expires END "
            "RETURNING count",
            {"key": key, "amount": amount, "expires": now + expiry, "now": now}).fetchone()[0]

    def get(self, key: str) -> int:
        row = self._db().execute(f"SELECT count FROM {self.TABLE} WHERE key = ? AND expires > ?",
                                 [key, utc.now().timestamp()]).fetchone()
        return row[0] if row else 0

    def get_expiry(self, key: str) -> float:
        """When the key's window ends, rounded up to the second (Flask-Limiter's Retry-After
        is the whole seconds to it: never 0 while a window runs); now if none runs (a row
        whose window has ended is counted afresh: see ``incr``)."""
        now = utc.now().timestamp()
        row = self._db().execute(f"SELECT expires FROM {self.TABLE} WHERE key = ? "
                                 "AND expires > ?", [key, now]).fetchone()
        return math.ceil(row[0]) if row else now

    def check(self) -> bool:
        return self._db().execute("SELECT 1").fetchone() == (1,)

    def reset(self) -> int:
        return self._db().execute(f"DELETE FROM {self.TABLE}").rowcount

    def clear(self, key: str) -> None:
        self._db().execute(f"DELETE FROM {self.TABLE} WHERE key = ?", [key])


class PostgresCounts(SQLiteCounts):
    """The same counts in the PostgreSQL database of ``DATABASE`` (its URL): every machine
    shares them. The table is unlogged: counts need no durability."""

    STORAGE_SCHEME = ["postgresql", "postgres"]
    TABLE = "rate_limit_counts"

    @property
    def base_exceptions(self) -> type[Exception]:
        import psycopg
        return psycopg.Error

    def _connect(self):
        db = connect(self.uri)
        db.execute(f"CREATE UNLOGGED TABLE IF NOT EXISTS {self.TABLE} (key TEXT PRIMARY KEY, "
                   "count BIGINT NOT NULL, expires DOUBLE PRECISION NOT NULL)")
        return db


def storage_uri(instance_path: str, database: str) -> str:
    """The default place of the counts: the PostgreSQL database of a ``DATABASE`` URL, else
    a file beside the database in the instance folder."""
    if is_url(database):
        return database
    return "sqlite://" + os.path.join(os.path.abspath(instance_path), "ratelimits.sqlite")


def init_app(app: Flask) -> None:
    limiter.init_app(app)
