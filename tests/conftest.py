"""Shared fixtures, in flaskr's manner: ``app``, ``client``, ``runner``; plus ``new_game`` to
create a game through the JSON API, ``live_server`` for tests that need a real HTTP server
(browsers), and ``smtp``, a real SMTP server on loopback.

Every test that uses a database (``database``, and so ``app``) runs on both storage
engines: on a fresh SQLite file, and on a fresh schema of a throwaway PostgreSQL cluster
that the session starts on a free loopback port (``tests/postgres.py``). ``--database
sqlite`` or ``--database postgresql`` (or ``PBEM_TEST_DATABASE``) runs one of them only.
Where PostgreSQL is not installed, its half is skipped, saying so."""
from __future__ import annotations

import email
import email.policy
import os
import socket
import sys
import re
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest
from aiosmtpd.controller import Controller
from werkzeug.serving import make_server

from flask import url_for

import pbem.db
from pbem import create_app, links, mail, matches, play
from pbem.db import connect, dialect, get_db
from pbem.matches import CACHE

import postgres

ENGINES = ("sqlite", "postgresql")
HERE = Path(__file__).resolve().parent


def pytest_addoption(parser):
    parser.addoption("--database", choices=(*ENGINES, "both"),
                     default=os.environ.get("PBEM_TEST_DATABASE", "both"),
                     help="the storage engine(s) of the tests that use a database "
                          "(default: both, or PBEM_TEST_DATABASE)")


def pytest_generate_tests(metafunc):
    if "database" in metafunc.fixturenames:
        chosen = metafunc.config.getoption("database")
        metafunc.parametrize("database", ENGINES if chosen == "both" else [chosen],
                             indirect=True)


@pytest.fixture(scope="session")
def postgres_cluster():
    """The session's throwaway PostgreSQL cluster, started when a test first needs it."""
    try:
        cluster = postgres.Cluster.start(max_connections=300)
    except postgres.Unavailable as why:
        pytest.skip(f"PostgreSQL tests skipped: {why}")
    yield cluster
    cluster.stop()


@pytest.fixture
def database(request, tmp_path):
    """The ``DATABASE`` setting of a test: a new SQLite file, or a new PostgreSQL schema."""
    if request.param == "sqlite":
        yield str(tmp_path / "pbem.sqlite")
        return
    with request.getfixturevalue("postgres_cluster").schema() as url:
        pbem.db.upgrade(url)  # as ``init-db`` does before a server starts (SQLite: create_app)
        yield url


class WritesWatched:
    """``sqlite3`` as ``pbem.db`` sees it, the server's connections noting every statement
    that writes outside a transaction: ``db.write`` syncs the log after its commit, and a
    write committed on its own would not be synced (``db.connect``). The connections tests
    open themselves, to look or to break things on purpose, are not watched."""

    WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")

    def __init__(self):
        self.unsynced: list[str] = []

    def __getattr__(self, name: str):
        return getattr(sqlite3, name)

    def connect(self, *args, **kwargs) -> sqlite3.Connection:
        conn = sqlite3.connect(*args, **kwargs)
        if Path(sys._getframe(2).f_code.co_filename).parent == HERE:  # db.connect's caller
            return conn

        def watch(sql: str) -> None:
            if sql.lstrip().upper().startswith(self.WRITES) and not conn.in_transaction:
                self.unsynced.append(sql)

        conn.set_trace_callback(watch)
        return conn


@pytest.fixture
def app(tmp_path, monkeypatch, database):
    CACHE.clear()  # every test starts from its own database
    play.RENDERS.clear()
    watched = WritesWatched()
    monkeypatch.setattr(pbem.db, "sqlite3", watched)
    monkeypatch.setenv("PBEM_INSTANCE", str(tmp_path / "instance"))  # its own lock and key
    app = create_app({
        "TESTING": True,
        "DATABASE": database,
        "MAIL_FOLDER": str(tmp_path / "mail"),
        "SECRET_KEY": "test",
        "PUBLIC_URL": "http://localhost",  # the test client's own address
        "AWAY_MINUTES": 0,  # tests play both sides at once: tell each turn at once
    })
    yield app
    CACHE.clear()
    assert not watched.unsynced, "writes committed outside db.write (never synced)"


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


def path_of(url: str) -> str:
    """The path (and query) of an absolute URL from an API answer, for the test client."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


@dataclass
class NewGame:
    id: str
    urls: list[str]   # each seat's play page path
    apis: list[str]   # each seat's API base path
    watch: str        # the spectator page path


@pytest.fixture
def new_game(client):
    """Create a game through the API: ``new_game("mastery", players=2, options={})``; the
    players are "Player 1", ... unless ``names`` are given; emails p1@example.org, ..."""

    def create(game: str = "mastery", players: int = 2, options: dict | None = None,
               names: list[str] | None = None) -> NewGame:
        names = names or [f"Player {i + 1}" for i in range(players)]
        body = {"game": game, "options": options or {},
                "players": [{"name": name, "email": f"p{i + 1}@example.org"}
                            for i, name in enumerate(names[:players])]}
        response = client.post("/api/games", json=body)
        assert response.status_code == 201, response.json
        seats = response.json["seats"]
        return NewGame(response.json["id"], [path_of(s["url"]) for s in seats],
                       [path_of(s["api"]) for s in seats], path_of(response.json["spectator"]))

    return create


@pytest.fixture
def seeded_game(app):
    """``seeded_game(game, seed, options)``: a new two-player game whose secret seed is
    ``seed``, so a test can make two games that differ only in a hidden chance event."""

    def create(game: str, seed: str, options: dict | None = None) -> NewGame:
        players = [{"name": "Ann", "email": "ann@example.org"},
                   {"name": "Bob", "email": "bob@example.org"}]
        with app.test_request_context():
            created = matches.create(get_db(), game, players, options or {}, seed=seed)
            return NewGame(
                created.match.id,
                [url_for("play.page", role="play", token=t) for t in created.tokens],
                [url_for("api.game", role="play", token=t) for t in created.tokens],
                url_for("play.page", role="watch", token=created.spectator_token))

    return create


@pytest.fixture
def db(app):
    """The app's database, as a test reads it."""
    database = connect(app.config["DATABASE"])
    yield database
    database.close()


def database_errors() -> tuple[type[Exception], ...]:
    """What a failing statement raises, on either engine."""
    import psycopg
    return sqlite3.DatabaseError, psycopg.DatabaseError


def refuse_inserts(db, table: str, message: str, when: str = "true") -> None:
    """Make the inserts into ``table`` for which ``when`` holds (of the row ``NEW``) fail with
    ``message``: storage failing in the middle of a transaction."""
    if dialect(db) == "sqlite":
        db.execute(f"CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table} WHEN {when} "
                   f"BEGIN SELECT RAISE(ABORT, '{message}'); END")
    else:
        db.execute(f"CREATE FUNCTION refuse_{table}() RETURNS trigger LANGUAGE plpgsql AS "
                   f"$$ BEGIN RAISE EXCEPTION '{message}'; END $$")
        db.execute(f"CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table} FOR EACH ROW "
                   f"WHEN ({when}) EXECUTE FUNCTION refuse_{table}()")


def allow_inserts(db, table: str) -> None:
    db.execute(f"DROP TRIGGER refuse_{table}" + ("" if dialect(db) == "sqlite" else f" ON {table}"))


def everything_in(db) -> str:
    """Every row of every table, as text: everything the database holds."""
    return "\n".join(f"{table}: {row}" for table in db.table_names()
                     for row in db.query(f"SELECT * FROM {table}"))


# -- pages: what a test reads off them ------------------------------------------------------

def links_in(html: str) -> dict[str, str]:
    """Every move-builder link of a page, by the last token of its click path."""
    found = {}
    for href in re.findall(r'href="([^"]*\?path=[^"]*)"', html):
        href = unescape(href)
        found[parse_qs(urlsplit(href).query)["path"][0].split(".")[-1]] = href
    return found


def confirm_move(html: str) -> str | None:
    """The move the page's confirm button would play, if it has one."""
    match = re.search(r'<form [^>]*class="confirm">\s*<input type="hidden" name="move" '
                      r'value="([^"]*)"', html)
    return unescape(match.group(1)) if match else None


def api_move(client, api: str, move: str) -> dict:
    """Play ``move`` through the JSON API at the current ply; it must be accepted."""
    ply = client.get(api).json["ply"]
    response = client.post(f"{api}/moves", json={"move": move, "ply": ply})
    assert response.status_code == 200, (move, response.json)
    return response.json


# -- hidden information: everything a viewer receives, comparable across two games ---------

TIME = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:\d\d|Z)?")


def normalised(text: str, game: NewGame) -> str:
    """``text`` with the game's own id, every secret token and every timestamp replaced."""
    text = links.redact(text)
    assert not re.search(r"[A-Za-z0-9_-]{32}", text), "a token escaped the normalisation"
    return TIME.sub("<time>", text.replace(game.id, "<game>"))


def seen_by(client, game: NewGame, seat: int | None, paths=("",)) -> dict[str, str]:
    """Everything a viewer receives now: the page (with builder paths) and its ETag, the API
    answer (with the chat), a player's own notes, the page's live-update poll, every
    history page and its ETag, and both record downloads, normalised."""
    base = game.urls[seat] if seat is not None else game.watch
    api = game.apis[seat] if seat is not None else base.replace("/watch/", "/api/watch/")
    seen = {}
    for path in paths:
        response = client.get(base + (f"?path={path}" if path else ""))
        seen[f"page {path}"] = f"{response.status_code} {response.headers.get('ETag')} " \
            + response.get_data(as_text=True)
    seen["api"] = client.get(api).get_data(as_text=True)
    if seat is not None:
        seen["notes"] = client.get(f"{api}/notes").get_data(as_text=True)
    version = client.get(f"{base}/version")  # what the page's script polls
    seen["version"] = f"{version.headers['ETag']} {version.get_data(as_text=True)}"
    for ply in range(client.get(api).json["ply"] + 1):
        response = client.get(f"{base}/history/{ply}")
        seen[f"history {ply}"] = f"{response.headers.get('ETag')} " \
            + response.get_data(as_text=True)
    for kind in ("json", "txt"):
        response = client.get(f"{base}/record.{kind}")
        seen[f"record.{kind}"] = response.get_data(as_text=True) + \
            response.headers["Content-Disposition"]
    if seat is not None:  # the seat's Atom feed
        feed = client.post(f"{api}/feed").json["feed"]
        seen["feed"] = client.get(path_of(feed)).get_data(as_text=True)
    return {key: normalised(value, game) for key, value in seen.items()}


def emails_to(app, game: NewGame, address: str) -> list[str]:
    """The emails queued for ``address`` in ``game`` as they are sent (``mail.build``): every
    header and part, the text and HTML in words and each picture's PNG in hex, normalised
    (Message-ID, Date and MIME boundaries too); or the posts to a webhook (``address`` its
    URL): the summary and the JSON."""
    db = connect(app.config["DATABASE"])
    rows = db.query("SELECT * FROM outbox WHERE game_id = ? AND recipient = ? ORDER BY id",
                    [game.id, address])
    return [normalised(_as_sent(app, row) if row["channel"] == "email"
                       else row["subject"] + "\n" + row["body"], game) for row in rows]


def _as_sent(app, row: dict) -> str:
    data = mail.build(row, app.config["MAIL_FROM"], app.config["PUBLIC_URL"]).data
    message = email.message_from_bytes(data, policy=email.policy.default)
    parts = []
    for part in message.walk():
        headers = "".join(f"{name}: {value}\n" for name, value in part.items()
                          if name not in ("Message-ID", "Date"))
        content = "" if part.is_multipart() else part.get_content()
        # a picture's bytes in groups, which no token's shape matches; text with its
        # SMTP line ends read back as newlines
        parts.append(headers + (content.hex(" ", 8) if isinstance(content, bytes)
                                else content.replace("\r\n", "\n")))
    return re.sub(r"=_[0-9a-f]{40}", "<boundary>", "\n".join(parts))


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, driven by Playwright (which never downloads a browser)."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: the browser tests need Debian's chromium "
                    "(run ./dev test, which installs it, or apt-get install chromium).",
                    pytrace=False)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def live_server(app):
    """The app on a real HTTP server on loopback, whose address is its PUBLIC_URL (as
    ``serve`` does); yields its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    app.config["PUBLIC_URL"] = f"http://127.0.0.1:{server.server_port}"
    yield app.config["PUBLIC_URL"]
    server.shutdown()
    thread.join()


# -- a real SMTP server -------------------------------------------------------------------

class Recorder:
    """An aiosmtpd handler that keeps what it receives, or refuses while told to."""

    def __init__(self) -> None:
        self.received: list[tuple[str, list[str], email.message.EmailMessage]] = []
        self.refuse_rcpt: str | None = None   # e.g. "550 5.1.1 No such user"
        self.refuse_data: str | None = None   # e.g. "451 4.3.0 Try again later"
        self.port = 0
        self.sessions: dict[int, object] = {}  # the connections that delivered, by id

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.refuse_rcpt:
            return self.refuse_rcpt
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.refuse_data:
            return self.refuse_data
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        self.received.append((envelope.mail_from, list(envelope.rcpt_tos), message))
        self.sessions[id(session)] = session  # kept, so no later session reuses its id
        return "250 Message accepted for delivery"

    @property
    def messages(self) -> list[email.message.EmailMessage]:
        return [message for _, _, message in self.received]


def free_port() -> int:
    """A loopback port nobody listens on (connections to it are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def smtp():
    handler = Recorder()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port(),
                            server_hostname="smtp.test")
    controller.start()
    handler.port = controller.port
    yield handler
    controller.stop()
