"""A player the moderators muted replies to a game email with a move and a message: the move
is played, the message is not posted, and the answer says why (in the seat's language),
through the real mail path: the game's emails delivered over SMTP on loopback, the reply
sent to the app's own mail listener."""
from __future__ import annotations

import pytest

from test_inbound import (REPLY_TO, answer_to, chat, events, legal, listener, post,  # noqa: F401
                          send, text_of, write_reply)
from test_moderation import key_path, moderator, two_keys
from test_ratings import seat_apis

BOB = "bob@example.org"
SILENCED = ("Your message was not posted to the game's chat: the site's moderators have "
            "muted you.")


def muted_bob_to_move(app, client, db, post, **bob):
    """Bob (muted by a moderator) and Ann in a game, Bob to move: the game as created and
    Bob's start email."""
    bob_key, ann_key = two_keys(client, db, "Bob", "Ann")
    mod = moderator(app, client, db)
    assert client.post(f"{key_path(mod)}/moderation/actions", json={
        "handle": "Bob", "action": "mute", "note": "Mind your words."}).status_code == 201
    game = game_of(client, {"key": bob_key, **bob}, {"key": ann_key})
    (started,) = [m for m in post() if m["To"] == BOB and m["Reply-To"]
                  and REPLY_TO.fullmatch(m["Reply-To"])]
    return game, started


def game_of(client, *players: dict) -> dict:
    created = client.post("/api/games", json={"game": "mastery", "players": list(players)})
    assert created.status_code == 201, created.json
    return created.json


def test_a_muted_players_reply_plays_the_move_and_drops_the_message(app, client, db, post,
                                                                      listener):
    game, started = muted_bob_to_move(app, client, db, post)
    bob_api, ann_api = seat_apis(game)
    move = legal(client, bob_api)[0]
    reply = write_reply(started, f"{move}\nYou will lose, fool.")
    send(listener.port, reply)
    assert events(db) == [(0, "move", move)]
    assert chat(db) == []
    assert client.get(ann_api).json["chat"] == []
    delivered = post()
    answer = answer_to(delivered, reply, BOB)
    assert answer["Subject"].startswith("Recorded")
    assert f"Your move {move} was recorded. {SILENCED}" in text_of(answer)
    assert not any("You will lose" in text_of(m) for m in delivered)

    # a reply of a message alone is refused whole, as before: nothing to play
    say = write_reply(answer, "say Hello?")
    send(listener.port, say)
    assert chat(db) == [] and len(events(db)) == 1
    assert "muted" in text_of(answer_to(post(), say, BOB))


@pytest.mark.one_database  # what an answer says
def test_a_muted_russian_seat_is_told_in_russian(app, client, db, post, listener):
    game, started = muted_bob_to_move(app, client, db, post, language="ru")
    move = legal(client, seat_apis(game)[0])[0]
    reply = write_reply(started, f"{move}\nПривет")
    send(listener.port, reply)
    assert events(db) == [(0, "move", move)]
    body = text_of(answer_to(post(), reply, BOB))
    assert "Ваше сообщение не опубликовано в чате партии: модераторы сайта лишили вас права " \
           "писать в чат." in body
    assert SILENCED not in body
