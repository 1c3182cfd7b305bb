"""Rated games and ratings (issue 24, item 4): players known across games play rated
two-player games, made by key through the API or from the lobby; each game's end changes
both players' Glicko-2 ratings in the transaction that records it; ratings show on profiles,
the player's own list, seat labels, the lobby and a leaderboard per game."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from flask import url_for

from engine import bots
from pbem import creation, glicko, players, ratings
from pbem.jobs import scheduler
from pbem.web.database import get_db

from helpers import NewGame, normalised, path_of, sign_up

CLOCK = {"mode": "per_move", "days": 3}  # a rated game's


def rated(client, players, game="mastery", **extra):
    return client.post("/api/games", json={"game": game, "players": players, "rated": True,
                                           "clock": CLOCK, **extra})


def opened(client, apis: list[str], moves: int = 2) -> None:
    """Each player's first ``moves`` moves of a game between two people, the first legal
    move each time: from two on, a rated game's end counts."""
    for _ in range(2 * moves):
        state = client.get(path_of(apis[0])).json
        [mover] = state["to_move"]
        move = client.get(path_of(apis[mover])).json["legal_moves"][0]
        assert client.post(f"{path_of(apis[mover])}/moves", json={
            "move": move, "ply": state["ply"]}).status_code == 200


def seat_apis(game: dict) -> list[str]:
    return [seat["api"] for seat in game["seats"]]


def mastery_resign(client, api: str) -> None:
    assert client.post(f"{path_of(api)}/resign", json={}).status_code == 200


def give_rating(db, handle: str, rating: float, deviation: float) -> None:
    """As if ``handle`` had played rated games of Mastery."""
    db.execute("INSERT INTO ratings (player_id, game, rating, deviation, volatility, games, "
               "updated_at) SELECT id, 'mastery', ?, ?, 0.06, 20, 'now' FROM players "
               "WHERE handle = ?", [rating, deviation, handle])


def profile(client, handle: str) -> dict:
    return client.get(f"/api/players/{handle}").json


@pytest.fixture
def ann(client, db):
    return sign_up(client, db, "Ann")


@pytest.fixture
def bob(client, db):
    return sign_up(client, db, "Bob")


def test_a_rated_game_by_keys_changes_both_ratings_when_it_ends(client, db, ann, bob):
    created = rated(client, [{"key": ann}, {"key": bob}])
    assert created.status_code == 201, created.json
    first, second = created.json["seats"]
    assert (first["name"], second["name"]) == ("Ann", "Bob")
    assert client.get(path_of(first["api"])).json["rated"] is True
    assert profile(client, "Ann")["ratings"] == {}
    play = client.get(path_of(first["url"])).get_data(as_text=True)
    assert "Ann (1500?)" in play and "Bob (1500?)" in play

    opened(client, seat_apis(created.json))
    mastery_resign(client, second["api"])  # Bob resigns: Ann wins

    won, lost = glicko.game(glicko.Rating(), glicko.Rating(), 1)
    assert profile(client, "Ann")["ratings"] == {"mastery": {
        "rating": round(won.rating, 2), "deviation": round(won.deviation, 2), "games": 1,
        "provisional": True}}
    assert profile(client, "Bob")["ratings"]["mastery"]["rating"] == round(lost.rating, 2)
    assert profile(client, "Bob")["games"][0]["rated"] is True
    mine = client.get(path_of(ann)).json
    assert mine["ratings"]["mastery"]["games"] == 1
    assert [(g["id"], g["rated"]) for g in mine["games"]] == [(created.json["id"], True)]
    after = client.get(path_of(first["url"])).get_data(as_text=True)
    assert f"Ann (1500 → {round(won.rating)})" in after
    # provisional players are left out of the leaderboard
    assert client.get("/api/ratings/mastery").json == {"players": []}


def test_the_rematch_of_a_rated_game_is_rated_between_the_same_players(client, ann, bob):
    game = rated(client, [{"key": ann}, {"key": bob}]).json
    apis = [path_of(seat["api"]) for seat in game["seats"]]
    opened(client, apis)
    mastery_resign(client, apis[1])
    assert client.post(f"{apis[1]}/rematch", json={}).status_code == 202
    new = client.post(f"{apis[0]}/rematch", json={})
    assert new.status_code == 201
    assert client.get(path_of(new.json["api"])).json["rated"] is True
    [bob_again] = [g["api"] for g in client.get(path_of(bob)).json["games"]
                   if g["id"] == new.json["id"]]
    opened(client, [bob_again, new.json["api"]])  # Bob moves first now
    mastery_resign(client, new.json["api"])  # Ann, Light now, resigns: one game each
    for handle in ("Ann", "Bob"):
        assert profile(client, handle)["ratings"]["mastery"]["games"] == 2
        assert len(profile(client, handle)["games"]) == 2


def test_games_count_in_the_order_they_end_and_each_once(client, db, ann, bob):
    games = [rated(client, [{"key": ann}, {"key": bob}]).json for _ in range(3)]
    for game in games:
        opened(client, seat_apis(game))
    mastery_resign(client, games[2]["seats"][0]["api"])  # Bob wins the third first
    mastery_resign(client, games[0]["seats"][1]["api"])  # then Ann the first
    assert client.post(f"{path_of(games[0]['seats'][1]['api'])}/resign",
                       json={}).status_code == 422  # over: nothing counts twice
    a, b = glicko.Rating(), glicko.Rating()
    b, a = glicko.game(b, a, 1)
    a, b = glicko.game(a, b, 1)
    assert profile(client, "Ann")["ratings"]["mastery"]["rating"] == round(a.rating, 2)
    assert profile(client, "Bob")["ratings"]["mastery"]["rating"] == round(b.rating, 2)
    assert profile(client, "Bob")["ratings"]["mastery"]["games"] == 2


def test_a_draw_between_equals_changes_no_rating_but_narrows_the_deviations(client, ann, bob):
    game = rated(client, [{"key": ann}, {"key": bob}]).json
    apis = [path_of(seat["api"]) for seat in game["seats"]]
    opened(client, apis)
    assert client.post(f"{apis[0]}/draw", json={"answer": "offer"}).status_code == 200
    assert client.post(f"{apis[1]}/draw", json={"answer": "accept"}).status_code == 200
    for handle in ("Ann", "Bob"):
        rating = profile(client, handle)["ratings"]["mastery"]
        assert rating["rating"] == 1500 and rating["deviation"] < 350


def test_a_rated_game_ended_before_each_player_made_two_moves_changes_no_rating(
        client, db, ann, bob):
    """As lichess aborts them (issue 37: 30 agreed draws and 60 resignations at ply 0 put
    a player on a leaderboard with no move played)."""
    drawn = seat_apis(rated(client, [{"key": ann}, {"key": bob}]).json)
    assert client.post(f"{path_of(drawn[0])}/draw", json={"answer": "offer"}).status_code == 200
    assert client.post(f"{path_of(drawn[1])}/draw", json={"answer": "accept"}).status_code == 200
    short = rated(client, [{"key": ann}, {"key": bob}]).json
    opened(client, seat_apis(short), moves=1)
    state = client.get(path_of(short["seats"][0]["api"])).json
    assert client.post(f"{path_of(short['seats'][0]['api'])}/moves", json={
        "move": state["legal_moves"][0], "ply": state["ply"]}).status_code == 200
    mastery_resign(client, short["seats"][1]["api"])  # Ann made two moves, Bob one
    assert profile(client, "Ann")["ratings"] == {} == profile(client, "Bob")["ratings"]
    assert db.execute("SELECT COUNT(*) FROM rating_changes").fetchone()[0] == 0
    page = client.get(path_of(short["seats"][0]["url"])).get_data(as_text=True)
    assert "It changes no rating: it ended before each player had made two moves." in page
    assert "Ann (1500?)" in page  # no "1500 → ...": nothing changed

    counted = rated(client, [{"key": ann}, {"key": bob}]).json
    opened(client, seat_apis(counted))
    mastery_resign(client, counted["seats"][1]["api"])
    assert profile(client, "Ann")["ratings"]["mastery"]["games"] == 1
    page = client.get(path_of(counted["seats"][0]["url"])).get_data(as_text=True)
    assert "It changes no rating" not in page


def test_a_rated_game_needs_a_clock_that_a_timeout_loses_wherever_it_is_made(client, ann):
    """The API, the new game's form (and so the lobby's challenges), a tournament: without
    a clock a losing player could stop moving forever (issue 37)."""
    for clock in ({"mode": "none"}, None, {"mode": "per_move", "days": 3, "on_timeout": "draw"}):
        refused = client.post("/api/games", json={
            "game": "mastery", "players": [{"key": ann}, {"open": True}], "rated": True,
            "public": True, **({"clock": clock} if clock else {})})
        assert refused.status_code == 422
        assert "clock" in refused.json["error"]
    assert rated(client, [{"key": ann}, {"bot": "easy"}]).status_code == 201
    form = {"players": "2", "name0": "Ann", "email0": "ann@example.org", "open1": "yes",
            "public": "yes", "rated": "yes", "clock-mode": "none"}
    page = client.post("/new/mastery", data=form)
    assert page.status_code == 422
    assert "A rated game needs a clock" in page.get_data(as_text=True)
    assert client.post("/new/mastery", data={**form, "clock-mode": "per_move",
                                             "clock-days": "3"}).status_code == 303
    cup = client.post(f"{path_of(ann)}/tournaments", json={
        "name": "Cup", "game": "mastery", "format": "swiss", "rated": True})
    assert cup.status_code == 422 and "A rated game needs a clock" in cup.json["error"]
    assert client.post(f"{path_of(ann)}/tournaments", json={
        "name": "Cup", "game": "mastery", "format": "swiss", "rated": True,
        "clock": CLOCK}).status_code == 201


def test_each_computer_level_is_a_rated_player(app, client, ann):
    game = rated(client, [{"key": ann}, {"bot": "easy"}])
    assert game.status_code == 201, game.json
    mine = path_of(game.json["seats"][0]["api"])
    for _ in range(2):
        state = client.get(mine).json
        client.post(f"{mine}/moves", json={"move": state["legal_moves"][0], "ply": state["ply"]})
        assert scheduler.play_bots(app) == 1
    start = ratings.COMPUTER_RATINGS["mastery"]["easy"]
    mastery_resign(client, mine)
    computer = profile(client, "computer-easy")["ratings"]["mastery"]
    # The level began at its fitted rating, established, and won.
    assert computer["rating"] > start and computer["games"] == 1
    assert not computer["provisional"]
    # Ann, new, lost to the level as its fitted rating stood.
    expected = glicko.game(glicko.Rating(), ratings.first_rating("computer-easy", "mastery"), 0)
    assert profile(client, "Ann")["ratings"]["mastery"]["rating"] == pytest.approx(
        expected[0].rating, abs=0.01)


def test_each_level_begins_at_its_fitted_rating_said_on_the_leaderboard(client):
    fitted = ratings.COMPUTER_RATINGS["magnet"]
    assert list(fitted) == list(bots.LEVELS)  # every level, weakest first, each stronger
    assert sorted(fitted.values()) == list(fitted.values())
    assert ratings.first_rating("computer-hard", "magnet") == glicko.Rating(
        fitted["hard"], ratings.COMPUTER_DEVIATION)
    assert ratings.first_rating("Ann", "magnet") == glicko.Rating()
    page = " ".join(client.get("/ratings/magnet").text.split())
    for level, rating in fitted.items():
        assert f'<tr><td>{level}</td><td class="rating">{rating}</td></tr>' in page


@pytest.mark.one_database  # a body refused before anything is stored
@pytest.mark.parametrize("players, extra, why", [
    ([{"name": "Ann", "email": "ann@example.org"}, {"bot": "easy"}], {}, "key"),
    ([{"key": "ANN"}, {"open": True}, {"open": True}, {"open": True}],
     {"game": "the-right-moves"}, "two-player"),
    ([{"bot": "easy"}, {"bot": "hard"}], {}, "not the computer"),
    ([{"key": "ANN"}, {"key": "ANN"}], {}, "both sides"),
    ([{"key": "ANN"}, {"open": True}], {"rating_range": {"min": 1400}}, "public rated"),
    ([{"key": "ANN"}, {"open": True}], {"public": True, "rating_range": {"min": 1900,
                                                                          "max": 1400}}, "min"),
])
def test_what_cannot_be_rated_is_refused_with_422(client, ann, players, extra, why):
    players = [{"key": ann} if entry == {"key": "ANN"} else entry for entry in players]
    refused = rated(client, players, **extra)
    assert refused.status_code == 422 and why in refused.json["error"]


def test_a_rated_open_seat_is_taken_only_with_a_key_within_the_range(app, client, db, ann,
                                                                     bob):
    game = rated(client, [{"key": ann}, {"open": True}], public=True,
                 rating_range={"min": 1400, "max": 1600}).json
    [listed] = client.get("/api/challenges").json["challenges"]
    assert listed["rated"] is True and listed["rating_range"] == {"min": 1400, "max": 1600}
    join = path_of(game["seats"][1]["join"])
    by_name = app.test_client().post(join, json={"name": "Eve", "email": "eve@example.org"})
    assert by_name.status_code == 422 and "sign in" in by_name.json["error"]
    assert client.post(join, json={"key": ann}).status_code == 422  # already in it
    give_rating(db, "Bob", 1700, 80)
    too_strong = client.post(join, json={"key": bob})
    assert too_strong.status_code == 422 and "from 1400 to 1600" in too_strong.json["error"]
    assert client.get("/api/challenges?min_rating=1450&max_rating=1550").json["challenges"]
    assert not client.get("/api/challenges?min_rating=1501").json["challenges"]

    cid = sign_up(client, db, "Cid")
    taken = client.post(join, json={"key": cid})
    assert taken.status_code == 201
    assert client.get(path_of(taken.json["api"])).json["players"][1]["name"] == "Cid"
    opened(client, [game["seats"][0]["api"], taken.json["api"]])
    mastery_resign(client, taken.json["api"])
    assert profile(client, "Cid")["ratings"]["mastery"]["games"] == 1


def test_the_leaderboard_lists_established_players_highest_first(client, db, ann, bob):
    cid = sign_up(client, db, "Cid")
    for handle, rating, deviation in (("Ann", 1500, 70), ("Bob", 1600, 100), ("Cid", 1700, 130)):
        give_rating(db, handle, rating, deviation)
    established = client.get("/api/ratings/mastery").json["players"]
    assert [p["handle"] for p in established] == ["Bob", "Ann"]  # Cid's 150: provisional
    assert set(established[0]) >= {"handle", "rating", "deviation", "games"}
    page = client.get("/ratings/mastery").text.split("<main>")[1]  # (the header names Cid)
    assert page.index("Bob") < page.index("Ann") and "Cid" not in page
    assert client.get("/api/ratings/chess").status_code == 404
    assert cid


def test_two_games_ending_at_once_both_count(app, database, client, db, ann, bob):
    """Each process holds the players' ratings while it changes them: neither update is
    lost (PostgreSQL's concurrent writers; SQLite's one writer)."""
    games = [rated(client, [{"key": ann}, {"key": bob}]).json for _ in range(2)]
    for game in games:
        opened(client, seat_apis(game))

    def resign(api: str) -> int:
        with app.app_context():
            return app.test_client().post(f"{path_of(api)}/resign", json={}).status_code

    with ThreadPoolExecutor(2) as pool:
        assert list(pool.map(resign, [g["seats"][1]["api"] for g in games])) == [200, 200]
    assert profile(client, "Ann")["ratings"]["mastery"]["games"] == 2
    assert profile(client, "Bob")["ratings"]["mastery"]["games"] == 2
    assert len(list(db.query("SELECT * FROM rating_changes"))) == 4


@pytest.mark.parametrize("game_id, options", [("magnet", {"random_setup": True}),
                                              ("magnetic-field", {})])
def test_rated_challenges_profiles_and_leaderboards_reveal_nothing_a_seed_decides(
        app, client, db, ann, game_id, options):
    """Two rated challenges that differ only in their secret seed look the same in the
    lobby, the challenges API, on their join pages, the creator's profile and the game's
    leaderboard, byte for byte."""
    player = players.by_key(db, ann)
    give_rating(db, "Ann", 1550, 90)
    db.execute("UPDATE ratings SET game = ? WHERE game = 'mastery'", [game_id])
    seen = []
    for seed in ("seed-a", "seed-b"):
        with app.test_request_context():
            created = creation.create(get_db(), game_id, [{"name": "Ann", "email": player.email},
                                                         {"open": True}], options, seed=seed,
                                     public=True, rated=True, rating_range={"min": 1000},
                                     clock=CLOCK,
                                     claimed={0: player.id})
            join_page = url_for("lobby.join", token=created.joins[1])
        shown = NewGame(created.match.id, [], [], "")
        anonymous = app.test_client()
        seen.append([normalised(anonymous.get(path).get_data(as_text=True), shown)
                     for path in ("/api/challenges", "/lobby", join_page,
                                  f"/lobby/{created.match.id}/1", "/players/Ann",
                                  "/api/players/Ann", f"/ratings/{game_id}",
                                  f"/api/ratings/{game_id}")])
        assert "Ann (1550)" in seen[-1][1] and '"handle":"Ann"' in seen[-1][7]
        for table in db.table_names():  # gone without a trace: the next one is alone
            if "game_id" in db[table].columns_dict:
                db.execute(f"DELETE FROM {table} WHERE game_id = ?", [created.match.id])
        db.execute("DELETE FROM games WHERE id = ?", [created.match.id])
    assert seen[0] == seen[1]
