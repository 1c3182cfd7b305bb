"""A public site (issue 40, items 1 to 4): blocks, reports, moderators and their actions,
appeals, and fair play in numbers, through the JSON API and the forms, stored on both
engines; the emails read off the outbox as the server queued them."""
from __future__ import annotations

import json

import pytest

from pbem import glicko
from pbem.mail import inbound, listener
from pbem.store.db import write

from helpers import database_errors, path_of, sign_up
from test_cli import flask
from test_ratings import mastery_resign, opened, rated, seat_apis


def key_path(key: str) -> str:
    return path_of(key)


def two_keys(client, db, *handles: str) -> list[str]:
    return [sign_up(client, db, handle) for handle in handles]


def game_by_keys(client, *keys: str, **extra) -> dict:
    created = client.post("/api/games", json={
        "game": "mastery", "players": [{"key": key} for key in keys], **extra})
    assert created.status_code == 201, created.json
    return created.json


def chat(client, api: str, text: str):
    return client.post(f"{path_of(api)}/chat", json={"text": text})


def emails(db, recipient: str, kind: str) -> list[str]:
    return [row[0] for row in db.execute(
        "SELECT body FROM outbox WHERE lower(recipient) = lower(?) AND kind = ? ORDER BY id",
        [recipient, kind])]


def moderator(app, client, db, handle: str = "Mod") -> str:
    key = sign_up(client, db, handle)
    assert flask(app, "moderators", "add", handle).exit_code == 0
    return key


# -- blocks ----------------------------------------------------------------------------------

def test_a_block_keeps_the_blocked_player_out_of_seats_lobby_and_chat(app, client, db):
    ann, bob = two_keys(client, db, "Ann", "Bob")
    shared = game_by_keys(client, ann, bob)
    ann_api, bob_api = seat_apis(shared)
    assert chat(client, bob_api, "before the block").status_code == 201

    assert client.post(f"{key_path(ann)}/blocks", json={"handle": "bob"}).status_code == 201
    assert client.get(key_path(ann)).json["blocks"] == ["Bob"]
    assert client.post(f"{key_path(ann)}/blocks", json={"handle": "nobody"}).status_code == 400
    assert client.post(f"{key_path(ann)}/blocks", json={"handle": "Ann"}).status_code == 400

    # Bob's chat is gone from Ann's answers and emails; Bob still reads his own and Ann's
    assert chat(client, bob_api, "after the block").status_code == 201
    assert [m["text"] for m in client.get(path_of(ann_api)).json["chat"]] == []
    assert len(client.get(path_of(bob_api)).json["chat"]) == 2
    assert not [body for body in emails(db, "ann@example.org", "chat")
                if "after the block" in body]
    assert chat(client, ann_api, "Ann speaks").status_code == 201
    assert any("Ann speaks" in body for body in emails(db, "bob@example.org", "chat"))
    page = client.get(path_of(shared["seats"][0]["url"])).get_data(as_text=True)
    assert "after the block" not in page and "Ann speaks" in page

    # Bob cannot take Ann's open seat, and Ann's challenge leaves his lobby (and his hers)
    challenge = client.post("/api/games", json={
        "game": "mastery", "players": [{"key": ann}, {"open": True}], "public": True})
    assert challenge.status_code == 201
    join = challenge.json["seats"][1]["join"]
    listed = client.get("/api/challenges", query_string={"key": bob}).json["challenges"]
    assert challenge.json["id"] not in [c["id"] for c in listed]
    assert challenge.json["id"] not in [c["id"] for c in client.get(  # signed in as Bob
        "/api/challenges").json["challenges"]]
    everyone = app.test_client().get("/api/challenges").json["challenges"]
    assert challenge.json["id"] in [c["id"] for c in everyone]
    refused = client.post(path_of(join), json={"key": bob})
    assert refused.status_code == 422 and "blocked" in refused.json["error"]
    shown = client.get(path_of(join))  # Bob, signed in, is told; the seat is still open
    assert shown.status_code == 422 and "blocked you" in shown.get_data(as_text=True)
    assert app.test_client().get(path_of(join)).status_code == 200

    # undone: all as before
    assert client.delete(f"{key_path(ann)}/blocks/Bob").status_code == 200
    assert client.delete(f"{key_path(ann)}/blocks/Bob").status_code == 404
    assert client.get(key_path(ann)).json["blocks"] == []
    assert len(client.get(path_of(ann_api)).json["chat"]) == 3
    assert client.post(path_of(join), json={"key": bob}).status_code == 201

    # a player deleted: the blocks of them go with them, the reports stay
    client.post(f"{key_path(bob)}/blocks", json={"handle": "Ann"})
    client.post(f"{key_path(ann)}/blocks", json={"handle": "Bob"})
    client.post(f"{key_path(ann)}/reports", json={"handle": "Bob", "reason": "other",
                                                  "text": "Odd."})
    assert client.post("/me/delete", data={"confirm": "yes"}).status_code == 303  # Bob
    assert client.get(key_path(ann)).json["blocks"] == []
    assert db.execute("SELECT reported_name, reported_id FROM reports").fetchone()[:] == (
        "Bob", None)


def test_a_seat_without_an_account_mutes_its_opponent_in_that_game(client, new_game):
    game = new_game()
    assert client.post(f"{game.apis[1]}/chat", json={"text": "noise"}).status_code == 201
    page = client.post(f"{game.urls[0]}/mute", data={"seat": "1", "on": "yes"})
    assert page.status_code == 303
    assert client.get(game.apis[0]).json["chat"] == []
    assert client.get(game.apis[1]).json["chat"][0]["text"] == "noise"
    assert client.post(f"{game.urls[0]}/mute", data={"seat": "0", "on": "yes"}
                       ).status_code == 400  # not oneself
    client.post(f"{game.urls[0]}/mute", data={"seat": "1", "on": "no"})
    assert client.get(game.apis[0]).json["chat"][0]["text"] == "noise"


# -- reports ---------------------------------------------------------------------------------

def test_reports_keep_the_evidence_as_it_stood(app, client, db, new_game):
    ann, _bob = two_keys(client, db, "Ann", "Bob")
    shared = game_by_keys(client, ann, _bob)
    ann_api, bob_api = seat_apis(shared)
    chat(client, bob_api, "you are a rude word")
    mod = moderator(app, client, db)

    # bad input: a readable message, nothing stored
    for body in ({"handle": "Bob", "reason": "rude", "text": "x"},
                 {"handle": "Bob", "reason": "abuse", "text": ""},
                 {"handle": "Nobody", "reason": "abuse", "text": "x"},
                 {"handle": "Bob", "reason": "abuse", "text": "x", "game": "nogame"}):
        refused = client.post(f"{key_path(ann)}/reports", json=body)
        assert refused.status_code == 400 and refused.json["error"]
    assert db.execute("SELECT count(*) FROM reports").fetchone()[0] == 0

    seq = [m for m in client.get(path_of(bob_api)).json["chat"]]
    assert seq  # the message, reported from its game by Ann's key
    made = client.post(f"{key_path(ann)}/reports", json={
        "handle": "Bob", "game": shared["id"], "reason": "abuse", "text": "He insults me."})
    assert made.status_code == 201 and isinstance(made.json["id"], int)
    profile_report = client.post(f"{key_path(ann)}/reports", json={
        "handle": "Bob", "reason": "spam", "text": "Spam in every game."})
    assert profile_report.status_code == 201

    # a seat without an account reports from its game
    other = new_game()
    client.post(f"{other.apis[1]}/chat", json={"text": "buy my stuff"})
    seat_report = client.post(f"{other.apis[0]}/report", json={"reason": "spam",
                                                                "text": "Adverts."})
    assert seat_report.status_code == 201
    assert client.post(f"{other.apis[0]}/report", json={"reason": "spam"}).status_code == 400

    chat(client, bob_api, "said after the report")  # the evidence does not change
    assert client.get(f"{key_path(ann)}/moderation/reports").status_code == 403
    queue = client.get(f"{key_path(mod)}/moderation/reports").json["reports"]
    assert [(r["reporter"], r["handle"], r["reason"], r["status"]) for r in queue] == [
        ("Ann", "Bob", "abuse", "open"), ("Ann", "Bob", "spam", "open"),
        ("Player 1", "Player 2", "spam", "open")]
    first = queue[0]
    assert first["game"] == shared["id"] and first["text"] == "He insults me."
    assert [m["text"] for m in first["evidence"]["chat"]] == ["you are a rude word"]
    assert first["evidence"]["chat"][0]["name"] == "Bob"
    assert [m["text"] for m in queue[1]["evidence"]["chat"]] == ["you are a rude word"]
    assert [m["text"] for m in queue[2]["evidence"]["chat"]] == ["buy my stuff"]
    # the reporter's own data lists their reports
    assert [r["reason"] for r in client.get(f"{key_path(ann)}/export").json["reports"]] == [
        "abuse", "spam"]


# -- moderators ------------------------------------------------------------------------------

def test_moderators_are_named_by_the_command(app, client, db):
    sign_up(client, db, "Mod")
    assert flask(app, "moderators", "add", "Nobody").exit_code != 0
    assert "is now" in flask(app, "moderators", "add", "Mod").output
    assert "was already" in flask(app, "moderators", "add", "mod").output
    assert flask(app, "moderators", "list").output.split() == ["Mod"]
    assert "is no longer" in flask(app, "moderators", "remove", "Mod").output
    assert flask(app, "moderators", "list").output.split() == []


def test_mute_suspend_close_and_restore(app, client, db):
    ann, bob, cid = two_keys(client, db, "Ann", "Bob", "Cid")
    running = game_by_keys(client, ann, bob)
    ann_api, bob_api = seat_apis(running)
    mod = moderator(app, client, db)
    report = client.post(f"{key_path(ann)}/reports", json={
        "handle": "Bob", "game": running["id"], "reason": "abuse", "text": "Insults."}).json

    def act(action: str, note: str = "", **extra):
        return client.post(f"{key_path(mod)}/moderation/actions", json={
            "handle": "Bob", "action": action, "note": note, **extra})

    assert client.post(f"{key_path(ann)}/moderation/actions", json={
        "handle": "Bob", "action": "warn"}).status_code == 403
    assert act("shout").status_code == 400
    assert act("mute", "Mind your words.", report=report["id"]).status_code == 201
    assert act("warn", report=report["id"]).status_code == 422  # handled already
    muted = chat(client, bob_api, "still rude")
    assert muted.status_code == 422 and "muted" in muted.json["error"]
    assert chat(client, ann_api, "fine").status_code == 201
    (told,) = emails(db, "bob@example.org", "moderation")
    assert "muted" in told and "Mind your words." in told and "/appeal/" in told
    (handled,) = emails(db, "ann@example.org", "report_handled")
    assert "Bob" in handled
    queue = client.get(f"{key_path(mod)}/moderation/reports").json["reports"]
    assert queue[0]["status"] == "handled"

    assert act("suspend", "A week off.").status_code == 201
    for refused in (
            rated(client, [{"key": bob}, {"key": cid}]),
            client.post("/api/games", json={"game": "mastery", "public": True,
                                            "players": [{"key": bob}, {"open": True}]})):
        assert refused.status_code == 422 and "suspended" in refused.json["error"], refused.json
    tournament = client.post(f"{key_path(cid)}/tournaments", json={
        "name": "Cup", "game": "mastery", "format": "round-robin", "max_players": 4})
    assert tournament.status_code == 201, tournament.json
    entry = client.post(f"{key_path(bob)}/tournaments/{tournament.json['id']}/entry")
    assert entry.status_code == 422
    challenge = client.post("/api/games", json={"game": "mastery", "public": True,
                                                "players": [{"key": cid}, {"open": True}]})
    taken = client.post(path_of(challenge.json["seats"][1]["join"]), json={"key": bob})
    assert taken.status_code == 422 and "suspended" in taken.json["error"]
    # running games go on, and an unrated private game may be made
    state = client.get(path_of(bob_api)).json
    moved = client.post(f"{path_of(ann_api)}/moves", json={
        "move": client.get(path_of(ann_api)).json["legal_moves"][0], "ply": state["ply"]})
    assert moved.status_code == 200
    assert client.post("/api/games", json={"game": "mastery", "players": [
        {"key": bob}, {"key": cid}]}).status_code == 201

    assert act("close", "Closed for abuse.").status_code == 201
    closed = client.get("/api/players/Bob").json
    assert closed["closed"] is True and closed["games"] == [] and closed["ratings"] == {}
    assert "closed" in client.get("/players/Bob").get_data(as_text=True)
    assert client.get(key_path(bob)).status_code == 404  # the key opens nothing
    assert client.post("/api/sign-in", json={"email": "bob@example.org"}).status_code == 202
    link = db.execute("SELECT body FROM outbox WHERE recipient = 'bob@example.org' AND "
                      "kind = 'sign_in' ORDER BY id DESC").fetchone()[0]
    from helpers import SIGN_IN_LINK
    refused = client.post(SIGN_IN_LINK.search(link).group(1), json={})
    assert refused.status_code == 403 and "closed" in refused.json["error"]

    assert act("restore", "Welcome back.").status_code == 201
    assert client.get("/api/players/Bob").json["closed"] is False
    assert chat(client, bob_api, "sorry").status_code == 201
    assert client.get(key_path(bob)).status_code == 200

    log = client.get(f"{key_path(mod)}/moderation/log").json["actions"]
    assert [(a["moderator"], a["action"], a["handle"]) for a in log] == [
        ("Mod", "restore", "Bob"), ("Mod", "close", "Bob"), ("Mod", "suspend", "Bob"),
        ("Mod", "mute", "Bob")]
    assert log[1]["note"] == "Closed for abuse."
    assert client.get(f"{key_path(ann)}/moderation/log").status_code == 403
    # append-only
    for statement in ("UPDATE moderation_log SET note = 'x'", "DELETE FROM moderation_log"):
        with pytest.raises(database_errors()), write(db):
            db.execute(statement)
    assert len(client.get(f"{key_path(mod)}/moderation/log").json["actions"]) == 4


def test_an_annulled_game_changes_no_rating_and_the_rest_count_again_in_order(
        app, client, db):
    ann, bob, cid = two_keys(client, db, "Ann", "Bob", "Cid")
    mod = moderator(app, client, db)
    # Ann beats Bob, then Bob beats Cid, then Ann beats Cid
    played = []
    for winner, loser in ((ann, bob), (bob, cid), (ann, cid)):
        game = rated(client, [{"key": winner}, {"key": loser}]).json
        opened(client, seat_apis(game))
        mastery_resign(client, game["seats"][1]["api"])
        played.append(game["id"])
    before = {h: client.get(f"/api/players/{h}").json["ratings"]["mastery"]
              for h in ("Ann", "Bob", "Cid")}

    refused = client.post(f"{key_path(mod)}/moderation/actions", json={
        "handle": "Cid", "action": "annul", "game": played[0], "note": ""})
    assert refused.status_code == 422  # Cid did not play it
    annulled = client.post(f"{key_path(mod)}/moderation/actions", json={
        "handle": "Ann", "action": "annul", "game": played[0], "note": "Bob was helped."})
    assert annulled.status_code == 201, annulled.json
    assert client.post(f"{key_path(mod)}/moderation/actions", json={
        "handle": "Ann", "action": "annul", "game": played[0]}).status_code == 422

    # as if the first game had never been rated: Bob beats Cid, then Ann beats Cid
    bob_r, cid_r = glicko.game(glicko.Rating(), glicko.Rating(), 1)
    ann_r, cid_r = glicko.game(glicko.Rating(), cid_r, 1)
    after = {h: client.get(f"/api/players/{h}").json["ratings"]["mastery"]
             for h in ("Ann", "Bob", "Cid")}
    for handle, expected, games in (("Ann", ann_r, 1), ("Bob", bob_r, 1), ("Cid", cid_r, 2)):
        assert after[handle]["rating"] == round(expected.rating, 2)
        assert after[handle]["games"] == games
    assert after != before
    assert db.execute("SELECT count(*) FROM rating_changes WHERE game_id = ?",
                      [played[0]]).fetchone()[0] == 0


def test_an_appeal_returns_to_the_queue_and_the_moderation_page_shows_it(app, client, db):
    ann, bob = two_keys(client, db, "Ann", "Bob")
    mod = moderator(app, client, db)
    client.post(f"{key_path(mod)}/moderation/actions", json={
        "handle": "Bob", "action": "suspend", "note": "Too many abandoned games."})
    (told,) = emails(db, "bob@example.org", "moderation")
    link = next(word for word in told.split() if "/appeal/" in word)
    page = client.get(path_of(link))
    assert page.status_code == 200 and "Too many abandoned games." in page.get_data(as_text=True)
    assert client.post(path_of(link), data={"text": ""}).status_code == 400
    sent = client.post(path_of(link), data={"text": "My internet was down."})
    assert sent.status_code == 303 and sent.location.endswith(path_of(link))
    assert client.get(path_of(link.rsplit("/", 1)[0] + "/" + "x" * 32)).status_code == 404
    (appeal,) = client.get(f"{key_path(mod)}/moderation/reports").json["reports"]
    assert (appeal["reason"], appeal["handle"], appeal["text"]) == (
        "appeal", "Bob", "My internet was down.")
    assert appeal["evidence"]["action"]["action"] == "suspend"

    # a reply to the email appeals too, what is above the quote
    reply_to = db.execute("SELECT headers FROM outbox WHERE kind = 'moderation'").fetchone()[0]
    address = json.loads(reply_to)["Reply-To"]
    assert "+appeal." in address
    raw = (f"From: bob@example.org\r\nTo: {address}\r\nSubject: Re: A message\r\n\r\n"
           f"I was ill that week.\r\n\r\nOn Mon, Mod wrote:\r\n> The site's moderators\r\n"
           ).encode()
    handler = listener.Handler(app)  # the mail listener takes mail to it at RCPT
    assert handler._known(address) and not handler._known(address.replace("+appeal.", "+ap."))
    with app.app_context():
        assert inbound.receive(db, raw).status == "appealed"
        assert inbound.receive(db, raw.replace(b"+appeal.", b"+appeal.x")).status == "unknown"
    (_, by_mail) = client.get(f"{key_path(mod)}/moderation/reports").json["reports"]
    assert (by_mail["reason"], by_mail["text"]) == ("appeal", "I was ill that week.")
    assert not emails(db, "bob@example.org", "answer")  # the moderators answer, not a robot

    # the page: the moderator signed in (sign_up signed this client in as Mod last)
    html = client.get("/moderation").get_data(as_text=True)
    assert "My internet was down." in html and 'name="confirm"' in html
    unticked = client.post("/moderation/actions", data={
        "report": str(appeal["id"]), "handle": "Bob", "action": "restore"})
    assert unticked.status_code == 400
    done = client.post("/moderation/actions", data={
        "report": str(appeal["id"]), "handle": "Bob", "action": "restore",
        "note": "Fair enough.", "confirm": "yes"})
    assert done.status_code == 303
    statuses = {r["id"]: r["status"] for r in
                client.get(f"{key_path(mod)}/moderation/reports").json["reports"]}
    assert statuses == {appeal["id"]: "handled", by_mail["id"]: "open"}
    # an appeal dismissed is answered: the action stands
    assert client.post(f"{key_path(mod)}/moderation/actions", json={
        "handle": "Bob", "action": "dismiss", "report": by_mail["id"], "note": "No."}
        ).status_code == 201
    restored, dismissed = emails(db, "bob@example.org", "moderation")[-2:]
    assert "Fair enough." in restored and "have restored your account" in restored
    assert "leave their action as it is" in dismissed
    sign_up(client, db, "Ann")  # anyone else: 403
    assert client.get("/moderation").status_code == 403


# -- fair play -------------------------------------------------------------------------------

def test_profiles_carry_the_record_and_the_running_games_are_capped(app, client, db):
    app.config.update(RUNNING_GAMES_FIRST=2, RUNNING_GAMES_PER_FINISHED=1)
    ann, bob = two_keys(client, db, "Ann", "Bob")
    assert client.get("/api/players/Ann").json["record"] == {
        "finished": 0, "timeouts": 0, "completion": None}
    first = game_by_keys(client, ann, bob)
    game_by_keys(client, ann, bob)
    refused = client.post("/api/games", json={"game": "mastery", "players": [
        {"key": ann}, {"name": "Zed", "email": "zed@example.org"}]})
    assert refused.status_code == 422 and "2 games running" in refused.json["error"]
    mastery_resign(client, first["seats"][1]["api"])  # one finished: room for two more
    game_by_keys(client, ann, bob)
    game_by_keys(client, ann, bob)
    assert client.get("/api/players/Ann").json["record"] == {
        "finished": 1, "timeouts": 0, "completion": 100}
    html = client.get("/players/Ann").get_data(as_text=True)
    assert "1 game finished" in html and "completion 100%" in html


def test_a_timeout_counts_against_completion_and_the_lobby_filters_by_it(app, client, db):
    from datetime import timedelta

    from pbem import commands
    from pbem.store import utc
    ann, bob, cid = two_keys(client, db, "Ann", "Bob", "Cid")
    timed = client.post("/api/games", json={
        "game": "mastery", "players": [{"key": ann}, {"key": bob}],
        "clock": {"mode": "per_move", "days": 1}}).json
    with app.test_request_context():
        commands.record_timeouts(db, utc.now() + timedelta(days=2))
    assert client.get("/api/players/Ann").json["record"] == {
        "finished": 1, "timeouts": 1, "completion": 0}
    assert client.get("/api/players/Bob").json["record"]["completion"] == 100
    assert timed["id"]
    for key in (ann, bob):
        client.post("/api/games", json={"game": "mastery", "public": True,
                                        "players": [{"key": key}, {"open": True}]})
    waiting = {c["players"][0] for c in client.get(
        "/api/challenges", query_string={"min_completion": "50"}).json["challenges"]}
    assert waiting == {"Bob"}
    assert len(client.get("/api/challenges").json["challenges"]) == 2


def test_the_console_shows_the_queue_to_moderators_and_operators(app, client, db):
    ann, _bob = two_keys(client, db, "Ann", "Bob")
    client.post(f"{key_path(ann)}/reports", json={"handle": "Bob", "reason": "other",
                                                  "text": "Odd."})
    assert client.get("/console").status_code == 403  # Bob: no role
    moderator(app, client, db)  # this client is signed in as Mod now
    html = client.get("/console").get_data(as_text=True)
    assert 'id="reports"' in html and "1 report waits for a moderator." in html
    assert 'id="health"' not in html  # the operators' sections are theirs
    assert flask(app, "operators", "add", "Mod").exit_code == 0
    assert 'id="health"' in client.get("/console").get_data(as_text=True)


def test_a_seat_without_an_account_reports_by_the_form_and_is_told_when_handled(
        app, client, db, new_game):
    game = new_game()
    client.post(f"{game.apis[1]}/chat", json={"text": "spam spam"})
    form = client.get(f"{game.urls[0]}/report", query_string={"message": "1"})
    page = form.get_data(as_text=True)
    assert form.status_code == 200 and "spam spam" in page and 'name="reason"' in page
    assert client.get(f"{game.urls[0]}/report", query_string={"seat": "0"}).status_code == 400
    refused = client.post(f"{game.urls[0]}/report", data={"message": "1", "text": "Ads."})
    assert refused.status_code == 400  # no reason chosen: the form again, nothing kept
    assert db.execute("SELECT count(*) FROM reports").fetchone()[0] == 0
    sent = client.post(f"{game.urls[0]}/report", data={"message": "1", "reason": "spam",
                                                       "text": "Ads."})
    assert sent.status_code == 303 and sent.location.endswith(game.urls[0])
    mod = moderator(app, client, db)
    (report,) = client.get(f"{key_path(mod)}/moderation/reports").json["reports"]
    assert (report["reporter"], report["handle"], report["message"]) == (
        "Player 1", "Player 2", 1)
    assert client.post(f"{key_path(mod)}/moderation/actions", json={
        "action": "dismiss", "report": report["id"], "note": ""}).status_code == 201
    (told,) = emails(db, "p1@example.org", "report_handled")
    assert "Player 2" in told


def test_a_bot_account_is_suspended_as_any_player(app, client, db):
    (ann,) = two_keys(client, db, "Ann")
    made = client.post(f"{key_path(ann)}/bot", json={"handle": "Robo", "games": ["mastery"],
                                                      "rated": True})
    assert made.status_code == 201, made.json
    robo = made.json["key"]
    mod = moderator(app, client, db)
    assert client.post(f"{key_path(mod)}/moderation/actions", json={
        "handle": "Robo", "action": "suspend", "note": ""}).status_code == 201
    challenge = client.post("/api/games", json={"game": "mastery", "public": True,
                                                "players": [{"key": ann}, {"open": True}]})
    join = path_of(challenge.json["seats"][1]["join"])
    refused = client.post(join, json={"key": robo})
    assert refused.status_code == 422 and "Robo is suspended" in refused.json["error"], \
        refused.json
    assert client.post(f"{key_path(mod)}/moderation/actions", json={
        "handle": "Robo", "action": "restore", "note": ""}).status_code == 201
    assert client.post(join, json={"key": robo}).status_code == 201
