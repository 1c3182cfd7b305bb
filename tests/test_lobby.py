"""The lobby grown up (issue 24, item 5): filters by game, clock and the waiting players'
ratings; challenges that expire a week after they were made; the creator emailed when
someone takes a seat."""
from __future__ import annotations

from datetime import timedelta

from pbem import matches
from pbem.jobs import scheduler
from pbem.matches import CACHE
from pbem.mail import outbox
from pbem.store import utc

from helpers import path_of, sign_up

ANN = {"name": "Ann", "email": "ann@example.org"}
OPEN = {"open": True}


def challenge(client, game="mastery", players=None, **extra) -> dict:
    response = client.post("/api/games", json={"game": game, "players": players or [ANN, OPEN],
                                               "public": True, **extra})
    assert response.status_code == 201, response.json
    return response.json


def listed(client, query: str = "") -> list[str]:
    return [c["id"] for c in client.get(f"/api/challenges{query}").json["challenges"]]


def test_the_lobby_filters_by_game_and_clock(client):
    mastery = challenge(client)
    timed = challenge(client, clock={"mode": "per_move", "days": 3})
    magnet = challenge(client, game="magnet", clock={"mode": "fischer", "initial_days": 7,
                                                     "increment_days": 1, "max_days": 14})
    assert listed(client) == [mastery["id"], timed["id"], magnet["id"]]
    assert listed(client, "?game=mastery") == [mastery["id"], timed["id"]]
    assert listed(client, "?clock=per_move") == [timed["id"]]
    assert listed(client, "?game=magnet&clock=none") == []
    assert listed(client, "?game=chess&clock=sundial") == listed(client)  # unknown: no filter
    page = client.get("/lobby?game=magnet").get_data(as_text=True)
    assert magnet["id"] in page and mastery["id"] not in page
    assert '<option value="magnet" selected>' in page
    assert "No open challenges of that kind" in client.get(
        "/lobby?game=magnetic-field").get_data(as_text=True)


def test_a_rating_range_leaves_out_unrated_players(client):
    challenge(client)
    assert listed(client, "?min_rating=1000") == [] and listed(client, "?max_rating=3000") == []
    assert len(listed(client, "?min_rating=&max_rating=")) == 1


def test_a_challenge_expires_a_week_after_it_was_made(app, client, db):
    old, new = challenge(client), challenge(client)
    week_ago = utc.now() - matches.CHALLENGE_LIFETIME - timedelta(minutes=1)
    db.execute("UPDATE games SET created_at = ? WHERE id = ?", [utc.iso(week_ago), old["id"]])
    CACHE.clear()
    assert listed(client) == [new["id"]]
    assert old["id"] not in client.get("/lobby").get_data(as_text=True)
    for url in (old["seats"][1]["join"], f"/lobby/{old['id']}/1"):
        refused = client.post(path_of(url), json={"name": "Bob"})
        assert refused.status_code == 409 and "expired" in refused.json["error"]
        page = client.get(path_of(url))
        assert page.status_code == 409 and "This challenge expired on" in page.get_data(as_text=True)
    assert client.post(path_of(new["seats"][1]["join"]), json={"name": "Bob"}).status_code == 201
    assert [c["expires_at"] for c in client.get("/api/challenges").json["challenges"]] == []


def test_an_expired_challenge_says_so_and_its_players_are_told_once(app, client, db,
                                                                   monkeypatch):
    game = challenge(client, game="the-right-moves", players=[ANN, OPEN, OPEN, OPEN])
    assert client.post(path_of(game["seats"][1]["join"]),  # Bob waits with Ann
                       json={"name": "Bob", "email": "bob@example.org"}).status_code == 201
    ann = path_of(game["seats"][0]["url"])
    assert scheduler.send_expiry_notices(app) == 0  # not yet
    later = utc.now() + matches.CHALLENGE_LIFETIME
    monkeypatch.setattr(utc, "now", lambda: later)
    page = client.get(ann).text
    assert "Nobody took the open seats of this game within a week" in page
    assert "Waiting for players" not in page and "/invite" not in page
    refused = client.post(f"{ann}/invite")  # its join links would open as expired
    assert refused.status_code == 422 and "This challenge expired on" in refused.text
    client.get(ann)  # (this browser remembers Ann's seat)
    assert "expired: nobody took its open seats" in client.get("/games").text
    # each player waiting is emailed, once
    assert scheduler.send_expiry_notices(app, later) == 2
    assert scheduler.send_expiry_notices(app, later) == 0
    told = db.execute("SELECT recipient, subject, body FROM outbox WHERE kind = 'expired' "
                      "ORDER BY recipient").fetchall()
    assert [row["recipient"] for row in told] == ["ann@example.org", "bob@example.org"]
    assert told[0]["subject"].startswith("Nobody joined — The Right Moves")
    assert "it will not start, and its join links no longer work" in told[0]["body"]


def test_the_creator_is_emailed_when_someone_joins(app, client, db, smtp):
    four = challenge(client, game="the-right-moves", players=[ANN, OPEN, OPEN, OPEN])
    assert client.post(path_of(four["seats"][1]["join"]),
                       json={"name": "Bob", "email": "bob@example.org"}).status_code == 201
    two = challenge(client)
    assert client.post(f"/lobby/{two['id']}/1", json={"name": "Cid"}).status_code == 201
    transport = outbox.SMTPTransport("127.0.0.1", smtp.port, timeout=5)
    outbox.deliver_due(db, transport, app.config["MAIL_FROM"], app.config["PUBLIC_URL"])
    sent = [(m["To"], m["Subject"].split(" — ")[0], m.get_body(("plain",)).get_content())
            for m in smtp.messages]
    assert [(to, subject) for to, subject, _ in sent] == [
        ("ann@example.org", "A player joined"), ("ann@example.org", "Game started")]
    assert "Bob has taken an open seat of your game of The Right Moves: Blue (1)." in sent[0][2]
    assert "still open: " in sent[0][2]
    assert "Cid has taken the open seat of your game." in sent[1][2]


def test_a_signed_in_player_sees_their_own_challenges_apart(app, client, db):
    ann_key = sign_up(client, db, "Ann")  # this client is signed in as Ann
    private = client.post("/api/games", json={"game": "mastery", "players": [
        {"key": ann_key}, OPEN]}).json
    public = challenge(client, players=[{"key": ann_key}, OPEN])
    others = challenge(client, players=[{"name": "Cid", "email": "cid@example.org"}, OPEN])
    page = client.get("/lobby").get_data(as_text=True)
    own = page[page.index("Your challenges"):page.index('class="lobby-filters"')]
    assert private["id"] in own and public["id"] in own and others["id"] not in own
    assert "open until" in own
    assert page.count('class="challenge"') == 1 and f'data-game="{others["id"]}"' in page
    anonymous = app.test_client().get("/lobby").get_data(as_text=True)
    assert "Your challenges" not in anonymous and public["id"] in anonymous
