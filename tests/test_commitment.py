"""Secret setups committed (``pbem/commitment.py``): a game with hidden information shows
the SHA-256 of its seed from the start, and the seed once it is over, from which anyone
replays the game as it was played."""
from __future__ import annotations

import dataclasses
import hashlib
import re

import engine
import pytest

from pbem import matches
from pbem.web.database import get_db

from helpers import api_move, path_of

pytestmark = pytest.mark.one_database  # what game answers show, and the engine's replay

PLAYERS = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]


def started(client, game: str, options: dict) -> dict:
    created = client.post("/api/games", json={"game": game, "players": PLAYERS,
                                              "options": options})
    assert created.status_code == 201, created.json
    return created.json


def replayed(client, watch: str, commitment: str):
    """The game replayed as its check says: from its JSON record's seed and moves, once
    the seed's SHA-256 is the commitment."""
    record = client.get(f"{watch}/record.json").json
    assert hashlib.sha256(record["seed"].encode()).hexdigest() == commitment
    moves = [(e["seat"], e["move"]) for e in record["events"] if e["action"] == "move"]
    return engine.get(record["game"]).replay(len(record["players"]), record["options"],
                                             record["seed"], moves)


def test_magnetic_field_commits_to_its_deck_and_replays_from_the_revealed_seed(app, client):
    created = started(client, "magnetic-field", {"colours": "seat0-blue"})
    apis = [path_of(seat["api"]) for seat in created["seats"]]
    page, watch = path_of(created["seats"][0]["url"]), path_of(created["spectator"])
    answer = client.get(apis[0]).json
    commitment = answer["commitment"]
    assert re.fullmatch(r"[0-9a-f]{64}", commitment) and "seed" not in answer
    with app.test_request_context():
        seed = matches.load(get_db(), created["id"]).seed
    assert re.fullmatch(r"[0-9a-f]{32}", seed)  # 128 random bits: no search finds it
    shown = client.get(page).get_data(as_text=True)
    assert commitment in shown and seed not in shown and "Check this game" in shown
    assert seed not in client.get(f"{page}/record.json").get_data(as_text=True)

    # the draft, then each enters a figure: the two stick, both go back to hand, and with
    # no figure on the field and the scores equal the game is drawn (each drew a tile)
    for seat, move in [(0, "pick K"), (1, "pick K"), (0, "pick D"), (1, "pick D"),
                       (0, "+a1:n"), (1, "+a2:n")]:
        answer = api_move(client, apis[seat], move)
        assert answer["commitment"] == commitment
    assert answer["outcome"]["draw"] and answer["seed"] == seed
    assert client.get(f"{watch.replace('/watch/', '/api/watch/')}").json["seed"] == seed
    over = client.get(watch).get_data(as_text=True)
    assert seed in over and commitment in over and "replay(" in over

    final = replayed(client, watch, commitment)
    with app.test_request_context():
        assert final == matches.load(get_db(), created["id"]).current  # hands, deck and all
    assert final.hands != ("", "") and final.deck  # what the seed dealt is in it


def test_a_random_magnet_setup_is_committed_and_a_resigned_game_replays(app, client):
    created = started(client, "magnet", {"random_setup": True})
    apis = [path_of(seat["api"]) for seat in created["seats"]]
    watch = path_of(created["spectator"])
    answer = client.get(apis[0]).json
    commitment = answer["commitment"]
    [mover] = answer["to_move"]
    api_move(client, apis[mover], client.get(apis[mover]).json["legal_moves"][0])
    assert client.post(f"{apis[1 - mover]}/resign", json={}).status_code == 200
    final = replayed(client, watch, commitment)
    with app.test_request_context():
        match = matches.load(get_db(), created["id"])
    # the resignation is the server's: the position is the one both setups and the move made
    assert dataclasses.replace(final, to_move=(), outcome=match.current.outcome) \
        == match.current
    assert final.board == match.current.board and final.ply == 1


def test_games_without_hidden_information_publish_no_commitment(client, new_game):
    game = new_game("mastery")
    answer = client.get(game.apis[0]).json
    assert "commitment" not in answer and "seed" not in answer
    assert "Check this game" not in client.get(game.urls[0]).get_data(as_text=True)
