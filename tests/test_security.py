"""Secret links: enough randomness, stored only as hashes, never cached, never referred,
never logged; and pages that escape what players type."""
from __future__ import annotations

import logging
import re
import shutil
import stat
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from pbem import create_app, links
from pbem.mail import outbox
from pbem.store.db import connect, is_url
from pbem.mail.outbox import FileTransport, deliver_due

from helpers import everything_in, path_of, sign_up


def tokens_in(text: str) -> set[str]:
    return set(re.findall(r"/(?:play|watch|home)/([A-Za-z0-9_-]{32})", text))


def test_a_link_carries_at_least_128_random_bits():
    token = links.new_token()
    assert len(token) * 6 >= 128 and re.fullmatch(r"[A-Za-z0-9_-]+", token)
    assert len({links.new_token() for _ in range(1000)}) == 1000


def test_only_hashes_of_links_are_stored(app, client, new_game):
    game = new_game()
    client.post("/home", data={"email": "p1@example.org"})
    db = connect(app.config["DATABASE"])
    deliver_due(db, FileTransport(Path(app.config["MAIL_FOLDER"])), "games@localhost",
                app.config["PUBLIC_URL"])
    secrets = {u.rsplit("/", 1)[1] for u in game.urls + [game.watch]}
    for path in Path(app.config["MAIL_FOLDER"]).glob("*.eml"):
        secrets |= tokens_in(path.read_text())
    assert len(secrets) >= 3 + 2 + 1  # API links, emailed links, the home link
    dump = everything_in(connect(app.config["DATABASE"]))
    assert not any(secret in dump for secret in secrets)
    assert all(links.token_hash(s) in dump for s in secrets)


@pytest.mark.one_database  # a page's headers
def test_secret_pages_send_no_referrer_and_are_not_cached(client, new_game):
    game = new_game()
    waiting = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Ann", "email": "ann@example.org"}, {"open": True}]}).json
    for path in [game.urls[0], f"{game.urls[0]}/history/0", f"{game.urls[0]}/record.json",
                 f"{game.urls[0]}/record.txt", game.watch, game.apis[0], "/", "/rules/mastery",
                 "/play/" + "Q" * 32, f"{game.urls[1]}/conditional", f"{game.urls[0]}/email",
                 f"{game.watch}/version", f"{game.apis[0]}/notes", "/games", "/lobby",
                 path_of(waiting["seats"][1]["join"]),
                 path_of(client.post(f"{game.apis[0]}/feed").json["feed"])]:
        response = client.get(path)
        assert response.headers["Referrer-Policy"] == "no-referrer", path
        assert response.headers["Cache-Control"] == "no-store", path
        assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    page = client.get(game.urls[0]).get_data(as_text=True)
    assert '<meta name="referrer" content="no-referrer">' in page


@pytest.mark.one_database  # what is logged
def test_no_secret_reaches_a_log_line(app, live_server, new_game, caplog):
    game = new_game()
    token = game.urls[0].rsplit("/", 1)[1]
    feed = path_of(app.test_client().post(f"{game.apis[0]}/feed").json["feed"])
    caplog.set_level(logging.INFO)
    for path in (f"{game.urls[0]}?path=e3", f"{game.urls[0]}/version",
                 f"{game.urls[0]}/conditional?m=e3-e4", feed):
        with urllib.request.urlopen(f"{live_server}{path}") as response:
            assert response.status == 200
    app.logger.error("Exception on %s [GET]", game.urls[0])  # how Flask reports errors
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "/play/[secret]?path=e3" in logged and "/play/[secret]/version" in logged
    assert "/play/[secret]/conditional?m=e3-e4" in logged and "/feed/[secret]" in logged
    assert token not in logged and feed.rsplit("/", 1)[1] not in logged


def secret_paths(url_map, token: str) -> list[str]:
    """Every route that takes a secret (each ``<token>`` of the URL map), with ``token``
    written in each shape a client may send: whole or not, trailing characters, encoded."""
    prefixes = set()
    for rule in url_map.iter_rules():
        if "token" in rule.arguments:
            prefix = rule.rule.split("<token>")[0]
            choices = re.search(r"<any\((.*?)\):\w+>", prefix)
            prefixes |= {prefix.replace(choices.group(), role.strip()) for role in
                         choices.group(1).split(",")} if choices else {prefix}
    encoded = "".join(f"%{byte:02X}" for byte in token.encode())
    paths = []
    for prefix in sorted(prefixes):
        paths += [prefix + shape for shape in (token, f"{token}.", f"{token};x",
                                                 f"{token}%2Fx", f"x{token}", encoded,
                                                 f"{token}/version", f'"{token}', f">{token}")]
        route = prefix.rstrip("/")  # "/api/play": also as "//api/play", "/%61pi/play"...
        paths += [f"/{route}/{token}", f"/%{ord(route[1]):02X}{route[2:]}/{token}",
                  f"{route}%2F{token}"]
    return paths


@pytest.mark.one_database  # what is logged
def test_a_secret_reaches_no_log_line_whatever_its_shape(app, live_server, new_game, caplog):
    """werkzeug's request log (``serve``); gunicorn's is in test_production."""
    token = new_game().urls[0].rsplit("/", 1)[1]
    paths = secret_paths(app.url_map, token)
    assert len(paths) >= 8 * 12  # play, watch, their API, email, home, join, feed
    caplog.set_level(logging.INFO)
    answers = {}
    for path in paths:
        try:
            answers[path] = urllib.request.urlopen(live_server + path).status
        except urllib.error.HTTPError as refused:
            answers[path] = refused.code
    encoded = "".join(f"%{byte:02X}" for byte in token.encode())
    assert answers[f"/play/{encoded}"] == answers[f"/play/{token}"] == 200
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert logged.count("[secret]") >= len(paths)
    assert token not in logged and encoded not in logged and token[:16] not in logged


@pytest.mark.one_database  # what pages draw
def test_what_players_type_is_escaped(client):
    body = {"game": "mastery", "players": [
        {"name": "<script>alert(1)</script>", "email": "a@example.org"},
        {"name": "Bob & \"Co\"", "email": "b@example.org"}]}
    url = client.post("/api/games", json=body).json["seats"][0]["url"]
    html = client.get(url.replace("http://localhost", "")).get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    error = client.post(url.replace("http://localhost", "") + "/move",
                        data={"move": "<img src=x onerror=alert(1)>", "ply": 0})
    assert "<img src=x" not in error.get_data(as_text=True)


# -- links in emails come only from configured addresses ----------------------------------

def queued(db, recipient: str | None = None) -> list[str]:
    rows = db.query("SELECT subject, body, headers FROM outbox ORDER BY id")
    return [f"{r['subject']}\n{r['headers']}\n{r['body']}" for r in rows]


def test_a_forged_host_header_is_refused(client, db):
    for path, data in (("/home", {"email": "victim@example.org"}),
                       ("/new/mastery", {"name0": "Ann", "email0": "victim@example.org",
                                         "name1": "Bob", "email1": "bob@example.org"})):
        response = client.post(path, data=data, headers={"Host": "evil.example"})
        assert response.status_code == 400
    response = client.post("/api/games", headers={"Host": "evil.example"}, json={
        "game": "mastery", "players": [{"name": "A", "email": "a@example.org"},
                                       {"name": "B", "email": "b@example.org"}]})
    assert response.status_code == 400
    assert queued(db) == []


def test_email_links_ignore_the_host_even_where_it_is_trusted(app, client, new_game, db):
    # An operator who trusts another name (a second domain, a mistake): the request is
    # served, but what it emails links to PUBLIC_URL alone.
    app.config["PUBLIC_URL"] = "https://games.example.org"
    app.config["TRUSTED_HOSTS"] = ["localhost", "evil.example"]
    forged = {"Host": "evil.example"}
    assert client.post("/home", data={"email": "victim@example.org"},
                       headers=forged).status_code == 303
    game = new_game()
    ply = client.get(game.apis[0]).json["ply"]
    move = client.get(game.apis[0]).json["legal_moves"][0]
    assert client.post(f"{game.apis[0]}/moves", json={"move": move, "ply": ply},
                       headers=forged).status_code == 200
    assert client.post(f"{game.urls[1]}/draw", data={"answer": "offer", "ply": 1},
                       headers=forged).status_code == 303
    # what emails links since: a join (the start emails), chat, rematches
    waiting = client.post("/api/games", headers=forged, json={"game": "mastery", "players": [
        {"name": "Ann", "email": "ann@example.org"}, {"open": True}]}).json
    join = waiting["seats"][1]["join"]
    assert join.startswith("https://games.example.org/join/")
    assert client.post(path_of(join), headers=forged, json={
        "name": "Eve", "email": "eve@example.org"}).status_code == 201
    assert client.post(f"{game.apis[0]}/chat", headers=forged,
                       json={"text": "hello"}).status_code == 201
    assert client.post(f"{game.apis[0]}/resign", headers=forged, json={}).status_code == 200
    for seat in (0, 1):
        asked = client.post(f"{game.apis[seat]}/rematch", headers=forged, json={})
        assert asked.status_code in (201, 202)
    assert asked.json["url"].startswith("https://games.example.org/play/")
    mails = queued(db)
    kinds = {row["kind"] for row in db.query("SELECT kind FROM outbox")}
    # (the draw offered is never sent: the game ended before its email went out)
    assert {"start", "chat", "rematch", "end"} <= kinds and len(mails) >= 12
    assert not any("evil.example" in m for m in mails)
    assert all("https://games.example.org/" in m for m in mails)


def test_without_public_url_mail_waits_and_names_the_setting(app, client, new_game, db,
                                                             caplog):
    app.config["PUBLIC_URL"] = None
    new_game()
    client.post("/home", data={"email": "p1@example.org"})
    mails = queued(db)
    assert mails and not any("http://localhost" in m for m in mails)
    assert all(links.PUBLIC_URL_MARK + "/" in m for m in mails)
    caplog.set_level(logging.ERROR)
    from pbem.jobs import scheduler
    assert scheduler.deliver_mail(app) == (0, 0)
    assert [r.getMessage() for r in caplog.records] == [
        "No mail is sent: " + outbox.PUBLIC_URL_MISSING]
    assert not Path(app.config["MAIL_FOLDER"]).exists()
    result = app.test_cli_runner().invoke(args=["send-mail"])
    assert result.exit_code != 0
    assert result.output.strip().splitlines() == ["Error: Not starting: " + outbox.PUBLIC_URL_MISSING]

    app.config["PUBLIC_URL"] = "https://games.example.org"
    assert scheduler.deliver_mail(app) == (len(mails), 0)
    sent = [p.read_text() for p in Path(app.config["MAIL_FOLDER"]).glob("*.eml")]
    assert len(sent) == len(mails)
    assert all("https://games.example.org/" in m and links.PUBLIC_URL_MARK not in m
               for m in sent)


def test_public_url_must_be_an_absolute_address(tmp_path):
    for wrong in ("games.example.org", "ftp://games.example.org", "https://"):
        with pytest.raises(ValueError, match="PUBLIC_URL must be"):
            create_app({"DATABASE": str(tmp_path / "db.sqlite"), "PUBLIC_URL": wrong})
    app = create_app({"DATABASE": str(tmp_path / "db.sqlite"),
                      "PUBLIC_URL": "https://games.example.org/"})
    assert app.config["PUBLIC_URL"] == "https://games.example.org"
    assert app.config["TRUSTED_HOSTS"] == ["games.example.org", "localhost", "127.0.0.1"]


# -- nothing a player types reaches an email header ---------------------------------------

HOSTILE_NAMES = [
    "=?utf-8?q?Eve=0d=0aReply-To:_eve@evil.example?=",
    "=?utf-8?b?RXZlDQpCY2M6IGV2ZUBldmlsLmV4YW1wbGU=?=",
    "=?us-ascii?Q?Eve?=\u00a0=?us-ascii?Q?=0ABcc:_x@evil.example?=",
    "Eve = ?utf-8?q?=0a?=",
]


@pytest.mark.one_database  # how emails are written
@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_names_cannot_add_or_change_a_header(app, client, smtp, name):
    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=smtp.port)
    response = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": name, "email": "eve@example.org"}, {"name": "Bob", "email": "bob@example.org"}]})
    assert response.status_code == 201
    from pbem.jobs import scheduler
    assert scheduler.deliver_mail(app) == (2, 0)
    for message in smtp.messages:
        assert sorted(message.keys()) == sorted([
            "From", "To", "Subject", "Message-ID", "Date", "Auto-Submitted", "References",
            "In-Reply-To", "Reply-To", "List-Unsubscribe", "List-Unsubscribe-Post",
            "Content-Type", "MIME-Version"])  # multipart/alternative: text and HTML
        assert message["Reply-To"].startswith("move+0.") or message["Reply-To"].startswith("move+")
        assert "evil" not in message["Reply-To"] and "\n" not in message["Subject"]
        assert "\r" not in message["Subject"] and "=?" not in message["Subject"]


@pytest.mark.one_database  # how emails are written
def test_names_in_every_kind_of_subject_stay_in_the_subject(app, client, smtp):
    """A four-player game whose players have the four hostile names, through every email a
    game sends: each subject (which names every player) says what happened first, and no
    name adds or changes a header."""
    from pbem.jobs import scheduler
    from pbem.mail.message import header_text
    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=smtp.port)
    response = client.post("/api/games", json={"game": "the-right-moves", "players": [
        {"name": f"{name} {i}", "email": f"p{i}@example.org"}
        for i, name in enumerate(HOSTILE_NAMES)]})
    apis = [s["api"].replace("http://localhost", "") for s in response.json["seats"]]
    move = client.get(apis[0]).json["legal_moves"][0]
    assert client.post(f"{apis[0]}/moves", json={"move": move, "ply": 0}).status_code == 200
    # (each step's mail goes before the next: an offer answered before its email went out
    # is never sent)
    sent = scheduler.deliver_mail(app)[0]
    for api, path, body in ((apis[1], "draw", {"answer": "offer"}),
                            (apis[0], "draw", {"answer": "decline"}),
                            (apis[0], "resign", {}), (apis[2], "resign", {"answer": "decline"}),
                            (apis[0], "resign", {}), (apis[2], "resign", {})):
        assert client.post(f"{api}/{path}", json=body).status_code == 200
        sent += scheduler.deliver_mail(app)[0]
    assert sent == 15
    said = {message["Subject"].split(" — ")[0] for message in smtp.messages}
    assert said == {"Game started", "Your move", "Draw offered", "Draw declined",
                    "Resignation proposed", "Resignation declined", "Game over"}
    shown = [header_text(name) for name in HOSTILE_NAMES]
    sides = f"{shown[0]} 0 & {shown[2]} 2 vs {shown[1]} 1 & {shown[3]} 3"
    for message in smtp.messages:
        assert sorted(message.keys()) == sorted([
            "From", "To", "Subject", "Message-ID", "Date", "Auto-Submitted", "References",
            "In-Reply-To", "Reply-To", "List-Unsubscribe", "List-Unsubscribe-Post",
            "Content-Type", "MIME-Version"])  # multipart/alternative: text and HTML
        assert sides in message["Subject"] and "evil" not in message["Reply-To"]
        assert not any(c in message["Subject"] for c in "\r\n") and "=?" not in message["Subject"]


@pytest.mark.parametrize("name", ["Eve\r\nBcc: x@evil.example", "Eve\u2028Bcc: x", "\ud800",
                                  "Eve\x00", "Eve\u200e"])
def test_names_with_control_characters_are_refused(client, db, name):
    response = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": name, "email": "eve@example.org"}, {"name": "Bob", "email": "bob@example.org"}]})
    assert response.status_code == 400
    assert "printable" in response.json["error"] or "Unicode" in response.json["error"]
    assert queued(db) == []


# -- requests from other sites' pages (cross-site request forgery, login CSRF) --------------

# What browsers send with a request from another site's page; and from an older browser,
# the Origin alone
CROSS_SITE = [{"Sec-Fetch-Site": "cross-site", "Origin": "null"},
              {"Sec-Fetch-Site": "same-site", "Origin": "http://games.localhost"},
              {"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}]


@pytest.mark.one_database  # refused before anything is stored
def test_a_request_from_another_sites_page_is_refused_and_changes_nothing(client, db):
    assert client.post("/api/sign-in", json={"email": "mallory@example.org"}).status_code == 202
    body = db.execute("SELECT body FROM outbox WHERE kind = 'sign_in'").fetchone()[0]
    link = re.search(r"/sign-in/[A-Za-z0-9_-]{32}", body).group()
    before = everything_in(db)
    new_game = {"name0": "Vic", "email0": "vic@example.org", "name1": "Bob",
                "email1": "bob@example.org"}
    for headers in CROSS_SITE:
        for path, form in ((link, {"handle": "mallory"}), ("/new/mastery", new_game),
                           ("/home", {"email": "vic@example.org"}), ("/sign-out", {})):
            refused = client.post(path, data=form, headers=headers)
            assert refused.status_code == 403, (path, headers)
            assert "another site" in refused.get_data(as_text=True)
            assert "Set-Cookie" not in refused.headers
        assert client.post("/api/games", headers=headers, json={
            "game": "mastery", "players": [{"name": "A", "email": "a@example.org"},
                                           {"name": "B", "email": "b@example.org"}]}
        ).status_code == 403
    assert everything_in(db) == before  # the link is unused, no game, no email
    # the site's own pages: as the browser says, or by the origin it was reached at, or
    # PUBLIC_URL's (a proxy in front that does TLS); their forms' Origin is "null" (they
    # send no referrer), and so it is to a browser that sends no Sec-Fetch-Site
    for headers in ({"Sec-Fetch-Site": "same-origin", "Origin": "null"},
                    {"Origin": "http://localhost"}, {"Origin": "null"},
                    {"Sec-Fetch-Site": "none"}):
        assert client.post("/new/mastery", data=new_game, headers=headers).status_code == 303
    client.application.config["PUBLIC_URL"] = "https://games.example.org"
    assert client.post("/new/mastery", data=new_game,
                       headers={"Origin": "https://games.example.org"}).status_code == 303
    assert client.post(link, data={"handle": "mallory"},
                       headers={"Sec-Fetch-Site": "same-origin"}).status_code == 303


ATTACK = """<!doctype html><title>Win a prize</title>
<form method="post" action="{action}">{fields}</form>
<script>document.forms[0].submit()</script>"""


@pytest.fixture
def other_site():
    """A second site on loopback (``localhost``, where the app is at 127.0.0.1): each path
    a page whose form submits itself at once to ``pages[path]``, (action, fields)."""
    pages: dict[str, tuple[str, dict[str, str]]] = {}

    class Attacker(BaseHTTPRequestHandler):
        def do_GET(self):
            action, fields = pages[self.path]
            body = ATTACK.format(action=action, fields="".join(
                f'<input name="{name}" value="{value}">' for name, value in fields.items()))
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield f"http://localhost:{server.server_port}", pages
    server.shutdown()
    thread.join()


@pytest.mark.browser
def test_another_sites_page_cannot_sign_a_browser_in_nor_make_a_game(
        open_context, client, db, live_server, new_game, other_site):
    sign_up(client, db, "Mallory")  # the attacker, with an unused sign-in link of theirs
    assert client.post("/api/sign-in", json={"email": "mallory@example.org"}).status_code == 202
    body = db.execute("SELECT body FROM outbox WHERE kind = 'sign_in' ORDER BY id DESC"
                      ).fetchone()[0]
    link = re.search(r"/sign-in/[A-Za-z0-9_-]{32}", body).group()
    site, pages = other_site
    pages["/prize"] = (live_server + link, {"handle": ""})
    pages["/free-game"] = (live_server + "/new/mastery", {
        "name0": "Vic", "email0": "mallory@example.org", "name1": "Bob",
        "email1": "bob@example.org"})
    context = open_context()
    page = context.new_page()
    page.goto(live_server + new_game().urls[1])  # the victim's browser has its cookie
    cookies = context.cookies()
    games = db.execute("SELECT count(*) FROM games").fetchone()[0]
    for path in pages:
        with page.expect_response(lambda r: r.request.method == "POST") as posted:
            page.goto(site + path)
        assert posted.value.status == 403 and "set-cookie" not in posted.value.headers
        assert "another site" in page.locator("main").inner_text()
        assert context.cookies() == cookies
    assert db.execute("SELECT used_at FROM sign_in_links WHERE token_hash = ?",
                      [links.token_hash(link.rsplit("/", 1)[1])]).fetchone()[0] is None
    assert db.execute("SELECT count(*) FROM games").fetchone()[0] == games
    page.goto(live_server + "/games")
    assert "Mallory" not in page.locator("body").inner_text()


@pytest.mark.one_database  # how a request's headers are read
def test_programs_that_say_nothing_of_a_page_are_answered(client, db, new_game):
    """The JSON API (its secrets in the path) and RFC 8058's one-click unsubscribe, which a
    mail provider's server POSTs: no Origin, no Sec-Fetch-Site."""
    game = new_game()
    assert client.post(f"{game.apis[0]}/moves", json={"move": "d4xc5", "ply": 0}) \
        .status_code == 200
    body = db.execute("SELECT body FROM outbox WHERE kind = 'turn'").fetchone()[0]
    unsubscribe = re.search(r"/email/[A-Za-z0-9_-]{32}/unsubscribe", body).group()
    assert client.post(unsubscribe, data={"List-Unsubscribe": "One-Click"}).status_code == 200


# Addresses that name no public mailbox: a literal IP, the machine itself, no dot, a
# reserved top-level name (issue 37 item 10)
ODD_ADDRESSES = ["vic@[127.0.0.2]", "vic@[IPv6:::1]", "vic@localhost", "a@b", "vic@127.0.0.1",
                 "vic@mail.test", "vic@printer.local", "vic@games.example", "vic@x.internal",
                 "vic@example.org."]


@pytest.mark.one_database  # refused before anything is stored
def test_an_address_without_a_public_domain_name_is_refused_everywhere_it_enters(client, db):
    waiting = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Ann", "email": "ann@example.org"}, {"open": True}]}).json
    join = path_of(waiting["seats"][1]["join"])
    before = everything_in(db)
    for address in ODD_ADDRESSES:
        refusals = {
            "API": client.post("/api/games", json={"game": "mastery", "players": [
                {"name": "Ann", "email": "ann@example.org"},
                {"name": "Vic", "email": address}]}),
            "form": client.post("/new/mastery", data={"name0": "Vic", "email0": address,
                                                      "name1": "Bob",
                                                      "email1": "bob@example.org"}),
            "join by the API": client.post(join, json={"name": "Vic", "email": address}),
            "join form": client.post(join, data={"name": "Vic", "email": address}),
            "sign-in by the API": client.post("/api/sign-in", json={"email": address}),
            "sign-in form": client.post("/sign-in", data={"email": address}),
            "Your games": client.post("/home", data={"email": address}),
        }
        assert {way: answer.status_code for way, answer in refusals.items()} == \
            dict.fromkeys(refusals, 400), address
    assert everything_in(db) == before
    for address in ("vic@example.org", "vic@mail.example.com", "vic@xn--80ak6aa92e.xn--p1ai"):
        assert client.post("/api/sign-in", json={"email": address}).status_code == 202


def pythons() -> list[str]:
    """This interpreter and every other CPython 3.11+ on the machine (the project supports
    3.11 and later): on PATH, or installed by pyenv."""
    found = {sys.executable}
    for version in ("3.11", "3.12", "3.13", "3.14"):
        candidates = [shutil.which(f"python{version}"),
                      *Path("~/.pyenv/versions").expanduser().glob(f"{version}.*/bin/python3")]
        for path in filter(None, candidates):
            if subprocess.run([str(path), "-c", ""], capture_output=True).returncode == 0:
                found.add(str(Path(path).resolve()))
    return sorted(found)


COMPOSE_CHECK = """
import runpy, sys
from email import message_from_bytes, policy
module = runpy.run_path(sys.argv[1])
compose, header_text = module["compose"], module["header_text"]
for name in sys.argv[2:]:
    headers = {"From": "Games <games@example.org>", "To": "bob@example.org",
               "Subject": "Your move: Mastery: " + name + " vs Bob [x]"}
    message = message_from_bytes(bytes(compose(headers, "hello")), policy=policy.default)
    names = [h for h in message.keys() if h not in ("Content-Type", "MIME-Version",
                                                     "Content-Transfer-Encoding")]
    assert names == ["From", "To", "Subject"], (sys.version, names)
    assert "\\n" not in message["Subject"] and "\\r" not in message["Subject"], sys.version
    assert header_text(name) in message["Subject"], message["Subject"]
# a long URL stays one unencoded line, and the HTML part's structure holds
url = "<https://games.example.org/" + "x" * 300 + ">"
data = bytes(compose({"List-Unsubscribe": url}, "hello", "<p>hi</p>", [("b@x", b"png")]))
assert ("List-Unsubscribe: " + url + "\\r\\n").encode() in data, sys.version
message = message_from_bytes(data, policy=policy.default)
assert [p.get_content_type() for p in message.walk()] == [
    "multipart/alternative", "text/plain", "multipart/related", "text/html", "image/png"]
print(sys.version.split()[0], "ok")
"""


@pytest.mark.parametrize("python", pythons())
def test_headers_stay_as_written_on_every_python(python):
    module = Path(__file__).resolve().parent.parent / "pbem" / "mail" / "message.py"
    done = subprocess.run([python, "-c", COMPOSE_CHECK, str(module), *HOSTILE_NAMES[:3]],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("ok")


# -- files that hold secrets --------------------------------------------------------------

def test_the_database_key_and_emails_are_private_files(app, new_game, tmp_path):
    from pbem.jobs import scheduler
    create_app({"DATABASE": app.config["DATABASE"]})  # makes the instance's secret_key
    new_game()
    scheduler.deliver_mail(app)
    private = [Path(app.instance_path) / "secret_key",
               *Path(app.config["MAIL_FOLDER"]).glob("*.eml")]
    if not is_url(app.config["DATABASE"]):  # PostgreSQL keeps its files to itself
        private += [Path(app.config["DATABASE"])] + [
            p for p in (Path(app.config["DATABASE"] + "-wal"),
                        Path(app.config["DATABASE"] + "-shm")) if p.exists()]
    assert len(private) >= 3 + (not is_url(app.config["DATABASE"]))
    for path in private:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE(Path(app.config["MAIL_FOLDER"]).stat().st_mode) == 0o700
