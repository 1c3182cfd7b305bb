"""A platform for programs: each player's stream of events (``pbem/player_events.py``,
``GET <key>/events``) and bot accounts (``pbem/botaccounts.py``), through the API, on both
storage engines: the events are rows that resuming reads back on any worker."""
from __future__ import annotations

import json

import pytest

from pbem import players
from pbem.store.db import write
from pbem.web import platform

from helpers import database_errors, path_of, sign_up

MASTERY_CLOCK = {"mode": "per_move", "days": 3}


def events_after(client, key: str, seen: int = 0, wait: float = 0) -> list[dict]:
    """The long poll's events after number ``seen``."""
    answer = client.get(f"{path_of(key)}/events?after={seen}&wait={wait}")
    assert answer.status_code == 200, answer.json
    return answer.json["events"]


def stream_of(client, key: str, last_id: str | None = None) -> list[tuple[str | None, str, dict]]:
    """The events of one stream (the app's streams last a second in these tests): (id,
    event, data), an ``id`` alone as (id, "", {})."""
    headers = {"Last-Event-ID": last_id} if last_id is not None else {}
    with client.get(f"{path_of(key)}/events", headers=headers) as answer:
        assert answer.status_code == 200
        assert answer.mimetype == "text/event-stream"
        text = answer.get_data(as_text=True)
    told = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines()
                      if line and not line.startswith(":"))
        if "id" in fields or "event" in fields:
            told.append((fields.get("id"), fields.get("event", ""),
                         json.loads(fields["data"]) if "data" in fields else {}))
    return told


@pytest.fixture
def short_streams(app):
    app.config.update(EVENTS_STREAM_SECONDS=1, EVENTS_HEARTBEAT_SECONDS=0.3,
                      EVENTS_POLL_SECONDS=0.05)


def register_bot(client, key: str, handle: str = "Robo", **accepts) -> dict:
    answer = client.post(f"{path_of(key)}/bot", json={
        "handle": handle, "games": ["mastery"], "rated": False, **accepts})
    assert answer.status_code == 201, answer.json
    return answer.json


def test_a_person_registers_a_bot_that_is_listed_and_names_its_owner(client, db):
    ann = sign_up(client, db, "Ann")
    bot = register_bot(client, ann, games=["mastery", "magnet"], clocks=["per_move"])
    assert bot["handle"] == "Robo" and bot["bot"] is True and bot["owner"] == "Ann"
    assert bot["profile"] == "http://localhost/players/Robo"
    assert client.get(path_of(bot["key"])).json["handle"] == "Robo"  # the bot's own key
    listed = client.get("/api/bots").json["bots"]
    assert [(b["handle"], b["owner"], b["games"], b["clocks"], b["rated"]) for b in listed] == \
        [("Robo", "Ann", ["mastery", "magnet"], ["per_move"], False)]
    profile = client.get("/api/players/Robo").json
    assert profile["bot"] is True and profile["owner"] == "Ann"
    assert profile["accepts"] == {"games": ["mastery", "magnet"], "clocks": ["per_move"],
                                  "rated": False}
    person = client.get("/api/players/Ann").json
    assert person["bot"] is False and person["owner"] is None

    # refused, and nothing changed: a taken handle, unknown games, a bot registering bots
    for body, status in (({"handle": "ann", "games": ["mastery"]}, 409),
                         ({"handle": "Other", "games": ["chess"]}, 400),
                         ({"handle": "Other", "games": []}, 400),
                         ({"handle": "Other", "games": ["mastery"], "clocks": ["hourly"]}, 400),
                         ({"handle": "Other", "games": ["mastery"], "rated": "yes"}, 400),
                         ({"handle": "computer-x", "games": ["mastery"]}, 409)):
        answer = client.post(f"{path_of(ann)}/bot", json=body)
        assert answer.status_code == status, (body, answer.json)
        assert answer.json["error"]
    assert client.post(f"{path_of(bot['key'])}/bot", json={
        "handle": "Robo2", "games": ["mastery"]}).status_code == 422
    assert client.post("/api/player/" + "x" * 32 + "/bot", json={
        "games": ["mastery"]}).status_code == 404
    assert len(client.get("/api/bots").json["bots"]) == 1

    # its owner changes what it accepts; its program, holding its key, may change its games
    # but not let itself play rated games
    changed = client.post(f"{path_of(ann)}/bot", json={"handle": "Robo", "games": ["mastery"],
                                                       "rated": True})
    assert changed.status_code == 200 and changed.json["rated"] is True
    assert changed.json["key"] == bot["key"]
    itself = client.post(f"{path_of(bot['key'])}/bot", json={"games": ["the-right-moves"],
                                                             "rated": False})
    assert itself.status_code == 200, itself.json
    assert itself.json["games"] == ["the-right-moves"] and itself.json["rated"] is True
    assert itself.json["owner"] == "Ann"
    client.post(f"{path_of(ann)}/bot", json={"handle": "Robo", "games": ["mastery"]})
    assert client.get("/api/players/Robo").json["accepts"]["rated"] is False


def test_a_player_marks_itself_a_bot_and_changes_what_it_accepts(client, db):
    key = sign_up(client, db, "Solo")
    answer = client.post(f"{path_of(key)}/bot", json={"games": ["mastery"], "rated": True})
    assert answer.status_code == 200, answer.json
    assert answer.json["owner"] == "Solo" and answer.json["rated"] is True
    assert answer.json["clocks"] == ["none", "per_move", "fischer"]  # left out: every one
    again = client.post(f"{path_of(key)}/bot", json={"games": ["magnet"], "rated": False})
    assert again.json["games"] == ["magnet"] and again.json["rated"] is False
    assert client.get("/api/players/Solo").json["bot"] is True


def test_offering_a_bot_a_seat_challenges_it_and_its_program_plays_through_the_seat_api(
        client, db):
    ann = sign_up(client, db, "Ann")
    bot = register_bot(client, ann)
    created = client.post("/api/games", json={"game": "mastery", "players": [
        {"key": ann}, {"handle": "robo"}]})
    assert created.status_code == 201, created.json
    offered = created.json["seats"][1]
    assert offered["name"] is None and offered["offered_to"] == "Robo"
    # the lobby does not list it, nor may anyone else take it
    assert client.get("/api/challenges").json["challenges"] == []
    other = client.post(path_of(offered["join"]), json={"name": "Eve"})
    assert other.status_code == 422 and "Robo" in other.json["error"]

    [challenge] = events_after(client, bot["key"])
    assert challenge["event"] == "challenge" and challenge["id"] == 1
    data = challenge["data"]
    assert data["id"] == created.json["id"] and data["game"] == "mastery" and data["seat"] == 1
    assert data["join"].startswith("http://localhost/join/")
    joined = client.post(path_of(data["join"]), json={"key": bot["key"]})
    assert joined.status_code == 201, joined.json
    assert client.get(path_of(bot["key"])).json["games"][0]["id"] == created.json["id"]

    # the game started: Ann is to move, told on her stream; then the bot's turn on its own
    [ann_turn] = events_after(client, ann)
    assert ann_turn["event"] == "turn" and ann_turn["data"]["seat"] == 0
    ann_api = path_of(ann_turn["data"]["api"])
    seen = client.get(ann_api).json
    assert ann_turn["data"]["version"] == seen["version"]
    moved = client.post(f"{ann_api}/moves", json={"move": seen["legal_moves"][0],
                                                  "version": seen["version"]})
    assert moved.status_code == 200, moved.json
    [turn] = events_after(client, bot["key"], seen=1)
    assert turn["event"] == "turn" and turn["id"] == 2
    bot_api = path_of(turn["data"]["api"])
    game = client.get(bot_api).json
    assert game["seat"] == 1 and game["to_move"] == [1] and turn["data"]["version"] == game["version"]
    assert client.post(f"{bot_api}/moves", json={"move": game["legal_moves"][0],
                                                 "version": turn["data"]["version"]}
                       ).status_code == 200
    assert client.post(f"{bot_api}/resign").status_code == 200
    ends = [e for e in events_after(client, ann, seen=ann_turn["id"]) if e["event"] == "game_end"]
    assert [e["data"]["outcome"]["winners"] for e in ends] == [[0]]
    assert events_after(client, bot["key"], seen=2)[-1]["event"] == "game_end"


def test_a_bot_is_offered_only_the_games_it_accepts(client, db):
    ann = sign_up(client, db, "Ann")
    robo = register_bot(client, ann, clocks=["per_move"])["key"]
    register_bot(client, ann, "Rated", rated=True)

    def offer(handle, **body):
        return client.post("/api/games", json={"game": "mastery", "players": [
            {"key": ann}, {"handle": handle}], "clock": MASTERY_CLOCK, **body})
    for answer, status, words in (
            (offer("Robo", clock=None), 422, "clock"),
            (offer("Robo", game="magnet"), 422, "Magnet"),
            (offer("Robo", rated=True), 422, "rated"),
            (offer("Ann"), 400, "bot"),
            (offer("Nobody"), 400, "bot")):
        assert answer.status_code == status, answer.json
        assert words in answer.json["error"]
    assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 0
    assert offer("Robo").status_code == 201
    rated = offer("Rated", rated=True)
    assert rated.status_code == 201, rated.json
    # nor does a bot kept from rated games take a rated seat another way: by its key, in the
    # lobby or in a new game
    public = client.post("/api/games", json={"game": "mastery", "rated": True, "public": True,
                                             "clock": MASTERY_CLOCK, "players": [
                                                 {"key": ann}, {"open": True}]})
    assert public.status_code == 201, public.json
    taken = client.post(path_of(public.json["seats"][1]["join"]), json={"key": robo})
    assert taken.status_code == 422 and "rated" in taken.json["error"]
    assert client.post("/api/games", json={"game": "mastery", "rated": True,
                                           "clock": MASTERY_CLOCK, "players": [
                                               {"key": ann}, {"key": robo}]}).status_code == 422


def test_the_stream_resumes_after_the_last_event_id_and_begins_with_what_is_current(
        client, db, short_streams):
    ann, bob = sign_up(client, db, "Ann"), sign_up(client, db, "Bob")
    first = client.post("/api/games", json={"game": "mastery", "players": [
        {"key": ann}, {"key": bob}]}).json
    fresh = stream_of(client, ann)
    assert [(told[1], told[2]["id"]) for told in fresh[:-1]] == [("turn", first["id"])]
    assert fresh[-1][1:] == ("", {})  # where to resume: the latest event
    resume_at = fresh[-1][0]
    # two more games while the program is away; it reconnects and misses neither
    second = client.post("/api/games", json={"game": "mastery", "players": [
        {"key": ann}, {"key": bob}]}).json
    api = path_of(first["seats"][0]["api"])
    client.post(f"{api}/moves", json={"move": client.get(api).json["legal_moves"][0], "ply": 0})
    resumed = stream_of(client, ann, resume_at)
    assert [(told[1], told[2]["id"]) for told in resumed] == [("turn", second["id"])]
    assert int(resumed[0][0]) == int(resume_at) + 1
    bob_told = stream_of(client, bob, "0")
    assert [(told[1], told[2]["id"]) for told in bob_told] == [("turn", first["id"])]
    # nothing new: a heartbeat, and the stream ends for the client to reconnect
    with client.get(f"{path_of(ann)}/events",
                    headers={"Last-Event-ID": resumed[0][0]}) as quiet:
        text = quiet.get_data(as_text=True)
    assert text.startswith("retry: 1000\n") and ": heartbeat" in text and "event:" not in text
    for bad in ("x", "-1", "²", "9" * 40):
        assert client.get(f"{path_of(ann)}/events",
                          headers={"Last-Event-ID": bad}).status_code == 400
        assert client.get(f"{path_of(ann)}/events?after={bad}").status_code == 400
    assert client.get("/api/player/" + "x" * 32 + "/events").status_code == 404


def test_a_process_holds_at_most_its_listeners_and_says_when_to_come_back(
        app, client, db, short_streams):
    key = sign_up(client, db, "Ann")
    held = platform.LISTENERS.count
    app.config["EVENTS_LISTENERS"] = held + 1
    stream = client.get(f"{path_of(key)}/events")  # open, not yet read
    assert stream.status_code == 200 and platform.LISTENERS.count == held + 1
    for full in (f"{path_of(key)}/events", f"{path_of(key)}/events?after=0"):
        answer = client.get(full)
        assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
        assert answer.json["error"]
    stream.close()  # as a server closes it when its client goes, read or not
    assert platform.LISTENERS.count == held
    assert client.get(f"{path_of(key)}/events?after=0&wait=0").status_code == 200
    assert platform.LISTENERS.count == held


def test_one_key_holds_at_most_its_share_of_the_listeners(app, client, db, short_streams):
    keys = [sign_up(client, db, name) for name in ("Ann", "Bob")]
    ann = players.by_key(db, path_of(keys[0]).rsplit("/", 1)[-1])
    held = platform.LISTENERS.count
    # the streams an earlier test left open in this process may count against the same id
    app.config["EVENTS_LISTENERS_PER_PLAYER"] = platform.LISTENERS.of_player[ann.id] + 1
    stream = client.get(f"{path_of(keys[0])}/events")  # open, not yet read
    assert stream.status_code == 200
    for more in (f"{path_of(keys[0])}/events", f"{path_of(keys[0])}/events?after=0"):
        answer = client.get(more)
        assert answer.status_code == 429 and answer.headers["Retry-After"] == "5"
        assert answer.json["error"]
    # another player still gets in
    assert client.get(f"{path_of(keys[1])}/events?after=0&wait=0").status_code == 200
    assert platform.LISTENERS.count == held + 1
    stream.close()
    assert platform.LISTENERS.count == held
    assert client.get(f"{path_of(keys[0])}/events?after=0&wait=0").status_code == 200


def test_a_players_events_never_change_and_go_with_the_player(client, db):
    ann = sign_up(client, db, "Ann")
    bot = register_bot(client, ann)
    client.post("/api/games", json={"game": "mastery", "players": [{"key": ann},
                                                                   {"handle": "Robo"}]})
    exported = client.get(f"{path_of(ann)}/export").json
    assert exported["bots"] == ["Robo"] and exported["bot"] is None
    robo = client.get(f"{path_of(bot['key'])}/export").json
    assert robo["bot"]["owner"] == "Ann"
    assert [e["event"] for e in robo["events"]] == ["challenge"]
    with pytest.raises(database_errors(), match="append-only"), write(db):
        db.execute("UPDATE player_events SET seq = 7")
    owner = players.by_handle(db, "Ann")
    players.delete(db, owner)  # the owner's bot goes with them, and both their events
    assert players.by_handle(db, "Robo") is None
    assert db.execute("SELECT count(*) FROM player_events").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM bot_accounts").fetchone()[0] == 0
    assert client.get(path_of(bot["key"])).status_code == 404
