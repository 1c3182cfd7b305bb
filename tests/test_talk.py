"""Chat, private notes and rematches over HTTP with the app's own SQLite file: the JSON API,
the pages and their forms, the game records, and the emails each queues. Moves by email that
carry a message, ``say`` and ``rematch`` replies are in test_inbound.py; chat and notes in
games with hidden information in test_magnet_pages.py and test_magnetic_field_pages.py; the
pages in a browser in test_browser.py."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest

from pbem import commands
from pbem.events import Command, Message
from pbem.store import utc
from pbem.web.database import get_db

from helpers import api_move, path_of

P = [f"p{i}@example.org" for i in range(1, 5)]
CHAT_KEYS = {"seat", "text", "at"}


def chat_of(client, api: str) -> list[dict]:
    return client.get(api).json["chat"]


def watch_api(game) -> str:
    return game.watch.replace("/watch/", "/api/watch/")


def event_kinds(db, game_id: str) -> list[str]:
    return [r["kind"] for r in db.query("SELECT kind FROM events WHERE game_id = ? ORDER BY seq",
                                        [game_id])]


def emails(db, game_id: str, kind: str) -> list[dict]:
    return [dict(r) for r in db.query("SELECT * FROM outbox WHERE game_id = ? AND kind = ? "
                                      "ORDER BY id", [game_id, kind])]


def everything_seen(client, game, seat: int | None) -> str:
    """Every page, answer and record a viewer can fetch, as one text."""
    base = game.urls[seat] if seat is not None else game.watch
    api = game.apis[seat] if seat is not None else watch_api(game)
    texts = [client.get(base).get_data(as_text=True), client.get(api).get_data(as_text=True),
             client.get(f"{base}/history/0").get_data(as_text=True),
             client.get(f"{base}/record.json").get_data(as_text=True),
             client.get(f"{base}/record.txt").get_data(as_text=True)]
    if seat is not None:
        texts.append(client.get(f"{api}/notes").get_data(as_text=True))
    return "\n".join(texts)


def finish(client, game, seat: int = 0) -> None:
    """End the game: ``seat`` resigns (in a team game, its partner confirms)."""
    answer = client.post(f"{game.apis[seat]}/resign", json={})
    assert answer.status_code == 200
    if answer.json["outcome"] is None:
        [partner] = [s for s in answer.json["resign_offers"] if s != seat] or [
            s for s in range(len(game.apis)) if s != seat and s % 2 == seat % 2]
        assert client.post(f"{game.apis[partner]}/resign", json={}).json["outcome"]


# -- chat in the JSON API --------------------------------------------------------------------

def test_chat_through_the_api_as_the_contract_says(client, db, new_game):
    game = new_game("mastery")
    answer = client.post(f"{game.apis[0]}/chat", json={"text": "  Good luck!  "})
    assert answer.status_code == 201
    assert answer.json["game"] == "mastery" and answer.json["seat"] == 0
    [first] = answer.json["chat"]
    assert set(first) == CHAT_KEYS and first["seat"] == 0 and first["text"] == "Good luck!"
    assert utc.parse(first["at"])  # an ISO 8601 time
    assert client.post(f"{game.apis[1]}/chat", json={"text": "Thanks,\nyou too"}).status_code == 201
    expected = [(0, "Good luck!"), (1, "Thanks,\nyou too")]  # oldest first
    for api in game.apis:
        assert [(m["seat"], m["text"]) for m in chat_of(client, api)] == expected
    # every game answer carries it: moves and actions too
    assert [m["text"] for m in api_move(client, game.apis[0], "e3-e4")["chat"]] == \
        ["Good luck!", "Thanks,\nyou too"]
    draw = client.post(f"{game.apis[1]}/draw", json={"answer": "offer"})
    assert len(draw.json["chat"]) == 2
    long = "x" * 2000
    assert client.post(f"{game.apis[1]}/chat", json={"text": long}).status_code == 201
    assert chat_of(client, game.apis[0])[-1]["text"] == long

    before = event_kinds(db, game.id)
    for bad in ("", "   \n ", "x" * 2001, None, 5, ["hi"], "a\x00b", "\u202e"):
        refused = client.post(f"{game.apis[0]}/chat", json={"text": bad})
        assert refused.status_code == 400, bad
        assert isinstance(refused.json["error"], str)
    assert "2000" in client.post(f"{game.apis[0]}/chat", json={"text": "x" * 2001}).json["error"]
    assert client.post(f"{game.apis[0]}/chat", json={}).status_code == 400
    assert client.post(f"{game.apis[0]}/chat", data="hi").status_code == 400
    assert event_kinds(db, game.id) == before


@pytest.mark.one_database  # a post refused before anything is stored
def test_spectators_cannot_post(client, db, new_game):
    game = new_game("mastery")
    token = game.watch.rsplit("/", 1)[1]
    refused = client.post(f"/api/watch/{token}/chat", json={"text": "hello players"})
    assert refused.status_code == 403 and "Spectators cannot post" in refused.json["error"]
    assert client.post(f"/api/play/{token}/chat", json={"text": "hi"}).status_code == 404
    assert client.post(f"/play/{token}/chat", data={"text": "hi"}).status_code == 404
    assert event_kinds(db, game.id) == []


def test_spectators_read_no_chat_before_the_end_and_all_of_it_after(client, new_game):
    game = new_game("mastery")
    client.post(f"{game.apis[0]}/chat", json={"text": "Shall we play fast?"})
    api_move(client, game.apis[0], "e3-e4")
    client.post(f"{game.apis[1]}/chat", json={"text": "Sure, <b>fast</b>"})

    seen = everything_seen(client, game, None)
    assert "Shall we play fast" not in seen and "fast&lt;/b&gt;" not in seen
    assert "<b>fast" not in seen and 'id="chat"' not in seen
    assert client.get(watch_api(game)).json["chat"] == []
    record = client.get(f"{game.watch}/record.json").json
    assert [e["action"] for e in record["events"]] == ["move"]

    finish(client, game, 1)
    assert [m["text"] for m in client.get(watch_api(game)).json["chat"]] == \
        ["Shall we play fast?", "Sure, <b>fast</b>"]
    page = client.get(game.watch).get_data(as_text=True)
    assert "Shall we play fast?" in page and "Sure, &lt;b&gt;fast&lt;/b&gt;" in page
    assert 'id="chat-text"' not in page  # still no form
    record = client.get(f"{game.watch}/record.json").json
    assert [(e["action"], e.get("text")) for e in record["events"]] == [
        ("chat", "Shall we play fast?"), ("move", None), ("chat", "Sure, <b>fast</b>"),
        ("resign", None)]
    text = client.get(f"{game.watch}/record.txt").get_data(as_text=True)
    assert "Player 1 (Dark) says: Shall we play fast?" in text
    assert "Player 2 (Light) says: Sure, <b>fast</b>" in text


def test_players_read_the_chat_in_their_records_at_once(client, new_game):
    game = new_game("mastery")
    client.post(f"{game.apis[0]}/chat", json={"text": "line one\nline two"})
    for url in game.urls:
        events = client.get(f"{url}/record.json").json["events"]
        assert events == [{"seq": 1, "seat": 0, "action": "chat", "at": events[0]["at"],
                           "text": "line one\nline two"}]
        assert "Player 1 (Dark) says: line one\n        line two\n" in \
            client.get(f"{url}/record.txt").get_data(as_text=True)


def test_in_a_team_game_every_player_reads_everything(client, db, new_game):
    game = new_game("the-right-moves", players=4)
    assert client.post(f"{game.apis[2]}/chat", json={"text": "Partner, go left"}).status_code == 201
    for seat in range(4):
        assert [(m["seat"], m["text"]) for m in chat_of(client, game.apis[seat])] == \
            [(2, "Partner, go left")]
        assert "Partner, go left" in client.get(game.urls[seat]).get_data(as_text=True)
    told = emails(db, game.id, "chat")
    assert sorted(e["recipient"] for e in told) == [P[0], P[1], P[3]]
    assert all("Partner, go left" in e["body"] for e in told)


# -- chat emails -----------------------------------------------------------------------------

def test_a_message_is_emailed_to_the_other_players_as_each_chose(app, client, db, new_game):
    game = new_game("the-right-moves", players=4)
    for seat, choice in ((1, "digest"), (2, "none")):
        db.execute("UPDATE seats SET notify = ? WHERE game_id = ? AND seat = ?",
                   [choice, game.id, seat])
    text = "Bcc: x@evil.example\n=?utf-8?q?a=0d=0aBcc:_x?=\n<b>hi</b> & bye"
    assert client.post(f"{game.apis[0]}/chat", json={"text": text}).status_code == 201
    [told] = emails(db, game.id, "chat")  # "each" alone gets it; the writer never
    assert told["recipient"] == P[3] and told["seat"] == 3
    assert "Red (1) (Player 1) writes in your game of The Right Moves:\n\n    Bcc: x@evil.example\n" \
           "    =?utf-8?q?a=0d=0aBcc:_x?=\n    <b>hi</b> & bye\n" in told["body"]
    assert told["subject"] == "New message — The Right Moves: Player 1 & Player 3 vs " \
                              f"Player 2 & Player 4 [{game.id}]"
    assert "Bcc" not in told["headers"] and "evil" not in told["headers"]
    assert re.search(r"/play/[\w-]{32}\n", told["body"])  # a fresh link to the game


# -- chat on the page ------------------------------------------------------------------------

@pytest.mark.one_database  # what the page draws
def test_the_page_shows_the_chat_oldest_first_and_posts_without_javascript(client, db, new_game):
    game = new_game("mastery")
    token = game.urls[1].rsplit("/", 1)[1]
    posted = client.post(f"/play/{token}/chat", data={"text": "<script>alert(1)</script>"})
    assert posted.status_code == 303 and posted.headers["Location"].endswith(f"/play/{token}#chat")
    client.post(f"{game.apis[0]}/chat", json={"text": "Hello\nthere"})
    page = client.get(game.urls[1]).get_data(as_text=True)
    chat = page[page.index('id="chat"'):page.index('id="notes"')]
    assert chat.index("&lt;script&gt;alert(1)&lt;/script&gt;") < chat.index("Hello\nthere")
    assert "<script>alert" not in page
    assert re.search(r'<li class="mine"><span class="who">Light \(Player 2\)</span>', chat)
    assert re.search(r'<li><span class="who">Dark \(Player 1\)</span>', chat)
    assert f'action="/play/{token}/chat#chat"' in chat

    refused = client.post(f"/play/{token}/chat", data={"text": "y" * 2001})
    html = refused.get_data(as_text=True)
    assert refused.status_code == 400
    chat = html[html.index('id="chat"'):html.index('id="notes"')]
    assert "A chat message must be 1 to 2000 characters long" in chat  # beside its form
    assert "y" * 2001 in chat  # what was typed is kept to shorten it
    assert [m["text"] for m in chat_of(client, game.apis[0])] == \
        ["<script>alert(1)</script>", "Hello\nthere"]


def test_a_message_sent_twice_is_posted_once(client, new_game):
    game = new_game("mastery")
    token = game.urls[0].rsplit("/", 1)[1]
    for _ in range(2):  # a double click
        assert client.post(f"/play/{token}/chat", data={"text": "Hi!"}).status_code == 303
    assert [m["text"] for m in chat_of(client, game.apis[0])] == ["Hi!"]
    client.post(f"{game.apis[1]}/chat", json={"text": "Hi!"})
    client.post(f"{game.apis[0]}/chat", json={"text": "Hi!"})  # not a repeat: Light spoke
    assert len(chat_of(client, game.apis[0])) == 3


# -- the hourly limit ------------------------------------------------------------------------

def test_each_seat_may_post_so_many_messages_an_hour(app, client, db, new_game):
    app.config["CHAT_PER_HOUR"] = 3
    game = new_game("mastery")
    with app.test_request_context():  # two messages of more than an hour ago do not count
        for n in range(2):
            commands.submit(get_db(), game.id, 0, Command.of("chat", Message(f"old {n}")),
                            now=utc.now() - timedelta(minutes=61 + n))
    for n in range(3):
        assert client.post(f"{game.apis[0]}/chat", json={"text": f"new {n}"}).status_code == 201
    over = client.post(f"{game.apis[0]}/chat", json={"text": "one more"})
    assert over.status_code == 429
    assert "3 chat messages in the last hour" in over.json["error"]
    token = game.urls[0].rsplit("/", 1)[1]
    page = client.post(f"/play/{token}/chat", data={"text": "one more"})
    assert page.status_code == 429 and "Please wait a while" in page.get_data(as_text=True)
    assert client.post(f"{game.apis[1]}/chat", json={"text": "my own"}).status_code == 201
    assert [m["text"] for m in chat_of(client, game.apis[1])][-2:] == ["new 2", "my own"]


# -- notes -----------------------------------------------------------------------------------

def test_notes_are_their_owners_alone(client, db, new_game):
    game = new_game("mastery")
    secret = "Plan: XYZZY sacrifice on d4"
    assert client.get(f"{game.apis[0]}/notes").json == {"text": "", "updated_at": None}
    saved = client.put(f"{game.apis[0]}/notes", json={"text": secret})
    assert saved.status_code == 200 and saved.json["text"] == secret
    assert client.get(f"{game.apis[0]}/notes").json == saved.json
    client.post(f"{game.apis[0]}/chat", json={"text": "Hello"})
    api_move(client, game.apis[0], "e3-e4")
    own = client.get(game.urls[0]).get_data(as_text=True)
    assert f'<textarea id="notes-text" name="text" rows="4" maxlength="10000">{secret}' in own

    finish(client, game, 1)  # the end shows spectators more, but never the notes
    for viewer in (1, None):
        assert "XYZZY" not in everything_seen(client, game, viewer)
    assert client.get(f"{game.apis[1]}/notes").json["text"] == ""
    for url in game.urls:
        for kind in ("json", "txt"):
            assert "XYZZY" not in client.get(f"{url}/record.{kind}").get_data(as_text=True)
    assert all("XYZZY" not in r["body"] for r in db.query("SELECT body FROM outbox"))
    watch = game.watch.rsplit("/", 1)[1]
    assert client.get(f"/api/play/{watch}/notes").status_code == 404
    assert client.get(f"/api/watch/{watch}/notes").status_code == 404


def test_notes_by_the_page_form_and_their_limits(client, new_game):
    game = new_game("mastery")
    token = game.urls[1].rsplit("/", 1)[1]
    saved = client.post(f"/play/{token}/notes", data={"text": "line 1\r\nline 2"})
    assert saved.status_code == 303 and saved.headers["Location"].endswith("#notes")
    assert client.get(f"{game.apis[1]}/notes").json["text"] == "line 1\nline 2"
    page = client.get(game.urls[1]).get_data(as_text=True)
    assert ">line 1\nline 2</textarea>" in page
    assert re.search(r'<span class="saved">Saved \w{3} \d\d \w{3} \d{4}, \d\d:\d\d UTC.</span>', page)
    refused = client.post(f"/play/{token}/notes", data={"text": "z" * 10_001})
    assert refused.status_code == 400 and "Notes must be 0 to 10000 characters" in \
        refused.get_data(as_text=True)
    for bad in (None, 3, "z" * 10_001, "\x07"):
        assert client.put(f"{game.apis[1]}/notes", json={"text": bad}).status_code == 400
    assert client.put(f"{game.apis[1]}/notes", json={"text": ""}).json["text"] == ""


# -- rematch ---------------------------------------------------------------------------------

def seat_of(client, api_url: str) -> dict:
    return client.get(path_of(api_url)).json


def test_a_rematch_of_two_players_swaps_the_sides(client, db, new_game):
    body = {"game": "mastery", "options": {"setup": "imperial"},
            "clock": {"mode": "per_move", "days": 3, "weekends": "pause"},
            "players": [{"name": "Ann", "email": P[0]}, {"name": "Bob", "email": P[1]}]}
    created = client.post("/api/games", json=body).json
    apis = [path_of(s["api"]) for s in created["seats"]]
    urls = [path_of(s["url"]) for s in created["seats"]]
    early = client.post(f"{apis[0]}/rematch")
    assert early.status_code == 422 and "once the game is over" in early.json["error"]
    token = urls[0].rsplit("/", 1)[1]
    refused = client.post(f"/play/{token}/rematch")
    assert refused.status_code == 422
    assert "A rematch can be asked for once the game is over." in refused.get_data(as_text=True)
    assert event_kinds(db, created["id"]) == []

    assert client.post(f"{apis[0]}/resign", json={}).status_code == 200
    asked = client.post(f"{apis[0]}/rematch")
    assert asked.status_code == 202 and asked.json["rematch"] is None
    assert asked.json["rematch_asked"] == [0]
    assert client.post(f"{apis[0]}/rematch").status_code == 202  # asking again: nothing new
    assert event_kinds(db, created["id"]) == ["resign", "rematch"]
    [told] = emails(db, created["id"], "rematch")
    assert told["recipient"] == P[1] and "Dark (Ann) asks for a rematch" in told["body"]

    done = client.post(f"{apis[1]}/rematch")
    assert done.status_code == 201 and set(done.json) >= {"id", "url", "api"}
    new_id = done.json["id"]
    assert client.get(apis[0]).json["rematch"] == {"id": new_id}
    assert client.get(watch_api_of(created)).json["rematch"] == {"id": new_id}
    bob = seat_of(client, done.json["api"])  # Bob played Light: now Dark
    assert bob["seat"] == 0 and bob["game"] == "mastery"
    assert [p["name"] for p in bob["players"]] == ["Bob", "Ann"]
    assert bob["time_control"] == client.get(apis[0]).json["time_control"]
    assert bob["time_control"]["weekends"] == "pause"
    options = {row["id"]: row["options"] for row in db.query("SELECT id, options FROM games")}
    assert options[new_id] == options[created["id"]]
    assert [s["email"] for s in db.query("SELECT email FROM seats WHERE game_id = ? "
                                         "ORDER BY seat", [new_id])] == [P[1], P[0]]
    # everyone gets the start email of the new game, with their new link
    started = emails(db, new_id, "start")
    assert sorted(e["recipient"] for e in started) == [P[0], P[1]]
    assert all(re.search(r"/play/[\w-]{32}\n", e["body"]) for e in started)

    # Ann, who asked first, gets her own new link from the old game, each time she asks
    again = [client.post(f"{apis[0]}/rematch") for _ in range(2)]
    assert [a.status_code for a in again] == [201, 201] and again[0].json["id"] == new_id
    assert again[0].json["url"] != again[1].json["url"]
    assert seat_of(client, again[0].json["api"])["seat"] == 1
    assert seat_of(client, again[1].json["api"])["seat"] == 1
    assert event_kinds(db, created["id"]) == ["resign", "rematch", "rematch"]


def watch_api_of(created: dict) -> str:
    return path_of(created["spectator"]).replace("/watch/", "/api/watch/")


def test_a_rematch_of_four_moves_every_player_one_seat_on(client, db, new_game):
    game = new_game("the-right-moves", players=4)
    finish(client, game, 1)
    for seat in (3, 0, 2):
        assert client.post(f"{game.apis[seat]}/rematch").status_code == 202
    assert len(emails(db, game.id, "rematch")) == 3 + 2 + 1  # the seats yet to ask
    done = client.post(f"{game.apis[1]}/rematch")
    assert done.status_code == 201
    new = seat_of(client, done.json["api"])
    assert new["seat"] == 2 and new["view"]["to_move"] == [0]
    # seat s's player now plays seat s + 1: partners stay partners, and change colours
    assert [p["name"] for p in new["players"]] == \
        ["Player 4", "Player 1", "Player 2", "Player 3"]
    assert [e["recipient"] for e in emails(db, done.json["id"], "start")] == \
        [P[3], P[0], P[1], P[2]]


def test_the_page_asks_for_a_rematch_and_opens_it_for_each_player(client, db, new_game):
    game = new_game("mastery")
    tokens = [url.rsplit("/", 1)[1] for url in game.urls]
    assert 'id="rematch"' not in client.get(game.urls[0]).get_data(as_text=True)
    finish(client, game, 0)
    page = client.get(game.urls[1]).get_data(as_text=True)
    assert "Ask for a rematch</button>" in page
    asked = client.post(f"/play/{tokens[1]}/rematch")
    assert asked.status_code == 303 and asked.headers["Location"].endswith("#rematch")
    page = client.get(game.urls[1]).get_data(as_text=True)
    assert "You asked for a rematch. Waiting for Dark (Player 1) to ask too." in page
    other = client.get(game.urls[0]).get_data(as_text=True)
    assert "Light (Player 2) asked for a rematch." in other
    assert "Accept the rematch</button>" in other

    opened = client.post(f"/play/{tokens[0]}/rematch")
    assert opened.status_code == 303
    new_page = opened.headers["Location"]
    assert re.fullmatch(r"/play/[\w-]{32}", new_page) and new_page not in game.urls
    assert client.get("/api" + new_page).json["seat"] == 1  # Dark plays Light now
    for url, token, seat in zip(game.urls, tokens, (1, 0)):
        html = client.get(url).get_data(as_text=True)
        assert "Go to the rematch</button>" in html
        went = client.post(f"/play/{token}/rematch").headers["Location"]
        assert client.get("/api" + went).json["seat"] == seat
    spectator = client.get(game.watch).get_data(as_text=True)
    assert "Every player asked for a rematch" in spectator and "Go to the rematch" not in spectator


def test_a_chat_after_the_end_emails_the_others_but_not_the_result_again(client, db, new_game):
    game = new_game("mastery")
    finish(client, game, 0)
    assert len(emails(db, game.id, "end")) == 2
    assert client.post(f"{game.apis[1]}/chat", json={"text": "Good game!"}).status_code == 201
    assert client.post(f"{game.apis[0]}/rematch").status_code == 202
    assert len(emails(db, game.id, "end")) == 2
    assert [e["recipient"] for e in emails(db, game.id, "chat")] == [P[0]]
