"""What tests read off the app, kept apart from the fixtures (``conftest.py``): the paths
of API answers, rows and pages, everything a viewer receives (hidden information), storage
made to fail, a real SMTP server's recorder, and HTTP servers that answer slowly or never."""
from __future__ import annotations

import base64
import contextlib
import email
import email.policy
import functools
import json
import re
import socket
import sqlite3
import threading
import tomllib
import zlib
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import engine
from pbem.mail import outbox
from pbem.boards import board_for
from pbem.store.db import connect, dialect

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_GAME = ROOT / "examples" / "four-in-a-row"  # the example plugin, as docs/ describe it
PLUGIN_GAMES = ROOT / "tests" / "plugin_games"    # the tests' own plugins' modules

SLOW_ANSWER = b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n"  # a byte at a time

# A browser test's wait for what a page should show: generous, as the machine's two cores
# are shared with other work
TIMEOUT_MS = 10_000


def fits(page) -> None:
    """The page (once loaded: a click waits only until the next page begins) is no wider
    than the window: nothing to scroll sideways (nor to zoom out for, which a phone would
    do, widening ``window.innerWidth``)."""
    page.wait_for_load_state()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], (page.url, width)


def session_of(client) -> dict:
    """What the client's session cookie holds (signed, not encrypted: readable)."""
    cookie = client.get_cookie("session")
    if cookie is None:
        return {}
    payload = cookie.value.split(".")[0 if not cookie.value.startswith(".") else 1]
    data = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    if cookie.value.startswith("."):  # itsdangerous compressed it
        data = zlib.decompress(data)
    return json.loads(data)


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


# -- drawings: a game's board as its ``render`` draws it ----------------------------------

def svg_of(app, game: engine.Game, state, seat: int = 0, **kwargs) -> str:
    """The game's board drawn of ``state`` as ``seat`` sees it."""
    with app.test_request_context():
        return str(board_for(game.id).render(game.view(state, seat), seat=seat, **kwargs))


def builds(app, game: engine.Game, state, seat: int, *clicks: str):
    """What the game's own turn builder offers ``seat`` after ``clicks``."""
    with app.test_request_context():
        return board_for(game.id).build(game, state, seat, tuple(clicks))


def cell_markup(svg: str, name: str, until: tuple[str, ...] = ()) -> str:
    """The markup of one cell of a drawing (its <g> or <a>), up to the next cell, the
    coordinates, or any of ``until`` (what the game draws after its cells)."""
    ends = "|".join(re.escape(end) for end in ('<text class="coord"', *until))
    match = re.search(rf'<(?:a|g) [^>]*class="cell" data-cell="{name}".*?(?=<(?:a|g) [^>]*'
                      rf'class="cell"|{ends})', svg, re.S)
    assert match, name
    return match.group(0)


# -- hidden information: everything a viewer receives, comparable across two games ---------

# (Each begins at the first of its digits, "(?<!\d\d)": no other digit is looked at twice.)
TIME = re.compile(r"\d(?<!\d\d)(?:\d{3}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:\d\d|Z)?"
                  # and what is read off the clock: a time of day (a move's, or a message's
                  # with its year), the time a move took; in English and in Russian
                  r"|\d [A-Z][a-z]{2}(?: \d{4},)? \d\d:\d\d|\d [а-я]{3,4}\.?(?: \d{4} г\.,)? \d\d:\d\d)"
                  r"|took [\d a-z]+(?=<)|\"took\": ?\d+|на ход: [\d а-я.\xa0]+(?=<)")


# A secret token where the server writes one: the last segment of a URL's path (in an
# attribute, a link's text, brackets) or in a reply address (move+<ply>.<token>@domain).
# One anywhere else fails ``normalised``'s check.
TOKEN = re.compile(r"([/+.])[A-Za-z0-9_-]{32}(?=[/?#\s\"@<)]|$)")


# A SHA-256 in hex: the commitment to a hidden setup's seed, the same digest of anything
# else (a different seed gives another, which tells nothing of the seed itself)
# (a character of the class first, as in TIME: re then skips the others unlooked-at)
DIGEST = re.compile(r"[0-9a-f](?<![0-9a-f]{2})[0-9a-f]{63}(?![0-9a-f])")


def normalised(text: str, game: NewGame) -> str:
    """``text`` with the game's own id, every secret token, every SHA-256 (a hidden setup's
    commitment) and every timestamp replaced."""
    text = TOKEN.sub(r"\1[secret]", DIGEST.sub("<sha-256>", text))
    assert not re.search(r"[A-Za-z0-9_-]{32}", text), "a token escaped the normalisation"
    return TIME.sub("<time>", text.replace(game.id, "<game>"))


def seen_by(client, game: NewGame, seat: int | None, paths=("",),
            newest: int | None = None) -> dict[str, str]:
    """Everything a viewer receives now: the page (with builder paths, in English and in
    Russian) and its ETag, the API answer (with the chat), a player's own notes, the page's
    live-update poll, every history page (or the ``newest`` ones: a test that looks after
    every move has seen the others already, drawn by the same code) and its ETag, the record
    in every format, and the analysis of the position at ply 0, normalised."""
    base = game.urls[seat] if seat is not None else game.watch
    api = game.apis[seat] if seat is not None else base.replace("/watch/", "/api/watch/")
    seen = {}
    for path in paths:
        response = client.get(base + (f"?path={path}" if path else ""))
        seen[f"page {path}"] = f"{response.status_code} {response.headers.get('ETag')} " \
            + response.get_data(as_text=True)
        # in Russian too: its labels and hints say no more than the English ones
        russian = client.get(base + (f"?path={path}" if path else ""),
                             headers={"Accept-Language": "ru"})
        seen[f"page {path} ru"] = f"{russian.headers.get('ETag')} {russian.get_data(as_text=True)}"
    seen["api"] = client.get(api).get_data(as_text=True)
    if seat is not None:
        seen["notes"] = client.get(f"{api}/notes").get_data(as_text=True)
    version = client.get(f"{base}/version")  # what the page's script polls
    seen["version"] = f"{version.headers['ETag']} {version.get_data(as_text=True)}"
    last = json.loads(seen["api"])["ply"]
    for ply in range(0 if newest is None else max(0, last + 1 - newest), last + 1):
        response = client.get(f"{base}/history/{ply}")
        seen[f"history {ply}"] = f"{response.headers.get('ETag')} " \
            + response.get_data(as_text=True)
    for kind in ("json", "txt"):
        response = client.get(f"{base}/record.{kind}")
        seen[f"record.{kind}"] = response.get_data(as_text=True) + \
            response.headers["Content-Disposition"]
    for kind in ("apgamerecord", "json"):
        seen[f"record {kind}"] = client.get(f"{api}/record?format={kind}").get_data(as_text=True)
    analysis = client.post(f"{api}/analysis", json={"ply": 0, "moves": []})
    seen["analysis"] = f"{analysis.status_code} {analysis.get_data(as_text=True)}"
    if seat is not None:  # the seat's Atom feed
        feed = client.post(f"{api}/feed").json["feed"]
        seen["feed"] = client.get(path_of(feed)).get_data(as_text=True)
    return {key: normalised(value, game) for key, value in seen.items()}


def refused(client, game: NewGame, seat: int, move: str, page: bool = True) -> str:
    """The answers to ``seat`` playing ``move``, which must be refused, through the API and
    (``page``) the game page's form, normalised. The page shows the API's error (both go
    through one command) on the game page: a test that tries several moves after every
    move may send one of them in turn through the page."""
    ply = client.get(game.apis[seat]).json["ply"]
    answers = [client.post(f"{game.urls[seat]}/move", data={"move": move, "ply": str(ply)})
               ] if page else []
    answers.append(client.post(f"{game.apis[seat]}/moves", json={"move": move, "ply": ply}))
    return normalised("\n".join(f"{answer.status_code} {answer.get_data(as_text=True)}"
                                 for answer in answers), game)


def emails_to(app, game: NewGame, address: str) -> list[str]:
    """The emails queued for ``address`` in ``game`` as they are sent (``outbox.build``): every
    header and part, the text and HTML in words and each picture's PNG in hex, normalised
    (Message-ID, Date and MIME boundaries too); or the posts to a webhook (``address`` its
    URL): the summary and the JSON."""
    db = connect(app.config["DATABASE"])
    rows = db.query("SELECT * FROM outbox WHERE game_id = ? AND recipient = ? ORDER BY id",
                    [game.id, address])
    return [_seen(app.config["MAIL_FROM"], app.config["PUBLIC_URL"], game.id,
                  tuple(row.items())) for row in rows]


# A test compares a game's emails again after each move: each row (whose every field is in
# the key) is built, its pictures drawn, once.
@functools.lru_cache(maxsize=128)
def _seen(sender: str, public_url: str, game_id: str, row_items: tuple) -> str:
    row = dict(row_items)
    return normalised(_as_sent(sender, public_url, row) if row["channel"] == "email"
                      else row["subject"] + "\n" + row["body"], NewGame(game_id, [], [], ""))


def _as_sent(sender: str, public_url: str, row: dict) -> str:
    data = outbox.build(row, sender, public_url).data
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


# -- a real SMTP server -------------------------------------------------------------------

class Recorder:
    """An aiosmtpd handler that keeps what it receives, or refuses while told to."""

    def __init__(self) -> None:
        self.received: list[tuple[str, list[str], email.message.EmailMessage]] = []
        self.data: list[bytes] = []  # each message's bytes as they came
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
        self.data.append(envelope.original_content)
        self.sessions[id(session)] = session  # kept, so no later session reuses its id
        return "250 Message accepted for delivery"

    @property
    def messages(self) -> list[email.message.EmailMessage]:
        return [message for _, _, message in self.received]


# -- HTTP receivers that take their time -------------------------------------------------

class SlowReceiver:
    """An HTTP server on loopback that takes every connection and then never answers, or
    (``dribble``: seconds) answers a byte at a time, one every ``dribble`` seconds."""

    def __init__(self, dribble: float | None = None):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/hook"
        self.dribble, self.connections = dribble, list[socket.socket]()
        self.closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # closed
                return
            self.connections.append(connection)
            if self.dribble is not None:
                threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        for byte in SLOW_ANSWER:
            if self.closed.wait(self.dribble):
                return
            try:
                connection.sendall(bytes([byte]))
            except OSError:  # the poster gave up
                return

    def close(self) -> None:
        self.closed.set()
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accept, which close would not
        self.listener.close()
        for connection in self.connections:
            connection.close()


def free_port() -> int:
    """A loopback port nobody listens on (connections to it are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]



SIGN_IN_LINK = re.compile(r"https?://[^/\s]+(/sign-in/\S+)")


def sign_up(client, db, handle: str) -> str:
    """A new player through the API, by the link emailed to ``<handle>@example.org`` (read
    from the outbox of ``db``); returns their key (an API base). ``client`` is then signed
    in as them."""
    email = f"{handle.lower()}@example.org"
    assert client.post("/api/sign-in", json={"email": email}).status_code == 202
    body = db.execute("SELECT body FROM outbox WHERE recipient = ? AND kind = 'sign_in' "
                      "ORDER BY id DESC", [email]).fetchone()[0]
    link = SIGN_IN_LINK.search(body)
    assert link is not None, body
    signed = client.post(link.group(1), json={"handle": handle})
    assert signed.status_code == 201, signed.json
    return signed.json["key"]


def install_distribution(site: Path, name: str, version: str,
                         entry_points: dict[str, str]) -> None:
    """What an installer leaves in a site folder for the distribution ``name`` (its modules
    aside: put their folder on the path too): its ``.dist-info``, with the ``pbem.games``
    entry points ``entry_points`` (name: "module:object"), which importlib.metadata finds
    wherever ``site`` is on the path."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text("[pbem.games]\n" + "".join(
        f"{entry} = {target}\n" for entry, target in entry_points.items()))


def install_example(site: Path) -> None:
    """The example plugin's distribution, as its pyproject.toml declares it (its module,
    which setuptools would copy, is in its folder: put that on the path too)."""
    declared = tomllib.loads((EXAMPLE_GAME / "pyproject.toml").read_text())
    project = declared["project"]
    assert all((EXAMPLE_GAME / f"{module}.py").is_file()
               for module in declared["tool"]["setuptools"]["py-modules"])
    install_distribution(site, project["name"], project["version"],
                         project["entry-points"]["pbem.games"])
