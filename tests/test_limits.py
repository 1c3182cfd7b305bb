"""Rate limits per client address on what sends mail or creates games (Flask-Limiter):
off in the rest of the suite, on here, as on a real server."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time

import pytest

from pbem import create_app
from pbem.store.db import connect
from pbem.matches import CACHE

from helpers import path_of, sign_up

PLAYERS = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]


@pytest.fixture
def limited(tmp_path, monkeypatch, database):
    """An app with the limits on (small ones, so a test reaches them); with a PostgreSQL
    database, the counts are kept there."""
    monkeypatch.setenv("PBEM_INSTANCE", str(tmp_path / "instance"))
    CACHE.clear()
    app = create_app({"DATABASE": database, "SECRET_KEY": "test",
                      "PUBLIC_URL": "http://localhost", "RATELIMIT_ENABLED": True,
                      "RATE_LIMIT_CREATE": "3 per hour", "RATE_LIMIT_HOME": "2 per hour",
                      "RATE_LIMIT_ACTIONS": "4 per hour",
                      "RATE_LIMIT_COMPUTER_GAMES": "2 per hour"})
    yield app
    CACHE.clear()


def outbox(app) -> int:
    db = connect(app.config["DATABASE"])
    try:
        return db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0]
    finally:
        db.close()


def test_asking_for_your_games_is_limited_per_client(limited):
    client = limited.test_client()
    for n in range(2):
        assert client.post("/home", data={"email": f"v{n}@example.org"}).status_code == 303
    refused = client.post("/home", data={"email": "victim@example.org"})
    assert refused.status_code == 429
    assert "Too many requests for your games from your address" in refused.get_data(as_text=True)
    assert "Retry-After" in refused.headers
    russian = client.post("/home", data={"email": "victim@example.org"},
                          headers={"Accept-Language": "ru"})
    assert russian.status_code == 429 and "<h1>Слишком много запросов</h1>" in russian.text
    assert "С вашего адреса слишком часто запрашивали список партий." in russian.text
    assert outbox(limited) == 2
    # another client address has its own allowance
    other = client.post("/home", data={"email": "victim@example.org"},
                        environ_base={"REMOTE_ADDR": "10.1.2.3"})
    assert other.status_code == 303 and outbox(limited) == 3


def test_retry_after_is_a_positive_number_of_seconds_whichever_limit_refused(limited):
    """The chat's own hourly limit says when the next message is taken, also once the
    window of the actions' limit has run out (it said -157); the actions' limit says when
    its window ends, never 0 nor less."""
    limited.config.update(CHAT_PER_HOUR=2, RATE_LIMIT_ACTIONS="3 per 2 seconds")
    client = limited.test_client()
    game = client.post("/api/games", json={"game": "mastery", "players": PLAYERS}).json
    api, other = (seat["api"].replace("http://localhost", "") for seat in game["seats"])
    page = game["seats"][0]["url"].replace("http://localhost", "")
    for n in range(2):
        assert client.post(f"{api}/chat", json={"text": f"hello {n}"}).status_code == 201
    time.sleep(2.1)  # the actions' window ends; the chat's hour goes on
    for refused in (client.post(f"{api}/chat", json={"text": "one more"}),
                    client.post(f"{page}/chat", data={"text": "one more"})):
        assert refused.status_code == 429
        assert 3590 <= int(refused.headers["Retry-After"]) <= 3600
    time.sleep(2.1)
    for seat, answer in ((api, "offer"), (other, "decline"), (api, "offer")):
        assert client.post(f"{seat}/draw", json={"answer": answer}).status_code == 200
    refused = client.post(f"{other}/draw", json={"answer": "decline"})
    assert refused.status_code == 429 and "Too many actions" in refused.json["error"]
    assert 1 <= int(refused.headers["Retry-After"]) <= 3


def test_creating_games_is_limited_across_the_api_and_the_form(limited):
    client = limited.test_client()
    assert client.post("/api/games", json={"game": "mastery", "players": PLAYERS}).status_code == 201
    form = {"name0": "Ann", "email0": "ann@example.org", "name1": "Bob", "email1": "b@example.org"}
    assert client.post("/new/mastery", data=form).status_code == 303
    # refused requests send nothing and do not count
    for _ in range(5):
        assert client.post("/api/games", json={"game": "chess"}).status_code == 400
    assert client.post("/api/games", json={"game": "mastery", "players": PLAYERS}).status_code == 201
    refused = client.post("/api/games", json={"game": "mastery", "players": PLAYERS})
    assert refused.status_code == 429
    assert refused.json == {"error": "Too many new games from your address. Please wait a "
                                     "while and try again."}
    assert client.post("/new/mastery", data=form).status_code == 429
    assert outbox(limited) == 6
    assert client.get("/new/mastery").status_code == 200  # reading the form is not limited


def test_games_between_computers_have_an_allowance_of_their_own(limited):
    client = limited.test_client()
    computers = {"game": "mastery", "players": [{"bot": "easy"}, {"bot": "hard"}]}
    for _ in range(2):
        assert client.post("/api/games", json=computers).status_code == 201
    refused = client.post("/api/games", json=computers)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert refused.json == {"error": "Too many games between computers from your address. "
                                     "Please wait a while and try again."}
    # a game with a person counts only against the allowance of new games (3 an hour)
    against = {"game": "mastery", "players": [PLAYERS[0], {"bot": "easy"}]}
    assert client.post("/api/games", json=against).status_code == 201


def test_actions_that_email_opponents_are_limited(limited):
    client = limited.test_client()
    game = client.post("/api/games", json={"game": "mastery", "players": PLAYERS}).json
    api = [seat["api"].replace("http://localhost", "") for seat in game["seats"]]
    answers = []
    for n in range(3):  # an offer, a decline, an offer, then the limit
        answers.append(client.post(f"{api[n % 2]}/draw", json={
            "answer": "decline" if n % 2 else "offer"}).status_code)
    ply = client.get(api[0]).json["ply"]
    move = client.get(api[0]).json["legal_moves"][0]
    answers.append(client.post(f"{api[0]}/moves", json={"move": move, "ply": ply}).status_code)
    refused = client.post(f"{api[1]}/draw", json={"answer": "offer"})
    assert answers == [200, 200, 200, 200] and refused.status_code == 429
    assert "Too many actions" in refused.json["error"]


def test_worker_processes_share_one_allowance(limited, tmp_path):
    """gunicorn's workers are separate processes: a client that spreads its requests over
    them still gets one allowance, since the counts live in the instance folder."""
    client = limited.test_client()
    for n in range(2):
        assert client.post("/home", data={"email": f"v{n}@example.org"}).status_code == 303
    other_worker = subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
        from pbem import create_app
        app = create_app({{"DATABASE": {limited.config["DATABASE"]!r}, "SECRET_KEY": "test",
                          "PUBLIC_URL": "http://localhost", "RATELIMIT_ENABLED": True,
                          "RATE_LIMIT_HOME": "2 per hour"}})
        print(app.test_client().post("/home", data={{"email": "w@example.org"}}).status_code)
        """)], capture_output=True, text=True, env={**os.environ}, check=True)
    assert other_worker.stdout.split() == ["429"], other_worker.stderr
    assert outbox(limited) == 2


def test_taking_seats_counts_like_creating_games(limited):
    """Joins (by a join link or from the lobby) and public challenges share the allowance of
    new games: neither can be used to flood the server with seats or start emails."""
    client = limited.test_client()
    players = [PLAYERS[0], {"open": True}, {"open": True}, {"open": True}]
    game = client.post("/api/games", json={"game": "the-right-moves", "players": players,
                                           "public": True}).json
    joins = [seat["join"].replace("http://localhost", "") for seat in game["seats"][1:]]
    assert client.post(joins[0], json={"name": "Bob"}).status_code == 201
    for _ in range(3):  # refused joins take nothing and do not count
        assert client.post(joins[0], json={"name": "Eve"}).status_code == 409
    assert client.post(f"/lobby/{game['id']}/2", data={"name": "Carl"}).status_code == 303
    refused = client.post(joins[2], json={"name": "Dora"})
    assert refused.status_code == 429
    assert refused.json == {"error": "Too many seats taken from your address. Please wait a "
                                     "while and try again."}
    games = client.post("/api/games", json={"game": "mastery", "players": PLAYERS})
    assert games.status_code == 429
    assert client.get(joins[2]).status_code == 200  # reading the join page is not limited
    other = client.post(joins[2], json={"name": "Dora"}, environ_base={"REMOTE_ADDR": "10.1.2.3"})
    assert other.status_code == 201


def test_what_makes_secret_links_or_looks_up_webhooks_is_limited(limited):
    """Feed links (API and settings page), games opened from My games or a "Your games"
    email (each makes a new play link), and webhooks (each looked up in the DNS) share
    the allowance of actions: a link holder cannot fill the database or keep the server
    resolving names."""
    client = limited.test_client()
    game = client.post("/api/games", json={"game": "mastery", "players": PLAYERS}).json
    api = game["seats"][0]["api"].replace("http://localhost", "")
    page = game["seats"][1]["url"].replace("http://localhost", "")
    client.get(page)  # this browser remembers seat 1 (My games)
    client.post("/home", data={"email": "ann@example.org"})
    db = connect(limited.config["DATABASE"])
    body = db.execute("SELECT body FROM outbox WHERE kind = 'home'").fetchone()[0]
    db.close()
    home = re.search(r"/home/[A-Za-z0-9_-]{32}", body).group(0)
    requests = [("POST", f"{api}/feed", {"json": {}}),
                ("POST", f"{page}/email", {"data": {"feed": "new"}}),
                ("POST", f"/games/{game['id']}/1", {}),
                ("POST", f"{home}/open/{game['id']}/0", {}),
                ("PUT", f"{api}/webhook", {"json": {"url": "https://93.184.216.34/hook"}})]
    limited.config["RATE_LIMIT_ACTIONS"] = f"{len(requests)} per hour"
    assert [client.open(path, method=method, **kwargs).status_code
            for method, path, kwargs in requests] == [201, 303, 303, 303, 200]

    def secrets() -> int:
        db = connect(limited.config["DATABASE"])
        try:
            return db.execute("SELECT (SELECT COUNT(*) FROM links) + "
                              "(SELECT COUNT(*) FROM email_links)").fetchone()[0]
        finally:
            db.close()

    before = secrets()
    for method, path, kwargs in requests:
        refused = client.open(path, method=method, **kwargs)
        assert refused.status_code == 429, path
        assert "Too many actions" in refused.get_data(as_text=True)
    assert secrets() == before


def test_over_the_limit_the_refusal_is_in_the_readers_language(limited):
    client = limited.test_client()
    body = {"game": "mastery", "players": [{"name": "A", "email": "a@example.org"},
                                           {"name": "B", "email": "b@example.org"}]}
    for _ in range(3):
        assert client.post("/api/games", json=body).status_code == 201
    english = client.post("/api/games", json=body)
    assert english.status_code == 429 and english.json["error"] == \
        "Too many new games from your address. Please wait a while and try again."
    russian = client.post("/api/games", json=body, headers={"Accept-Language": "ru"})
    assert russian.status_code == 429 and russian.json["error"] == \
        "С вашего адреса создано слишком много партий. Подождите немного и попробуйте снова."
    page = client.post("/new/mastery", data={}, headers={"Accept-Language": "ru"})
    assert page.status_code == 429 and "создано слишком много партий" in page.text


@pytest.mark.one_database  # a refusal; the counts on both databases are tested above
def test_game_pages_and_records_review_pages_share_one_allowance(limited):
    """What draws a game for a client (a game page, a position of its history, a position
    of an uploaded record) counts against one allowance per client address."""
    limited.config["RATE_LIMIT_PAGES"] = "3 per hour"
    client = limited.test_client()
    game = client.post("/api/games", json={"game": "mastery", "players": PLAYERS}).json
    page = game["seats"][0]["url"].replace("http://localhost", "")
    record = client.get(game["seats"][0]["api"].replace("http://localhost", "")
                        + "/record?format=apgamerecord").json
    review = client.post("/records", data={"pasted": json.dumps(record)}).headers["Location"]
    pages = [page, f"{page}/history/0", review]
    assert [client.get(path).status_code for path in pages] == [200, 200, 200]
    for path in pages:
        refused = client.get(path)
        assert refused.status_code == 429 and "Retry-After" in refused.headers
        assert "Too many pages asked for from your address" in refused.text
    assert client.get(review, environ_base={"REMOTE_ADDR": "10.1.2.3"}).status_code == 200


def test_registering_bots_counts_like_creating_games(limited):
    """Each bot is a new player: registering one, by the API or the "Bots" page, takes from
    the allowance of new games; a refused request takes nothing."""
    client = limited.test_client()
    db = connect(limited.config["DATABASE"])
    try:
        key = path_of(sign_up(client, db, "Ann"))
    finally:
        db.close()
    assert client.post(f"{key}/bot", json={"handle": "Bot1", "games": ["chess"]}
                       ).status_code == 400
    for handle in ("Bot1", "Bot2"):
        assert client.post(f"{key}/bot", json={"handle": handle, "games": ["mastery"]}
                           ).status_code == 201
    assert client.post("/bots", data={"handle": "Bot3", "games": "mastery",
                                      "clocks": "none"}).status_code == 303
    refused = client.post(f"{key}/bot", json={"handle": "Bot4", "games": ["mastery"]})
    assert refused.status_code == 429
    assert refused.json == {"error": "Too many bots registered from your address. Please "
                                     "wait a while and try again."}
    assert client.get("/bots").status_code == 200  # reading the page is not limited
