"""Computer players on the server (pbem/computer.py): ``{"bot": level}`` seats in the API,
their moves played by the background job (``scheduler.play_bots``) and by ``flask
play-bots``, never in a web request; their answers to offers; the computer standing in for
a player on vacation who asked for it; rematches against the computer."""
from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest

import engine
from engine import bots
from pbem import commands, computer, creation, matches
from pbem.events import Command, Move
from pbem import computer, matches
from pbem.store import utc
from pbem.jobs import scheduler
from pbem.store.db import dialect
from helpers import api_move, everything_in, path_of


def create(client, game: str, players: list[dict], **extra) -> dict:
    response = client.post("/api/games", json={"game": game, "players": players, **extra})
    assert response.status_code == 201, response.json
    return response.json


ANN = {"name": "Ann", "email": "ann@example.org"}
BOB = {"name": "Bob", "email": "bob@example.org"}
EASY = {"bot": "easy"}


def api_of(created: dict, seat: int) -> str:
    return path_of(created["seats"][seat]["api"])


def moves_in_log(db, game_id: str) -> list[tuple[int, str]]:
    return [(row["seat"], row["move"]) for row in db.query(
        "SELECT seat, move FROM events WHERE game_id = ? AND kind = 'move' ORDER BY seq",
        [game_id])]


def kinds_in_log(db, game_id: str) -> list[tuple[int, str]]:
    return [(row["seat"], row["kind"]) for row in db.query(
        "SELECT seat, kind FROM events WHERE game_id = ? ORDER BY seq", [game_id])]


# -- the API ---------------------------------------------------------------------------------

@pytest.mark.one_database  # what a seat shows
def test_a_computer_seat_has_a_name_and_a_level_but_no_link_and_no_email(client, db):
    created = create(client, "mastery", [ANN, EASY])
    assert created["seats"][1] == {"seat": 1, "name": "Computer (easy)", "bot": "easy"}
    assert {"url", "api"} <= set(created["seats"][0]) and "bot" not in created["seats"][0]
    [row] = db.query("SELECT name, email, bot FROM seats WHERE game_id = ? AND seat = 1",
                     [created["id"]])
    assert dict(row) == {"name": "Computer (easy)", "email": None, "bot": "easy"}
    assert not list(db.query("SELECT 1 FROM links WHERE game_id = ? AND seat = 1",
                             [created["id"]]))
    answer = client.get(api_of(created, 0)).json
    assert [(p["name"], p["bot"]) for p in answer["players"]] == \
        [("Ann", None), ("Computer (easy)", "easy")]


@pytest.mark.one_database  # a body refused before anything is stored
@pytest.mark.parametrize("level", ["grandmaster", "", 3, None, ["easy"]])
def test_an_unknown_level_is_refused_naming_the_levels(client, db, level):
    response = client.post("/api/games", json={"game": "mastery",
                                               "players": [ANN, {"bot": level}]})
    assert response.status_code == 400
    assert "Player 2" in response.json["error"] and ", ".join(bots.LEVELS) in \
        response.json["error"]
    assert not list(db.query("SELECT 1 FROM games"))


def test_computers_may_play_every_seat_and_are_never_emailed(client, db, app):
    created = create(client, "the-right-moves", [EASY, ANN, {"bot": "medium"}, {"bot": "hard"}])
    assert [s.get("bot") for s in created["seats"]] == ["easy", None, "medium", "hard"]
    both = create(client, "mastery", [EASY, EASY])
    assert [s["name"] for s in both["seats"]] == ["Computer (easy)"] * 2
    app.config.update(BOT_MOVES_PER_RUN=4, BOT_PACE_SECONDS=0, BOT_BETWEEN_COMPUTERS_SECONDS=60)
    assert scheduler.play_bots(app) == 4
    assert {row["recipient"] for row in db.query("SELECT recipient FROM outbox")} == \
        {"ann@example.org"}


# -- the job and the command -----------------------------------------------------------------

def test_play_bots_plays_every_due_computer_move_once_and_exits(client, runner, db):
    bot_first = create(client, "mastery", [EASY, ANN])
    ann_first = create(client, "mastery", [ANN, EASY])
    setup = create(client, "magnet", [ANN, EASY])  # both set up at once

    result = runner.invoke(args=["play-bots"])
    assert result.exit_code == 0 and result.output == "2 computer moves played\n"
    assert [seat for seat, _ in moves_in_log(db, bot_first["id"])] == [0]
    assert moves_in_log(db, ann_first["id"]) == []
    assert [seat for seat, _ in moves_in_log(db, setup["id"])] == [1]
    assert client.get(api_of(setup, 0)).json["to_move"] == [0]  # Ann still sets up
    assert runner.invoke(args=["play-bots"]).output == "0 computer moves played\n"


def test_the_job_answers_a_person_s_moves_but_no_web_request_plays_the_computer(
        client, app, db):
    created = create(client, "mastery", [ANN, EASY])
    ann = api_of(created, 0)
    for ply in (1, 3, 5):
        legal = client.get(ann).json["legal_moves"]
        answer = api_move(client, ann, legal[0])
        assert (answer["ply"], answer["to_move"]) == (ply, [1])  # the computer still to move
        assert client.get(ann).json["ply"] == ply  # and no later request played it either
        assert scheduler.play_bots(app) == 1
        after = client.get(ann).json
        assert (after["ply"], after["to_move"]) == (ply + 1, [0])
    assert [seat for seat, _ in moves_in_log(db, created["id"])] == [0, 1] * 3
    subjects = [row["subject"] for row in db.query(
        "SELECT subject FROM outbox WHERE kind = 'turn' ORDER BY id")]
    assert subjects == [f"Your move — Mastery: Ann vs Computer (easy) [{created['id']}]"] * 3
    assert not list(db.query("SELECT 1 FROM outbox WHERE seat = 1"))  # nothing to the computer


def test_computers_play_each_other_up_to_the_cap_of_a_run_and_others_get_their_turn(
        client, app, db):
    app.config.update(BOT_MOVES_PER_RUN=5, BOT_PACE_SECONDS=0, BOT_BETWEEN_COMPUTERS_SECONDS=60)
    between_computers = create(client, "mastery", [EASY, EASY])
    against_ann = create(client, "mastery", [EASY, ANN])
    assert scheduler.play_bots(app) == 5
    assert len(moves_in_log(db, against_ann["id"])) == 1  # not held up by the other game
    assert [seat for seat, _ in moves_in_log(db, between_computers["id"])] == [0, 1, 0, 1]
    assert scheduler.play_bots(app) == 5
    assert len(moves_in_log(db, between_computers["id"])) == 9


# -- people first: games between computers paced, in the time left, and limited -------------

def between_computers(app, db, count: int) -> list[str]:
    with app.test_request_context():
        return [creation.create(db, "mastery", [EASY, EASY], {}).match.id for _ in range(count)]


def test_a_person_waiting_for_the_computer_is_answered_in_the_next_run_whatever_is_due(
        client, app, db):
    app.config.update(BOT_MOVES_PER_RUN=10, BOT_BETWEEN_COMPUTERS_SECONDS=60)
    crowd = between_computers(app, db, 12)  # more than a run plays, all of them due
    created = create(client, "mastery", [ANN, EASY])
    later = datetime.now(timezone.utc) + timedelta(minutes=1)
    match = matches.load(db, created["id"])
    with app.test_request_context():  # Ann moves after the crowd began to wait
        commands.submit(db, created["id"], 0, Command.of("move", Move(
            match.game.legal_moves(match.current, 0)[0])), 0, now=later)
    assert scheduler.play_bots(app, later + timedelta(minutes=1)) == 10
    assert [seat for seat, _ in moves_in_log(db, created["id"])] == [0, 1]
    assert sum(len(moves_in_log(db, game_id)) for game_id in crowd) == 9


def test_games_between_computers_get_only_the_time_left_and_give_way_to_a_person(
        client, app, db, monkeypatch):
    app.config.update(BOT_PACE_SECONDS=0, BOT_BETWEEN_COMPUTERS_SECONDS=0)
    crowd = between_computers(app, db, 3)
    created = create(client, "mastery", [EASY, ANN])
    assert scheduler.play_bots(app) == 1  # the person's game alone
    assert sum(len(moves_in_log(db, game_id)) for game_id in crowd) == 0

    # with time left, the games between computers play on until a person waits again:
    # Ann moves while the job plays one of them, and her game is answered next
    app.config.update(BOT_BETWEEN_COMPUTERS_SECONDS=60, BOT_MOVES_PER_RUN=4)
    play, order = computer.play, []

    def ann_moves_meanwhile(job_db, turn, now=None):
        if not order:
            match = matches.load(db, created["id"])
            with app.test_request_context():
                commands.submit(db, created["id"], 1, Command.of("move", Move(
                    match.game.legal_moves(match.current, 1)[0])), 1)
        order.append(turn.game_id == created["id"])
        return play(job_db, turn, now)

    monkeypatch.setattr(computer, "play", ann_moves_meanwhile)
    assert scheduler.play_bots(app) == 4
    assert order == [False, True, False, False]
    assert [seat for seat, _ in moves_in_log(db, created["id"])] == [0, 1, 0]


def test_a_game_between_computers_moves_once_in_each_pace(client, app, db):
    app.config["BOT_PACE_SECONDS"] = 30
    [game_id] = between_computers(app, db, 1)
    start = utc.parse(matches.load(db, game_id).created_at)
    assert scheduler.play_bots(app, start + timedelta(seconds=29)) == 0
    assert scheduler.play_bots(app, start + timedelta(seconds=30)) == 1
    assert scheduler.play_bots(app, start + timedelta(seconds=59)) == 0
    assert scheduler.play_bots(app, start + timedelta(seconds=60)) == 1
    assert [seat for seat, _ in moves_in_log(db, game_id)] == [0, 1]


def test_the_games_between_computers_a_client_has_running_are_capped(client, app, db):
    app.config["COMPUTER_GAMES_RUNNING"] = 2
    clock = {"mode": "per_move", "days": 1}
    for _ in range(2):
        create(client, "mastery", [EASY, EASY], clock=clock)
    refused = client.post("/api/games", json={"game": "mastery", "players": [EASY, EASY]})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert refused.json == {"error": "You have 2 games between computers running, the most "
                                     "this server runs for one address (2). Please wait for "
                                     "one to end."}
    create(client, "mastery", [ANN, EASY])  # a person's games are not counted
    other = client.post("/api/games", json={"game": "mastery", "players": [EASY, EASY]},
                        environ_base={"REMOTE_ADDR": "10.1.2.3"})
    assert other.status_code == 201  # another client's allowance
    # the games remember their client by a keyed hash, not by its address
    clients = [row["client"] for row in db.query(
        "SELECT client FROM games ORDER BY created_at, client")]
    assert clients.count(None) == 1 and len(set(clients) - {None}) == 2
    assert "127.0.0.1" not in everything_in(db) and "10.1.2.3" not in everything_in(db)
    # once one ends (here on time), the client may start another
    commands.record_timeouts(db, datetime.now(timezone.utc) + timedelta(days=2))
    create(client, "mastery", [EASY, EASY])


def test_a_computer_partner_in_a_four_player_game(client, app, db):
    # Red: Ann (seat 0) and the computer (seat 2); Blue: Bob and Dee
    created = create(client, "the-right-moves",
                     [ANN, BOB, EASY, {"name": "Dee", "email": "dee@example.org"}])
    apis = {seat: api_of(created, seat) for seat in (0, 1, 3)}
    for _ in range(8):
        [seat] = client.get(apis[0]).json["to_move"]
        if seat == 2:
            assert scheduler.play_bots(app) == 1
        else:
            api_move(client, apis[seat], client.get(apis[seat]).json["legal_moves"][0])
    assert [seat for seat, _ in moves_in_log(db, created["id"])] == [0, 1, 2, 3] * 2

    # Ann proposes that Red resign: the computer plays on in an even game
    assert client.post(f"{apis[0]}/resign", json={}).status_code == 200
    assert scheduler.play_bots(app) == 1
    assert kinds_in_log(db, created["id"])[-2:] == [(0, "resign_offer"), (2, "resign_decline")]
    answer = client.get(apis[0]).json
    assert answer["outcome"] is None and answer["resign_offers"] == []


@pytest.mark.one_database  # a computer's choice
def test_a_computer_declines_a_draw_in_an_even_game_and_accepts_it_when_behind(
        client, app, db):
    created = create(client, "mastery", [ANN, EASY])
    ann = api_of(created, 0)
    # Ann offers a draw on her own turn: the computer answers without waiting for her move
    assert client.post(f"{ann}/draw", json={"answer": "offer"}).status_code == 200
    assert scheduler.play_bots(app) == 1
    assert kinds_in_log(db, created["id"])[-1] == (1, "draw_decline")
    assert client.get(ann).json["to_move"] == [0]

    # the computer's side falls behind (the moves chosen for both sides to favour Ann)
    game, judge = engine.get("mastery"), bots.HEURISTICS["mastery"]
    match = matches.load(db, created["id"])
    while computer.outlook(match, 1) >= computer.ACCEPT_DRAW_BELOW:
        [seat] = match.to_move
        move = max(game.legal_moves(match.current, seat),
                   key=lambda m: judge.evaluate(game.apply(match.current, seat, m), 0))
        with app.test_request_context():  # its emails build links
            match = commands.submit(db, match.id, seat, Command.of("move", Move(move)),
                                    match.ply).match
        assert not match.finished
    if match.to_move == (1,):
        assert scheduler.play_bots(app) == 1
    assert client.post(f"{ann}/draw", json={"answer": "offer"}).status_code == 200
    assert scheduler.play_bots(app) == 1
    assert client.get(ann).json["outcome"]["draw"] is True
    assert kinds_in_log(db, created["id"])[-1] == (1, "draw_accept")


@pytest.mark.one_database  # a computer's choice
def test_a_computer_sets_up_its_magnet_pieces_and_plays_on(client, app, db):
    created = create(client, "magnet", [ANN, EASY])
    ann = api_of(created, 0)
    assert scheduler.play_bots(app) == 1
    [(seat, setup)] = moves_in_log(db, created["id"])
    assert seat == 1 and setup.startswith("setup ")
    # Ann writes her own setup (the move a computer would choose for her side)
    match = matches.load(db, created["id"])
    mine = bots.choose(match.game, match.current, 0, level="easy", seed="Ann's")
    answer = api_move(client, ann, mine)
    while answer["to_move"] == [1]:
        assert scheduler.play_bots(app) == 1
        answer = client.get(ann).json
    assert answer["to_move"] == [0] and answer["outcome"] is None
    assert setup not in str(answer)  # the computer's values stay hidden from Ann


def test_two_job_runs_at_once_never_record_two_moves_for_one_ply(client, app, db,
                                                                   monkeypatch):
    created = create(client, "mastery", [EASY, ANN])
    # On PostgreSQL (several machines) a run claims the turn before the search: the other
    # leaves it alone. On SQLite both may search, and the second's move is refused as stale.
    claims = dialect(db) == "postgresql"
    both_chose, other_done = threading.Barrier(2, timeout=30), threading.Event()
    choose, chosen = bots.choose, []

    def choose_together(*args, **kwargs):  # both runs have read the game and chosen
        chosen.append(choose(*args, **kwargs))
        other_done.wait(30) if claims else both_chose.wait()
        return chosen[-1]

    def run():
        played.append(scheduler.play_bots(app))
        if played[-1] == 0:
            other_done.set()

    monkeypatch.setattr(bots, "choose", choose_together)
    played = []
    runs = [threading.Thread(target=run) for _ in range(2)]
    for thread in runs:
        thread.start()
    for thread in runs:
        thread.join()
    assert sorted(played) == [0, 1]
    assert len(chosen) == (1 if claims else 2)
    assert [seat for seat, _ in moves_in_log(db, created["id"])] == [0]


# -- standing in for a player on vacation ----------------------------------------------------

def test_the_computer_plays_for_a_player_on_vacation_only_if_they_asked(client, app, db):
    clock = {"mode": "per_move", "days": 3, "vacation_days": 10}
    created = create(client, "mastery", [ANN, BOB], clock=clock)
    ann, bob = api_of(created, 0), api_of(created, 1)
    bob_settings = path_of(created["seats"][1]["url"]) + "/email"
    page = client.get(bob_settings).get_data(as_text=True)
    assert "Let the computer play my moves (medium level) while I am on vacation" in page
    assert 'name="stand-in" value="on">' in page  # not ticked
    no_vacations = create(client, "mastery", [ANN, BOB])  # nothing to choose there
    assert "stand-in" not in client.get(
        path_of(no_vacations["seats"][1]["url"]) + "/email").get_data(as_text=True)

    # Ann asks for it, but is not on vacation: she plays her own moves
    ann_settings = path_of(created["seats"][0]["url"]) + "/email"
    assert client.post(ann_settings, data={"stand-in": ["off", "on"]}).status_code == 303
    assert scheduler.play_bots(app) == 0
    api_move(client, ann, client.get(ann).json["legal_moves"][0])

    # Bob goes on vacation without asking: his turn waits for him
    assert client.post(f"{bob}/vacation", json={"days": 2}).status_code == 200
    assert scheduler.play_bots(app) == 0
    assert client.get(bob).json["to_move"] == [1]

    # once he asks for it, the computer plays his move (and only his: then Ann's turn),
    # though not while Ann's draw offer waits for his answer (a move would decline it)
    assert client.post(bob_settings, data={"stand-in": ["off", "on"]}).status_code == 303
    assert 'name="stand-in" value="on" checked>' in client.get(bob_settings).get_data(
        as_text=True)
    assert client.post(f"{ann}/draw", json={"answer": "offer"}).status_code == 200
    assert scheduler.play_bots(app) == 0
    assert client.post(f"{bob}/draw", json={"answer": "decline"}).status_code == 200
    assert scheduler.play_bots(app) == 1
    assert [seat for seat, _ in moves_in_log(db, created["id"])] == [0, 1]
    assert client.get(ann).json["to_move"] == [0]

    # unticked, it stops
    api_move(client, ann, client.get(ann).json["legal_moves"][0])
    assert client.post(bob_settings, data={"stand-in": "off"}).status_code == 303
    assert scheduler.play_bots(app) == 0


# -- rematches and the query the job runs ----------------------------------------------------

def test_a_rematch_against_the_computer_starts_when_the_person_asks(client, app, db):
    created = create(client, "mastery", [ANN, EASY])
    ann = api_of(created, 0)
    assert client.post(f"{ann}/resign", json={}).status_code == 200
    response = client.post(f"{ann}/rematch", json={})
    assert response.status_code == 201 and response.json["seat"] == 1  # sides swapped
    [row] = db.query("SELECT name, bot FROM seats WHERE game_id = ? AND seat = 0",
                     [response.json["id"]])
    assert dict(row) == {"name": "Computer (easy)", "bot": "easy"}
    assert scheduler.play_bots(app) == 1  # the computer opens the rematch
    assert client.get(path_of(response.json["api"])).json["to_move"] == [1]


def test_the_due_query_reads_only_the_due_rows_of_the_seats_the_server_plays(db):
    statements = []
    now = datetime(2030, 1, 1, tzinfo=timezone.utc)
    db.conn.set_trace_callback(statements.append)
    try:
        computer.due_turns(db, now)
    finally:
        db.conn.set_trace_callback(None)
    [query] = statements
    if dialect(db) == "sqlite":
        plan = " | ".join(row["detail"] for row in db.query("EXPLAIN QUERY PLAN " + query))
        assert "SEARCH d USING INDEX idx_due_kind_at (kind=? AND at<?)" in plan
        assert "SCAN" not in plan  # never every row, seat or game
    else:  # its planner reads tables this small whole: ask whether the index serves
        db.execute("SET enable_seqscan = off")
        plan = " | ".join(row[0] for row in db.execute("EXPLAIN " + query))
        assert "idx_due_kind_at" in plan and "Seq Scan" not in plan


@pytest.mark.one_database  # a computer's choice
def test_the_computer_plays_the_same_whatever_the_secrets_it_cannot_see(app, client, db):
    """Two games of Magnet with one seed, where Ann's secret setups differ only in the
    values of two of her pieces: the computer, which cannot see them, plays the same."""
    setups = ["setup a2=K a3=T2 a4=T3 a5=2 b7=2 c8=2 d9=3 e10=3 g10=3 h9=4 i8=4 j7=4",
              "setup a2=K a3=T2 a4=T3 a5=4 b7=2 c8=2 d9=3 e10=3 g10=3 h9=2 i8=4 j7=4"]
    with app.test_request_context():
        games = [creation.create(db, "magnet", [ANN, EASY], {}, seed="one seed")
                 for _ in setups]
    assert scheduler.play_bots(app) == 2  # the computer's setups, before Ann's
    for created, setup in zip(games, setups):
        with app.test_request_context():
            commands.submit(db, created.match.id, 0, Command.of("move", Move(setup)), 0)
    for _ in range(3):
        # Ann plays the same moves in both games (a computer's choice, without promotions,
        # which her values decide)
        match = matches.load(db, games[0].match.id)
        move = bots.choose(match.game, match.current, 0, level="easy", seed="Ann's")
        for created in games:
            with app.test_request_context():
                commands.submit(db, created.match.id, 0,
                                Command.of("move", Move(move.replace("+", ""))), match.ply)
        assert scheduler.play_bots(app) == 2
        first, second = (moves_in_log(db, created.match.id) for created in games)
        assert first[2:] == second[2:] and first[-1][0] == 1
