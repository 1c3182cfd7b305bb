"""Invitations per recipient (pbem/invites.py): many clients together cannot flood one
mailbox with new games, and an address on several seats of a game gets one start email."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import threading

import pytest

from pbem import create_app
from pbem.mail import outbox
from pbem.store.db import connect
from pbem.invites import address_key
from pbem.matches import CACHE

PLAY_LINK = re.compile(r"http://localhost(/play/[A-Za-z0-9_-]{32})")
VICTIM_SPELLINGS = ["victim@example.org", "Victim@Example.ORG", " VICTIM+games@example.org",
                    "victim+x@EXAMPLE.org"]


@pytest.fixture
def limited(tmp_path, monkeypatch, database):
    """An app with the limits on: the default allowance per recipient, and per client
    allowances large enough for the clients below to make all their games."""
    monkeypatch.setenv("PBEM_INSTANCE", str(tmp_path / "instance"))
    CACHE.clear()
    app = create_app({"DATABASE": database, "SECRET_KEY": "test",
                      "PUBLIC_URL": "http://localhost", "RATELIMIT_ENABLED": True,
                      "RATE_LIMIT_CREATE": "1000 per minute",
                      "RATE_LIMIT_ACTIONS": "1000 per minute"})
    yield app
    CACHE.clear()


def start_emails(app, address: str) -> list[dict]:
    """The start emails queued to ``address``, however it was written."""
    db = connect(app.config["DATABASE"])
    try:
        return [dict(row) for row in db.execute(
            "SELECT recipient, body, game_id FROM outbox WHERE kind = 'start' "
            "AND channel = 'email' ORDER BY id") if address_key(row["recipient"]) == address]
    finally:
        db.close()


def create(client, victim: str, creator: str, client_address: str):
    return client.post("/api/games", environ_base={"REMOTE_ADDR": client_address}, json={
        "game": "mastery", "players": [{"name": "Mallory", "email": creator},
                                       {"name": "Victim", "email": victim}]})


def test_five_clients_creating_forty_games_each_send_one_victim_five_emails(limited):
    """The measured figure: 5 client addresses x 40 games inviting one victim (written in
    several ways) make 200 games and 5 emails to the victim (the default "5 per day")."""
    client = limited.test_client()
    answers = [create(client, VICTIM_SPELLINGS[n % 4], f"mallory{c}@example.org",
                      f"10.0.0.{c + 1}") for c in range(5) for n in range(40)]
    assert [answer.status_code for answer in answers] == [201] * 200
    victim = start_emails(limited, "victim@example.org")
    print(f"\nemails to the victim from 5 clients x 40 games: {len(victim)}")
    assert len(victim) == 5
    emailed = [a for a in answers if "not_emailed" not in a.json["seats"][1]]
    assert len(emailed) == 5
    held = answers[-1].json["seats"][1]
    assert "No email was sent to this player" in held["not_emailed"]
    assert held["url"] and held["api"]  # the creator still has the links to pass on
    # the game itself runs: its page opens, and its later emails skip that address
    game = answers[-1].json
    api = [seat["api"].replace("http://localhost", "") for seat in game["seats"]]
    move = client.get(api[0]).json["legal_moves"][0]
    assert client.post(f"{api[0]}/moves", json={"move": move, "ply": 0}).status_code == 200
    db = connect(limited.config["DATABASE"])
    assert db.execute("SELECT COUNT(*) FROM outbox WHERE game_id = ? AND seat = 1",
                      [game["id"]]).fetchone()[0] == 0
    db.close()


def test_the_form_shows_why_no_email_went_out(limited):
    client = limited.test_client()
    for _ in range(5):
        assert create(client, "victim@example.org", "ann@example.org", "10.0.0.1").json
    form = {"name0": "Ann", "email0": "ann2@example.org", "name1": "Vic",
            "email1": "VICTIM@example.org"}
    page = client.post("/new/mastery", data=form, follow_redirects=True)
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "by email, except those marked below" in text
    assert text.count('class="not-emailed"') == 1
    assert len(start_emails(limited, "victim@example.org")) == 5


def test_answering_through_an_emailed_link_frees_the_allowance(limited):
    """A game counts until its address acts through a link that reached it by email. The
    creator holds every seat's first link: acting with those counts for nothing."""
    client = limited.test_client()
    games = [create(client, "victim@example.org", "ann@example.org", "10.0.0.1").json
             for _ in range(5)]
    # the creator plays the victim's seat with its own links: still 5 unanswered
    for game in games:
        api = game["seats"][1]["api"].replace("http://localhost", "")
        assert client.post(f"{api}/chat", json={"text": "hi"}).status_code == 201
    assert "not_emailed" in create(client, "victim@example.org", "ann@example.org",
                                   "10.0.0.1").json["seats"][1]
    # the victim answers one game through the link in its email: one more may come
    page = PLAY_LINK.search(start_emails(limited, "victim@example.org")[0]["body"]).group(1)
    assert client.post(f"/api{page}/chat", json={"text": "yes, let's play"}).status_code == 201
    assert "not_emailed" not in create(client, "victim@example.org", "bob@example.org",
                                       "10.0.0.2").json["seats"][1]
    assert "not_emailed" in create(client, "victim@example.org", "bob@example.org",
                                   "10.0.0.2").json["seats"][1]
    assert len(start_emails(limited, "victim@example.org")) == 6


def test_the_count_is_shared_by_processes(limited):
    """A process that did not create the first games still counts them: the count lives
    in the database."""
    client = limited.test_client()
    for _ in range(4):
        create(client, "victim@example.org", "ann@example.org", "10.0.0.1")
    other_process = subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
        from pbem import create_app
        app = create_app({{"DATABASE": {limited.config["DATABASE"]!r}, "SECRET_KEY": "test",
                          "PUBLIC_URL": "http://localhost", "RATELIMIT_ENABLED": True}})
        for n in range(2):
            answer = app.test_client().post("/api/games", json={{"game": "mastery",
                "players": [{{"name": "B", "email": "bob@example.org"}},
                            {{"name": "V", "email": "Victim@example.org"}}]}})
            print("not_emailed" in answer.json["seats"][1])
        """)], capture_output=True, text=True, env={**os.environ}, check=True)
    assert other_process.stdout.split() == ["False", "True"], other_process.stderr
    assert len(start_emails(limited, "victim@example.org")) == 5


def test_games_created_at_once_never_pass_the_limit(limited):
    """Requests at the same moment (threads, each with its own connection) take turns on
    the recipient's count: on PostgreSQL they would otherwise all count the same games."""
    # the first request makes the rate limits' table (two at once may race on it)
    create(limited.test_client(), "someone@example.org", "ann@example.org", "10.0.2.1")
    barrier = threading.Barrier(12)
    codes = []

    def creator(n: int) -> None:
        client = limited.test_client()
        barrier.wait()
        codes.append(create(client, "victim@example.org", f"c{n}@example.org",
                            f"10.0.1.{n}").status_code)

    threads = [threading.Thread(target=creator, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert codes == [201] * 12
    assert len(start_emails(limited, "victim@example.org")) == 5


def test_one_address_on_several_seats_gets_one_email(app, client, db, smtp):
    """Both seats' links in one start email: the address is counted once too."""
    game = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Ann", "email": "ann@example.org"},
        {"name": "Ann again", "email": "ANN@example.org"}]}).json
    assert "not_emailed" not in game["seats"][0]
    outbox.deliver_due(db, outbox.SMTPTransport("127.0.0.1", smtp.port, timeout=5),
                       app.config["MAIL_FROM"], app.config["PUBLIC_URL"])
    assert len(smtp.messages) == 1
    body = smtp.messages[0].get_body(preferencelist=("plain",)).get_content()
    pages = PLAY_LINK.findall(body.replace("\r\n", "\n"))
    assert len(pages) == 2 and "You also play" in body
    seats = [client.get(f"/api{page}").json["seat"] for page in pages]
    assert seats == [0, 1]


@pytest.mark.parametrize("written, key", [
    ("Victim@Example.ORG", "victim@example.org"),
    (" victim+games@example.org ", "victim@example.org"),
    ("Vic.Tim+x@googlemail.com", "victim@gmail.com"),
    ("v.ic.tim@example.org", "v.ic.tim@example.org"),   # dots matter elsewhere
    ("ｖｉｃｔｉｍ@example.org", "victim@example.org"),    # full-width letters
])
def test_addresses_are_counted_as_the_mailbox_they_reach(written, key):
    assert address_key(written) == key


def test_a_held_back_game_emails_its_address_once_the_address_opens_it_itself(limited):
    """The address's own "Your games" email lists the game it was not emailed; opening it
    from there answers the game, whose emails then come."""
    client = limited.test_client()
    for _ in range(5):
        create(client, "victim@example.org", "ann@example.org", "10.0.0.1")
    held = create(client, "victim@example.org", "ann@example.org", "10.0.0.1").json
    assert "not_emailed" in held["seats"][1]
    assert client.post("/home", data={"email": "victim@example.org"}).status_code == 303
    db = connect(limited.config["DATABASE"])
    body = db.execute("SELECT body FROM outbox WHERE kind = 'home'").fetchone()[0]
    home = re.search(r"/home/[A-Za-z0-9_-]{32}", body).group(0)
    assert client.post(f"{home}/open/{held['id']}/1").status_code == 303
    api = held["seats"][0]["api"].replace("http://localhost", "")
    move = client.get(api).json["legal_moves"][0]
    assert client.post(f"{api}/moves", json={"move": move, "ply": 0}).status_code == 200
    assert [row[0] for row in db.execute(
        "SELECT kind FROM outbox WHERE game_id = ? AND seat = 1", [held["id"]])] == ["turn"]
    db.close()
