"""Games as plugins: a distribution's ``pbem.games`` entry point is in
``engine.GAMES`` once installed, a broken one is logged and left out, and a game that has
only the engine's interface plays through every way in: the JSON API, the pages (a generic
board of its view, or its own drawing), email replies, the computer, the lobby and
tournaments; ``python -m engine.conformance`` runs the checks every game must pass, and
names the one a game fails.

The example plugin (examples/four-in-a-row) and the tests' High Card (tests/plugin_games:
hidden information, a drawing of its own) are installed by the ``plugin_games`` fixture:
their ``.dist-info`` in a folder on the path, found by importlib.metadata as an installer's
would be."""
from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import subprocess
import sys
from urllib.parse import urlsplit

import pytest

import engine
from engine import bots
from engine.conformance import Bounds, assert_conforms, check
from pbem.boards import generic
from pbem.matches import CACHE

from playwright.sync_api import expect

from pbem.jobs import scheduler
from helpers import (EXAMPLE_GAME, PLUGIN_GAMES, api_move, emails_to, fits,
                     install_distribution, install_example, path_of, seen_by, sign_up)
from test_russian_pages import english_words
from test_inbound import (P1, P2, answer_to, events, listener, only, post, send,  # noqa: F401
                          text_of, write_reply)

BUILT_IN = ("mastery", "the-right-moves", "magnet", "magnetic-field")


def create(client, game: str = "four-in-a-row", options: dict | None = None,
           second: dict | None = None, **body) -> dict:
    created = client.post("/api/games", json={"game": game, "options": options or {}, "players": [
        {"name": "Ann", "email": P1}, second or {"name": "Bob", "email": P2}], **body})
    assert created.status_code == 201, created.json
    return created.json


def apis(created: dict) -> list[str]:
    return [path_of(seat["api"]) for seat in created["seats"] if "api" in seat]


# -- installed, or not ---------------------------------------------------------------------

def test_an_installed_plugin_is_a_game_at_import_and_a_broken_one_is_logged(tmp_path):
    """In a fresh interpreter, as a server starts: the games of the distributions found on
    the path are in ``engine.GAMES``, each broken one (a module that is not there, an object
    without the engine's interface, an id already taken) is logged and left out, and the
    site serves the others; the conformance command passes a plugin that conforms, names
    the check one fails, and says why one was not loaded."""
    site = tmp_path / "site"
    install_example(site)
    install_distribution(site, "pbem-test-high-card", "1.0", {
        "high-card": "high_card:GAME", "peeking-high-card": "high_card:PEEKING"})
    install_distribution(site, "pbem-test-broken", "0.1", {
        "missing": "no_such_module:GAME", "not-a-game": "high_card:State",
        "impostor": "high_card:IMPOSTOR"})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, (site, EXAMPLE_GAME,
                                                                 PLUGIN_GAMES))),
           "PBEM_INSTANCE": str(tmp_path / "instance")}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                              env=env, cwd=tmp_path, timeout=120)

    served = run("-c", "import engine, json\n"
                       "from pbem import create_app\n"
                       "page = create_app({'DATABASE': 'db.sqlite'}).test_client().get('/new')\n"
                       "print(json.dumps([sorted(engine.GAMES), sorted(engine.plugins.FAILED),"
                       " page.status_code, page.get_data(as_text=True)]))")
    games, failed, status, page = json.loads(served.stdout)
    assert games == sorted([*BUILT_IN, "four-in-a-row", "high-card", "peeking-high-card"])
    assert failed == ["impostor", "missing", "not-a-game"]
    assert status == 200 and "Four in a Row" in page and "High Card" in page
    logged = served.stderr
    assert "The game plugin 'missing' (no_such_module:GAME) was not loaded: " \
        "ModuleNotFoundError" in logged
    assert "'not-a-game' (high_card:State) was not loaded: PluginError: it has no id, title" \
        in logged
    assert "'impostor' (high_card:IMPOSTOR) was not loaded: PluginError: another game has " \
        "its id 'mastery'" in logged

    conforms = run("-m", "engine.conformance", "four-in-a-row")
    assert conforms.returncode == 0, conforms.stdout + conforms.stderr
    assert conforms.stdout.splitlines() == [
        "description: ok", "determinism: ok", "unchanged: ok", "listed moves: ok",
        "malformed: ok", "replay: ok", "views: ok", "four-in-a-row conforms."]
    peeking = run("-m", "engine.conformance", "peeking-high-card")
    assert peeking.returncode == 1
    assert "resample: ok" in peeking.stdout
    assert re.search(r"^indistinguishable: FAILED: two states that seat \d cannot tell apart "
                     r"gave it different resamples", peeking.stdout, re.M)
    assert "peeking-high-card does not conform: indistinguishable failed." in peeking.stderr
    missing = run("-m", "engine.conformance", "missing")
    assert missing.returncode == 1
    assert "load: FAILED: the plugin 'missing' was not loaded: ModuleNotFoundError" \
        in missing.stderr


# -- the checks every game must pass -------------------------------------------------------

@pytest.mark.parametrize("game_id", BUILT_IN)
def test_the_games_of_the_server_conform(game_id):
    assert_conforms(engine.get(game_id), Bounds(games=1))


def test_the_plugins_conform_as_written_and_as_the_server_plays_them(plugin_games):
    for game in plugin_games.values():
        assert_conforms(game.plugin)
        assert_conforms(game)  # the PluginGame, which has the same interface


def flawed(flaw: str):
    """Four in a Row with one flaw (the example's module is on the path once installed)."""
    from four_in_a_row import FourInARow

    class Mutating(FourInARow):
        def apply(self, state, seat, move):
            after = super().apply(state, seat, move)
            object.__setattr__(state, "columns", after.columns)  # the given state, changed
            return after

    class Untyped(FourInARow):
        def apply(self, state, seat, move):
            if not isinstance(move, str) or not move.isdigit():
                raise ValueError("not a column")  # not an IllegalMove
            return super().apply(state, seat, move)

    class ColumnZero(FourInARow):
        def legal_moves(self, state, seat):  # and a column that is not there
            legal = super().legal_moves(state, seat)
            return legal + ["0"] if legal else []

    class ShortReplay(FourInARow):
        def replay(self, players, options, seed, moves):
            return super().replay(players, options, seed, list(moves)[:-1])

    class SetInView(FourInARow):
        def view(self, state, seat):
            return {**super().view(state, seat), "moved": set(state.to_move)}

    return {"unchanged": Mutating, "malformed": Untyped, "listed moves": ColumnZero,
            "replay": ShortReplay, "views": SetInView}[flaw]()


@pytest.mark.parametrize("failing", ["unchanged", "malformed", "listed moves", "replay",
                                     "views"])
def test_the_checks_name_what_a_flawed_game_gets_wrong(plugin_games, failing):
    failures = check(flawed(failing), Bounds(games=1, plies=50))
    assert failures and failures[0].check == failing, failures  # (a state changed in place
    # changes the positions of the random games too: their replay differs then)
    with pytest.raises(AssertionError, match=f"{failing}: "):
        assert_conforms(flawed(failing), Bounds(games=1, plies=50))


def test_the_checks_find_a_game_left_to_chance_and_a_resample_that_shows_too_much(plugin_games):
    from high_card import PEEKING, HighCard  # tests/plugin_games, on the path once installed

    class Unseeded(HighCard):
        def start(self, players=2, options=None, seed=""):
            return super().start(players, options, str(random.random()))

    class Knowing(HighCard):
        """A resample that deals the seat's own hand anew too."""
        def resample(self, state, seat, rng):
            world = super().resample(state, 1 - seat, rng)
            return dataclasses.replace(world, hands=(world.hands[1 - seat],) * 2)

    assert check(Unseeded())[0].check == "determinism"
    assert "resample" in [f.check for f in check(Knowing())]
    assert [f.check for f in check(PEEKING)] == ["indistinguishable"]


# -- playing through every way in ----------------------------------------------------------

def test_a_plugin_game_is_played_through_the_api_and_replayed_from_its_log(client, db,
                                                                          plugin_games):
    created = create(client, options={"columns": 8})
    yellow, red = apis(created)
    seen = client.get(yellow).json
    assert seen["game"] == "four-in-a-row" and seen["to_move"] == [0]
    assert seen["legal_moves"] == [str(n) for n in range(1, 9)]
    assert seen["view"]["grid"] == [[""] * 8] * 6
    assert [p["side"] for p in seen["players"]] == ["Yellow", "Red"]
    assert client.post(f"{yellow}/moves", json={"move": "9", "ply": 0}).json == {
        "error": "There is no column 9: the columns are numbered 1 to 8."}
    assert client.post(f"{red}/moves", json={"move": "1", "ply": 0}).status_code == 422
    api_move(client, yellow, "1")
    assert client.post(f"{red}/moves", json={"move": "2", "ply": 0}).status_code == 409
    for number, move in enumerate("212121", start=1):
        api_move(client, (yellow, red)[number % 2], move)
    over = client.get(red).json
    assert over["outcome"] == {"winners": [0], "draw": False,
                               "reason": "Ann has four in a row"}  # (sides named)
    assert over["to_move"] == [] and over["legal_moves"] == []
    assert over["view"]["grid"][2:] == [["Y"] + [""] * 7] + [["Y", "R"] + [""] * 6] * 3

    # a longer game: a plugin's states are not kept as snapshots, so a process that has
    # not cached the game replays it from its log
    game, longer = plugin_games["four-in-a-row"], apis(create(client))
    state = game.start(2, {}, "")
    while state.ply < 20:  # the lowest column that does not end the game
        move = next(m for m in game.legal_moves(state, state.to_move[0])
                    if game.apply(state, state.to_move[0], m).outcome is None)
        api_move(client, longer[state.to_move[0]], move)
        state = game.apply(state, state.to_move[0], move)
    assert db.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0] == 0
    CACHE.clear()
    again = client.get(longer[1]).json
    assert again["ply"] == 20 and again["view"] == game.view(state, 1)
    bad = client.post("/api/games", json={"game": "four-in-a-row", "options": {"columns": 12},
                                          "players": [{"name": "A", "email": P1},
                                                      {"name": "B", "email": P2}]})
    assert bad.status_code == 400 and "columns" in bad.json["error"]


@pytest.mark.one_database  # what pages draw and say
def test_a_plugin_game_is_played_on_its_pages(client, plugin_games):
    form = client.get("/new/four-in-a-row").get_data(as_text=True)
    assert '<select name="option-columns">' in form
    assert re.search(r'<option value="7" selected>7</option>', form)
    started = client.post("/new/four-in-a-row", data={
        "players": "2", "name0": "Ann", "email0": P1, "name1": "Bob", "email1": P2,
        "option-columns": "6", "option-rows": "5"})
    assert started.status_code == 303  # to the page of the links it made
    links_page = client.get(started.headers["Location"]).get_data(as_text=True)
    page_path = path_of(re.search(r'<a class="seat-link"[^>]*href="([^"]+)"', links_page)[1])
    page = client.get(page_path).get_data(as_text=True)
    # the generic board: the view's grid as a table with its columns numbered, its other
    # values by name; a button for each legal move
    assert '<div class="board generic" role="group" aria-label="Four in a Row: the position">' \
        in page
    assert page.count('<th scope="col">') == 6 and page.count("<td></td>") == 30
    assert "<dt>Discs</dt>" in page and "<dt>Y</dt><dd>Yellow</dd>" in page
    assert "Choose your move, then confirm it." in page
    # in Russian, all but the plugin's own words (its title, sides and view's names)
    russian = client.get(page_path, headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert "Выберите ход, затем подтвердите его." in russian
    assert english_words(russian) <= {"Four", "in", "a", "Row", "Yellow", "Red", "Grid",
                                      "Discs"}
    buttons = re.findall(r'<a class="button choice" href="([^"]+)">(\d)</a>', page)
    assert [label for _href, label in buttons] == ["1", "2", "3", "4", "5", "6"]
    chosen = client.get(dict((b, a) for a, b in buttons)["4"].replace("&amp;", "&"))
    confirm = chosen.get_data(as_text=True)
    assert 'name="move" value="4"' in confirm and "Play 4" in confirm
    assert client.post(f"{page_path}/move", data={"move": "4", "ply": "0"}).status_code == 303
    after = client.get(page_path).get_data(as_text=True)
    assert "<td>Y</td>" in after and '<span class="side">Yellow</span> 4</a>' in after
    # the position in words: the same grid as text
    assert "Grid:\n  1 2 3 4 5 6\n" in after and "  . . . Y . .\n" in after
    # the analysis board, with the computer's view once the game is over, and the record
    analysis = client.get(f"{page_path}/analysis?m=3").get_data(as_text=True)
    assert analysis.count("<td>Y</td>") == 1 and analysis.count("<td>R</td>") == 1
    assert client.post(f"{page_path}/resign", data={"ply": "1", "confirm": "yes"}
                       ).status_code == 303
    assert client.post(f"{page_path}/analysis?ply=1").status_code == 200
    assert "1. Yellow: 4" in client.get(f"{page_path}/record.txt").get_data(as_text=True)

    rules = client.get("/rules/four-in-a-row").get_data(as_text=True)
    assert "<p>Two players, Yellow and Red, take turns; Yellow moves first." in rules
    assert "Columns: 6, 7, 8, 9 (default: 7)" in rules
    russian = client.get("/rules/high-card", headers={"Accept-Language": "ru"})
    assert '<div lang="ru">' in russian.get_data(as_text=True)
    assert "Сыграйте три свои карты" in russian.get_data(as_text=True)
    assert '<div lang="en">' in client.get("/rules/high-card").get_data(as_text=True)
    listed = client.get("/new").get_data(as_text=True)
    assert "Four in a Row" in listed and "High Card" in listed


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900},
                                      {"width": 390, "height": 844}], ids=["desktop", "phone"])
def test_a_person_plays_a_plugin_game_against_the_computer(open_context, live_server, app,
                                                           plugin_games, viewport):
    page = open_context(viewport=viewport).new_page()
    page.goto(live_server + "/new")
    page.get_by_role("link", name="Four in a Row", exact=True).click()
    form = page.locator("form.new-game")
    form.locator('input[name="name0"]').fill("Ann")
    form.locator('input[name="email0"]').fill("ann@example.org")
    form.get_by_label("Played by").select_option(label="the computer (easy)")
    form.get_by_label("Columns").select_option("6")
    form.get_by_role("button", name="Start the game").click()
    page.locator('a.seat-link[data-seat="0"]').click()
    expect(page).to_have_title("Four in a Row — Yellow")
    grid = page.get_by_role("table", name="Grid")
    expect(grid.locator("th")).to_have_text(["1", "2", "3", "4", "5", "6"])
    page.locator(".builder").get_by_role("link", name="4", exact=True).click()
    page.get_by_role("button", name="Play 4").click()
    status = page.locator("#status")
    expect(status).to_have_text("Waiting for Computer (easy) (Red). The computer plays "
                                "within a few seconds.")
    expect(grid.locator("tr").last.locator("td").nth(3)).to_have_text("Y")
    assert scheduler.play_bots(app) == 1
    expect(status).to_contain_text("Your turn.")  # the page redraws itself
    expect(page.locator("section.moves ol li")).to_have_count(2)
    expect(page.get_by_role("table", name="Grid").locator("td", has_text="R")).to_have_count(1)
    fits(page)


@pytest.mark.one_database  # the drawing of a view, in any shape
def test_the_generic_board_draws_any_view_escaped(app, plugin_games):
    board = generic.Board(plugin_games["four-in-a-row"])
    view = {"score_so_far": [1, 2.5], "over": False, "note": "<b>&</b>", "nothing": None,
            "hands": [{"cards": []}, {"cards": ["A", "K"]}], "ragged": [["a", "b"], ["c"]],
            "deep": {"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}}}
    with app.test_request_context():
        html = str(board.render(view, seat=0))
        text = board.text(view, 0)
    assert "<dt>Score so far</dt><dd>1, 2.5</dd>" in html and "<dd>no</dd>" in html
    assert "&lt;b&gt;&amp;&lt;/b&gt;" in html and "<b>" not in html
    assert "<dd>—</dd>" in html and "<dd>none</dd>" in html
    assert '<table class="grid" aria-label="Ragged">' in html
    assert "<tr><td>c</td><td></td></tr>" in html
    assert '<code>{&#34;g&#34;: 1}</code>' in html
    assert text.splitlines()[:4] == ["Score so far: 1, 2.5", "Over: no", "Note: <b>&</b>",
                                     "Nothing: —"]
    assert "Ragged:\n  1 2\n  a b\n  c\n" in text + "\n"


def test_a_plugin_game_is_played_by_email_reply(client, plugin_games, db, post, listener):
    created = create(client)
    started = post()
    reply = write_reply(only(started, P1), "4")
    send(listener.port, reply)
    assert events(db) == [(0, "move", "4")]
    delivered = post()
    assert "Your move 4 was recorded." in text_of(answer_to(delivered, reply, P1))
    turn = only(delivered, P2)
    body = text_of(turn)
    # the board as text, since the generic board has no picture
    assert "Grid:\n  1 2 3 4 5 6 7\n" in body and "  . . . Y . . .\n" in body
    assert "Your legal moves: 1, 2, 3, 4, 5, 6, 7." in body
    html = turn.get_body(("html",)).get_content()
    assert "<img" not in html and "1 2 3 4 5 6 7" in html
    answer = write_reply(turn, "4")
    send(listener.port, answer)
    assert events(db)[-1] == (1, "move", "4")
    assert client.get(apis(created)[0]).json["view"]["grid"][-2][3] == "R"


@pytest.mark.one_database  # what is drawn and sent to each seat
def test_a_plugin_draws_its_own_board_and_keeps_its_secrets(app, client, plugin_games,
                                                           seeded_game):
    """High Card's own SVG on the pages and as the emails' pictures; two games whose deals
    differ only in the other seat's hand look the same to Ann, and to a spectator, in
    everything they receive, and others' moves are not shown until the game is over."""
    high_card = plugin_games["high-card"].plugin
    deals: dict[tuple, str] = {}
    for number in range(400):
        seed = f"twin-{number}"
        hands = high_card.start(2, {}, seed).hands
        first = deals.setdefault(hands[0], seed)
        if first != seed and high_card.start(2, {}, first).hands[1] != hands[1]:
            twins = [seeded_game("high-card", s) for s in (first, seed)]
            break
    card = high_card.legal_moves(high_card.start(2, {}, first), 0)[0]
    for game in twins:
        api_move(client, game.apis[0], card)
    assert seen_by(client, twins[0], 0) == seen_by(client, twins[1], 0)
    assert seen_by(client, twins[0], None) == seen_by(client, twins[1], None)

    page = client.get(twins[0].urls[1]).get_data(as_text=True)
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="board high-card"' in page
    assert "<span class=\"side\">Player 1</span> ?</a>" in page  # Ann's move, to Bob
    assert f"<span class=\"side\">Player 1</span> {card}</a>" in \
        client.get(twins[0].urls[0]).get_data(as_text=True)  # her own
    emails = emails_to(app, twins[0], "bob@example.org")
    assert "Content-Type: image/png" in emails[-1]
    assert re.search(r'<img src="cid:board-1@pictures" width="600" alt="The cards on the '
                     r'table"', emails[-1])


def test_the_computer_plays_a_plugin_game(client, runner, plugin_games):
    created = create(client, second={"bot": "easy"})
    yellow = apis(created)[0]
    api_move(client, yellow, "4")
    assert runner.invoke(args=["play-bots"]).exit_code == 0
    answer = client.get(yellow).json
    assert answer["ply"] == 2 and answer["to_move"] == [0]
    game = plugin_games["four-in-a-row"]
    state = game.replay(2, {}, "", [(0, "4")])
    assert bots.choose(game, state, 1, level="easy", seed="s") == \
        bots.choose(game, state, 1, level="easy", seed="s")


def test_an_error_of_a_plugin_stops_the_computer_in_its_game_alone(client, runner, caplog,
                                                                   monkeypatch, plugin_games):
    plugin = plugin_games["four-in-a-row"].plugin
    lists = plugin.legal_moves

    def broken(state, seat):  # a bug in the plugin, met in the computer's seat only
        if seat == 1:
            raise KeyError("a bug")
        return lists(state, seat)

    monkeypatch.setattr(plugin, "legal_moves", broken)
    plugin_game, mastery = (apis(create(client, game, second={"bot": "easy"}))[0]
                            for game in ("four-in-a-row", "mastery"))
    api_move(client, plugin_game, "4")
    api_move(client, mastery, client.get(mastery).json["legal_moves"][0])
    assert runner.invoke(args=["play-bots"]).exit_code == 0
    assert client.get(mastery).json["ply"] == 2
    assert client.get(plugin_game).json["ply"] == 1
    assert "The computer could not choose a move in game" in caplog.text
    assert "KeyError: 'a bug'" in caplog.text


def test_a_plugin_game_in_the_lobby_and_in_a_tournament(client, db, plugin_games):
    waiting = create(client, second={"open": True}, public=True)
    challenges = client.get("/api/challenges").json["challenges"]
    assert [(c["id"], c["game"]) for c in challenges] == [(waiting["id"], "four-in-a-row")]
    assert "Four in a Row" in client.get("/lobby").get_data(as_text=True)
    joined = client.post(path_of(waiting["seats"][1]["join"]), json={
        "name": "Cat", "email": "cat@example.org"})
    assert joined.status_code == 201
    api_move(client, apis(waiting)[0], "1")
    api_move(client, path_of(joined.json["api"]), "2")

    keys = {handle: path_of(sign_up(client, db, handle)) for handle in ("Ann", "Bob")}
    cup = client.post(f"{keys['Ann']}/tournaments", json={
        "name": "Drop cup", "game": "four-in-a-row", "format": "round-robin",
        "options": {"rows": 5}})
    assert cup.status_code == 201, cup.json
    for key in keys.values():
        assert client.post(f"{key}/tournaments/{cup.json['id']}/entry").status_code == 201
    assert client.post(f"{keys['Ann']}/tournaments/{cup.json['id']}/start").status_code == 200
    (game,), = client.get(path_of(cup.json["api"])).json["rounds"]
    seats = {g["seat"]: path_of(g["api"]) for key in keys.values()
             for g in client.get(key).json["games"] if g["id"] == game["game"]}
    assert client.get(seats[0]).json["view"]["grid"] == [[""] * 7] * 5
    assert client.post(f"{seats[1]}/resign", json={}).status_code == 200
    assert client.get(path_of(cup.json["api"])).json["winner"] == game["seats"][0]
    # High Card says it is not for tournaments
    refused = client.post(f"{keys['Ann']}/tournaments", json={
        "name": "Lucky cup", "game": "high-card", "format": "round-robin"})
    assert refused.status_code == 400
    assert refused.json["error"] == "High Card is not played in tournaments."
    form = client.get("/tournaments").get_data(as_text=True)
    assert '<option value="four-in-a-row">' in form and '<option value="high-card">' not in form


@pytest.mark.one_database  # a record's pages
def test_a_record_of_a_plugin_game_is_downloaded_and_reviewed(client, plugin_games):
    created = create(client)
    yellow, red = apis(created)
    for number, move in enumerate("1212121"):
        api_move(client, (yellow, red)[number % 2], move)
    record = client.get(f"{yellow}/record?format=apgamerecord").json
    assert record["header"]["game"]["name"] == "Four in a Row"
    uploaded = client.post("/records", data={"pasted": json.dumps(record)})
    assert uploaded.status_code == 303
    review = client.get(path_of(uploaded.headers["Location"])).get_data(as_text=True)
    assert review.count("<td>Y</td>") == 4
    first = client.get(path_of(uploaded.headers["Location"]).rsplit("/", 1)[0] + "/1")
    assert first.get_data(as_text=True).count("<td>Y</td>") == 1


@pytest.mark.one_database  # a refusal, nothing stored
def test_a_game_whose_plugin_is_gone_says_so(client, plugin_games):
    created = create(client, "high-card")
    removed = engine.GAMES.pop("high-card")
    try:
        CACHE.clear()
        page = client.get(urlsplit(created["seats"][0]["url"]).path)
        assert page.status_code == 503
        assert "There is no game called &#39;high-card&#39;. This server cannot play it now: " \
            "the plugin that brings it is not installed, or failed to load." \
            in page.get_data(as_text=True)
        answer = client.get(apis(created)[0])
        assert answer.status_code == 503 and "plugin" in answer.json["error"]
        assert client.get("/").status_code == 200
    finally:
        engine.GAMES["high-card"] = removed
