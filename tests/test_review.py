"""Review and records: the analysis of any position, the computer's view of a finished game,
Abstract Play's game record, and each move's time."""
from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

import engine
from engine import bots
from pbem import analysis, matches, positions
from pbem.store import utc
from pbem.store.db import write
from pbem.web.database import get_db
from pbem.web import records

from helpers import api_move, path_of


def event_count(db, game_id: str) -> int:
    return db.execute("SELECT count(*) FROM events WHERE game_id = ?", [game_id]).fetchone()[0]


@pytest.mark.one_database  # an analysis stores nothing
def test_an_analysis_plays_a_line_from_any_ply_and_records_nothing(client, db, new_game):
    game = new_game("mastery")
    mastery = engine.GAMES["mastery"]
    first = mastery.legal_moves(mastery.start(2, None, ""), 0)[0]
    api_move(client, game.apis[0], first)
    before = event_count(db, game.id)

    start = client.post(f"{game.apis[1]}/analysis", json={"ply": 0, "moves": []})
    assert start.status_code == 200
    assert start.json["ply"] == 0 and start.json["to_move"] == [0]
    assert first in start.json["legal_moves"] and start.json["outcome"] is None

    reply = start.json["legal_moves"][0]
    line = client.post(f"{game.apis[1]}/analysis", json={"ply": 0, "moves": [reply]}).json
    state = mastery.apply(mastery.start(2, None, ""), 0, reply)
    assert line["ply"] == 1 and line["to_move"] == [1]
    assert line["legal_moves"] == mastery.legal_moves(state, 1)
    assert line["view"] == json.loads(json.dumps(mastery.view(state, 1)))

    now = client.post(f"{game.apis[1]}/analysis", json={"moves": []}).json  # the game now
    assert now["ply"] == 1 and now["to_move"] == [1]
    assert event_count(db, game.id) == before


@pytest.mark.one_database  # an analysis stores nothing
@pytest.mark.parametrize("body, status", [
    ({"ply": 0, "moves": ["z9-z9"]}, 422),    # illegal
    ({"ply": 7, "moves": []}, 422),           # a ply the game never reached
    ({"ply": "0", "moves": []}, 400),
    ({"ply": 0, "moves": "a1"}, 400),
    ({"ply": 0, "moves": ["a1"] * 201}, 400),
])
def test_an_analysis_refuses_what_it_cannot_play(client, db, new_game, body, status):
    game = new_game("mastery")
    before = event_count(db, game.id)
    response = client.post(f"{game.apis[0]}/analysis", json=body)
    assert response.status_code == status and response.json["error"]
    assert event_count(db, game.id) == before


@pytest.mark.one_database  # what an analysis shows
def test_hidden_information_is_analysed_only_once_the_game_is_over(client, new_game):
    game = new_game("magnet")
    for api in game.apis + [game.watch.replace("/watch/", "/api/watch/")]:
        refused = client.post(f"{api}/analysis", json={"ply": 0, "moves": []})
        assert refused.status_code == 422 and "once the game is over" in refused.json["error"]
    assert client.post(f"{game.apis[0]}/resign", json={"ply": 0}).status_code == 200
    after = client.post(f"{game.apis[1]}/analysis", json={"ply": 0, "moves": []})
    assert after.status_code == 200 and after.json["legal_moves"]


@pytest.fixture
def quick_assessments(monkeypatch):
    """The computer's strongest level assesses finished games; the tests' assessments search
    at its weakest, the same search 25 times shorter."""
    assert bots.LEVELS[analysis.ASSESSING_LEVEL] == max(bots.LEVELS.values())
    monkeypatch.setattr(analysis, "ASSESSING_LEVEL", min(bots.LEVELS, key=bots.LEVELS.get))


@pytest.mark.one_database  # what an analysis shows
def test_the_computer_rates_positions_of_finished_games_only(app, client, new_game,
                                                            quick_assessments):
    game = new_game("mastery")
    with app.test_request_context():
        running = matches.load(get_db(), game.id)
        assert analysis.assess(running, running.current) is None
    client.post(f"{game.apis[0]}/resign", json={"ply": 0})
    with app.test_request_context():
        over = matches.load(get_db(), game.id)
        seen = analysis.assess(over, over.states[0])
    assert seen.mover == 0 and 0 <= seen.score <= 1
    assert (seen.move, seen.score) == bots.assess(over.game, over.states[0], 0,
                                                  level=analysis.ASSESSING_LEVEL, seed=over.seed)


@pytest.mark.one_database  # how a record is written
def test_the_abstract_play_record_has_rounds_of_one_entry_per_seat(client, new_game):
    game = new_game("mastery", names=["Ann", "Bob"])
    mastery = engine.GAMES["mastery"]
    state, played = mastery.start(2, None, ""), []
    for ply in range(3):
        move = mastery.legal_moves(state, ply % 2)[0]
        api_move(client, game.apis[ply % 2], move)
        state = mastery.apply(state, ply % 2, move)
        played.append(move)
    client.post(f"{game.apis[1]}/resign", json={"ply": 3})

    record = client.get(f"{game.apis[0]}/record?format=apgamerecord").json
    header = record["header"]
    assert header["game"]["name"] == "Mastery" and header["site"]["name"] == "localhost"
    assert {"date-start", "date-end", "date-generated"} <= set(header)
    assert header["players"] == [{"name": "Ann", "result": 1}, {"name": "Bob", "result": 0}]
    assert record["moves"] == [played[:2], [played[2], None]]
    assert len(header["moveTimes"]) == 3

    replayed = records.replay(record)  # and read back, as an uploaded record is
    assert [move for _, move in replayed.moves] == played
    assert replayed.final == state


@pytest.mark.one_database  # how a record is written
def test_an_unknown_record_format_is_refused(client, new_game):
    game = new_game("mastery")
    response = client.get(f"{game.apis[0]}/record?format=pgn")
    assert response.status_code == 400 and "apgamerecord" in response.json["error"]


def test_every_move_shows_when_it_was_played_and_the_time_it_took(client, new_game,
                                                                 monkeypatch):
    monkeypatch.setattr(utc, "now", lambda: datetime(2026, 1, 1, 10, 0, tzinfo=UTC))  # made
    game = new_game("mastery")
    monkeypatch.setattr(utc, "now", lambda: datetime(2026, 1, 3, 13, 5, tzinfo=UTC))
    mastery = engine.GAMES["mastery"]
    api_move(client, game.apis[0], mastery.legal_moves(mastery.start(2, None, ""), 0)[0])
    page = client.get(game.urls[0]).get_data(as_text=True)
    assert '<time datetime="2026-01-03T13:05:00+00:00">03 Jan 13:05</time>, took 2 d 3 h' in page
    russian = client.get(game.urls[0], headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert '<time datetime="2026-01-03T13:05:00+00:00">03 янв. 13:05</time>, на ход: 2\xa0дн. 3\xa0ч' \
        in russian
    record = client.get(f"{game.apis[0]}/record").json
    assert record["events"][-1]["took"] == 2 * 86400 + 3 * 3600 + 5 * 60


@pytest.mark.one_database  # what the page draws
def test_the_analysis_page_steps_branches_and_asks_the_computer(client, new_game,
                                                               quick_assessments):
    game = new_game("mastery")
    mastery = engine.GAMES["mastery"]
    start = mastery.start(2, None, "")
    first, other = mastery.legal_moves(start, 0)[:2]
    reply = mastery.legal_moves(mastery.apply(start, 0, first), 1)[0]
    base = f"{game.urls[0]}/analysis"

    page = client.get(f"{base}?ply=0&m={first}&m={reply}&at=1")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "after 1 of 2 moves of this line" in html
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert "Ask the computer" not in html  # only once the game is over
    # playing another move where the line goes on starts a branch
    branch = client.get(f"{base}?ply=0&m={other}").get_data(as_text=True)
    assert "after 1 of 1 moves" in branch

    client.post(f"{game.apis[0]}/resign", json={"ply": 0})
    asked = client.post(f"{base}?ply=0").get_data(as_text=True)
    assert 'id="assessment"' in asked and "would play" in asked


@pytest.mark.one_database  # what the page draws
def test_the_analysis_page_of_a_running_hidden_game_is_refused(client, new_game):
    game = new_game("magnet")
    response = client.get(f"{game.urls[0]}/analysis?ply=0")
    assert response.status_code == 422
    assert 'id="analyse"' not in client.get(game.urls[0]).get_data(as_text=True)


def finished_magnet(client, new_game):
    """A Magnet game with both set-ups and a turn played, then resigned; its record."""
    game = new_game("magnet", names=["Ann", "Bob"])
    magnet = engine.GAMES["magnet"]
    state = magnet.start(2, None, "")
    for _ in range(3):
        mover = state.to_move[0]
        move = magnet.legal_moves(state, mover)[0]
        api_move(client, game.apis[mover], move)
        state = magnet.apply(state, mover, move)
    client.post(f"{game.apis[0]}/resign", json={"ply": 3})
    return client.get(f"{game.apis[0]}/record?format=apgamerecord").json, state


def test_an_uploaded_record_is_reviewed_move_by_move(client, db, new_game):
    record, state = finished_magnet(client, new_game)
    assert "\"setup\"" not in json.dumps(record["moves"])  # over: the set-ups are public
    uploaded = client.post("/records", data={"pasted": json.dumps(record)})
    assert uploaded.status_code == 303
    review = client.get(path_of(uploaded.headers["Location"]))
    html = review.get_data(as_text=True)
    assert review.status_code == 200 and "Position after ply 3 of 3" in html
    assert "Ann" in html and "Bob" in html
    first = client.get(path_of(uploaded.headers["Location"]).rsplit("/", 1)[0] + "/1")
    assert "Position after ply 1 of 3" in first.get_data(as_text=True)
    assert db.execute("SELECT count(*) FROM uploaded_records").fetchone()[0] == 1


@pytest.mark.parametrize("change, message", [
    (lambda r: "not json", "This is not JSON"),
    (lambda r: json.dumps({**r, "header": {**r["header"], "game": {"name": "Chess"}}}),
     "this server plays"),
    (lambda r: json.dumps({**r, "moves": [["k9:k9"]]}), "is not legal there"),
    (lambda r: json.dumps({"moves": []}), "needs a header and moves"),
])
def test_a_record_that_does_not_replay_is_refused_and_kept_nowhere(client, db, new_game,
                                                                   change, message):
    record, _ = finished_magnet(client, new_game)
    response = client.post("/records", data={"pasted": change(record)})
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert db.execute("SELECT count(*) FROM uploaded_records").fetchone()[0] == 0


def long_mastery(rounds: int) -> dict:
    """A Mastery record (draws by repetition off) of ``rounds`` rounds: two pieces going
    back and forth, two moves a round."""
    there, back = ["d1-c1", "c5-d5"], ["c1-d1", "d5-c5"]
    return {"header": {"game": {"name": "Mastery", "variants": ["repetition_draw=false"]},
                       "players": [{"name": "Ann"}, {"name": "Bob"}]},
            "moves": [there if number % 2 == 0 else back for number in range(rounds)]}


@pytest.mark.one_database  # refused before anything is stored
def test_a_record_longer_than_the_most_reviewed_is_refused_saying_the_most(client, db):
    record = long_mastery(records.MOST_PLIES // 2 + 1)
    response = client.post("/records", data={"pasted": json.dumps(record)})
    assert response.status_code == 422
    assert "more than 2000 moves, the most this server reviews" in response.text
    assert db.execute("SELECT count(*) FROM uploaded_records").fetchone()[0] == 0


def test_a_review_page_plays_at_most_15_moves_of_the_longest_record(client, db,
                                                                     monkeypatch):
    """The record is replayed once, at upload; each of its review pages starts from a
    position kept then, as a game's history page does, and lists the moves around it."""
    uploaded = client.post("/records", data={"pasted": json.dumps(
        long_mastery(records.MOST_PLIES // 2))})
    assert uploaded.status_code == 303
    review = path_of(uploaded.headers["Location"]).rsplit("/", 1)[0]
    assert db.execute("SELECT count(*) FROM record_positions").fetchone()[0] == 126
    mastery = type(engine.GAMES["mastery"])
    applied = []
    real = mastery.apply
    monkeypatch.setattr(mastery, "apply", lambda *args: applied.append(1) or real(*args))
    for ply, after in ((1999, "Position after ply 1999 of 2000"),
                       (2000, "Position after ply 2000 of 2000"), (15, "after ply 15 of")):
        applied.clear()
        page = client.get(f"{review}/{ply}")
        assert page.status_code == 200 and after in page.text
        assert len(applied) <= 15
    assert len(page.text) < 60_000  # 200 moves listed, not 2,000
    assert page.text.count("<li>") == records.LISTED and "Moves 1 to 200 of 2000." in page.text
    middle = client.get(f"{review}/1000").text
    assert '<ol start="900">' in middle and f'href="{review}/1099"' in middle
    assert f'href="{review}/1100"' in middle  # later moves
    assert client.get(f"{review}/2001").status_code == 404


def test_a_record_kept_by_other_rules_is_replayed_again_once(client, db, new_game):
    """A record uploaded before its replay was kept, or replayed by another engine's code,
    is replayed when it is next reviewed, and its replay kept."""
    record, state = finished_magnet(client, new_game)
    uploaded = client.post("/records", data={"pasted": json.dumps(record)})
    record_id = path_of(uploaded.headers["Location"]).split("/")[2]
    with write(db):
        db.execute("UPDATE uploaded_records SET engine = NULL, names = NULL, moves = NULL")
        db.execute("DELETE FROM record_positions")
    page = client.get(f"/records/{record_id}/1")
    assert page.status_code == 200 and "Position after ply 1 of 3" in page.text
    assert "Ann" in page.text
    assert db.execute("SELECT engine FROM uploaded_records").fetchone()[0] == positions.ENGINE
    assert db.execute("SELECT count(*) FROM record_positions").fetchone()[0] == 2  # 0 and 3
    with write(db):  # rules that no longer take its moves
        db.execute("UPDATE uploaded_records SET engine = 'other rules', record = ?",
                   [json.dumps({**record, "moves": [["k9:k9"]]})])
    gone = client.get(f"/records/{record_id}/2")
    assert gone.status_code == 410 and "is not legal there" in gone.text
