"""Conditional moves: stored lines answer the opponent at once, in the same transaction, as
a normal move; lines that no longer match are dropped; only their owner sees them; games
with hidden information or four players have none."""
from __future__ import annotations

import re
from html import unescape

import pytest
from playwright.sync_api import expect

from pbem import matches

from helpers import api_move, fits


def a_line(db, game, length: int, pick: int = 0) -> list[str]:
    """A legal line of ``length`` moves from the current position, the ``pick``-th legal
    move at each step (the seat to move first, then the other, in turn)."""
    match = matches.load(db, game.id)
    state, line = match.current, []
    for _ in range(length):
        seat = state.to_move[0]
        moves = match.game.legal_moves(state, seat)
        line.append(moves[pick % len(moves)])
        state = match.game.apply(state, seat, line[-1])
    return line


def test_a_stored_reply_is_played_at_once_and_the_line_goes_on(client, db, new_game):
    game = new_game("mastery")  # seat 0 (Dark) moves first; seat 1 stores its answers
    line = a_line(db, game, 4)
    other = a_line(db, game, 2, pick=1)
    answer = client.put(f"{game.apis[1]}/conditional", json={"lines": [line, other]})
    assert answer.status_code == 200, answer.json
    assert answer.json["conditional"] == [line, other]
    assert "conditional" not in client.get(game.watch.replace("/watch/", "/api/watch/")).json
    assert client.get(game.apis[0]).json["conditional"] == []  # the owner's alone

    after = api_move(client, game.apis[0], line[0])
    assert after["ply"] == 2 and after["to_move"] == [0]  # the reply is already played
    moves = [e["move"] for e in client.get(f"{game.urls[0]}/record.json").json["events"]]
    assert moves == line[:2]
    assert client.get(game.apis[1]).json["conditional"] == [line[2:]]  # `other` dropped

    api_move(client, game.apis[0], line[2])
    state = client.get(game.apis[1]).json
    assert state["ply"] == 4 and state["conditional"] == []


def test_a_move_outside_every_line_drops_them_all(client, db, new_game):
    game = new_game("mastery")
    line = a_line(db, game, 2)
    client.put(f"{game.apis[1]}/conditional", json={"lines": [line]})
    api_move(client, game.apis[0], a_line(db, game, 1, pick=5)[0])
    state = client.get(game.apis[1]).json
    assert state["ply"] == 1 and state["to_move"] == [1] and state["conditional"] == []


def test_who_is_told_what(app, client, db, new_game):
    """The opponent is told of the reply as of any move; the line's owner gets no "your
    turn" email for a turn its reply already played."""
    game = new_game("mastery")
    client.put(f"{game.apis[1]}/conditional", json={"lines": [a_line(db, game, 2)]})
    queued = db.execute("SELECT MAX(id) FROM outbox").fetchone()[0]
    api_move(client, game.apis[0], a_line(db, game, 1)[0])
    kinds = [(r["seat"], r["kind"]) for r in db.query(
        "SELECT seat, kind FROM outbox WHERE id > ? ORDER BY id", [queued])]
    assert kinds == [(0, "turn")]


@pytest.mark.one_database  # what the page draws
def test_the_movers_page_names_their_move_and_the_reply_that_followed(client, db, new_game):
    game = new_game("mastery")
    line = a_line(db, game, 2)
    client.put(f"{game.apis[1]}/conditional", json={"lines": [line]})
    played = client.post(f"{game.urls[0]}/move", data={"move": line[0], "ply": 0})
    assert played.status_code == 303
    page = unescape(client.get(game.urls[0]).get_data(as_text=True))
    assert (f"You played {line[0]}. Your opponent's conditional move {line[1]} followed."
            in page)


@pytest.mark.one_database  # lines refused before anything is stored
@pytest.mark.parametrize("lines, message", [
    ("e2e4", "must be a list"),
    ([["d1-c1"]], "2 to 40 moves"),
    ([["zz9", "a1"]], "Line 1, move 1"),
    ([[1, 2]], "2 to 40 moves"),
    ([["x"] * 41], "2 to 40 moves"),
])
def test_bad_lines_are_refused_and_change_nothing(client, db, new_game, lines, message):
    game = new_game("mastery")
    good = a_line(db, game, 2)
    client.put(f"{game.apis[1]}/conditional", json={"lines": [good]})
    answer = client.put(f"{game.apis[1]}/conditional", json={"lines": lines})
    assert answer.status_code in (400, 422) and message in answer.json["error"]
    assert client.get(game.apis[1]).json["conditional"] == [good]


def test_lines_are_stored_only_while_the_opponent_is_to_move(client, db, new_game):
    game = new_game("mastery")
    answer = client.put(f"{game.apis[0]}/conditional", json={"lines": [a_line(db, game, 2)]})
    assert answer.status_code == 422 and "their turn" in answer.json["error"]
    assert client.put(f"{game.apis[0]}/conditional", json={"lines": []}).status_code == 200


@pytest.mark.one_database  # what the rules allow
@pytest.mark.parametrize("game_id, players", [("magnet", 2), ("magnetic-field", 2),
                                              ("the-right-moves", 4)])
def test_games_with_hidden_information_or_four_players_have_none(client, new_game,
                                                                 game_id, players):
    game = new_game(game_id, players=players)
    assert "conditional" not in client.get(game.apis[1]).json
    answer = client.put(f"{game.apis[1]}/conditional", json={"lines": []})
    assert answer.status_code == 422 and "no conditional moves" in answer.json["error"]
    # nor a page to click a line through (an analysis board of what the seat cannot see)
    assert "/conditional" not in client.get(game.urls[1]).get_data(as_text=True)
    for answer in (client.get(f"{game.urls[1]}/conditional"),
                   client.get(f"{game.urls[1]}/conditional?m=pass"),
                   client.post(f"{game.urls[1]}/conditional", data={"m": ["pass", "pass"]})):
        assert answer.status_code == 404


@pytest.mark.one_database  # what the rules allow
def test_the_right_moves_for_two_has_them(client, db, new_game):
    game = new_game("the-right-moves")
    line = a_line(db, game, 2)
    assert client.put(f"{game.apis[1]}/conditional", json={"lines": [line]}).status_code == 200
    assert api_move(client, game.apis[0], line[0])["ply"] == 2


# -- the page: an analysis of the position, by clicks ---------------------------------------

def test_a_line_built_by_clicks_on_the_page_is_saved_and_played(client, db, new_game):
    from helpers import links_in

    game = new_game("mastery")
    line = a_line(db, game, 2)
    board = links_in  # every builder link of a page, by its last click
    page_url = f"{game.urls[1]}/conditional"
    html = client.get(page_url).get_data(as_text=True)
    assert "No moves yet" in html
    for move in line:
        frm, to = re.split(r"[-x]", move)[:2]
        html = client.get(board(html)[frm]).get_data(as_text=True)
        html = client.get(board(html)[to]).get_data(as_text=True)
        add = re.search(r'id="add-move" href="([^"]*)"', html)
        assert add and f"Add {move}" in html, move
        html = client.get(unescape(add.group(1))).get_data(as_text=True)
    assert f"I reply <strong>{line[1]}</strong>" in html
    saved = client.post(page_url, data={"m": line})
    assert saved.status_code == 303
    html = client.get(page_url).get_data(as_text=True)
    assert "Saved lines (1)" in html and "Your conditional moves are saved." in html
    assert "Conditional moves</a> (1 saved)" in client.get(game.urls[1]).get_data(as_text=True)
    assert "Conditional moves</a> (0 saved)" in client.get(game.urls[0]).get_data(as_text=True)
    assert api_move(client, game.apis[0], line[0])["ply"] == 2


@pytest.mark.one_database  # what the page draws
def test_the_page_refuses_a_line_it_cannot_keep(client, db, new_game):
    game = new_game("mastery")
    line = a_line(db, game, 3)
    refused = client.post(f"{game.urls[1]}/conditional", data={"m": line})
    assert refused.status_code == 422 and "ending with yours" in refused.get_data(as_text=True)
    assert client.get(game.apis[1]).json["conditional"] == []
    assert client.get(f"{game.urls[0]}/conditional?m=zz").status_code == 200  # says why
    assert client.get(f"{new_game('magnet').urls[0]}/conditional").status_code == 404


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900},
                                      {"width": 390, "height": 844}])
def test_a_person_clicks_a_line_through_and_the_reply_is_played(
        open_context, client, db, new_game, live_server, viewport):
    game = new_game("mastery")
    line = a_line(db, game, 2)
    context = open_context(viewport=viewport)
    page = context.new_page()
    page.goto(live_server + game.urls[1])
    page.get_by_role("link", name="Conditional moves").click()
    for length, move in enumerate(line, start=1):
        for square in re.split(r"[-x]", move)[:2]:
            page.locator(f'.board-area a.cell[data-cell="{square}"]').click()
        page.get_by_role("link", name=f"Add {move}").click()
        # a plain link, not a swap: wait for the next page, the line one move longer
        expect(page.get_by_role("region", name="The line so far").locator("li")).to_have_count(length)
    fits(page)
    page.get_by_role("button", name="Save this line").click()
    page.get_by_text("Your conditional moves are saved.").wait_for()
    assert "Saved lines (1)" in page.content()
    assert api_move(client, game.apis[0], line[0])["ply"] == 2
