"""What the site keeps about a player, downloaded (``GET <key>/export``, the dashboard's
button), and what deleting their identity leaves: the games, without their name."""
from __future__ import annotations

from pbem import matches
from pbem.matches import CACHE
from pbem.store import utc

from helpers import api_move, path_of, sign_up

BOB = {"name": "Bob", "email": "bob@example.org"}


def ann_against_bob(client, db):
    """Ann signed up (``client`` signed in as her), a game of hers against Bob in which she
    has moved: her key, the game as created, and the two seats' API bases."""
    key = path_of(sign_up(client, db, "Ann"))
    created = client.post("/api/games", json={"game": "mastery", "players": [{"key": key}, BOB]})
    ann, bob = (path_of(seat["api"]) for seat in created.json["seats"])
    api_move(client, ann, "d4xc5")
    return key, created, ann, bob


def test_a_player_downloads_their_games_chats_notes_and_ratings(app, client, db, monkeypatch):
    key, created, ann, bob = ann_against_bob(client, db)
    assert client.post(f"{ann}/chat", json={"text": "Good luck"}).status_code == 201
    assert client.post(f"{bob}/chat", json={"text": "Thanks, you too"}).status_code == 201
    assert client.put(f"{ann}/notes", json={"text": "Keep the centre"}).status_code == 200
    hidden = client.post("/api/games", json={"game": "magnet", "players": [{"key": key}, BOB]})
    bob_magnet = path_of(hidden.json["seats"][1]["api"])
    bob_setup = client.get(bob_magnet).json["legal_moves"][0]
    api_move(client, bob_magnet, bob_setup)

    now = utc.now()
    monkeypatch.setattr(utc, "now", lambda: now)  # each record's date-generated, both times
    exported = client.get(f"{key}/export")
    assert exported.status_code == 200
    body = exported.json
    assert (body["handle"], body["email"], body["reports"]) == ("Ann", "ann@example.org", [])
    assert body["ratings"] == {} and body["tournaments"] == []
    by_game = {entry["game"]: entry for entry in body["games"]}
    mastery = by_game["mastery"]
    assert mastery["id"] == created.json["id"] and mastery["seat"] == 0
    assert [(said["name"], said["text"]) for said in mastery["chat"]] == [
        ("Ann", "Good luck"), ("Bob", "Thanks, you too")]
    assert all(said["at"] for said in mastery["chat"])
    assert mastery["notes"]["text"] == "Keep the centre"
    assert [p["name"] for p in mastery["record"]["header"]["players"]] == ["Ann", "Bob"]
    assert "d4xc5" in str(mastery["record"]["moves"])
    # as her seat may know it: Bob's secret setup is not in it while the game runs
    assert bob_setup not in exported.get_data(as_text=True)
    assert client.get(f"{key}x/export").status_code == 404

    # the dashboard's button: the same, as a file, for the signed-in player alone
    page = client.get("/games").get_data(as_text=True)
    assert 'href="/me/export"' in page and "Download my data" in page
    download = client.get("/me/export")
    assert download.json == body
    assert download.headers["Content-Disposition"] == 'attachment; filename="Ann.json"'
    assert app.test_client().get("/me/export").status_code == 403


def test_deleting_an_identity_anonymises_the_name_in_every_process_copy(app, client, db):
    _key, created, ann, bob = ann_against_bob(client, db)
    assert client.post(f"{ann}/chat", json={"text": "Hello"}).status_code == 201
    # another process's copy of the game, from before: it must not keep her name or address
    elsewhere = CACHE.get(created.json["id"])
    assert elsewhere.seats[0].email == "ann@example.org"
    assert client.post("/me/delete", data={"confirm": "yes"}).status_code == 303
    CACHE.put(elsewhere)
    answer = client.get(bob).json
    assert [p["name"] for p in answer["players"]] == ["Former player", "Bob"]
    assert answer["ply"] == 1 and [said["text"] for said in answer["chat"]] == ["Hello"]
    match = matches.load(db, created.json["id"])
    assert match.seats[0].email is None and match.events[-1].kind == "anonymise"
    assert client.get(ann).json["players"][0]["name"] == "Former player"  # her link plays on
    assert "Former player" in client.get(path_of(created.json["seats"][1]["url"])).get_data(
        as_text=True)
