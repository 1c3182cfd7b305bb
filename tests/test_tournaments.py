"""Tournaments through the JSON API (issue 25; docs/api.md): players enter by their keys,
the organiser starts, every game is an ordinary game played through its seat's API, and the
standings, the winner, the rounds that follow, withdrawals, deadlines and the emails come
out of the results."""
from __future__ import annotations

import itertools
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from collections import Counter
from datetime import timedelta

import pytest

from pbem import players, tournaments
from pbem.jobs import scheduler
from pbem.store import utc
from pbem.store.db import dialect

from helpers import everything_in, path_of, sign_up

RESULTS = {1: "first", 0.5: "draw", 0: "second"}


@pytest.fixture
def keys(client, db):
    """Five players' keys, by handle."""
    return {handle: path_of(sign_up(client, db, handle))
            for handle in ("Ann", "Bob", "Cat", "Dan", "Eve")}


def organise(client, key: str, **body) -> dict:
    created = client.post(f"{key}/tournaments", json={
        "name": "Autumn cup", "game": "mastery", "format": "round-robin", **body})
    assert created.status_code == 201, created.json
    return created.json


def enter(client, keys, tournament: dict, *handles: str) -> None:
    for handle in handles:
        entered = client.post(f"{keys[handle]}/tournaments/{tournament['id']}/entry")
        assert entered.status_code == 201, entered.json


def shown(client, tournament: dict) -> dict:
    answer = client.get(path_of(tournament["api"]))
    assert answer.status_code == 200
    return answer.json


def seat_apis(client, keys, tournament_id: str) -> dict[str, tuple[str, int]]:
    """Each game of the tournament's seat APIs as its players find them: game id ->
    {seat: api path}, from every player's ``GET <key>``."""
    found: dict[str, dict[int, str]] = {}
    for key in keys.values():
        for game in client.get(key).json["games"]:
            if game["tournament"] == tournament_id:
                found.setdefault(game["id"], {})[game["seat"]] = path_of(game["api"])
    return found


def play(client, apis: dict[int, str], result: float) -> None:
    """Play a game to ``result`` (the first player's points): a few moves through the API,
    then a resignation or a draw agreed."""
    for _ in range(2):
        for seat in (0, 1):
            state = client.get(apis[seat]).json
            if seat in state["to_move"]:
                moved = client.post(f"{apis[seat]}/moves", json={
                    "move": state["legal_moves"][0], "ply": state["ply"]})
                assert moved.status_code == 200, moved.json
    if result == 0.5:
        assert client.post(f"{apis[0]}/draw", json={"answer": "offer"}).status_code == 200
        assert client.post(f"{apis[1]}/draw", json={"answer": "accept"}).status_code == 200
    else:
        loser = 1 if result == 1 else 0
        assert client.post(f"{apis[loser]}/resign", json={}).status_code == 200


def test_a_round_robin_from_entries_to_the_winner(client, db, keys):
    cup = organise(client, keys["Ann"], max_players=4)
    assert shown(client, cup)["status"] == "open"
    enter(client, keys, cup, "Ann", "Bob", "Cat", "Dan")
    full = client.post(f"{keys['Eve']}/tournaments/{cup['id']}/entry")
    assert full.status_code == 409
    assert client.post(f"{keys['Bob']}/tournaments/{cup['id']}/start").status_code == 403
    assert client.post(f"{keys['Ann']}/tournaments/{cup['id']}/start").status_code == 200
    assert client.post(f"{keys['Eve']}/tournaments/{cup['id']}/entry").status_code == 409

    running = shown(client, cup)
    assert running["status"] == "running" and running["players"] == ["Ann", "Bob", "Cat", "Dan"]
    assert len(running["rounds"]) == 3 and all(len(r) == 2 for r in running["rounds"])
    pairs = [frozenset(g["seats"]) for r in running["rounds"] for g in r]
    assert sorted(map(sorted, pairs)) == sorted(
        map(sorted, itertools.combinations(["Ann", "Bob", "Cat", "Dan"], 2)))
    firsts = Counter(g["seats"][0] for r in running["rounds"] for g in r)
    assert all(abs(firsts[h] - (3 - firsts[h])) <= 1 for h in running["players"])
    # each player was told of all their games in one email, not one per game
    rounds_mail = db.execute("SELECT recipient, body FROM outbox WHERE kind = 'tournament'"
                             ).fetchall()
    assert sorted(r for r, _ in rounds_mail) == [f"{h}@example.org" for h in
                                                 ("ann", "bob", "cat", "dan")]
    assert db.execute("SELECT COUNT(*) FROM outbox WHERE kind = 'start'").fetchone()[0] == 0

    games = seat_apis(client, keys, cup["id"])
    assert len(games) == 6 and all(len(seats) == 2 for seats in games.values())
    # Ann wins every game; Bob beats Cat and draws with Dan; Cat beats Dan
    beats = {("Ann", "Bob"), ("Ann", "Cat"), ("Ann", "Dan"), ("Bob", "Cat"), ("Cat", "Dan")}
    for game in (g for r in running["rounds"] for g in r):
        first, second = game["seats"]
        result = 1 if (first, second) in beats else 0 if (second, first) in beats else 0.5
        play(client, games[game["game"]], result)

    done = shown(client, cup)
    assert done["status"] == "finished" and done["winner"] == "Ann"
    assert [(s["handle"], s["points"], s["played"]) for s in done["standings"]] == [
        ("Ann", 3, 3), ("Bob", 1.5, 3), ("Cat", 1, 3), ("Dan", 0.5, 3)]
    # Sonneborn-Berger: Bob beat Cat (1) and drew Dan (0.5 / 2)
    assert done["standings"][1]["tiebreak"] == 1 + 0.25
    assert all(g["outcome"] is not None for r in done["rounds"] for g in r)
    ends = db.execute("SELECT recipient, body FROM outbox WHERE kind = 'tournament' AND "
                      "subject LIKE 'Tournament over%'").fetchall()
    assert len(ends) == 4 and all("The winner is Ann." in body for _, body in ends)


def test_a_round_robin_stores_only_the_links_it_hands_out(client, db, keys):
    """Its games are made without the links a new game gets (nobody is given those): each
    player's are minted for their round email, each game's spectator link for the
    cross-table; the key finds the games as before."""
    cup = organise(client, keys["Ann"])
    enter(client, keys, cup, *keys)
    assert client.post(f"{keys['Ann']}/tournaments/{cup['id']}/start").status_code == 200
    stored = Counter(tuple(row) for row in db.execute(
        "SELECT l.seat IS NULL, l.emailed FROM links l JOIN tournament_games t "
        "ON t.game_id = l.game_id WHERE t.tournament_id = ?", [cup["id"]]).fetchall())
    assert stored == {(1, 0): 10, (0, 1): 20}  # 10 games: a spectator's, 2 emailed each
    lines = re.compile(r"Round (\d): against (\w+), you move (first|second):\n(\S+)\n")
    rounds = shown(client, cup)["rounds"]
    for handle in keys:
        [body] = [body for recipient, body in db.execute(
            "SELECT recipient, body FROM outbox WHERE kind = 'tournament'").fetchall()
            if recipient == f"{handle.lower()}@example.org"]
        told = lines.findall(body)
        assert len(told) == 4
        for number, opponent, order, link in told:
            seats = [handle, opponent] if order == "first" else [opponent, handle]
            assert seats in [g["seats"] for g in rounds[int(number) - 1]]
            state = client.get("/api" + path_of(link)).json  # the player's seat of it
            assert [p["name"] for p in state["players"]] == seats
            assert state["seat"] == seats.index(handle)
    assert len(seat_apis(client, keys, cup["id"])) == 10


def test_a_swiss_pairs_each_round_once_the_last_has_ended(client, db, keys):
    swiss = organise(client, keys["Ann"], format="swiss", rounds=3)
    enter(client, keys, swiss, "Ann", "Bob", "Cat", "Dan", "Eve")
    assert client.post(f"{keys['Ann']}/tournaments/{swiss['id']}/start").status_code == 200
    met = set()
    for number in range(1, 4):
        now = shown(client, swiss)
        assert len(now["rounds"]) == number and len(now["byes"][-1]) == 1
        games = seat_apis(client, keys, swiss["id"])
        this_round = now["rounds"][-1]
        assert len(this_round) == 2
        for place, game in enumerate(this_round):
            pair = frozenset(game["seats"])
            assert pair not in met
            met.add(pair)
            play(client, games[game["game"]], 1)
            if place == 0:  # one game of the round still goes on: no new round
                assert len(shown(client, swiss)["rounds"]) == number
    done = shown(client, swiss)
    assert done["status"] == "finished" and len(done["rounds"]) == 3
    byes = [b[0] for b in done["byes"]]
    assert len(set(byes)) == 3  # a bye at most once each
    points = {s["handle"]: s["points"] for s in done["standings"]}
    assert sum(points.values()) == 3 * 2 + 3  # six games won, three byes
    assert done["winner"] == done["standings"][0]["handle"]
    assert done["standings"] == sorted(done["standings"],
                                       key=lambda s: (-s["points"], -s["tiebreak"]))


def test_withdrawing_after_the_start_forfeits_the_unfinished_games(client, db, keys):
    cup = organise(client, keys["Ann"])
    enter(client, keys, cup, "Ann", "Bob", "Cat")
    client.post(f"{keys['Ann']}/tournaments/{cup['id']}/start")
    games = seat_apis(client, keys, cup["id"])
    [ann_bob] = [g for r in shown(client, cup)["rounds"] for g in r
                 if set(g["seats"]) == {"Ann", "Bob"}]
    play(client, games[ann_bob["game"]], 0.5)

    withdrawn = client.delete(f"{keys['Bob']}/tournaments/{cup['id']}/entry")
    assert withdrawn.status_code == 200
    after = shown(client, cup)
    assert after["withdrawn"] == ["Bob"]
    [bob_cat] = [g for r in after["rounds"] for g in r if set(g["seats"]) == {"Bob", "Cat"}]
    cat = bob_cat["seats"].index("Cat")
    assert bob_cat["outcome"]["winners"] == [cat]  # lost on forfeit
    assert bob_cat["outcome"]["reason"].endswith(" withdrew from the tournament")
    points = {s["handle"]: s["points"] for s in after["standings"]}
    assert points == {"Ann": 0.5, "Bob": 0.5, "Cat": 1}
    assert client.delete(f"{keys['Eve']}/tournaments/{cup['id']}/entry").status_code == 200


def logged(db, game_id: str) -> list[tuple]:
    return [tuple(row) for row in db.execute(
        "SELECT seat, kind, move FROM events WHERE game_id = ? ORDER BY seq", [game_id])]


def ends_told(db, game_id: str) -> dict[str, list[str]]:
    """The kinds of email each player of the game was sent, by address."""
    told: dict[str, list[str]] = {}
    for recipient, kind in db.execute("SELECT recipient, kind FROM outbox WHERE game_id = ? "
                                      "AND channel = 'email' ORDER BY id", [game_id]):
        told.setdefault(recipient, []).append(kind)
    return told


def test_a_withdrawal_is_logged_as_the_servers_forfeit_and_told_as_one(client, db, keys):
    """Bob withdraws: his game is ended by the server (``forfeited``), not by a resignation
    he never made, and every way it is told says he withdrew."""
    cup = organise(client, keys["Ann"])
    enter(client, keys, cup, "Ann", "Bob")
    client.post(f"{keys['Ann']}/tournaments/{cup['id']}/start")
    [[game]] = shown(client, cup)["rounds"]
    bob = game["seats"].index("Bob")
    assert client.delete(f"{keys['Bob']}/tournaments/{cup['id']}/entry").status_code == 200
    assert logged(db, game["game"]) == [(bob, "forfeited", None)]
    ann_api = seat_apis(client, keys, cup["id"])[game["game"]][1 - bob]
    assert client.get(ann_api).json["outcome"] == {
        "winners": [1 - bob], "draw": False, "reason": "Bob withdrew from the tournament"}
    [end] = [body for body, in db.execute(
        "SELECT body FROM outbox WHERE recipient = 'ann@example.org' AND kind = 'end'")]
    assert "Ann won: Bob withdrew from the tournament." in end
    record = client.get(f"{ann_api.replace('/api/play/', '/play/')}/record.txt").get_data(
        as_text=True)
    assert "Result: Ann won: Bob withdrew from the tournament" in record
    assert "Bob (" in record and "): withdrew from the tournament" in record
    assert "resign" not in record
    header = client.get(f"{ann_api}/record?format=apgamerecord").json["header"]
    assert [(p["name"], p["result"]) for p in header["players"]] == sorted(
        [("Ann", 1), ("Bob", 0)], key=lambda player: game["seats"].index(player[0]))
    [page] = [path_of(g["url"]) for g in client.get(keys["Ann"]).json["games"]
              if g["id"] == game["game"]]
    russian = client.get(page, headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert "Победа: Ann (Bob выбывает из турнира)" in russian


def test_a_withdrawn_player_is_paired_no_more_in_a_swiss(client, db, keys):
    swiss = organise(client, keys["Ann"], format="swiss", rounds=2)
    enter(client, keys, swiss, "Ann", "Bob", "Cat", "Dan")
    client.post(f"{keys['Ann']}/tournaments/{swiss['id']}/start")
    removed = client.delete(f"{keys['Ann']}/tournaments/{swiss['id']}/entry",
                            json={"handle": "Dan"})  # the organiser removes Dan
    assert removed.status_code == 200
    games = seat_apis(client, keys, swiss["id"])
    for game in shown(client, swiss)["rounds"][0]:
        if game["outcome"] is None:
            play(client, games[game["game"]], 1)
    second = shown(client, swiss)["rounds"][1]
    assert all("Dan" not in g["seats"] for g in second)
    assert shown(client, swiss)["byes"][1] != ["Dan"]


def test_a_knockout_replays_a_drawn_game_with_colours_swapped(client, db, keys):
    cup = organise(client, keys["Ann"], format="knockout")
    enter(client, keys, cup, "Ann", "Bob", "Cat")
    client.post(f"{keys['Ann']}/tournaments/{cup['id']}/start")
    first = shown(client, cup)["rounds"][0]
    assert [g["seats"] for g in first] == [["Bob", "Cat"]]  # Ann, the first seed, has a bye
    play(client, seat_apis(client, keys, cup["id"])[first[0]["game"]], 0.5)
    replay = shown(client, cup)["rounds"][0]
    assert [g["seats"] for g in replay] == [["Bob", "Cat"], ["Cat", "Bob"]]
    play(client, seat_apis(client, keys, cup["id"])[replay[1]["game"]], 0)  # Bob wins
    final = shown(client, cup)["rounds"][1]
    assert [g["seats"] for g in final] == [["Ann", "Bob"]]
    play(client, seat_apis(client, keys, cup["id"])[final[0]["game"]], 0)
    done = shown(client, cup)
    assert done["status"] == "finished" and done["winner"] == "Bob"
    assert done["standings"][0]["handle"] == "Bob"


def test_a_round_past_its_deadline_is_adjudicated_by_the_job(app, client, db, keys):
    swiss = organise(client, keys["Ann"], format="swiss", rounds=2, round_days=3,
                     adjudication="time", clock={"mode": "per_move", "days": 10})
    enter(client, keys, swiss, "Ann", "Bob", "Cat", "Dan")
    client.post(f"{keys['Ann']}/tournaments/{swiss['id']}/start")
    [one, two] = shown(client, swiss)["rounds"][0]
    apis = seat_apis(client, keys, swiss["id"])[one["game"]]
    state = client.get(apis[0]).json  # the first player moves at once: the second has less
    client.post(f"{apis[0]}/moves", json={"move": state["legal_moves"][0], "ply": 0})
    later = utc.now() + timedelta(days=2)
    assert scheduler.run_tournaments(app, later) == (0, 0)
    assert scheduler.run_tournaments(app, later + timedelta(days=2)) == (0, 2)
    now = shown(client, swiss)
    outcomes = {g["game"]: g["outcome"] for g in now["rounds"][0]}
    assert outcomes[one["game"]]["winners"] == [0]  # the second had less time left
    assert outcomes[two["game"]]["winners"] == [1]  # the first never moved
    assert len(now["rounds"]) == 2
    # the server adjudicated, for the seat that lost: nobody resigned
    assert logged(db, one["game"])[1:] == [(1, "adjudicated", "loss")]
    second = client.get(apis[1]).json["outcome"]["reason"]
    assert second == f"adjudicated at the round's deadline: {one['seats'][1]} had less time left"
    record = client.get(apis[1].replace("/api/play/", "/play/") + "/record.json").json
    assert {key: record["events"][-1][key] for key in ("seat", "action", "draw")} == {
        "seat": 1, "action": "adjudicated", "draw": False}


def test_unfinished_games_are_drawn_at_the_deadline_unless_the_organiser_chose_time(
        app, client, db, keys):
    cup = organise(client, keys["Ann"], round_days=1)
    enter(client, keys, cup, "Ann", "Bob", "Cat")
    client.post(f"{keys['Ann']}/tournaments/{cup['id']}/start")
    assert scheduler.run_tournaments(app, utc.now() + timedelta(days=2)) == (0, 3)
    done = shown(client, cup)
    assert all(g["outcome"]["draw"] for r in done["rounds"] for g in r)
    assert done["status"] == "finished"
    # a draw the server gave, not one offered and agreed: nobody was told of an offer
    for game in (g for r in done["rounds"] for g in r):
        assert logged(db, game["game"]) == [(0, "adjudicated", "draw")]
        assert game["outcome"]["reason"] == "adjudicated at the round's deadline"
        assert all(kinds == ["end"] for kinds in ends_told(db, game["game"]).values())
    [end] = [body for body, in db.execute(
        "SELECT body FROM outbox WHERE recipient = 'bob@example.org' AND kind = 'end' "
        "AND game_id = ?", [done["rounds"][0][0]["game"]])]
    assert "Draw: adjudicated at the round's deadline." in end


def test_the_start_time_starts_it_or_cancels_it_without_enough_players(app, client, keys):
    soon = utc.iso(utc.now() + timedelta(hours=1))
    cup = organise(client, keys["Ann"], starts_at=soon)
    empty = organise(client, keys["Ann"], starts_at=soon, min_players=3)
    enter(client, keys, cup, "Ann", "Bob")
    enter(client, keys, empty, "Ann", "Bob")
    assert scheduler.run_tournaments(app) == (0, 0)
    assert scheduler.run_tournaments(app, utc.now() + timedelta(hours=2)) == (2, 0)
    assert shown(client, cup)["status"] == "running"
    assert shown(client, empty)["status"] == "cancelled"


def test_the_computer_can_be_entered_and_plays_its_games(app, client, db, keys):
    cup = organise(client, keys["Ann"], rated=True, clock={"mode": "per_move", "days": 3})
    enter(client, keys, cup, "Ann")
    assert client.post(f"{keys['Bob']}/tournaments/{cup['id']}/entry",
                       json={"bot": "easy"}).status_code == 403  # the organiser's to do
    entered = client.post(f"{keys['Ann']}/tournaments/{cup['id']}/entry", json={"bot": "easy"})
    assert entered.status_code == 201
    client.post(f"{keys['Ann']}/tournaments/{cup['id']}/start")
    [[game]] = shown(client, cup)["rounds"]
    assert game["seats"] == ["Ann", "computer-easy"]
    ann = seat_apis(client, keys, cup["id"])[game["game"]][0]
    state = client.get(ann).json
    assert state["rated"] is True and state["players"][1]["bot"] == "easy"
    client.post(f"{ann}/moves", json={"move": state["legal_moves"][0], "ply": 0})
    assert scheduler.play_bots(app) == 1
    assert client.get(ann).json["ply"] == 2


def test_refusals(client, keys):
    assert client.post(f"{keys['Ann']}/tournaments", json={
        "name": "x", "game": "mastery", "format": "ladder"}).status_code == 400
    assert client.post(f"{keys['Ann']}/tournaments", json={
        "name": "x", "game": "chess", "format": "swiss"}).status_code == 400
    assert client.post("/api/player/nobody/tournaments", json={}).status_code == 404
    assert client.get("/api/tournaments/nothing").status_code == 404
    cup = organise(client, keys["Ann"], min_players=3)
    enter(client, keys, cup, "Ann", "Bob")
    assert client.post(f"{keys['Ann']}/tournaments/{cup['id']}/start").status_code == 422
    assert client.post(f"{keys['Ann']}/tournaments/{cup['id']}/cancel").status_code == 200
    assert shown(client, cup)["status"] == "cancelled"


def test_each_format_takes_the_players_it_can_make_games_for(client, keys):
    """A round robin of at most 100 players, a Swiss or a knockout of 1,000, a league as
    many as make the games of such a round robin a season (issue 37)."""
    too_many = {"round-robin": 101, "swiss": 1001, "knockout": 1001}
    for format_, most in too_many.items():
        refused = client.post(f"{keys['Ann']}/tournaments", json={
            "name": "Big", "game": "mastery", "format": format_, "max_players": most})
        assert refused.status_code == 400
        assert f"from 2 to {most - 1}" in refused.json["error"]
        cup = organise(client, keys["Ann"], format=format_)
        assert shown(client, cup)["max_players"] == most - 1  # unless it says fewer
        assert client.post(f"{keys['Ann']}/tournaments/{cup['id']}/cancel").status_code == 200
    league = client.post(f"{keys['Ann']}/tournaments", json={
        "name": "Big", "game": "mastery", "format": "league", "division_size": 50,
        "max_players": 203})
    assert league.status_code == 400 and "from 2 to 202" in league.json["error"]
    assert shown(client, organise(client, keys["Ann"], format="league"))["max_players"] == 1000


def test_an_organiser_holds_at_most_five_tournaments_not_yet_started(client, keys):
    made = [organise(client, keys["Ann"]) for _ in range(5)]
    refused = client.post(f"{keys['Ann']}/tournaments", json={
        "name": "Sixth", "game": "mastery", "format": "swiss"})
    assert refused.status_code == 422
    assert "already organise 5 tournaments that have not started" in refused.json["error"]
    assert organise(client, keys["Bob"])  # another organiser's own five
    assert client.post(f"{keys['Ann']}/tournaments/{made[0]['id']}/cancel").status_code == 200
    enter(client, keys, made[1], "Ann", "Bob")
    assert client.post(f"{keys['Ann']}/tournaments/{made[1]['id']}/start").status_code == 200
    organise(client, keys["Ann"])
    organise(client, keys["Ann"])
    assert client.post(f"{keys['Ann']}/tournaments", json={
        "name": "Sixth", "game": "mastery", "format": "swiss"}).status_code == 422
    listed = client.get("/api/tournaments").json["tournaments"]
    assert sum(t["status"] == "open" for t in listed) == 6  # Ann's five and Bob's one


def test_a_large_field_s_games_are_made_by_the_job_process(app, client, db, keys):
    """More games than TOURNAMENT_GAMES_AT_ONCE: the start, and the move that ends a round's
    last game, answer without making them; the job process makes them soon after (issue
    37: a Swiss of 1,000 paired in the request that ended the round, a round robin of 449
    made in the one that started it)."""
    app.config["TOURNAMENT_GAMES_AT_ONCE"] = 1
    swiss = organise(client, keys["Ann"], format="swiss", rounds=2)
    enter(client, keys, swiss, "Ann", "Bob", "Cat", "Dan")
    assert client.post(f"{keys['Ann']}/tournaments/{swiss['id']}/start").status_code == 200
    starting = shown(client, swiss)
    assert starting["status"] == "running" and starting["rounds"] == []
    assert starting["games_due_at"] is not None
    assert db.execute("SELECT COUNT(*) FROM tournament_games").fetchone()[0] == 0
    assert "its games are being made" in client.get(
        f"/tournaments/{swiss['id']}").get_data(as_text=True)
    assert client.post(f"{keys['Eve']}/tournaments/{swiss['id']}/entry").status_code == 409

    assert scheduler.make_tournament_games(app) == 1
    assert scheduler.make_tournament_games(app) == 0  # nothing left to make
    first = shown(client, swiss)
    assert len(first["rounds"]) == 1 and len(first["rounds"][0]) == 2
    assert first["games_due_at"] is None
    assert db.execute("SELECT COUNT(*) FROM outbox WHERE kind = 'tournament'"
                      ).fetchone()[0] == 4  # each player told of their game
    games = seat_apis(client, keys, swiss["id"])
    for game in first["rounds"][0]:
        play(client, games[game["game"]], 1)  # the last one's resignation answers at once
    ended = shown(client, swiss)
    assert len(ended["rounds"]) == 1 and ended["games_due_at"] is not None
    assert "New games are being made" in client.get(
        f"/tournaments/{swiss['id']}").get_data(as_text=True)
    assert scheduler.make_tournament_games(app) == 1
    second = shown(client, swiss)["rounds"]
    assert len(second) == 2 and not {frozenset(g["seats"]) for g in second[0]} & {
        frozenset(g["seats"]) for g in second[1]}


def test_a_round_robin_left_to_the_job_is_made_once_by_two_job_runs_at_once(
        app, client, db, keys, monkeypatch):
    """On PostgreSQL one job process makes them while another skips the job; on SQLite
    the second finds them made."""
    app.config["TOURNAMENT_GAMES_AT_ONCE"] = 1
    cup = organise(client, keys["Ann"])
    enter(client, keys, cup, *keys)
    assert client.post(f"{keys['Ann']}/tournaments/{cup['id']}/start").status_code == 200
    claims = dialect(db) == "postgresql"
    other_done = threading.Event()
    store = tournaments._store_rounds

    def store_once_the_other_has_run(*args, **kwargs):
        if claims:
            assert other_done.wait(30)
        return store(*args, **kwargs)

    monkeypatch.setattr(tournaments, "_store_rounds", store_once_the_other_has_run)

    def run(_) -> int:
        made = scheduler.make_tournament_games(app)
        if made == 0:
            other_done.set()
        return made

    with ThreadPoolExecutor(2) as pool:
        assert sorted(pool.map(run, range(2))) == [0, 1]
    assert db.execute("SELECT COUNT(*) FROM tournament_games").fetchone()[0] == 10
    assert len(seat_apis(client, keys, cup["id"])) == 10


def test_who_withdraws_before_the_job_made_the_games_has_none(app, client, keys):
    app.config["TOURNAMENT_GAMES_AT_ONCE"] = 1
    cup = organise(client, keys["Ann"])
    enter(client, keys, cup, "Ann", "Bob", "Cat", "Dan")
    client.post(f"{keys['Ann']}/tournaments/{cup['id']}/start")
    assert client.delete(f"{keys['Dan']}/tournaments/{cup['id']}/entry").status_code == 200
    assert scheduler.make_tournament_games(app) == 1
    made = shown(client, cup)
    assert made["withdrawn"] == ["Dan"]
    assert sorted(sorted(g["seats"]) for r in made["rounds"] for g in r) == [
        ["Ann", "Bob"], ["Ann", "Cat"], ["Bob", "Cat"]]


def test_the_feed_tells_of_rounds_and_results(client, keys):
    cup = organise(client, keys["Ann"])
    enter(client, keys, cup, "Ann", "Bob")
    client.post(f"{keys['Ann']}/tournaments/{cup['id']}/start")
    [[game]] = shown(client, cup)["rounds"]
    play(client, seat_apis(client, keys, cup["id"])[game["game"]], 1)
    feed = client.get(f"/tournaments/{cup['id']}/feed")
    assert feed.mimetype == "application/atom+xml"
    text = feed.get_data(as_text=True)
    assert "Round 1 started" in text and "Round 1: Ann vs Bob 1-0" in text
    assert "Winner: Ann" in text


def test_the_pages_show_the_tournament_its_sign_up_and_the_cross_table(client, db, keys):
    cup = organise(client, keys["Ann"])
    assert "Autumn cup" in client.get("/tournaments").get_data(as_text=True)
    assert "Autumn cup" in client.get("/lobby").get_data(as_text=True)
    enter(client, keys, cup, "Ann", "Bob")
    client.post(f"{keys['Ann']}/tournaments/{cup['id']}/start")
    [[game]] = shown(client, cup)["rounds"]
    play(client, seat_apis(client, keys, cup["id"])[game["game"]], 0)
    page = client.get(f"/tournaments/{cup['id']}").get_data(as_text=True)
    assert "Winner: Bob" in page
    # the game in Ann's row and in Bob's: one spectator link
    [link] = set(re.findall(rf'<a href="(/watch/[^"]+)" data-game="{game["game"]}"', page))
    watched = client.get(link)
    assert watched.status_code == 200 and "Bob" in watched.get_data(as_text=True)
    assert link.rsplit("/", 1)[1] not in everything_in(db)  # stored only hashed


def test_a_league_promotes_relegates_and_starts_its_next_season_by_itself(client, db, keys):
    league = organise(client, keys["Ann"], format="league", division_size=3, promote=1)
    enter(client, keys, league, "Ann", "Bob", "Cat", "Dan", "Eve")
    assert client.post(f"{keys['Ann']}/tournaments/{league['id']}/start").status_code == 200
    first = shown(client, league)
    # five players: a division of three and one of two (the last joins only if under half)
    assert first["divisions"] == [["Ann", "Bob", "Cat"], ["Dan", "Eve"]]
    assert sorted(map(sorted, (g["seats"] for r in first["rounds"] for g in r))) == sorted(
        map(sorted, [("Ann", "Bob"), ("Ann", "Cat"), ("Bob", "Cat"), ("Dan", "Eve")]))
    assert client.post(f"{keys['Bob']}/tournaments/{league['id']}/opt-out").status_code == 200
    games = seat_apis(client, keys, league["id"])
    # Cat wins her division, Ann is last in it; Eve wins the lower one
    wins = {("Cat", "Ann"), ("Cat", "Bob"), ("Bob", "Ann"), ("Eve", "Dan")}
    for game in (g for r in first["rounds"] for g in r):
        a, b = game["seats"]
        play(client, games[game["game"]], 1 if (a, b) in wins else 0)
    done = shown(client, league)
    assert done["status"] == "finished" and done["winner"] == "Cat"
    assert [s["handle"] for s in done["standings"]] == ["Cat", "Bob", "Ann", "Eve", "Dan"]
    second = shown(client, {"api": f"/api/tournaments/{done['next']}"})
    assert second["season"] == 2 and second["previous"] == league["id"]
    assert second["status"] == "running"
    # Eve goes up, Ann down; Bob opted out
    assert second["divisions"] == [["Cat", "Eve"], ["Ann", "Dan"]]


def test_a_player_who_deletes_their_identity_leaves_their_results_counted(app, client, db,
                                                                          keys):
    cup = organise(client, keys["Ann"])
    enter(client, keys, cup, "Ann", "Bob", "Cat")
    client.post(f"{keys['Ann']}/tournaments/{cup['id']}/start")
    games = seat_apis(client, keys, cup["id"])
    for game in (g for r in shown(client, cup)["rounds"] for g in r):
        play(client, games[game["game"]], 1 if game["seats"][0] == "Bob" else 0
             if game["seats"][1] == "Bob" else 0.5)
    with app.test_request_context():
        players.delete(db, players.by_handle(db, "Bob"))
    after = shown(client, cup)
    assert after["players"] == ["Ann", "Cat"] and after["winner"] is None
    assert after["standings"][0] == {"handle": None, "points": 2, "tiebreak": 1.0, "played": 2}
    assert client.get(f"/tournaments/{cup['id']}").status_code == 200


def test_each_entrant_is_emailed_in_their_own_language(client, db):
    """Anya signed up from a Russian page, Bob from an English one: each gets the round and
    the end in their language, the deadline and the points written as it writes them."""
    client.set_cookie("lang", "ru")
    keys = {"Anya": path_of(sign_up(client, db, "Anya"))}
    client.delete_cookie("lang")
    keys["Bob"] = path_of(sign_up(client, db, "Bob"))
    swiss = organise(client, keys["Bob"], format="swiss", rounds=1, round_days=3)
    enter(client, keys, swiss, "Anya", "Bob")
    assert client.post(f"{keys['Bob']}/tournaments/{swiss['id']}/start").status_code == 200

    def emails(subject: str) -> dict[str, tuple[str, str]]:
        return {row["recipient"]: (row["subject"], row["body"]) for row in db.execute(
            "SELECT recipient, subject, body FROM outbox WHERE kind = 'tournament' AND "
            "subject LIKE ?", [f"{subject}%"])}

    russian = emails("Тур 1\xa0— ")["anya@example.org"]
    assert russian[0] == "Тур 1\xa0— «Autumn cup»"
    assert "Здравствуйте, Anya!" in russian[1]
    assert "Начался тур 1 турнира «Autumn cup» (Mastery, швейцарская система)." in russian[1]
    assert re.search(r"Конец тура: \d+ [а-я]+\.?\s\d{4}\sг\., \d\d:\d\d UTC; тогда в "
                     r"незаконченных партиях присуждается ничья\.", russian[1])
    english = emails("Round 1 — ")["bob@example.org"][1]
    assert "Round 1 of the tournament Autumn cup (Mastery, Swiss system) has started." in english
    assert re.search(r"The round ends \w{3} \d\d \w{3} \d{4}, \d\d:\d\d UTC; games unfinished "
                     r"by then are drawn\.", english)

    [game] = seat_apis(client, keys, swiss["id"]).values()
    play(client, game, 0.5)
    # the games' own emails too
    turns = dict(db.execute("SELECT recipient, subject FROM outbox WHERE kind = 'turn'"
                            ).fetchall())
    assert turns["anya@example.org"].startswith("Ваш ход — Mastery: ")
    assert turns["bob@example.org"].startswith("Your move — Mastery: ")
    assert emails("Турнир окончен\xa0— ")["anya@example.org"][0] == "Турнир окончен\xa0— «Autumn cup»"
    assert "Anya: 0,5 очка (Бухгольц 0,5)" in emails("Турнир окончен")["anya@example.org"][1]
    assert "Bob: 0.5 points (Buchholz 0.5)" in emails("Tournament over")["bob@example.org"][1]


# -- the pages: what a signed-in player sees and does ---------------------------------------

def signed_up(app, db, *handles: str) -> dict:
    """A browser of its own signed in as each of ``handles``, and their keys."""
    browsers = {handle: app.test_client() for handle in handles}
    return {handle: (browser, path_of(sign_up(browser, db, handle)))
            for handle, browser in browsers.items()}


@pytest.mark.one_database  # what the pages say, and refuse before anything is stored
def test_the_pages_confirm_what_cannot_be_undone_and_lead_players_to_their_games(app, db):
    people = signed_up(app, db, "Ann", "Bob", "Cat")
    ann, key = people["Ann"]
    cup = organise(ann, key)
    page = f"/tournaments/{cup['id']}"
    for browser, _ in people.values():
        assert browser.post(f"{page}/entry").status_code == 303
    assert "Mastery, round robin;" in ann.get(page).text  # the format in words
    assert "Autumn cup</a>:\n    Mastery, round robin" in ann.get("/tournaments").text
    # the organiser's tools that cannot be undone are sent only with their box ticked
    tools = f"{page}/organise"
    for tool in ("start", "cancel"):
        assert ann.post(tools, data={"tool": tool}).status_code == 400
    assert ann.post(tools, data={"tool": "remove", "handle": "Cat"}).status_code == 400
    assert shown(ann, cup)["status"] == "open" and len(shown(ann, cup)["players"]) == 3
    assert ann.post(tools, data={"tool": "start", "confirm": "yes"}).status_code == 303
    before = ann.get(page).text
    assert "Being played: every round at once." in before  # not "round 3": all at once
    assert 'class="danger">Withdraw (your unfinished games are lost)' in before

    # Ann's games first, each with her own link (as her games page opens it), which the
    # cross-table's cells of her games link to as well
    mine = re.search(r'<section class="your-games">(.*?)</section>', before, re.S).group(1)
    links = re.findall(r'<a href="(/play/[^"]+)">Round (\d): against (\w+)</a>', mine)
    assert sorted(opponent for _, _, opponent in links) == ["Bob", "Cat"]
    for link, _, _ in links:
        game = ann.get(link).text
        assert "(spectating)" not in game and "(you)" in game
        assert before.count(f'<a href="{link}" data-game=') == 2  # her row and her column
    assert "/watch/" in before  # Bob against Cat: as a spectator

    bob, _ = people["Bob"]
    assert bob.post(f"{page}/withdraw").status_code == 400  # unticked: still in
    assert bob.post(f"{page}/withdraw", data={"confirm": "yes"}).status_code == 303
    after = bob.get(page).text
    assert "You have withdrawn from this tournament." in after and "Withdraw" not in after
    assert '<span class="withdrawn">(withdrawn)</span>' in after


def test_a_league_that_too_few_players_stay_for_ends_saying_why(app, db):
    """Two of three stay, and the league needs three: its last season's page and its last
    emails say so, in each reader's language."""
    people = signed_up(app, db, "Ann", "Bob", "Cat")
    ann, key = people["Ann"]
    league = organise(ann, key, format="league", division_size=3, min_players=3)
    page = f"/tournaments/{league['id']}"
    for browser, _ in people.values():
        browser.post(f"{page}/entry")
    ann.post(f"{page}/organise", data={"tool": "start", "confirm": "yes"})
    bob, _ = people["Bob"]
    assert bob.post(f"{page}/opt-out").status_code == 400  # unticked
    assert bob.post(f"{page}/opt-out", data={"confirm": "yes"}).status_code == 303
    assert "You leave the league at the end of this season." in bob.get(page).text
    keys = {handle: key for handle, (_, key) in people.items()}
    for apis in seat_apis(ann, keys, league["id"]).values():
        play(ann, apis, 1)
    done = shown(ann, league)
    assert done["status"] == "finished" and done["next"] is None
    said = ("This was the league's last season: 2 players stay for another, fewer than the "
            "3 it needs.")
    assert said in ann.get(page).text
    assert "Последний сезон лиги: на следующий остаются 2 игрока, а нужно не меньше 3." in \
        ann.get(page, headers={"Accept-Language": "ru"}).text
    ends = [row[0] for row in db.execute("SELECT body FROM outbox WHERE kind = 'tournament' "
                                         "AND subject LIKE 'Tournament over%'")]
    assert len(ends) == 3 and all(said in body for body in ends)
