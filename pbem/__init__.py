"""A play-by-email server for abstract board games.

``create_app`` is the application factory (flaskr's convention). Configuration comes from
the defaults below, then ``instance/config.py``, then ``PBEM_*`` environment variables
(e.g. ``PBEM_SMTP_HOST``), or from ``test_config`` alone when it is given.
"""
from __future__ import annotations

import logging
import os
import secrets
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable, Mapping

import engine
from flask import Flask, abort, current_app, request
from flask_babel import gettext
from werkzeug.middleware.proxy_fix import ProxyFix

from .web import (api, console, database, feeds, identity, limits, lobby, locale, mygames,
                  openapi, platform, play, preferences, records, site, webapp)
from .web import tournaments as tournament_pages  # pbem.tournaments is the core module
from .web import moderation as moderation_pages  # pbem.moderation is the core module
from .mail import push, rounds  # noqa: F401 - rounds subscribes the tournaments' emails
from . import cli, links, matches, server
from .mail import pictures, sentences
from .store import db
from .links import redact_logger

ROOT = Path(__file__).resolve().parent.parent

# The core reads its settings and its pages' paths from the app running in the thread.
server.bind(lambda: current_app)


def instance_folder() -> str:
    """Where this installation keeps its files: ``PBEM_INSTANCE``, else ``instance/``."""
    return os.environ.get("PBEM_INSTANCE", str(ROOT / "instance"))


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    # templates/ and static/ as pbem/ links to them, installed with the package
    app = Flask(__name__, instance_path=instance_folder(), instance_relative_config=True)
    app.config.from_mapping(
        DATABASE=os.path.join(app.instance_path, "pbem.sqlite"),
        PUBLIC_URL=None,              # e.g. https://games.example.org, for links in emails
        TRUSTED_HOSTS=None,           # Host headers accepted; None: PUBLIC_URL's and loopback
        PROXIES=0,                    # reverse proxies in front, whose X-Forwarded-* to trust
        LOCAL_MAILBOX=False,          # /mail lists the .eml files (set by `serve` alone)
        MAIL_FROM="Correspondence games <games@localhost>",
        MAIL_DOMAIN="pbem.localhost",  # the right-hand side of Message-IDs
        REPLY_ADDRESS=None,  # replies with moves: None = move@MAIL_DOMAIN, "" = off
        MAIL_FOLDER=os.path.join(app.instance_path, "mail"),  # .eml files when no SMTP
        SMTP_HOST=None, SMTP_PORT=25, SMTP_SECURITY="none",  # none, starttls or ssl
        SMTP_USERNAME=None, SMTP_PASSWORD=None,
        DKIM_PRIVATE_KEY=None,        # the PEM file of the key that signs every email (DKIM)
        DKIM_SELECTOR=None,           # ... and the name its DNS record is published under
        MAIL_INTERVAL_SECONDS=20,     # how often the scheduler delivers queued mail
        CLOCK_INTERVAL_SECONDS=60,    # how often game clocks are checked for timeouts
        BOT_INTERVAL_SECONDS=3,       # how often the computer players' due moves are played
        BOT_MOVES_PER_RUN=50,         # ... at most this many in one run
        BOT_PACE_SECONDS=10,          # a game between computers: one move this often at most
        BOT_BETWEEN_COMPUTERS_SECONDS=1,  # ... and they get this much of each run at most
        COMPUTER_GAMES_RUNNING=5,     # games between computers a client may have running
        TOURNAMENT_GAMES_AT_ONCE=50,  # more games than this (a tournament's start or next
                                      # round) are made by the job process, not a request
        TOURNAMENT_INTERVAL_SECONDS=5,  # how often the job process looks for those
        REMINDER_HOURS=48,            # remind a player who has not moved for this long; 0: never
        LIVE_UPDATE_SECONDS=3,        # how often an open game page asks if the game moved on
        # a player's stream of events (pbem/web/platform.py): how long one connection lasts
        # before its client reconnects, how often a quiet one says it is alive, how often it
        # looks for new events, and how many streams and long polls a process holds at once
        EVENTS_STREAM_SECONDS=55, EVENTS_HEARTBEAT_SECONDS=15, EVENTS_POLL_SECONDS=0.5,
        EVENTS_LISTENERS=96,          # (below gunicorn.conf.py's threads per worker)
        EVENTS_LISTENERS_PER_PLAYER=4,  # of one player's: a bot, a few tabs
        EVENTS_KEPT_DAYS=14,          # a player's events older than this are pruned
        AWAY_MINUTES=5,               # a "Your move" email waits while its player was there
        DIGEST_HOUR=7,                # the UTC hour the daily digests go out
        CHAT_PER_HOUR=30,             # chat messages a seat may post in any hour
        RUNNING_GAMES_FIRST=10,       # games a player may have running at first (fairplay)
        RUNNING_GAMES_PER_FINISHED=5,  # ... one more for each this many games finished
        RUNNING_GAMES_MOST=100,       # ... and never more than this
        MATCH_CACHE_MB=64,            # replayed games each process keeps in memory
        RENDER_CACHE_MB=32,           # drawn boards and rendered pages each process keeps
        PICTURE_CACHE_MB=32,          # the parts of emails' board pictures each process keeps
        MAX_CONTENT_LENGTH=64 * 1024,  # no form or API body needs more
        WEBHOOK_ALLOW_PRIVATE=False,  # webhooks to loopback/private addresses (tests only)
        PUSH_ALLOW_PRIVATE=False,     # push endpoints at loopback/private addresses, or http
        DEADLINE_EMAIL_HOURS=3,       # a deadline warning pushed first is emailed this later
        VAPID_PRIVATE_KEY=None,       # Web Push's key (PEM); None: made once into the instance
        METRICS_TOKEN=None,           # /metrics answers "Bearer <it>" alone; None: no /metrics
        RATELIMIT_ENABLED=True, RATELIMIT_HEADERS_ENABLED=True,
        RATELIMIT_STORAGE_URI=None,   # None: limits.SQLiteCounts, or PostgresCounts
        # The session cookie remembers the seats a browser opened (pbem/web/browser.py).
        SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_SECURE=None,  # None: if PUBLIC_URL is https
        PERMANENT_SESSION_LIFETIME=timedelta(days=365), SESSION_REFRESH_EACH_REQUEST=False,
        **limits.DEFAULTS,
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
        app.config.from_prefixed_env("PBEM")
    else:
        # Tests flood the server on purpose; a test that checks the limits turns them on.
        app.config.update({"RATELIMIT_ENABLED": False, **test_config})
    app.config["PUBLIC_URL"] = links.public_url(app.config["PUBLIC_URL"])
    if app.config["SESSION_COOKIE_SECURE"] is None:
        app.config["SESSION_COOKIE_SECURE"] = (app.config["PUBLIC_URL"] or "").startswith("https:")
    if app.config["TRUSTED_HOSTS"] is None:
        app.config["TRUSTED_HOSTS"] = links.trusted_hosts(app.config["PUBLIC_URL"])
    if int(app.config["PROXIES"]):
        proxies = int(app.config["PROXIES"])
        # Flask's documented way to wrap the app in WSGI middleware
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)  # type: ignore[method-assign]
    os.makedirs(app.instance_path, mode=0o700, exist_ok=True)
    if not app.config["RATELIMIT_STORAGE_URI"]:
        app.config["RATELIMIT_STORAGE_URI"] = limits.storage_uri(app.instance_path,
                                                                 app.config["DATABASE"])
    if not db.is_url(app.config["DATABASE"]):
        Path(app.config["DATABASE"]).parent.mkdir(parents=True, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _instance_file(Path(app.instance_path) / "secret_key",
                                                  lambda: secrets.token_hex(32))
    if not app.config["VAPID_PRIVATE_KEY"]:
        app.config["VAPID_PRIVATE_KEY"] = _instance_file(
            Path(app.instance_path) / "vapid_private_key.pem", push.new_key)

    matches.CACHE.max_bytes = int(app.config["MATCH_CACHE_MB"]) * 2**20
    play.RENDERS.max_bytes = int(app.config["RENDER_CACHE_MB"]) * 2**20
    pictures.PARTS.max_bytes = int(app.config["PICTURE_CACHE_MB"]) * 2**20
    database.init_app(app)
    locale.init_app(app)
    # a new database gets its schema here (one of PostgreSQL that has one gets the later
    # migrations from ``init-db``, or from gunicorn and the job process starting)
    db.initialise(app.config["DATABASE"])
    app.register_blueprint(site.bp)
    app.register_blueprint(play.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(preferences.bp)
    app.register_blueprint(feeds.bp)
    app.register_blueprint(records.bp)
    app.register_blueprint(lobby.bp)
    app.register_blueprint(mygames.bp)
    app.register_blueprint(identity.bp)
    app.register_blueprint(tournament_pages.bp)
    app.register_blueprint(webapp.bp)
    app.register_blueprint(console.bp)
    app.register_blueprint(moderation_pages.bp)
    app.register_blueprint(moderation_pages.api)
    app.register_blueprint(platform.bp)
    app.register_blueprint(openapi.bp)
    # the offers between the players in words, for pages and emails alike
    app.jinja_env.globals["notices"] = sentences.notices
    limits.init_app(app)
    cli.register(app)
    app.before_request(_refuse_other_sites)
    app.before_request(_refuse_deeply_nested_json)
    app.before_request(_refuse_nul_in_the_path)
    app.after_request(_security_headers)
    _keep_secrets_out_of_logs(app)
    return app


def _instance_file(path: Path, make: Callable[[], str]) -> str:
    """A secret of the installation (the key that signs session cookies, Web Push's key),
    ``make``-d once, readable by its owner alone. Worker processes starting together all
    end up with the first one made: each writes its own candidate, and only one can be
    linked into place."""
    if not path.exists():
        candidate = path.with_name(f".{path.name}.{os.getpid()}")
        fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(make())
        try:
            os.link(candidate, path)
        except FileExistsError:
            pass
        finally:
            candidate.unlink()
    return path.read_text().strip()


# What a browser's Sec-Fetch-Site says of a request the site's own pages sent, or a person
# (an address typed, a bookmark)
OWN_FETCHES = ("same-origin", "none")


def _refuse_other_sites():
    """Refuse, before any view acts, a request that would change something and that a
    browser sent from another site's page (a form that submits itself, a script): it would
    act with the visitor's cookie, or sign their browser in as someone else (SameSite=Lax
    lets a top-level POST set a cookie). A browser names where a request comes from in
    Sec-Fetch-Site (sent to https sites and to this machine), else in Origin, which is
    "null" for this site's own forms (its pages send no referrer), so that it tells only of
    another origin named. Programs send neither header (the JSON API's clients, a mail
    provider's one-click unsubscribe of RFC 8058) and are answered as before."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    fetched = request.headers.get("Sec-Fetch-Site")
    origin = request.headers.get("Origin")
    if fetched in OWN_FETCHES or (fetched is None and origin in (None, "null",
                                                                 *_own_origins())):
        return
    abort(403, gettext("This request came from a page of another site, so nothing was done. "
                       "To act here, use this site's own pages."))


def _own_origins() -> tuple[str, ...]:
    """The site's origins as a browser names them: the one it was reached at, and
    PUBLIC_URL's (its scheme may differ from the request's behind a proxy that is not
    trusted with X-Forwarded-Proto)."""
    public = current_app.config["PUBLIC_URL"]
    return (links.origin(request.host_url), *([links.origin(public)] if public else []))


def _refuse_nul_in_the_path():
    """No address of this server holds a NUL byte (``%00``), and PostgreSQL's text cannot:
    an id or a link with one is a page that does not exist, on every route alike."""
    if "\x00" in request.path:
        abort(404, gettext("There is no such page."))


def _refuse_deeply_nested_json():
    """Python's json raises RecursionError, not the ValueError a bad body raises, on one
    nested deeper than the interpreter's recursion limit ("[" * 5000): parsed here, before
    any endpoint acts, it is refused everywhere alike. The parse is kept for the view."""
    if request.is_json:
        try:
            request.get_json(silent=True)
        except RecursionError:
            abort(400, engine.Text("The JSON body is nested too deeply to be read."))


def _security_headers(response):
    # Secret links live in URLs: never leak them to other sites, never keep them in caches.
    response.headers["Referrer-Policy"] = "no-referrer"
    if request.endpoint != "static":
        response.headers["Cache-Control"] = "no-store"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Content-Security-Policy"] = (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; manifest-src 'self'; worker-src 'self'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'")
    return response


def _keep_secrets_out_of_logs(app: Flask) -> None:
    """Request lines and error reports name the URL, which may hold a secret link."""
    for logger in (logging.getLogger("werkzeug"), app.logger):
        redact_logger(logger)
