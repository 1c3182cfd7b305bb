"""The JSON API exactly as docs/api.md documents it, which outside clients rely on."""
from __future__ import annotations

import pytest

from helpers import path_of, sign_up

PLAYERS = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]


def test_creating_a_game(client):
    response = client.post("/api/games", json={"game": "mastery", "players": PLAYERS,
                                               "options": {"setup": "crown"}})
    assert response.status_code == 201
    body = response.json
    assert isinstance(body["id"], str) and body["id"]
    assert [(s["seat"], s["name"]) for s in body["seats"]] == [(0, "Ann"), (1, "Bob")]
    for seat in body["seats"]:
        assert "/play/" in seat["url"] and seat["api"].endswith(
            "/api/play/" + seat["url"].rsplit("/", 1)[1])
    assert len({s["url"] for s in body["seats"]}) == 2
    state = client.get(path_of(body["seats"][0]["api"])).json
    assert state["view"]["board"]["c1"] == {"owner": 0, "piece": "M"}  # the crown setup


def test_the_public_url_setting_makes_the_links(app, client):
    app.config["PUBLIC_URL"] = "https://games.example.org/"
    body = client.post("/api/games", json={"game": "mastery", "players": PLAYERS}).json
    assert body["seats"][0]["url"].startswith("https://games.example.org/play/")
    assert body["seats"][0]["api"].startswith("https://games.example.org/api/play/")


@pytest.mark.one_database  # a body refused before anything is stored
@pytest.mark.parametrize("body, words", [
    ({"game": "chess", "players": PLAYERS}, "chess"),
    ({"players": PLAYERS}, "game"),
    ({"game": "mastery", "players": PLAYERS[:1]}, "players"),
    ({"game": "mastery", "players": PLAYERS * 2}, "players"),
    ({"game": "mastery", "players": "Ann and Bob"}, "players"),
    ({"game": "mastery", "players": [{"name": "", "email": "a@example.org"}, PLAYERS[1]]}, "name"),
    ({"game": "mastery", "players": [{"name": "Ann", "email": "not-an-email"}, PLAYERS[1]]}, "email"),
    ({"game": "mastery", "players": [{"name": "Ann"}, PLAYERS[1]]}, "email"),
    ({"game": "mastery", "players": PLAYERS, "options": {"speed": "fast"}}, "speed"),
    ({"game": "mastery", "players": PLAYERS, "options": {"setup": "random"}}, "setup"),
    ({"game": "mastery", "players": PLAYERS, "options": ["setup"]}, "ptions"),
    (["mastery"], "JSON object"),
])
def test_invalid_games_are_refused_with_a_reason(client, body, words):
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert words in response.json["error"]


@pytest.mark.one_database  # a body refused before anything is stored
def test_a_body_that_is_not_json_is_refused(client):
    response = client.post("/api/games", data="game=mastery", content_type="text/plain")
    assert response.status_code == 400 and "JSON" in response.json["error"]


@pytest.mark.one_database  # a body refused before anything is stored
def test_an_oversized_body_is_refused(client):
    response = client.post("/api/games", json={"game": "mastery", "players": PLAYERS,
                                               "padding": "x" * 100_000})
    assert response.status_code == 413 and response.json["error"]


def test_the_state_as_a_seat_knows_it(client, new_game):
    game = new_game()
    body = client.get(game.apis[0]).json
    assert set(body) >= {"game", "seat", "ply", "to_move", "legal_moves", "view", "outcome"}
    assert (body["game"], body["seat"], body["ply"], body["to_move"]) == ("mastery", 0, 0, [0])
    assert "d4xc5" in body["legal_moves"] and len(body["legal_moves"]) == 40
    assert body["outcome"] is None
    waiting = client.get(game.apis[1]).json
    assert waiting["seat"] == 1 and waiting["legal_moves"] == []


def test_a_move_answers_with_the_new_state(client, new_game):
    game = new_game()
    response = client.post(f"{game.apis[0]}/moves", json={"move": "d4xc5", "ply": 0})
    assert response.status_code == 200
    assert (response.json["ply"], response.json["to_move"], response.json["seat"]) == (1, [1], 0)
    assert response.json["legal_moves"] == []
    assert "d4" not in response.json["view"]["board"]


def test_the_same_move_sent_again_is_stale_and_recorded_once(client, new_game, db):
    """A request sent twice (a double submit, or a retry after a lost answer): the move the
    seat did play from that ply is stale the second time, as any stale ply is,
    and recorded once; so is another."""
    game = new_game()
    assert client.post(f"{game.apis[0]}/moves", json={"move": "d4xc5", "ply": 0}).status_code \
        == 200
    reply = client.get(game.apis[1]).json["legal_moves"][0]
    assert client.post(f"{game.apis[1]}/moves", json={"move": reply, "ply": 1}).status_code \
        == 200
    again = client.post(f"{game.apis[0]}/moves", json={"move": "d4 x c5", "ply": 0})
    assert again.status_code == 409 and "moved on" in again.json["error"], again.json
    assert db.execute("SELECT count(*) FROM events").fetchone()[0] == 2
    other = client.post(f"{game.apis[0]}/moves", json={"move": "d4xe5", "ply": 0})
    assert other.status_code == 409 and "moved on" in other.json["error"]


def test_move_errors_and_their_statuses(client, new_game):
    game = new_game()
    stale = client.post(f"{game.apis[0]}/moves", json={"move": "d4xc5", "ply": 5})
    assert stale.status_code == 409 and "ply" in stale.json["error"]
    illegal = client.post(f"{game.apis[0]}/moves", json={"move": "d4-d6", "ply": 0})
    assert illegal.status_code == 422 and "d4" in illegal.json["error"]
    malformed = client.post(f"{game.apis[0]}/moves", json={"move": "hello", "ply": 0})
    assert malformed.status_code == 422 and "not a Mastery move" in malformed.json["error"]
    out_of_turn = client.post(f"{game.apis[1]}/moves", json={"move": "e5xd4", "ply": 0})
    assert out_of_turn.status_code == 422 and "turn" in out_of_turn.json["error"]
    bad_ply = client.post(f"{game.apis[0]}/moves", json={"move": "d4xc5", "ply": "0"})
    assert bad_ply.status_code == 400
    assert client.get(game.apis[0]).json["ply"] == 0


def test_unknown_tokens_are_404_in_json(client, new_game):
    new_game()
    for path in ["/api/play/" + "A" * 32, "/api/play/short", "/api/watch/" + "B" * 32]:
        response = client.get(path)
        assert response.status_code == 404 and response.json["error"]
    response = client.post("/api/play/" + "A" * 32 + "/moves", json={"move": "d4xc5", "ply": 0})
    assert response.status_code == 404 and response.json["error"]


def test_spectators_see_the_game_but_cannot_move(client, new_game):
    game = new_game()
    watch_api = "/api/watch/" + game.watch.rsplit("/", 1)[1]
    body = client.get(watch_api).json
    assert body["seat"] is None and body["legal_moves"] == []
    # a spectator link is not a player's link anywhere
    assert client.get("/api/play/" + game.watch.rsplit("/", 1)[1]).status_code == 404
    response = client.post("/api/play/" + game.watch.rsplit("/", 1)[1] + "/moves",
                           json={"move": "d4xc5", "ply": 0})
    assert response.status_code == 404


def test_resign_and_draw_through_the_api(client, new_game):
    game = new_game()
    offer = client.post(f"{game.apis[0]}/draw", json={"answer": "offer"})
    assert offer.status_code == 200 and offer.json["draw_offer"] == 0
    assert client.post(f"{game.apis[0]}/draw", json={"answer": "accept"}).status_code == 422
    declined = client.post(f"{game.apis[1]}/draw", json={"answer": "decline"})
    assert declined.json["draw_offer"] is None
    assert client.post(f"{game.apis[1]}/draw", json={"answer": "maybe"}).status_code == 400
    client.post(f"{game.apis[1]}/draw", json={"answer": "offer"})
    accepted = client.post(f"{game.apis[0]}/draw", json={"answer": "accept"})
    assert accepted.json["outcome"] == {"winners": [], "draw": True, "reason": "draw agreed"}
    assert accepted.json["to_move"] == []
    assert client.post(f"{game.apis[0]}/resign", json={}).status_code == 422

    other = new_game()
    resigned = client.post(f"{other.apis[1]}/resign", json={"ply": 0})  # one step for two
    assert resigned.json["outcome"] == {"winners": [0], "draw": False,
                                        "reason": "Player 2 resigned"}  # named
    moved = client.post(f"{other.apis[0]}/moves", json={"move": "d4xc5", "ply": 0})
    assert moved.status_code == 422 and "over" in moved.json["error"]


@pytest.mark.one_database  # how a body is read
def test_an_action_that_takes_no_parameters_accepts_an_empty_body(client, db, new_game):
    """/resign, /rematch, /takeback, a tournament's /start and /entry
    read an empty body, typed as JSON or not at all, as {}."""
    def empty(path: str, content_type: str | None = None):
        return client.post(path, data=b"", content_type=content_type)

    game = new_game()
    client.post(f"{game.apis[0]}/moves", json={"move": "d4xc5", "ply": 0})
    asked = empty(f"{game.apis[0]}/takeback")
    assert asked.status_code == 202 and asked.json["takeback_offer"] == 0
    resigned = empty(f"{game.apis[1]}/resign", "application/json")
    assert resigned.status_code == 200 and resigned.json["outcome"]["winners"] == [0]
    assert empty(f"{game.apis[0]}/rematch").status_code == 202
    assert empty(f"{game.apis[1]}/rematch").status_code == 201

    ann, bob = (path_of(sign_up(client, db, handle)) for handle in ("Ann", "Bob"))
    cup = client.post(f"{ann}/tournaments", json={"name": "Cup", "game": "mastery",
                                                  "format": "round-robin"}).json["id"]
    assert [empty(f"{key}/tournaments/{cup}/entry").status_code for key in (ann, bob)] == \
        [201, 201]
    assert empty(f"{ann}/tournaments/{cup}/start").status_code == 200
    assert client.post(f"{game.apis[0]}/resign", data=b"[]",
                       content_type="application/json").status_code == 400


def test_a_move_by_the_opponent_declines_a_standing_draw_offer(client, new_game):
    game = new_game()
    client.post(f"{game.apis[1]}/draw", json={"answer": "offer"})
    assert client.post(f"{game.apis[0]}/moves",
                       json={"move": "d4xc5", "ply": 0}).json["draw_offer"] is None
    # the offerer moving on keeps their own offer open
    client.post(f"{game.apis[1]}/draw", json={"answer": "offer"})
    assert client.post(f"{game.apis[1]}/moves",
                       json={"move": "b6xc5", "ply": 1}).json["draw_offer"] == 1


TEAMS = ["Ann", "Bob", "Cid", "Dee"]  # The Right Moves for four: Ann and Cid play Red


def test_a_team_resigns_only_when_the_partner_confirms(client, new_game):
    game = new_game("the-right-moves", players=4, names=TEAMS)
    proposed = client.post(f"{game.apis[0]}/resign", json={})
    assert proposed.status_code == 200
    assert proposed.json["resign_offers"] == [0] and proposed.json["outcome"] is None
    again = client.post(f"{game.apis[0]}/resign", json={})
    assert again.status_code == 422 and "waits for Cid" in again.json["error"]
    assert client.post(f"{game.apis[1]}/resign", json={"answer": "decline"}).status_code == 422
    assert client.post(f"{game.apis[2]}/resign", json={"answer": "yes"}).status_code == 400
    declined = client.post(f"{game.apis[2]}/resign", json={"answer": "decline"})
    assert declined.json["resign_offers"] == [] and declined.json["outcome"] is None
    assert client.post(f"{game.apis[2]}/resign", json={}).json["resign_offers"] == [2]
    # the other team may deliberate at the same time; each team's talk is its own
    assert client.post(f"{game.apis[3]}/resign", json={}).json["resign_offers"] == [3]
    assert client.get(game.apis[2]).json["resign_offers"] == [2]
    assert client.get(game.watch.replace("/watch/", "/api/watch/")).json["resign_offers"] == []
    blue_record = client.get(f"{game.urls[1]}/record.json").get_json(force=True)
    assert [(e["seat"], e["action"]) for e in blue_record["events"]] == [(3, "resign_offer")]
    confirmed = client.post(f"{game.apis[0]}/resign", json={})
    assert confirmed.json["outcome"] == {"winners": [1, 3], "draw": False,
                                         "reason": "team Red resigned"}
    assert confirmed.json["resign_offers"] == []
    assert client.get(game.apis[1]).json["outcome"] == confirmed.json["outcome"]
    assert client.post(f"{game.apis[1]}/resign", json={}).status_code == 422  # over
    # the log keeps every step, and the record names the players
    record = client.get(f"{game.urls[1]}/record.json").get_json(force=True)
    assert [(e["seat"], e["action"]) for e in record["events"]] == [
        (0, "resign_offer"), (2, "resign_decline"), (2, "resign_offer"), (3, "resign_offer"),
        (0, "resign_accept")]
    assert record["result"] == "Bob and Dee won (team Blue): team Red resigned"
    text = client.get(f"{game.urls[1]}/record.txt").get_data(as_text=True)
    assert "Result: Bob and Dee won (team Blue): team Red resigned" in text
    assert "Cid (Red (2)): resign decline" in text


@pytest.mark.one_database  # what a result says
def test_results_and_reasons_name_the_players(app, new_game):
    """Every reason the engines give names sides; the server names the players instead."""
    from dataclasses import replace

    import engine
    from pbem import matches
    from pbem.web.database import get_db

    cases = [("mastery", 2, (1,), "Dark has no Masters left",
              "Bob won: Ann has no Masters left"),
             ("magnet", 2, (0,), "Red captured Blue's king", "Ann won: Ann captured Bob's king"),
             ("the-right-moves", 2, (0,), "Red filled the inner circle",
              "Ann won: Ann filled the inner circle"),
             ("the-right-moves", 4, (0, 2), "Blue (2) has no legal move",
              "Ann and Cid won (team Red): Dee has no legal move"),
             ("the-right-moves", 4, (1, 3), "Red filled the inner circle",
              "Bob and Dee won (team Blue): team Red filled the inner circle"),
             ("the-right-moves", 4, (), "the same position occurred three times",
              "Draw: the same position occurred three times")]
    for game_id, players, winners, reason, result in cases:
        game = new_game(game_id, players=players, names=TEAMS)
        with app.test_request_context():
            match = matches.load(get_db(), game.id)
        ended = replace(match, current=match.game.conclude(
            match.current, engine.Outcome(winners, not winners, reason)))
        assert ended.result == result, game_id
