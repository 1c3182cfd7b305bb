"""Shared fixtures, in flaskr's manner: ``app``, ``client``, ``runner``; plus ``new_game`` to
create a game through the JSON API, ``live_server`` for tests that need a real HTTP server
(browsers), ``smtp``, a real SMTP server on loopback, and for the browser tests ``browser``,
``open_context`` and ``person``.

Every test that uses a database (``database``, and so ``app``) runs on both storage
engines: on a fresh SQLite file, and on an emptied schema of a throwaway PostgreSQL cluster
that the session starts on a free loopback port (``tests/postgres.py``). ``--database
sqlite`` or ``--database postgresql`` (or ``PBEM_TEST_DATABASE``) runs one of them only.
Where PostgreSQL is not installed, its half is skipped, saying so. A test whose database is
incidental (what is drawn or written for people: pages, emails, rules pages, a browser's
layout, hidden information's indistinguishability; input refused before anything is
stored; how an email reply is read; a computer's choice; marked ``one_database`` or
``browser``) runs on the first engine chosen only (docs/architecture.md says which is
which).

The functions tests call are in ``helpers.py``; this file holds the fixtures."""
from __future__ import annotations

import os
import shutil
import sys
import sqlite3
import threading
from pathlib import Path

import engine
import jinja2
import jinja2.bccache
import pytest
from aiosmtpd.controller import Controller
from flask import Flask, url_for
from playwright.sync_api import BrowserContext, Page
from werkzeug.routing.rules import Rule
from werkzeug.serving import make_server

import pbem.store.db
from pbem import create_app, creation
from pbem.web import play
from pbem.store.db import connect
from pbem.web.database import get_db
from pbem.matches import CACHE

import postgres
from helpers import (EXAMPLE_GAME, PLUGIN_GAMES, TIMEOUT_MS, NewGame, Recorder, free_port,
                     install_distribution, install_example, path_of)

ENGINES = ("sqlite", "postgresql")
HERE = Path(__file__).resolve().parent


def builders_made_once(compile_builder):
    """Werkzeug compiles two URL builders per rule, from an AST, in every new app: a third
    of a test's setup, each test building its own app (flaskr's pattern). The builder is a
    plain function of the rule's shape, bound to the rule afterwards, so the tests' apps
    share one per shape; what a URL is built from stays Werkzeug's own code."""
    made: dict = {}

    def builder(rule: Rule, append_unknown: bool = True):
        shape = (rule.rule, append_unknown, tuple(rule._trace), repr(rule.defaults),
                 tuple(type(c).__name__ for c in rule._converters.values()))
        if shape not in made:
            made[shape] = compile_builder(rule, append_unknown)
        return made[shape]

    return builder


Rule._compile_builder = builders_made_once(Rule._compile_builder)


class SharedTemplates(jinja2.BytecodeCache):
    """Jinja compiles each template again in every new app, which was a sixth of the
    suite's time outside the browser. The tests' apps, all set up alike by ``create_app``,
    share the compiled code, which Jinja keys by the template's name and checks against its
    source."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


Flask.jinja_options = {**Flask.jinja_options, "bytecode_cache": SharedTemplates()}


def pytest_addoption(parser):
    parser.addoption("--database", choices=(*ENGINES, "both"),
                     default=os.environ.get("PBEM_TEST_DATABASE", "both"),
                     help="the storage engine(s) of the tests that use a database "
                          "(default: both, or PBEM_TEST_DATABASE)")


# What a test marked so checks is the same whatever stores the game: it runs on one engine.
ONE_DATABASE = ("one_database", "browser")


def pytest_generate_tests(metafunc):
    if "database" in metafunc.fixturenames:
        chosen = metafunc.config.getoption("database")
        engines = ENGINES if chosen == "both" else (chosen,)
        if any(metafunc.definition.get_closest_marker(name) for name in ONE_DATABASE):
            engines = engines[:1]
        metafunc.parametrize("database", engines, indirect=True)


@pytest.fixture(scope="session")
def postgres_cluster():
    """The session's throwaway PostgreSQL cluster, started when a test first needs it."""
    try:
        cluster = postgres.Cluster.start(max_connections=300)
    except postgres.Unavailable as why:
        pytest.skip(f"PostgreSQL tests skipped: {why}")
    yield cluster
    cluster.stop()


def build_schema(path: str) -> None:
    """Give the new database at ``path`` the schema: the one place the tests make one."""
    pbem.store.db.upgrade(path)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory) -> Path:
    """An SQLite file with the schema, built once per session: each test gets a copy."""
    path = tmp_path_factory.mktemp("template") / "pbem.sqlite"
    build_schema(str(path))
    return path


@pytest.fixture(scope="session")
def postgres_schema(postgres_cluster):
    """The worker's PostgreSQL schema, migrated as ``init-db`` does, emptied for each test."""
    schema = postgres.ReusedSchema(postgres_cluster, build_schema)
    yield schema
    schema.close()


@pytest.fixture
def database(request, tmp_path):
    """The ``DATABASE`` setting of a test: a new SQLite file with the schema (a copy of the
    session's), or the worker's PostgreSQL schema with no rows in it."""
    if request.param == "sqlite":
        path = tmp_path / "pbem.sqlite"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)  # private, as made
        return str(path)
    return request.getfixturevalue("postgres_schema").emptied()


class WritesWatched:
    """``sqlite3`` as ``pbem.store.db`` sees it, the server's connections noting every statement
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
    monkeypatch.setattr(pbem.store.db, "sqlite3", watched)
    # Nothing a test writes needs to survive a crash: SQLite's syncs do not wait for the
    # disk, as the tests' PostgreSQL does not (test_production checks that they are made).
    monkeypatch.setattr(os, "fdatasync", lambda handle: None)
    monkeypatch.setenv("PBEM_INSTANCE", str(tmp_path / "instance"))  # its own lock and key
    app = create_app({
        "TESTING": True,
        "DATABASE": database,
        "MAIL_FOLDER": str(tmp_path / "mail"),
        "SECRET_KEY": "test",
        "PUBLIC_URL": "http://localhost",  # the test client's own address
        "AWAY_MINUTES": 0,  # tests play both sides at once: tell each turn at once
        # a page waiting for the other side's move sees it within half a second, not three
        # (test_live_updates keeps the players' default where the time is what it checks)
        "LIVE_UPDATE_SECONDS": 0.5,
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
            created = creation.create(get_db(), game, players, options or {}, seed=seed)
            return NewGame(
                created.match.id,
                [url_for("play.page", role="play", token=t) for t in created.tokens],
                [url_for("api.game", role="play", token=t) for t in created.tokens],
                url_for("play.page", role="watch", token=created.spectator_token))

    return create


@pytest.fixture
def plugin_games(tmp_path, monkeypatch):
    """The example game (examples/four-in-a-row) and the tests' High Card (hidden
    information, a drawing of its own) installed as distributions and loaded through their
    ``pbem.games`` entry points, as the engine loads what is installed when it is imported;
    left out of ``engine.GAMES`` again afterwards. Yields the games loaded, by id."""
    site = tmp_path / "site"
    install_example(site)
    install_distribution(site, "pbem-test-high-card", "1.0", {"high-card": "high_card:GAME"})
    for folder in (EXAMPLE_GAME, PLUGIN_GAMES, site):
        monkeypatch.syspath_prepend(str(folder))
    loaded = engine.load_plugins()
    assert set(loaded) == {"four-in-a-row", "high-card"}, engine.plugins.FAILED
    yield loaded
    for game_id in loaded:
        del engine.GAMES[game_id]
        del engine.plugins.LOADED[game_id]


@pytest.fixture
def db(app):
    """The app's database, as a test reads it."""
    database = connect(app.config["DATABASE"])
    yield database
    database.close()


CHROMIUM = Path("/usr/bin/chromium")
# Playwright turns some of Chromium's features off with a --disable-features of its own
# (its chromiumSwitches.ts), and Chromium keeps only the last --disable-features it is given:
# the tests' list repeats Playwright's (test_browser.py checks that it still holds all of
# them) and adds the address bar's suggestion popup. Chromium (156, Debian's) preloads that
# popup, a page, in every window, headless too, where nobody can open it; its animations
# kept a renderer busy while any page was open: nearly half of a new page's CPU, over half a
# core while five pages waited.
DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding",
    "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin", "OptimizationHints", "NetworkTimeServiceQuerying", "AimEnabled",
    "PreconnectToSearch", "msForceBrowserSignIn", "msEdgeUpdateLaunchServicesPreferredVersion",
    "WebUIOmniboxPopup", "WebUIOmniboxFullPopup", "WebUIOmniboxAimPopup")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-features=" + ",".join(DISABLED_FEATURES)]


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, driven by Playwright (which never downloads a browser):
    one per worker, started when a test first needs it, each test in contexts of its own.
    (While it is open, Playwright's sync API keeps an event loop running in the worker's
    thread: a test that runs one of its own does so in another thread, as
    test_benchmarks.py does.)"""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: the browser tests need Debian's chromium "
                    "(run ./dev test, which installs it, or apt-get install chromium).",
                    pytrace=False)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def kept_contexts(browser):
    """The browser contexts earlier tests left to later ones (``open_context``), by their
    options. A window left on about:blank costs Chromium next to nothing (twenty of them,
    0.1 s of CPU in 10 s); opening a new one, over a third of a second."""
    kept: dict = {}
    yield kept
    for contexts in kept.values():
        for context in contexts:
            context.context.close()


class Kept:
    """A context an earlier test used, with its one page, emptied: its
    ``new_page()`` gives that page first. Chromium spends over a third of a second of CPU
    opening a context and its page, and a tenth of a second taking a page to a new
    address."""

    def __init__(self, context: BrowserContext) -> None:
        self.context = context
        self.page: Page | None = context.pages[0]

    def new_page(self) -> Page:
        page, self.page = self.page, None
        return page or self.context.new_page()

    def __getattr__(self, name: str):
        return getattr(self.context, name)


@pytest.fixture
def open_context(browser, kept_contexts):
    """``open_context(**options)`` → a browser context of its own (its own cookies: one
    person), perhaps kept from an earlier test (``Kept``). After the test, each context left
    with one page is emptied (cookies, permissions, the page's timeout, the page on
    about:blank) and kept for later tests; the others are closed.
    ``reuse=False``: a context never kept, for a test that changes its page beyond that (a
    clock, a listener). Each test's server is on a port of its own, so nothing else an
    origin keeps (storage, service workers) is seen again."""
    opened: list[tuple[str | None, BrowserContext]] = []

    def open_(*, reuse: bool = True, **options) -> BrowserContext:
        key = repr(sorted(options.items())) if reuse else None
        if kept_contexts.get(key):
            context = kept_contexts[key].pop()
        else:
            context = browser.new_context(**options)
            context.set_default_timeout(TIMEOUT_MS)
        opened.append((key, context))
        return context

    yield open_
    for key, context in opened:
        real = context.context if isinstance(context, Kept) else context
        if key is None or len(real.pages) != 1:
            real.close()
            continue
        real.clear_cookies()
        real.clear_permissions()
        real.pages[0].set_default_timeout(TIMEOUT_MS)  # as a test may have set it
        real.pages[0].goto("about:blank")
        kept_contexts.setdefault(key, []).append(Kept(real))


@pytest.fixture
def person(open_context):
    """``person(url, javascript=True, reuse=True)`` → a page of a context of its own
    (``open_context``), opened at ``url``."""

    def open_(url: str, *, javascript: bool = True, reuse: bool = True) -> Page:
        page = open_context(java_script_enabled=javascript, reuse=reuse).new_page()
        page.goto(url)
        return page

    return open_


@pytest.fixture
def live_server(app):
    """The app on a real HTTP server on loopback, whose address is its PUBLIC_URL (as
    ``serve`` does); yields its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    # a short poll: shutdown() waits for the loop to look, 0.5 s by default
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    app.config["PUBLIC_URL"] = f"http://127.0.0.1:{server.server_port}"
    yield app.config["PUBLIC_URL"]
    server.shutdown()
    thread.join()


@pytest.fixture
def smtp():
    """A real SMTP server on loopback that records what it receives (``helpers.Recorder``)."""
    handler = Recorder()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port(),
                            server_hostname="smtp.test")
    controller.start()
    handler.port = controller.port
    yield handler
    controller.stop()
