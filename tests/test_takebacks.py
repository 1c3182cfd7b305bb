"""Takebacks: asked and answered from the page, the API and an email reply; accepted, the
position goes back by events appended to the log, which only grows."""
from __future__ import annotations

import re

import pytest

import engine
from pbem.mail import inbound

from helpers import api_move
from test_inbound import only, post, write_reply  # noqa: F401 - the shared fixture

MASTERY = engine.GAMES["mastery"]


def play(client, game, count: int) -> list[str]:
    """``count`` plies of the first legal moves, Dark first; the moves played."""
    state, played = MASTERY.start(2, None, ""), []
    for ply in range(count):
        move = MASTERY.legal_moves(state, ply % 2)[0]
        api_move(client, game.apis[ply % 2], move)
        state = MASTERY.apply(state, ply % 2, move)
        played.append(move)
    return played


def kinds(db, game_id: str) -> list[str]:
    return [row[0] for row in db.execute("SELECT kind FROM events WHERE game_id = ? "
                                         "ORDER BY seq", [game_id])]


def test_an_accepted_takeback_undoes_the_move_and_the_reply_by_new_events(client, db,
                                                                           new_game):
    game = new_game("mastery")
    first, reply = play(client, game, 2)
    asked = client.post(f"{game.apis[0]}/takeback")
    assert asked.status_code == 202 and asked.json["takeback_offer"] == 0
    answered = client.post(f"{game.apis[1]}/takeback", json={"answer": "accept"})
    assert answered.status_code == 200
    now = client.get(game.apis[0]).json
    assert now["ply"] == 0 and now["to_move"] == [0] and now["takeback_offer"] is None
    assert first in now["legal_moves"]
    assert kinds(db, game.id) == ["move", "move", "takeback_offer", "takeback_accept"]
    # the record keeps the moves taken back, each marked so once, and the takeback
    record = client.get(f"{game.apis[1]}/record").json
    assert [e.get("move") for e in record["events"]] == [first, reply, None, None]
    assert [e.get("taken_back") for e in record["events"]] == [True, True, None, None]
    # the game goes on from there, with another move this time
    other = now["legal_moves"][1]
    api_move(client, game.apis[0], other)
    assert client.get(game.apis[1]).json["ply"] == 1
    assert client.get(f"{game.apis[1]}/record?format=apgamerecord").json["moves"] == [
        [other, None]]
    text = client.get(f"{game.urls[1]}/record.txt").text
    assert f"   1. Dark: {first} (taken back)\n   2. Light: {reply} (taken back)\n" in text
    assert f"   1. Dark: {other}\n" in text and text.count("(taken back)") == 2
    # the options in the form's words, not their codes
    assert "Starting position: Imperial\nDraw by threefold repetition: yes\n" in text
    assert "(ход возвращён)" in client.get(f"{game.urls[1]}/record.txt",
                                           headers={"Accept-Language": "ru"}).text


def test_a_takeback_before_the_reply_undoes_one_move(client, new_game):
    game = new_game("mastery")
    play(client, game, 1)
    client.post(f"{game.apis[0]}/takeback", json={})
    client.post(f"{game.apis[1]}/takeback", json={"answer": "accept"})
    assert client.get(game.apis[1]).json["ply"] == 0


def test_a_new_move_cancels_the_request_and_a_decline_changes_nothing(client, db, new_game):
    game = new_game("mastery")
    play(client, game, 2)
    client.post(f"{game.apis[1]}/takeback")  # Light asks, Dark to move plays on instead
    dark_move = client.get(game.apis[0]).json["legal_moves"][0]
    api_move(client, game.apis[0], dark_move)
    assert client.get(game.apis[1]).json["takeback_offer"] is None
    late = client.post(f"{game.apis[0]}/takeback", json={"answer": "accept"})
    assert late.status_code == 422 and "no request" in late.json["error"]

    assert client.post(f"{game.apis[0]}/takeback").status_code == 202
    declined = client.post(f"{game.apis[1]}/takeback", json={"answer": "decline"})
    assert declined.status_code == 200 and declined.json["ply"] == 3
    assert kinds(db, game.id)[-2:] == ["takeback_offer", "takeback_decline"]
    # both are told, until the asker moves again
    assert "Player 2 declined your request to take back your last move" in \
        client.get(game.urls[0]).text
    assert "You declined Player 1&#39;s request" in client.get(game.urls[1]).text
    api_move(client, game.apis[1], client.get(game.apis[1]).json["legal_moves"][0])
    api_move(client, game.apis[0], client.get(game.apis[0]).json["legal_moves"][0])
    assert "declined" not in client.get(game.urls[1]).text


@pytest.mark.parametrize("body, status, words", [
    ({"answer": "maybe"}, 400, "accept or decline"),
    (None, 422, "no move to take back"),
])
def test_a_takeback_that_cannot_be_is_refused_and_changes_nothing(client, db, new_game,
                                                                  body, status, words):
    game = new_game("mastery")
    before = kinds(db, game.id)
    response = client.post(f"{game.apis[0]}/takeback", json=body) if body \
        else client.post(f"{game.apis[0]}/takeback")
    assert response.status_code == status and words in response.json["error"]
    assert kinds(db, game.id) == before


@pytest.mark.parametrize("game_id, players", [("magnet", 2), ("the-right-moves", 4)])
def test_no_takebacks_with_hidden_information_or_more_than_two_players(client, new_game,
                                                                       game_id, players):
    game = new_game(game_id, players=players)
    refused = client.post(f"{game.apis[0]}/takeback")
    assert refused.status_code == 422 and "two-player games" in refused.json["error"]
    assert 'id="ask-takeback"' not in client.get(game.urls[0]).get_data(as_text=True)


def test_takebacks_from_the_page(client, new_game):
    game = new_game("mastery")
    play(client, game, 2)
    page = client.get(game.urls[0]).get_data(as_text=True)
    assert 'id="ask-takeback"' in page
    client.post(f"{game.urls[0]}/takeback", data={"answer": "offer", "ply": "2"})
    light = client.get(game.urls[1]).get_data(as_text=True)
    assert "asks to take back their last move: accept or decline it." in light
    client.post(f"{game.urls[1]}/takeback", data={"answer": "accept", "ply": "2"})
    assert client.get(game.apis[0]).json["ply"] == 0


def test_takebacks_by_email_reply(app, client, db, new_game, post):
    game = new_game("mastery")
    play(client, game, 2)
    post()
    client.post(f"{game.apis[0]}/takeback")
    asked = only(post(), "p2@example.org")
    assert "asks to take back their last move" in asked.get_body(("plain",)).get_content()
    with app.app_context():
        assert inbound.receive(db, bytes(write_reply(asked, "accept"))).status == "recorded"
    assert client.get(game.apis[0]).json["ply"] == 0
    assert kinds(db, game.id)[-1] == "takeback_accept"


# -- staleness across a takeback: the game's version ---------------------------------------

FORM_SEEN = re.compile(r'<form method="post" action="[^"]*/move" class="typed">.*?'
                       r'<input type="hidden" name="(ply|version)" value="(\d+)">', re.DOTALL)


def test_a_page_and_an_api_client_from_before_a_takeback_are_stale_at_the_same_ply(
        client, db, new_game):
    """Dark saw ply 2; Dark's move and Light's reply are taken back and played again, Light
    replying otherwise: ply 2 has come back in a position Dark never saw (issue 37). Dark's
    page and API client of then are refused as stale, and change nothing; the version of
    now plays."""
    game = new_game("mastery")
    first, reply = play(client, game, 2)
    page = client.get(game.urls[0]).get_data(as_text=True)
    saw = client.get(game.apis[0]).json
    client.post(f"{game.apis[0]}/takeback")
    client.post(f"{game.apis[1]}/takeback", json={"answer": "accept"})
    api_move(client, game.apis[0], first)
    other = [m for m in client.get(game.apis[1]).json["legal_moves"] if m != reply][0]
    api_move(client, game.apis[1], other)
    now = client.get(game.apis[0]).json
    assert now["ply"] == saw["ply"] == 2 and now["version"] > saw["version"]
    move = now["legal_moves"][0]  # legal now: only staleness refuses it
    logged = kinds(db, game.id)

    name, value = FORM_SEEN.search(page).groups()
    from_page = client.post(f"{game.urls[0]}/move", data={"move": move, name: value})
    assert from_page.status_code == 409
    assert "A move was taken back since you loaded the game" in from_page.get_data(as_text=True)
    from_api = client.post(f"{game.apis[0]}/moves", json={"move": move, "version": saw["version"]})
    assert from_api.status_code == 409 and "taken back" in from_api.json["error"]
    both = client.post(f"{game.apis[0]}/moves", json={"move": move, "ply": 2,
                                                     "version": saw["version"]})
    assert both.status_code == 409
    assert kinds(db, game.id) == logged

    assert client.post(f"{game.apis[0]}/moves", json={
        "move": move, "version": now["version"]}).status_code == 200


def test_an_email_from_before_a_takeback_is_stale_and_one_from_before_versions_still_plays(
        app, client, db, new_game, post):
    game = new_game("mastery")
    first, reply = play(client, game, 2)
    [then] = [m for m in post() if m["To"] == "p1@example.org"
              and m["Subject"].startswith("Your move")]  # Dark's turn at ply 2
    client.post(f"{game.apis[0]}/takeback")
    client.post(f"{game.apis[1]}/takeback", json={"answer": "accept"})
    api_move(client, game.apis[0], first)
    other = [m for m in client.get(game.apis[1]).json["legal_moves"] if m != reply][0]
    api_move(client, game.apis[1], other)
    move = client.get(game.apis[0]).json["legal_moves"][0]
    logged = kinds(db, game.id)
    with app.app_context():
        stale = inbound.receive(db, bytes(write_reply(then, move)))
    assert stale.status == "stale" and "taken back" in stale.error
    assert kinds(db, game.id) == logged
    [answer] = [m for m in post() if m["In-Reply-To"] and m["To"] == "p1@example.org"
                and m["Subject"].startswith("Not played: the game moved on")]
    assert "A move was taken back since you loaded the game" in answer.get_body(
        ("plain",)).get_content()

    # an address of an email sent before versions names the ply it was written at
    current = re.sub(r"\+v\d+\.", "+2.", answer["Reply-To"])
    with app.app_context():
        played = inbound.receive(db, bytes(write_reply(answer, move, to=current)))
    assert played.status == "recorded"
    assert client.get(game.apis[0]).json["ply"] == 3
