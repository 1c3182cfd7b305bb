"""Players across games: signing in by an emailed one-time link, the player key, the
signed-in dashboard, profiles, signing out and deleting an identity.

The links are read from the emails a real SMTP server on loopback receives, as a player
reads them in their mailbox."""
from __future__ import annotations

import re
from datetime import datetime

import pytest

from flask import url_for

from pbem import create_app, creation, links
from pbem.mail import outbox
from pbem.matches import CACHE
from pbem.store.db import connect, write
from pbem.web.database import get_db

from helpers import api_move, everything_in, normalised, path_of, NewGame
from test_magnet_pages import BLUE, BLUE_A, BLUE_B, RED, RED_SETUP

def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


SIGN_IN_LINK = re.compile(r"http://localhost(/sign-in/[A-Za-z0-9_-]{32})(?![A-Za-z0-9_-])")


def game(client, *emails: str, open_seats: int = 0, public: bool = False) -> dict:
    """A Mastery game between these addresses (and ``open_seats`` seats left open)."""
    players = [{"name": f"Name {i}", "email": address} for i, address in enumerate(emails)]
    players += [{"open": True}] * open_seats
    response = client.post("/api/games", json={"game": "mastery", "players": players,
                                               "public": public})
    assert response.status_code == 201, response.json
    return response.json


def emailed_links(app, db, smtp, *addresses: str) -> list[str]:
    """Deliver the outbox to the SMTP server; the paths of the sign-in links that reached
    each of ``addresses`` in this delivery (the newest of each)."""
    before = len(smtp.messages)
    outbox.deliver_due(db, outbox.SMTPTransport("127.0.0.1", smtp.port, timeout=5),
                       app.config["MAIL_FROM"], app.config["PUBLIC_URL"])
    return [[link for m in smtp.messages[before:] if m["To"] == address
             and m["Subject"] == "Sign in" for link in SIGN_IN_LINK.findall(m.get_content())
             ][-1] for address in addresses]


def signed_in(app, client, db, address: str, handle: str | None) -> dict:
    """Sign ``client`` in as ``address`` through the API, by the link of the email queued
    (read off the outbox: its delivery is tested above); the 201 answer."""
    assert client.post("/api/sign-in", json={"email": address}).status_code == 202
    (body,) = db.execute("SELECT body FROM outbox WHERE lower(recipient) = lower(?) AND "
                         "kind = 'sign_in' ORDER BY id DESC LIMIT 1", [address]).fetchone()
    (link,) = SIGN_IN_LINK.findall(body)
    response = client.post(link, json={} if handle is None else {"handle": handle})
    assert response.status_code == 201, response.json
    return response.json


def test_sign_in_through_the_api_with_the_emailed_link(app, client, db, smtp):
    before = game(client, "Ann@Example.org", "bob@example.org")  # before the proof
    answer = client.post("/api/sign-in", json={"email": "ann@example.org"})
    assert answer.status_code == 202 and answer.json == {}
    (link,) = emailed_links(app, db, smtp, "ann@example.org")
    assert "/sign-in/" in link
    token = link.rsplit("/", 1)[1]
    assert token not in everything_in(db) and links.token_hash(token) in everything_in(db)

    for _ in range(2):  # mail scanners open links: a GET uses nothing up
        page = client.get(link)
        assert page.status_code == 200 and 'name="handle"' in page.get_data(as_text=True)
        assert page.headers["Referrer-Policy"] == "no-referrer"
        assert page.headers["Cache-Control"] == "no-store"
    assert client.post(link, json={}).status_code == 400  # the first time needs a handle
    assert client.post(link, json={"handle": "no"}).status_code == 400  # too short
    assert client.post(link, json={"handle": "a b c"}).status_code == 400
    signed = client.post(link, json={"handle": "Ann_1"})
    assert signed.status_code == 201
    assert signed.json["handle"] == "Ann_1"
    assert signed.json["profile"] == "http://localhost/players/Ann_1"
    assert re.fullmatch(r"http://localhost/api/player/[A-Za-z0-9_-]{32}", signed.json["key"])
    assert client.post(link, json={"handle": "Ann_2"}).status_code == 404  # used
    assert client.get(link).status_code == 404
    unknown = "/sign-in/" + links.new_token()
    assert client.get(unknown).status_code == 404
    assert client.post(unknown, json={"handle": "Ann_3"}).status_code == 404

    after = game(client, "bob@example.org", "ann@example.org")  # after the proof
    mine = client.get(path_of(signed.json["key"])).json
    assert mine["handle"] == "Ann_1" and mine["email"] == "ann@example.org"
    assert mine["ratings"] == {}
    assert [(g["id"], g["seat"], g["your_turn"]) for g in mine["games"]] == [
        (before["id"], 0, True), (after["id"], 1, False)]  # your turn first
    for entry in mine["games"]:
        assert entry["game"] == "mastery" and entry["outcome"] is None
        assert entry["rated"] is False and entry["tournament"] is None
        assert client.get(path_of(entry["api"])).json["seat"] == entry["seat"]
        assert client.get(path_of(entry["url"])).status_code == 200
    assert client.get(path_of(signed.json["key"])).json == mine  # the same links again
    assert client.get("/api/player/" + links.new_token()).status_code == 404

    # later sign-ins need no handle, and the key stays the same
    again = signed_in(app, app.test_client(), db, "ANN@example.org", None)
    assert again == signed.json


def test_the_answer_is_the_same_for_a_known_and_an_unknown_address(app, client, db, smtp):
    signed_in(app, client, db, "ann@example.org", "ann")
    answers = [client.post("/api/sign-in", json={"email": address})
               for address in ("ann@example.org", "nobody@example.org")]
    assert [(a.status_code, a.json) for a in answers] == [(202, {})] * 2
    assert answers[0].get_data() == answers[1].get_data()
    visitor = app.test_client()  # signed in nowhere: the form's page again, with the notice
    pages = [visitor.post("/sign-in", data={"email": address},
                          follow_redirects=True).get_data(as_text=True)
             for address in ("ann@example.org", "nobody@example.org")]
    assert pages[0] == pages[1] and "a link is on its way" in pages[0]
    assert "ann@example.org" not in pages[0]
    assert client.post("/api/sign-in", json={"email": "not an address"}).status_code == 400
    # a known address's page has no handle field: an unknown one's does
    known, unknown = emailed_links(app, db, smtp, "ann@example.org", "nobody@example.org")
    assert "Sign in as <strong>ann</strong>" in client.get(known).get_data(as_text=True)
    assert 'name="handle"' not in client.get(known).get_data(as_text=True)
    assert 'name="handle"' in client.get(unknown).get_data(as_text=True)


def test_a_taken_handle_is_refused_and_leaves_the_link_usable(app, client, db, smtp):
    signed_in(app, client, db, "ann@example.org", "Ann")
    bob = app.test_client()
    assert bob.post("/api/sign-in", json={"email": "bob@example.org"}).status_code == 202
    (link,) = emailed_links(app, db, smtp, "bob@example.org")
    for taken in ("ann", "ANN", "computer-easy"):  # unique ignoring case; the computer's
        assert bob.post(link, json={"handle": taken}).status_code == 409
    page = bob.post(link, data={"handle": "Ann"})  # the form: the page again, with the error
    assert page.status_code == 409 and 'value="Ann"' in page.get_data(as_text=True)
    assert bob.post(link, json={"handle": "bob-2"}).json["handle"] == "bob-2"
    assert bob.get("/api/players/BOB-2").json["handle"] == "bob-2"
    for odd in ("x", "%00", "bob-2%00", "é" * 5):  # no handle: 404, on either engine
        assert bob.get(f"/api/players/{odd}").status_code == 404
        assert bob.post(f"/players/{odd}/games/x/watch").status_code == 404


def test_a_link_expires(app, client, db, smtp):
    assert client.post("/api/sign-in", json={"email": "ann@example.org"}).status_code == 202
    (link,) = emailed_links(app, db, smtp, "ann@example.org")
    row = db.execute("SELECT created_at, expires_at FROM sign_in_links").fetchone()
    assert (at(row[1]) - at(row[0])).total_seconds() >= 3600  # valid an hour at least
    with write(db):
        db.execute("UPDATE sign_in_links SET expires_at = ?", ["2000-01-01T00:00:00+00:00"])
    assert client.get(link).status_code == 404
    assert client.post(link, json={"handle": "ann"}).status_code == 404


@pytest.fixture
def limited(tmp_path, monkeypatch, database):
    """An app with the rate limits on, small."""
    monkeypatch.setenv("PBEM_INSTANCE", str(tmp_path / "instance"))
    CACHE.clear()
    yield create_app({"DATABASE": database, "SECRET_KEY": "test",
                      "PUBLIC_URL": "http://localhost", "RATELIMIT_ENABLED": True,
                      "RATE_LIMIT_SIGN_IN": "4 per hour",
                      "RATE_LIMIT_SIGN_IN_EMAILS": "2 per hour"})
    CACHE.clear()


def sign_in_emails(app) -> dict[str, int]:
    db = connect(app.config["DATABASE"])
    try:
        return dict(db.execute("SELECT recipient, COUNT(*) FROM outbox WHERE kind = 'sign_in' "
                               "GROUP BY recipient").fetchall())
    finally:
        db.close()


def test_sign_in_emails_are_limited_per_client_and_per_recipient(limited):
    client = limited.test_client()
    # per recipient: however it is written, from any client, the same answer every time
    for n, address in enumerate(("ann@gmail.com", "A.nn@gmail.com", "ann+x@gmail.com")):
        answer = client.post("/api/sign-in", json={"email": address},
                             environ_base={"REMOTE_ADDR": f"10.0.0.{n}"})
        assert (answer.status_code, answer.json) == (202, {})
    assert sum(sign_in_emails(limited).values()) == 2
    # per client: the form and the API share one allowance
    for n in range(4):
        path, body = ("/sign-in", {"data": {"email": f"v{n}@example.org"}}) if n % 2 else \
            ("/api/sign-in", {"json": {"email": f"v{n}@example.org"}})
        assert client.post(path, **body).status_code in (303, 202)
    refused = client.post("/api/sign-in", json={"email": "victim@example.org"})
    assert refused.status_code == 429 and "Retry-After" in refused.headers
    assert "victim@example.org" not in sign_in_emails(limited)


OPEN_FORM = re.compile(r'action="/games/([A-Za-z0-9_-]+)/(\d+)"')


def dashboard(client) -> list[tuple[str, int]]:
    """The games the /games page lists, in its order: (game id, seat)."""
    page = client.get("/games").get_data(as_text=True)
    return [(game_id, int(seat)) for game_id, seat in OPEN_FORM.findall(page)]


def test_the_dashboard_lists_every_seat_of_the_player_on_any_device(app, client, db):
    before = game(client, "bob@example.org", "ann@example.org")
    other = game(client, "bob@example.org", "cid@example.org")
    phone, laptop = app.test_client(), app.test_client()
    key = signed_in(app, phone, db, "ann@example.org", "ann")["key"]
    # seats taken signed in: a join link, the lobby (without the address), the new game form
    joined = game(client, "bob@example.org", open_seats=1)
    join_page = phone.get(path_of(joined["seats"][1]["join"])).get_data(as_text=True)
    assert 'value="ann"' in join_page and "signed in as ann" in join_page
    taken = phone.post(path_of(joined["seats"][1]["join"]), data={"name": "Annie"})
    assert taken.status_code == 303
    public = game(client, "cid@example.org", open_seats=1, public=True)
    lobby = phone.post(f"/lobby/{public['id']}/1", data={"name": "A", "email": ""})
    assert lobby.status_code == 303
    assert phone.post("/new/mastery", data={"name0": "Ann", "email0": "ann2@example.net",
                                            "name1": "Bob", "email1": "bob@example.org"}
                      ).status_code == 303
    created = db.execute("SELECT id FROM games ORDER BY created_at DESC, rowid DESC"
                         ).fetchone()[0]
    # with the key: the seat is the player's, by handle
    keyed = game(client, "bob@example.org", open_seats=1)
    answer = client.post(path_of(keyed["seats"][1]["join"]), json={"key": path_of(key)[-32:]})
    assert answer.status_code == 201
    assert client.get(path_of(answer.json["api"])).json["players"][1]["name"] == "ann"
    bad = game(client, "bob@example.org", open_seats=1)
    assert client.post(path_of(bad["seats"][1]["join"]),
                       json={"key": links.new_token()}).status_code == 400

    signed_in(app, laptop, db, "ann@example.org", None)
    mine = {(before["id"], 1), (joined["id"], 1), (public["id"], 1), (created, 0),
            (keyed["id"], 1)}
    for device in (phone, laptop):
        listed = dashboard(device)
        assert set(listed) == mine and other["id"] not in {g for g, _ in listed}
        # your turn first: the games where Ann moves first (seat 0: the one she created)
        assert listed[0] == (created, 0)
    assert {(g["id"], g["seat"]) for g in client.get(path_of(key)).json["games"]} == mine
    # the Open button gives the player's own link to the seat, the same each time
    opened = phone.post(f"/games/{before['id']}/1")
    assert opened.status_code == 303 and phone.post(f"/games/{before['id']}/1").location \
        == opened.location
    assert phone.post(f"/games/{other['id']}/1").status_code == 404
    # a browser not signed in keeps its own list
    assert dashboard(app.test_client()) == []


def test_signing_out_everywhere_replaces_every_session_and_secret(app, client, db):
    game(client, "ann@example.org", "bob@example.org")
    phone, laptop = app.test_client(), app.test_client()
    old_key = path_of(signed_in(app, phone, db, "ann@example.org", "ann")["key"])
    signed_in(app, laptop, db, "ann@example.org", None)
    old_api = path_of(client.get(old_key).json["games"][0]["api"])
    assert client.get(old_api).status_code == 200
    assert laptop.post("/sign-out/everywhere").status_code == 400  # unticked: nothing done
    assert dashboard(phone)
    assert laptop.post("/sign-out/everywhere", data={"confirm": "yes"}).status_code == 303
    assert len(dashboard(laptop)) == 1 and dashboard(phone) == []  # the phone is signed out
    assert client.get(old_key).status_code == 404 and client.get(old_api).status_code == 404
    new_key = re.search(r"/api/player/[A-Za-z0-9_-]{32}",
                        laptop.get("/games").get_data(as_text=True)).group()
    assert new_key != old_key and len(client.get(new_key).json["games"]) == 1
    assert laptop.post("/sign-out").status_code == 303
    assert dashboard(laptop) == []
    assert phone.post("/sign-out/everywhere", data={"confirm": "yes"}).status_code == 403


def test_deleting_an_identity_keeps_the_games_and_forgets_the_player(app, client, db):
    first = game(client, "ann@example.org", "bob@example.org")
    phone = app.test_client()
    key = path_of(signed_in(app, phone, db, "ann@example.org", "ann")["key"])
    joined = game(client, "bob@example.org", open_seats=1)
    phone.post(path_of(joined["seats"][1]["join"]), data={"name": "Annie"})
    api = path_of(client.get(key).json["games"][0]["api"])
    with write(db):  # a table keyed by player, as ratings are
        db.execute("CREATE TABLE kept_for_players (player_id INTEGER, value TEXT)")
        db.execute("INSERT INTO kept_for_players VALUES (?, 'mine')",
                   [db.execute("SELECT id FROM players").fetchone()[0]])
    assert phone.post("/me/delete").status_code == 400  # not confirmed
    assert phone.post("/me/delete", data={"confirm": "yes"}).status_code == 303
    for table in ("players", "kept_for_players", "sign_in_links"):
        assert db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM seats WHERE player_id IS NOT NULL").fetchone()[0] == 0
    assert client.get(key).status_code == 404 and client.get(api).status_code == 404
    assert client.get("/players/ann").status_code == 404
    assert client.get("/api/players/ann").status_code == 404
    assert dashboard(phone) == []
    # the games go on with their own links, her name and address gone from them; the
    # address can sign in afresh, and finds none of them
    assert client.get(path_of(first["seats"][0]["api"])).json["ply"] == 0
    assert [p["name"] for p in client.get(path_of(joined["seats"][0]["api"])).json["players"]
            ] == ["Name 0", "Former player"]
    assert "ann@example.org" not in everything_in(db)
    again = signed_in(app, app.test_client(), db, "ann@example.org", "ann")
    assert client.get(path_of(again["key"])).json["games"] == []


# -- what a stranger can do: sign-in links, sessions, look-alike handles, profiles ------------

def test_using_a_sign_in_link_ends_the_addresses_older_ones(app, client, db, smtp):
    for _ in range(2):
        assert client.post("/api/sign-in", json={"email": "ann@example.org"}).status_code == 202
    assert client.post("/api/sign-in", json={"email": "ann+x@example.org"}).status_code == 202
    sent = [(m["To"], link) for m in smtp_delivered(app, db, smtp)
            for link in SIGN_IN_LINK.findall(m.get_content())]
    (older, newer), (tagged,) = ([link for to, link in sent if to == address]
                                 for address in ("ann@example.org", "ann+x@example.org"))
    assert client.post(newer, json={"handle": "ann"}).status_code == 201
    assert app.test_client().get(older).status_code == 404
    assert app.test_client().post(older, json={}).status_code == 404  # signs nobody in
    assert app.test_client().post(tagged, json={"handle": "ann-x"}).status_code == 201


def smtp_delivered(app, db, smtp) -> list:
    """Deliver the outbox to the SMTP server; the messages it received in this delivery."""
    before = len(smtp.messages)
    outbox.deliver_due(db, outbox.SMTPTransport("127.0.0.1", smtp.port, timeout=5),
                       app.config["MAIL_FROM"], app.config["PUBLIC_URL"])
    return smtp.messages[before:]


def test_signing_out_ends_the_session_so_a_copied_cookie_signs_nobody_in(app, client, db):
    game(client, "ann@example.org", "bob@example.org")
    signed_in(app, client, db, "ann@example.org", "ann")
    copy = app.test_client()
    copy.set_cookie("session", client.get_cookie("session").value)
    assert len(dashboard(copy)) == 1 and copy.get("/me/notifications").status_code == 200
    assert client.post("/sign-out").status_code == 303
    assert dashboard(copy) == [] and copy.get("/me/notifications").status_code == 403
    assert db.execute("SELECT count(*) FROM player_sessions").fetchone()[0] == 0
    # a session older than a cookie may be signs nobody in either
    laptop = app.test_client()
    signed_in(app, laptop, db, "ann@example.org", None)
    with write(db):
        db.execute("UPDATE player_sessions SET created_at = '2000-01-01T00:00:00+00:00'")
    assert dashboard(laptop) == []


def test_a_handle_that_looks_like_a_taken_one_is_refused(app, client, db, smtp):
    signed_in(app, client, db, "alice@example.org", "Alice")
    signed_in(app, client, db, "bob@example.org", "bob_smith")
    assert client.post("/api/sign-in", json={"email": "eve@example.org"}).status_code == 202
    (link,) = emailed_links(app, db, smtp, "eve@example.org")
    for look_alike, why in (("alice", "is taken"), ("AIice", "looks too much like Alice"),
                            ("A1ice", "looks too much like Alice"),
                            ("bob-smith", "looks too much like bob_smith"),
                            ("B0B_SMITH", "looks too much like bob_smith")):
        refused = client.post(link, json={"handle": look_alike})
        assert refused.status_code == 409 and why in refused.json["error"], look_alike
    for computer in ("computer_easy", "c0mputer-easy", "COMPUTER-hard", "cornputer-x"):
        refused = client.post(link, json={"handle": computer})
        assert refused.status_code == 409 and "the computer's" in refused.json["error"]
    assert "looks too much like Alice" in client.post(link, data={"handle": "AIice"}) \
        .get_data(as_text=True)
    assert client.post(link, json={"handle": "Alicia"}).status_code == 201
    # a player may change their own handle to one that looks like it
    again = app.test_client()
    assert signed_in(app, again, db, "alice@example.org", "AIice")["handle"] == "AIice"


PLAY_LINK = re.compile(r"http://localhost(/play/[A-Za-z0-9_-]{32})")


def test_a_profile_lists_only_the_games_its_player_took_part_in_knowingly(app, client, db):
    vic = app.test_client()
    key = path_of(signed_in(app, vic, db, "vic@example.org", "vic")["key"])
    stranger = app.test_client()  # makes three games with Vic's address on a seat
    planted = [stranger.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Mallory", "email": "mallory@example.org"},
        {"name": f"Vp cheats at every game {n}", "email": "vic@example.org"}]}).json
        for n in range(3)]
    emailed = {}
    for made in planted:  # the stranger plays Vic's seat with the links the creator holds
        apis = [path_of(seat["api"]) for seat in made["seats"]]
        api_move(stranger, apis[0], "d4xc5")
        assert stranger.post(f"{apis[1]}/chat", json={"text": "I resign"}).status_code == 201
        (body,) = db.execute("SELECT body FROM outbox WHERE game_id = ? AND recipient = ? "
                             "AND kind = 'start'", [made["id"], "vic@example.org"]).fetchone()
        emailed[made["id"]] = PLAY_LINK.findall(body)[0]
        assert vic.get(emailed[made["id"]]).status_code == 200  # a scanner, even signed in
    answered, opened, untouched = (made["id"] for made in planted)

    def profile() -> set[str]:
        page = client.get("/players/vic").get_data(as_text=True)
        api = client.get("/api/players/vic").json
        assert {g["id"] for g in api["games"]} == {g for g in (answered, opened, untouched)
                                                  if g in page}
        assert ("cheats" in page) == bool(api["games"])
        return {g["id"] for g in api["games"]}

    assert profile() == set()
    assert client.post(f"/players/vic/games/{untouched}/watch").status_code == 404
    # the player's own list has every seat of the proven address
    assert {g["id"] for g in client.get(key).json["games"]} == {answered, opened, untouched}
    # acted on through the emailed link, or opened from the dashboard: knowingly
    assert vic.post(f"{emailed[answered]}/draw", data={"answer": "offer", "ply": 1}) \
        .status_code == 303
    assert vic.post(f"/games/{opened}/1", follow_redirects=True).status_code == 200
    assert profile() == {answered, opened}
    assert client.post(f"/players/vic/games/{opened}/watch").status_code == 303


# -- hidden information: the new pages show nothing a spectator may not know -----------------

def magnet_world(app, client, db, world: str, blue_setup: str) -> dict:
    """A Magnet game of the secret seed "same" between Ann (Red, ann<world>@example.org) and
    Bob (Blue), both signed in, where Blue's arrangement is ``blue_setup`` and Red has set
    up and moved; returns what each may read of it."""
    with app.test_request_context():
        created = creation.create(
            get_db(), "magnet", [{"name": "Ann", "email": f"ann{world}@example.org"},
                                 {"name": "Bob", "email": f"bob{world}@example.org"}],
            {}, seed="same")
        apis = [url_for("api.game", role="play", token=t) for t in created.tokens]
    game = NewGame(created.match.id, [], apis, "")
    api_move(client, apis[BLUE], blue_setup)
    api_move(client, apis[RED], RED_SETUP)
    api_move(client, apis[RED], "a1:a2+")
    seen = {}
    for seat, name in ((RED, "ann"), (BLUE, "bob")):
        browser = app.test_client()
        key = path_of(signed_in(app, browser, db, f"{name}{world}@example.org",
                                f"{name.capitalize()}{world}")["key"])
        # opened from the dashboard: a game the player knows of, which the profile lists
        assert browser.post(f"/games/{game.id}/{seat}", follow_redirects=True).status_code \
            == 200
        seen[seat] = {"dashboard": browser.get("/games").get_data(as_text=True),
                      "key": client.get(key).get_data(as_text=True)}
        for path in (f"/players/{name}{world}", f"/api/players/{name}{world}"):
            seen[seat][path] = app.test_client().get(path).get_data(as_text=True)
    return {seat: {what.replace(world, "<world>"):
                   re.sub(world, "<world>", normalised(text, game), flags=re.IGNORECASE)
                   for what, text in shown.items()} for seat, shown in seen.items()}


@pytest.mark.one_database  # what is drawn for each player, not how it is stored
def test_dashboards_and_profiles_cannot_tell_games_that_differ_only_in_a_secret(
        app, client, db):
    a = magnet_world(app, client, db, "Qx", BLUE_A)  # names found nowhere else
    b = magnet_world(app, client, db, "Zy", BLUE_B)
    for seat in (RED, BLUE):
        for what in a[seat]:
            assert a[seat][what] == b[seat][what], (seat, what)
    assert "Magnet" in a[RED]["dashboard"] and "your turn" not in a[RED]["dashboard"]
    assert "your turn" in a[BLUE]["dashboard"] and "Watch" in a[RED]["/players/ann<world>"]
    for seat in (RED, BLUE):  # a profile names no address, shows no secret link
        for what in ("/players/", "/api/players/"):
            shown = a[seat][what + ("ann" if seat == RED else "bob") + "<world>"]
            assert "@" not in shown and "[secret]" not in shown, shown
