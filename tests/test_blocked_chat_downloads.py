"""A blocked player's chat is not in what the blocker downloads: the game's record (its JSON
and text downloads, the API's record) and the blocker's data export hide the same messages
as the game's page, for the blocker alone; the blocked player and a spectator get what
their own page shows."""
from __future__ import annotations

from helpers import path_of
from test_moderation import chat, game_by_keys, key_path, two_keys
from test_ratings import mastery_resign, seat_apis

RUDE = "a rude remark from Bob"
KIND = "a kind word from Ann"


def downloads(client, seat: dict) -> dict[str, str]:
    """What the seat (or a spectator's link, ``{"url"}``) downloads of the game's record."""
    page = path_of(seat["url"])
    found = {"page": client.get(page).get_data(as_text=True),
             "record.json": client.get(f"{page}/record.json").get_data(as_text=True),
             "record.txt": client.get(f"{page}/record.txt").get_data(as_text=True)}
    if "api" in seat:
        found["api"] = client.get(f"{path_of(seat['api'])}/record").get_data(as_text=True)
    return found


def exported_chat(client, key: str, game_id: str) -> list[str]:
    exported = client.get(f"{key_path(key)}/export")
    assert exported.status_code == 200
    (game,) = [g for g in exported.json["games"] if g["id"] == game_id]
    return [said["text"] for said in game["chat"]]


def test_the_blockers_record_and_export_leave_out_the_blocked_players_chat(client, db):
    ann, bob = two_keys(client, db, "Ann", "Bob")
    shared = game_by_keys(client, ann, bob)
    ann_api, bob_api = seat_apis(shared)
    assert client.post(f"{key_path(ann)}/blocks", json={"handle": "Bob"}).status_code == 201
    assert chat(client, bob_api, RUDE).status_code == 201
    assert chat(client, ann_api, KIND).status_code == 201

    ann_seat, bob_seat = shared["seats"]
    for what, text in downloads(client, ann_seat).items():
        assert RUDE not in text, what
        assert KIND in text, what  # the rest of the chat is there
    assert exported_chat(client, ann, shared["id"]) == [KIND]

    # the blocked player reads (and downloads) the whole chat, as their page shows it
    for what, text in downloads(client, bob_seat).items():
        assert RUDE in text and KIND in text, what
    assert exported_chat(client, bob, shared["id"]) == [RUDE, KIND]

    # a spectator reads the chat once the game is over, blocks of the players aside
    mastery_resign(client, ann_api)
    watched = downloads(client, {"url": shared["spectator"]})
    for what, text in watched.items():
        assert RUDE in text and KIND in text, what

    # the block undone: the blocker's downloads have it all again
    assert client.delete(f"{key_path(ann)}/blocks/Bob").status_code == 200
    for what, text in downloads(client, ann_seat).items():
        assert RUDE in text, what
    assert exported_chat(client, ann, shared["id"]) == [RUDE, KIND]


def test_a_seat_that_muted_another_downloads_the_game_without_its_chat(client, new_game):
    """A seat's mute, in a game without accounts, hides the same messages from its record."""
    game = new_game()
    assert client.post(f"{game.apis[1]}/chat", json={"text": RUDE}).status_code == 201
    assert client.post(f"{game.urls[0]}/mute",
                       data={"seat": "1", "on": "yes"}).status_code in (200, 303)
    for what, text in downloads(client, {"url": game.urls[0], "api": game.apis[0]}).items():
        assert RUDE not in text, what
    for what, text in downloads(client, {"url": game.urls[1], "api": game.apis[1]}).items():
        assert RUDE in text, what
