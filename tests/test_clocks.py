"""Game clocks: the arithmetic (pure), creating clocked games (API and form), showing the
clocks (API and pages), vacations, and the scheduler's job that warns and ends games on time.

Time is hardly ever faked: the job takes ``now`` and is called with a time in the future,
which is what waiting would do; "a game created days ago" is a game whose creation time is
moved into the past in the database. Where a test must stop time, it patches the app's one
clock, ``pbem.store.utc.now``.
"""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from pbem import clocks, commands, create_app, creation, due, events, matches
from pbem.events import Command
from pbem.jobs import scheduler
from pbem.clocks import Step
from pbem.mail.outbox import build
from pbem.store import utc
from pbem.store.db import connect
from pbem.matches import CACHE

from helpers import path_of

DAY = timedelta(days=1)
HOUR = timedelta(hours=1)
MONDAY = datetime(2024, 1, 1, tzinfo=timezone.utc)  # a Monday
PLAYERS = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]
PER_MOVE = {"mode": "per_move", "days": 3}
PLAY_LINK = re.compile(r"http://localhost(/play/[A-Za-z0-9_-]{32})")


def per_move(days=3, **more):
    return clocks.Clock.of(clocks.settings({"mode": "per_move", "days": days, **more}))


def fischer(initial=7, increment=1, most=14, **more):
    return clocks.Clock.of(clocks.settings({"mode": "fischer", "initial_days": initial,
                                            "increment_days": increment, "max_days": most,
                                            **more}))


class Log:
    """A two-seat (or more) game's log for ``clocks.compute``: alternating turns."""

    def __init__(self, clock, players=2, start=MONDAY, to_move=(0,)):
        self.clock, self.players, self.start, self.to_move = clock, players, start, to_move
        self.steps: list[Step] = []
        self.next_to_move = tuple(to_move)

    def move(self, seat: int, at: datetime, to_move: tuple[int, ...] | None = None) -> Log:
        if to_move is None:
            to_move = ((seat + 1) % self.players,)
        self.steps.append(Step(len(self.steps) + 1, at, seat, "turn_ends", 0, to_move))
        self.next_to_move = to_move
        return self

    def vacation(self, seat: int, at: datetime, days: int) -> Log:
        self.steps.append(Step(len(self.steps) + 1, at, seat, "pauses", days,
                               self.next_to_move))
        return self

    def at(self, now: datetime) -> tuple[clocks.SeatClock, ...]:
        return clocks.compute(self.clock, self.players, self.start, self.to_move,
                              self.steps, now)


def days(seconds: float) -> float:
    return round(seconds / 86400, 4)


# -- the arithmetic ------------------------------------------------------------------------

def test_per_move_gives_each_turn_its_days():
    log = Log(per_move(3)).move(0, MONDAY + DAY)
    dark, light = log.at(MONDAY + 2 * DAY)
    assert (dark.running, days(dark.remaining), dark.deadline) == (False, 3, None)
    assert (light.running, days(light.remaining)) == (True, 2)
    assert light.deadline == MONDAY + 4 * DAY and light.turn_seq == 1
    assert light.turn_start == MONDAY + DAY
    # a slow move does not eat into the next turn
    log.move(1, MONDAY + 3 * DAY + 23 * HOUR)
    dark, light = log.at(MONDAY + 4 * DAY)
    assert days(dark.remaining) == days(3 * 86400 - 3600) and dark.deadline == MONDAY + 6 * DAY + 23 * HOUR
    assert days(light.remaining) == 3
    # past the deadline nothing is left
    assert log.at(MONDAY + 9 * DAY)[0].expired and log.at(MONDAY + 9 * DAY)[0].remaining == 0


def test_fischer_takes_time_from_the_bank_adds_the_increment_and_caps_it():
    log = Log(fischer(initial=7, increment=1, most=8))
    log.move(0, MONDAY + 2 * DAY)             # Dark used 2 days: 7 - 2 + 1 = 6
    log.move(1, MONDAY + 2 * DAY + 12 * HOUR)  # Light used half a day: 7.5
    dark, light = log.at(MONDAY + 3 * DAY)
    assert days(dark.remaining) == 5.5 and dark.deadline == MONDAY + 8 * DAY + 12 * HOUR
    assert days(light.remaining) == 7.5 and not light.running
    log.move(0, MONDAY + 3 * DAY)              # Dark: 6 - 0.5 + 1 = 6.5
    log.move(1, MONDAY + 3 * DAY + HOUR)       # Light: 7.5 - 1/24 + 1, capped at 8
    log.move(0, MONDAY + 3 * DAY + 2 * HOUR)   # Dark: 6.5 - 1/24 + 1
    dark, light = log.at(MONDAY + 3 * DAY + 2 * HOUR)
    assert days(light.remaining) == 8 and light.deadline == MONDAY + 11 * DAY + 2 * HOUR
    assert days(dark.remaining) == days(7.5 * 86400 - 3600)


def test_a_fischer_bank_can_start_below_its_cap_and_only_grows_to_it():
    log = Log(fischer(initial=1, increment=2, most=4))
    for n in range(6):
        log.move(n % 2, MONDAY + n * HOUR)
    dark, light = log.at(MONDAY + 6 * HOUR)
    assert days(dark.remaining) == days(4 * 86400 - 3600) and days(light.remaining) == 4


def test_the_weekend_pause_stops_the_clock_from_saturday_to_monday():
    friday_noon = MONDAY + 4 * DAY + 12 * HOUR
    paused = Log(per_move(2, weekends="pause")).move(0, friday_noon)
    counted = Log(per_move(2, weekends="count")).move(0, friday_noon)
    # half of Friday, all of Monday, half of Tuesday
    assert paused.at(friday_noon)[1].deadline == friday_noon + 4 * DAY
    assert counted.at(friday_noon)[1].deadline == friday_noon + 2 * DAY
    sunday = friday_noon + 2 * DAY
    light = paused.at(sunday)[1]
    assert days(light.remaining) == 1.5 and light.paused and light.running
    assert days(paused.at(sunday + DAY)[1].remaining) == 1  # Monday noon
    assert not paused.at(sunday + DAY)[1].paused
    assert counted.at(sunday)[1].expired
    # a turn that begins on Saturday starts counting on Monday morning
    saturday = MONDAY + 5 * DAY + 9 * HOUR
    log = Log(per_move(1, weekends="pause")).move(0, saturday)
    assert log.at(saturday)[1].deadline == MONDAY + 8 * DAY
    # a deadline that falls at Friday's end is Saturday 0:00, not Monday
    log = Log(per_move(1, weekends="pause")).move(0, MONDAY + 4 * DAY)
    assert log.at(MONDAY + 4 * DAY)[1].deadline == MONDAY + 5 * DAY
    # a Fischer bank is charged only weekday time as well
    log = Log(fischer(initial=7, increment=0, most=7, weekends="pause"))
    log.move(0, MONDAY + 7 * DAY)  # a whole week: 5 days counted
    assert days(log.at(MONDAY + 7 * DAY)[0].remaining) == 2


def test_a_vacation_stops_its_players_clock():
    log = Log(per_move(3)).vacation(0, MONDAY + DAY, 2)
    dark = log.at(MONDAY + 2 * DAY)[0]
    assert dark.paused and dark.vacation_until == MONDAY + 3 * DAY
    assert days(dark.remaining) == 2 and dark.deadline == MONDAY + 5 * DAY
    assert not log.at(MONDAY + 3 * DAY)[0].paused and log.at(MONDAY + 3 * DAY)[0].vacation_until is None
    # a second vacation taken during the first one follows it
    log.vacation(0, MONDAY + 2 * DAY, 1)
    assert log.at(MONDAY + 2 * DAY)[0].deadline == MONDAY + 6 * DAY
    assert log.at(MONDAY + 3 * DAY + HOUR)[0].vacation_until == MONDAY + 4 * DAY


def test_a_vacation_taken_before_the_turn_delays_its_start_and_others_run_on():
    log = Log(per_move(3)).vacation(1, MONDAY, 2).move(0, MONDAY + DAY)
    dark, light = log.at(MONDAY + DAY)
    assert light.deadline == MONDAY + 5 * DAY and days(light.remaining) == 3
    assert light.vacation_until == MONDAY + 2 * DAY and not dark.paused
    # with weekends paused too: vacation Friday noon to Monday noon, then Monday noon on
    log = Log(per_move(1, weekends="pause"), start=MONDAY + 4 * DAY)  # Friday 0:00
    log.vacation(0, MONDAY + 4 * DAY + 12 * HOUR, 3)
    assert log.at(MONDAY + 4 * DAY)[0].deadline == MONDAY + 8 * DAY  # Monday's end


def test_seats_moving_at_once_each_run_their_own_clock():
    # Magnet's setup: both seats move first, in any order
    log = Log(per_move(2), to_move=(0, 1))
    both = log.at(MONDAY + DAY)
    assert [c.running for c in both] == [True, True]
    assert [c.deadline for c in both] == [MONDAY + 2 * DAY] * 2
    log.move(1, MONDAY + DAY, to_move=(0,))
    dark, light = log.at(MONDAY + DAY + HOUR)
    assert dark.running and dark.deadline == MONDAY + 2 * DAY and dark.turn_seq == 0
    assert not light.running and days(light.remaining) == 2
    log.move(0, MONDAY + DAY + 2 * HOUR, to_move=(0,))  # then Dark moves twice in a row
    assert log.at(MONDAY + DAY + 3 * HOUR)[0].deadline == MONDAY + 3 * DAY + 2 * HOUR


def test_the_yearly_vacation_allowance_counts_the_calendar_year_of_each_declaration():
    steps = [Step(1, datetime(2023, 12, 30, tzinfo=timezone.utc), 0, "pauses", 4, (0,)),
             Step(2, datetime(2024, 1, 2, tzinfo=timezone.utc), 0, "pauses", 2, (0,)),
             Step(3, datetime(2024, 1, 3, tzinfo=timezone.utc), 1, "pauses", 3, (0,))]
    assert clocks.vacation_days_used(steps, 0, 2023) == 4
    assert clocks.vacation_days_used(steps, 0, 2024) == 2
    assert clocks.vacation_days_used(steps, 1, 2024) == 3
    seats = clocks.compute(per_move(3, vacation_days=5), 2, datetime(2023, 12, 1, tzinfo=timezone.utc),
                           (0,), steps, datetime(2024, 1, 4, tzinfo=timezone.utc))
    assert [c.vacation_days_left for c in seats] == [3, 2]


def test_clocks_folded_event_by_event_are_those_of_the_whole_log():
    """A move folds its own step into the clocks kept so far (``Timing.then``), which
    must give what folding the whole log again gives, also where a vacation declared
    out of time order begins before a time already counted (then it folds all again)."""
    clock = fischer(3, 1, 5, weekends="pause", vacation_days=20)
    log = (Log(clock).move(0, MONDAY + 5 * HOUR).vacation(1, MONDAY + DAY, 2)
           .move(1, MONDAY + 4 * DAY).vacation(0, MONDAY + 4 * DAY, 3)
           .move(0, MONDAY + 9 * DAY).vacation(1, MONDAY + 2 * DAY, 1)  # recorded late
           .move(1, MONDAY + 10 * DAY).vacation(1, MONDAY + 10 * DAY, 1))
    whole = clocks.Timing.folded(clock, 2, MONDAY, (0,), log.steps)
    assert whole.at(MONDAY + 11 * DAY) == log.at(MONDAY + 11 * DAY)
    for split in range(len(log.steps) + 1):
        for now in (MONDAY + 3 * DAY, MONDAY + 11 * DAY, MONDAY + 30 * DAY):
            early = clocks.Timing.folded(clock, 2, MONDAY, (0,), log.steps[:split])
            later = early.then(log.steps[split:])
            if later is None:  # the vacation recorded late: the log is folded again
                assert any(step.effect == "pauses" and step.at < early.latest
                           for step in log.steps[split:])
                continue
            assert later.at(now) == whole.at(now), (split, now)


def test_a_games_clocks_kept_move_by_move_are_those_of_its_whole_log(app, db):
    """The clocks each recorded event leaves (folded into the game's clocks before it) are
    those of the game's whole log, from the join that starts it on."""
    with app.test_request_context():  # the emails' links
        game = creation.create(db, "mastery", [PLAYERS[0], {"open": True}], {},
                              clock=fischer(3, 1, 5, vacation_days=10).to_json()).match
        submitted = [commands.submit(db, game.id, 1, Command.of(
            "join", events.Joiner("Bob", "bob@example.org")))]
        submitted.append(commands.submit(db, game.id, 1, Command.of("vacation",
                                                                   events.Days(2))))
        for ply in range(6):
            after = submitted[-1].match
            seat = after.to_move[0]
            move = after.game.legal_moves(after.current, seat)[0]
            submitted.append(commands.submit(db, game.id, seat,
                                             Command.of("move", events.Move(move)), ply))
    for each in submitted:
        assert each.match.timing == clocks.timing(each.match), each.kind
    assert submitted[-1].match.timing.turn[0] != 0  # its clock began with the join


def test_remaining_time_in_words():
    assert clocks.duration_text(2 * 86400 + 4 * 3600 + 59) == "2 days 4 hours"
    assert clocks.duration_text(86400) == "1 day"
    assert clocks.duration_text(5 * 3600 + 600) == "5 hours 10 minutes"
    assert clocks.duration_text(40 * 60) == "40 minutes"
    assert clocks.duration_text(30) == "less than a minute"
    assert clocks.duration_text(0) == "no time"


# -- creating clocked games ----------------------------------------------------------------

def create(client, clock=None, game="mastery", players=PLAYERS, **more):
    body = {"game": game, "players": players, **more}
    if clock is not None:
        body["clock"] = clock
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.json
    return response.json


def apis(created) -> list[str]:
    return [path_of(s["api"]) for s in created["seats"]]


def test_the_api_stores_a_normalised_clock_and_games_default_to_none(client):
    created = create(client, {"mode": "fischer", "initial_days": 7, "increment_days": 1,
                              "max_days": 14, "weekends": "pause"})
    answer = client.get(apis(created)[0]).json
    assert answer["time_control"] == {"mode": "fischer", "initial_days": 7,
                                      "increment_days": 1, "max_days": 14,
                                      "weekends": "pause", "on_timeout": "loss",
                                      "vacation_days": 0}
    plain = client.get(apis(create(client))[0]).json
    assert plain["clocks"] is None and plain["time_control"] is None
    assert client.get(apis(create(client, {"mode": "none"}))[0]).json["clocks"] is None


@pytest.mark.one_database  # refused before anything is stored
@pytest.mark.parametrize("clock, words", [
    ("3 days", "'clock' must be an object"),
    ({"mode": "hourglass"}, "mode"),
    ({"mode": "per_move"}, "'days'"),
    ({"mode": "per_move", "days": 0}, "'days' must be a whole number of days from 1"),
    ({"mode": "per_move", "days": 2.5}, "'days'"),
    ({"mode": "per_move", "days": True}, "'days'"),
    ({"mode": "per_move", "days": 3, "initial_days": 2}, "Unknown clock setting 'initial_days'"),
    ({"mode": "per_move", "days": 3, "weekends": "skip"}, "'weekends' must be one of: count, pause"),
    ({"mode": "per_move", "days": 3, "on_timeout": "win"}, "'on_timeout'"),
    ({"mode": "per_move", "days": 3, "vacation_days": -1}, "'vacation_days'"),
    ({"mode": "fischer", "initial_days": 7, "increment_days": 1}, "'max_days'"),
    ({"mode": "fischer", "initial_days": 7, "increment_days": 1, "max_days": 5},
     "at least its 'initial_days'"),
    ({"mode": "none", "days": 3}, "without a clock"),
])
def test_invalid_clocks_are_refused_with_a_reason(client, clock, words):
    response = client.post("/api/games", json={"game": "mastery", "players": PLAYERS,
                                               "clock": clock})
    assert response.status_code == 400
    assert words in response.json["error"]


FORM = {"players": "2", "name0": "Ann", "email0": "ann@example.org",
        "name1": "Bob", "email1": "bob@example.org"}
CLOCK_FORM = {"clock-days": "3", "clock-initial_days": "7", "clock-increment_days": "1",
              "clock-max_days": "14", "clock-weekends": "count", "clock-on_timeout": "loss",
              "clock-vacation_days": "0"}


@pytest.mark.one_database  # what the page draws
def test_the_new_game_form_has_the_clock_fields_and_creates_clocked_games(client):
    page = client.get("/new/mastery").get_data(as_text=True)
    for name in ("mode", "days", "initial_days", "increment_days", "max_days", "weekends",
                 "on_timeout", "vacation_days"):
        assert f'name="clock-{name}"' in page
    response = client.post("/new/mastery", data={
        **FORM, **CLOCK_FORM, "clock-mode": "per_move", "clock-on_timeout": "draw",
        "clock-vacation_days": "10"}, follow_redirects=True)
    assert response.status_code == 200
    link = re.search(r'class="seat-link" data-seat="0" href="http://localhost([^"]+)"',
                     response.get_data(as_text=True)).group(1)
    answer = client.get("/api" + link).json
    # only the chosen mode's fields are taken
    assert answer["time_control"] == {"mode": "per_move", "days": 3, "weekends": "count",
                                      "on_timeout": "draw", "vacation_days": 10}
    none = client.post("/new/mastery", data={**FORM, **CLOCK_FORM, "clock-mode": "none"},
                       follow_redirects=True)
    link = re.search(r'data-seat="0" href="http://localhost([^"]+)"',
                     none.get_data(as_text=True)).group(1)
    assert client.get("/api" + link).json["clocks"] is None


@pytest.mark.one_database  # what the page draws
def test_the_form_refuses_a_bad_clock_and_keeps_what_was_typed(client):
    response = client.post("/new/mastery", data={
        **FORM, **CLOCK_FORM, "clock-mode": "fischer", "clock-max_days": "3"})
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert "at least its &#39;initial_days&#39;" in page
    assert 'name="clock-max_days" min="1" max="365" value="3"' in page
    assert '<option value="fischer" selected>' in page


# -- showing the clocks --------------------------------------------------------------------

@pytest.mark.one_database  # what an answer says
def test_every_api_answer_carries_the_clocks(client):
    created = create(client, {**PER_MOVE, "vacation_days": 7})
    dark, light = apis(created)
    answer = client.get(dark).json
    assert [c["seat"] for c in answer["clocks"]] == [0, 1]
    first, second = answer["clocks"]
    assert first["running"] and not second["running"]
    assert 3 * 86400 - 60 < first["remaining_seconds"] <= 3 * 86400
    assert second["remaining_seconds"] == 3 * 86400 and second["deadline"] is None
    deadline = datetime.fromisoformat(first["deadline"])
    assert abs(deadline - datetime.now(timezone.utc) - 3 * DAY) < timedelta(minutes=1)
    assert first["on_vacation"] is False and first["vacation_days_left"] == 7
    def shown(clocks_json):  # all but the seconds ticking away
        return [(c["seat"], c["deadline"], c["running"]) for c in clocks_json]

    watch = client.get("/api" + path_of(created["spectator"])).json
    assert shown(watch["clocks"]) == shown(answer["clocks"])
    move = answer["legal_moves"][0]
    after = client.post(f"{dark}/moves", json={"move": move, "ply": 0}).json
    assert [c["running"] for c in after["clocks"]] == [False, True]
    assert after["clocks"][0]["remaining_seconds"] == 3 * 86400
    assert shown(client.get(light).json["clocks"]) == shown(after["clocks"])


@pytest.mark.one_database  # what the page draws
def test_the_play_page_shows_each_players_time_and_the_vacation_form(client):
    created = create(client, {**PER_MOVE, "vacation_days": 7})
    page = client.get(path_of(created["seats"][0]["url"])).get_data(as_text=True)
    clocks_shown = dict(re.findall(r'<span class="clock[^"]*" data-seat="(\d)">([^<]*)</span>', page))
    assert re.fullmatch(r"2 days 23 hours left \(until \w{3} \d\d \w{3} \d{4}, \d\d:\d\d UTC\)",
                        clocks_shown["0"])
    assert clocks_shown["1"] == "3 days left"
    assert "3 days per move; running out of time loses; 7 days of vacation" in page
    assert 'action="/play/' in page and 'name="days"' in page
    assert "7 of 7 vacation days left this year" in page
    spectator = client.get(path_of(created["spectator"])).get_data(as_text=True)
    assert 'class="clock running" data-seat="0"' in spectator and 'name="days"' not in spectator
    plain = create(client)
    page = client.get(path_of(plain["seats"][0]["url"])).get_data(as_text=True)
    assert 'class="clock' not in page and 'name="days"' not in page


# -- vacations -----------------------------------------------------------------------------

def test_a_vacation_is_an_event_in_the_log_within_the_yearly_allowance(client, app):
    created = create(client, {**PER_MOVE, "vacation_days": 5})
    dark, light = apis(created)
    before = client.get(dark).json["clocks"][0]
    answer = client.post(f"{dark}/vacation", json={"days": 2})
    assert answer.status_code == 200
    mine = answer.json["clocks"][0]
    assert mine["on_vacation"] and mine["paused"] and mine["vacation_days_left"] == 3
    moved = datetime.fromisoformat(mine["deadline"]) - datetime.fromisoformat(before["deadline"])
    assert abs(moved - 2 * DAY) < timedelta(seconds=5)
    # the opponent's allowance is their own; the rest of this year's is 3 days
    refused = client.post(f"{dark}/vacation", json={"days": 4})
    assert refused.status_code == 422 and "3 days of vacation left" in refused.json["error"]
    assert client.post(f"{dark}/vacation", json={"days": "two"}).status_code == 400
    assert client.post(f"{dark}/vacation", json={"days": 0}).status_code == 422
    assert client.post(f"{light}/vacation", json={"days": 5}).status_code == 200
    db = connect(app.config["DATABASE"])
    rows = [dict(r) for r in db.query("SELECT seat, kind, move FROM events WHERE game_id = ?",
                                      [created["id"]])]
    db.close()
    assert rows == [{"seat": 0, "kind": "vacation", "move": "2"},
                    {"seat": 1, "kind": "vacation", "move": "5"}]
    record = client.get(path_of(created["seats"][0]["url"]) + "/record.txt").get_data(as_text=True)
    assert "Ann (Dark): vacation" in record
    no_vacation = apis(create(client, PER_MOVE))[0]
    answer = client.post(f"{no_vacation}/vacation", json={"days": 1})
    assert answer.status_code == 422 and "no vacation days" in answer.json["error"]


def test_a_vacation_from_the_play_page(client):
    created = create(client, {**PER_MOVE, "vacation_days": 3})
    url = path_of(created["seats"][1]["url"])
    response = client.post(f"{url}/vacation", data={"days": "2"})
    assert response.status_code == 303
    page = client.get(url).get_data(as_text=True)
    assert "You are on vacation until" in page
    assert re.search(r'data-seat="1">3 days left, on vacation until \w{3} ', page)
    assert "1 of 3 vacation days left this year" in page
    refused = client.post(f"{url}/vacation", data={"days": "2"})
    assert refused.status_code == 422
    assert "1 day of vacation left" in refused.get_data(as_text=True)
    assert client.post(f"{url}/vacation", data={"days": "x"}).status_code == 400


# -- the job: timeouts and warnings --------------------------------------------------------

def later(delta: timedelta) -> datetime:
    return datetime.now(timezone.utc) + delta


def outbox(app, where="", params=()):
    db = connect(app.config["DATABASE"])
    try:
        return [dict(r) for r in db.query(f"SELECT * FROM outbox {where} ORDER BY id", params)]
    finally:
        db.close()


def test_running_out_of_time_loses_the_game(client, app):
    created = create(client, {"mode": "per_move", "days": 2})
    dark, light = apis(created)
    assert scheduler.check_clocks(app, later(20 * HOUR)) == (0, 0)
    assert scheduler.check_clocks(app, later(2 * DAY + HOUR)) == (1, 0)
    answer = client.get(light).json
    assert answer["outcome"] == {"winners": [1], "draw": False, "reason": "Ann ran out of time"}
    assert answer["to_move"] == []
    assert [c["running"] for c in answer["clocks"]] == [False, False]
    assert answer["clocks"][0]["remaining_seconds"] == 0
    db = connect(app.config["DATABASE"])
    game = next(iter(db.query("SELECT status FROM games WHERE id = ?", [created["id"]])))
    events = [dict(r) for r in db.query("SELECT seat, kind FROM events WHERE game_id = ?",
                                        [created["id"]])]
    db.close()
    assert game["status"] == "finished" and events == [{"seat": 0, "kind": "timeout"}]
    finished = outbox(app, "WHERE kind = 'end'")
    assert [m["recipient"] for m in finished] == ["ann@example.org", "bob@example.org"]
    assert "Bob won: Ann ran out of time." in finished[0]["body"]
    refused = client.post(f"{dark}/moves", json={"move": "x", "ply": 0})
    assert refused.status_code == 422 and "ran out of time" in refused.json["error"]
    assert scheduler.check_clocks(app, later(9 * DAY)) == (0, 0)
    page = client.get(path_of(created["seats"][0]["url"])).get_data(as_text=True)
    assert "<strong>Game over</strong> — Bob won: Ann ran out of time." in page


def test_running_out_of_time_can_draw_the_game(client, app):
    created = create(client, {"mode": "fischer", "initial_days": 1, "increment_days": 1,
                              "max_days": 3, "on_timeout": "draw"})
    dark, light = apis(created)
    move = client.get(dark).json["legal_moves"][0]
    assert client.post(f"{dark}/moves", json={"move": move, "ply": 0}).status_code == 200
    # Dark banked 2 days; Light has 1
    assert scheduler.check_clocks(app, later(DAY + HOUR)) == (1, 0)
    outcome = client.get(dark).json["outcome"]
    assert outcome == {"winners": [], "draw": True, "reason": "Bob ran out of time"}


def test_in_a_team_game_the_whole_team_loses_on_time(client, app):
    players = [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(4)]
    created = create(client, {"mode": "per_move", "days": 1}, game="the-right-moves",
                     players=players)
    seat_apis = apis(created)
    move = client.get(seat_apis[0]).json["legal_moves"][0]
    assert client.post(f"{seat_apis[0]}/moves", json={"move": move, "ply": 0}).status_code == 200
    assert scheduler.check_clocks(app, later(13 * HOUR)) == (0, 1)  # half of a one-day turn
    [warning] = warnings_to(app, "p1@example.org")
    assert "If you have not moved by then, your team loses the game on time." in warning["body"]
    assert scheduler.check_clocks(app, later(DAY + HOUR)) == (1, 0)
    outcome = client.get(seat_apis[2]).json["outcome"]
    assert outcome == {"winners": [0, 2], "draw": False, "reason": "P1 ran out of time"}


def test_moves_after_the_deadline_are_refused_before_the_job_runs(client, app):
    created = create(client, {"mode": "per_move", "days": 1})
    dark = apis(created)[0]
    db = connect(app.config["DATABASE"])
    # the game was created two days ago (which is all that passing time changes), and its
    # rows for the scheduler, derived from that, say so
    past = (datetime.now(timezone.utc) - 2 * DAY).isoformat(timespec="seconds")
    db.execute("UPDATE games SET created_at = ? WHERE id = ?", [past, created["id"]])
    CACHE.clear()
    due.schedule(db, matches.load(db, created["id"]))
    db.close()
    state = client.get(dark).json
    assert state["clocks"][0]["remaining_seconds"] == 0 and state["outcome"] is None
    refused = client.post(f"{dark}/moves", json={"move": state["legal_moves"][0], "ply": 0})
    assert refused.status_code == 422
    assert "Ann has run out of time" in refused.json["error"]
    assert client.post(f"{dark}/resign", json={}).status_code == 422
    assert client.get(dark).json["ply"] == 0
    assert scheduler.check_clocks(app) == (1, 0)
    assert client.get(dark).json["outcome"]["reason"] == "Ann ran out of time"


def test_only_the_server_records_timeouts_and_only_when_time_is_up(client, app):
    created = create(client, PER_MOVE)
    db = connect(app.config["DATABASE"])
    try:
        with pytest.raises(matches.InvalidRequest):
            commands.submit(db, created["id"], 0, Command.of("timeout"))
        with pytest.raises(matches.Refused):
            commands.submit(db, created["id"], 0, Command.of("timeout"), server=True)
        with pytest.raises(matches.InvalidRequest):
            commands.submit(db, created["id"], 0, Command.of("resign"), server=True)
        assert list(db.query("SELECT * FROM events")) == []
    finally:
        db.close()


def warnings_to(app, recipient: str) -> list[dict]:
    return outbox(app, "WHERE recipient = ? AND body LIKE '%is running out%'", [recipient])


def test_one_warning_per_turn_even_after_a_restart(client, app):
    created = create(client, {**PER_MOVE, "vacation_days": 4})
    dark, light = apis(created)
    assert scheduler.check_clocks(app, later(DAY + 12 * HOUR)) == (0, 0)  # 1.5 days left
    assert scheduler.check_clocks(app, later(2 * DAY + 6 * HOUR)) == (0, 1)
    assert scheduler.check_clocks(app, later(2 * DAY + 12 * HOUR)) == (0, 0)
    [warning] = warnings_to(app, "ann@example.org")
    body = warning["body"]
    assert "Hello Ann," in body and "If you have not moved by then, you lose the game on time." in body
    assert "take up to 4 days of vacation" in body
    link = PLAY_LINK.search(body).group(1)
    assert client.get("/api" + link).json["seat"] == 0
    # a new server process on the same database knows the warning was sent
    CACHE.clear()
    restarted = create_app({**app.config, "TESTING": True})
    assert scheduler.check_clocks(restarted, later(2 * DAY + 20 * HOUR)) == (0, 0)
    assert len(warnings_to(app, "ann@example.org")) == 1
    # Light's turn is a new turn, warned once as well
    move = client.get(dark).json["legal_moves"][0]
    assert client.post(f"{dark}/moves", json={"move": move, "ply": 0}).status_code == 200
    assert scheduler.check_clocks(restarted, later(2 * DAY + 6 * HOUR)) == (0, 1)
    assert scheduler.check_clocks(app, later(2 * DAY + 7 * HOUR)) == (0, 0)
    assert len(warnings_to(app, "bob@example.org")) == 1
    assert warnings_to(app, "ann@example.org") == [warning]


def test_a_one_day_turn_is_warned_at_half_time_not_at_once(client, app):
    created = create(client, {"mode": "per_move", "days": 1, "on_timeout": "draw"})
    assert scheduler.check_clocks(app, later(HOUR)) == (0, 0)
    assert scheduler.check_clocks(app, later(13 * HOUR)) == (0, 1)
    [warning] = warnings_to(app, "ann@example.org")
    assert "the game ends in a draw" in warning["body"]
    assert created["id"] in warning["subject"]


def test_one_scheduler_runs_the_clock_job(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_INSTANCE", str(tmp_path / "instance"))
    CACHE.clear()
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "pbem.sqlite"),
                      "MAIL_FOLDER": str(tmp_path / "mail"), "SECRET_KEY": "test"})
    jobs = scheduler.start_background(app)
    assert jobs is not None
    try:
        assert {"send-emails", "send-posts", "check-clocks"} <= {job.id for job in jobs.get_jobs()}
        assert jobs.get_job("check-clocks").trigger.interval == timedelta(seconds=60)
        assert scheduler.start_background(app) is None  # another worker process stands aside
    finally:
        jobs.shutdown(wait=True)
        jobs.lock_handle.close()
    CACHE.clear()


@pytest.mark.one_database  # what the email says
def test_the_your_turn_email_says_how_long_the_player_has(client, app):
    game = apis(create(client, per_move(days=3).to_json()))
    assert client.post(f"{game[0]}/moves", json={"move": "d4xc5", "ply": 0}).status_code == 200
    turn = outbox(app, "WHERE kind = 'turn'")
    assert len(turn) == 1
    assert re.search(r"You have (2 days 23 hours|3 days) to move: until ", turn[0]["body"])
    untimed = apis(create(client))
    client.post(f"{untimed[0]}/moves", json={"move": "d4xc5", "ply": 0})
    assert "to move: until" not in outbox(app, "WHERE kind = 'turn'")[-1]["body"]


def test_every_time_the_app_takes_comes_from_its_one_clock(client, app, monkeypatch):
    """Stopped at one moment (patched in ``utc.now`` alone), the app dates everything it
    writes then, in the stored form, counts the clocks from it, and dates its emails so."""
    frozen = datetime(2031, 5, 6, 7, 8, 9, tzinfo=timezone.utc)
    monkeypatch.setattr(utc, "now", lambda: frozen)
    game = apis(create(client, PER_MOVE))
    assert client.post(f"{game[0]}/moves", json={"move": "d4xc5", "ply": 0}).status_code == 200
    assert client.post(f"{game[1]}/chat", json={"text": "Hello"}).status_code == 201
    assert client.post("/home", data={"email": "ann@example.org"}).status_code == 303
    db = connect(app.config["DATABASE"])
    for table, column in (("games", "created_at"), ("games", "updated_at"),
                          ("events", "created_at"), ("links", "created_at"),
                          ("email_links", "created_at"), ("invites", "created_at"),
                          ("home_links", "created_at"), ("outbox", "created_at"),
                          ("outbox", "next_attempt_at")):
        assert {row[0] for row in db.execute(f"SELECT {column} FROM {table}")} \
            == {"2031-05-06T07:08:09+00:00"}, (table, column)
    assert {row[0] for row in db.execute("SELECT at FROM due WHERE kind = 'timeout'")} \
        == {"2031-05-09T07:08:09+00:00"}  # three days for Bob's move, from then
    assert client.get(game[1]).json["clocks"][1]["remaining_seconds"] == 3 * 86400
    sent = outbox(app)[0]
    assert format_datetime(frozen) in str(bytes(
        build(sent, app.config["MAIL_FROM"], app.config["PUBLIC_URL"]).data))


def test_a_team_that_resigns_together_stops_every_clock(client, app):
    """The confirmation that ends a team game (``resign_accept``) ends it on the clocks
    too: nobody's time runs, the page shows no deadline and the jobs have nothing due."""
    players = [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(4)]
    created = create(client, {"mode": "per_move", "days": 3}, game="the-right-moves",
                     players=players)
    seat_apis = apis(created)
    assert client.post(f"{seat_apis[0]}/resign", json={}).status_code == 200  # proposes
    assert client.post(f"{seat_apis[2]}/resign", json={}).status_code == 200  # confirms
    answer = client.get(seat_apis[0]).json
    assert answer["outcome"]["winners"] == [1, 3]
    assert [(c["running"], c["deadline"]) for c in answer["clocks"]] == [(False, None)] * 4
    page = client.get(path_of(created["seats"][0]["url"])).get_data(as_text=True)
    assert 'class="clock running"' not in page and "(until " not in page
    db = connect(app.config["DATABASE"])
    rows = db.execute("SELECT kind FROM due WHERE game_id = ?", [created["id"]]).fetchall()
    db.close()
    assert rows == []
    assert scheduler.check_clocks(app, later(4 * DAY)) == (0, 0)
