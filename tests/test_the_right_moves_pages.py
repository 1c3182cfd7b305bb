"""The Right Moves on the web: the round board's SVG, clicking moves (steps, skips and jump
chains) through the generic builder, 2- and 4-player games over HTTP, the rules page, and a
4-player game in headless Chromium."""
from __future__ import annotations

import random
import re
from html import unescape

import pytest

import engine
from engine.the_right_moves import INDEX, NAMES, TheRightMovesState
from pbem.boards import builder
from pbem.boards import the_right_moves as board

from helpers import cell_markup, svg_of

# What is checked is what is drawn and clicked, not how the game is stored.
pytestmark = pytest.mark.one_database

GAME = engine.get("the-right-moves")


# -- helpers -------------------------------------------------------------------------------

def position(pieces: dict[str, str], to_move: int = 0, players: int = 2) -> TheRightMovesState:
    """A state with exactly these pieces: r/b unpromoted Red/Blue, R/B promoted."""
    cells = ["."] * len(NAMES)
    for name, piece in pieces.items():
        cells[INDEX[name]] = piece
    text = "".join(cells)
    return TheRightMovesState(players=players, options=GAME.resolve_options({}),
                              to_move=(to_move,), board=text, seen={(text, to_move): 1})


def builds(state, seat: int, *clicks: str) -> builder.Build:
    return builder.build(GAME.legal_moves(state, seat), board.click_path, board.is_cell, clicks)


def cell_link(html: str, name: str) -> str:
    match = re.search(rf'<a href="([^"]+)" class="cell" data-cell="{name}"', html)
    assert match, f"{name} is not clickable"
    return unescape(match.group(1))


def api_move(client, game, seat: int, move: str):
    ply = client.get(game.apis[seat]).json["ply"]
    return client.post(f"{game.apis[seat]}/moves", json={"move": move, "ply": ply})


def find_chain_game() -> tuple[list[str], str]:
    """Moves from the start (random but fixed) after which the player to move has a chain
    of two jumps; and that chain."""
    for seed in range(100):
        rng, state, played = random.Random(seed), GAME.start(2, {}, "x"), []
        while state.outcome is None and len(played) < 200:
            moves = GAME.legal_moves(state, state.to_move[0])
            chains = [m for m in moves if m.count("x") == 2]
            if chains:
                return played, chains[0]
            move = rng.choice(moves)
            state = GAME.apply(state, state.to_move[0], move)
            played.append(move)
    raise AssertionError("no chain found")


# -- the drawing ---------------------------------------------------------------------------

def test_svg_has_60_spaces_and_90_paths(app):
    svg = svg_of(app, GAME, GAME.start(2, {}, "x"))
    spaces = re.findall(r'class="cell" data-cell="(\w+)"', svg)
    assert sorted(spaces) == sorted(NAMES) and len(spaces) == 60
    assert len(re.findall(r"<title>", svg)) == 60
    paths = re.findall(r'<path class="path" data-path="(\w+) (\w+)" d="([^"]+)"', svg)
    assert len(paths) == 90
    drawn = {frozenset((a, b)): d for a, b, d in paths}
    # around the rings: arcs; spokes and the cross through the centre: straight lines
    assert " A" in drawn[frozenset(("3p", "3a"))] and " A" in drawn[frozenset(("2a", "2c"))]
    assert " L" in drawn[frozenset(("5a", "4a"))]
    for a, b in (("1a", "1i"), ("1e", "1m")):  # straight through the empty centre
        x1, y1, x2, y2 = map(float, re.findall(r"-?[\d.]+", drawn[frozenset((a, b))]))
        assert " L" in drawn[frozenset((a, b))] and (x1, y1) == (-x2, -y2) != (0, 0)
    assert frozenset(("1a", "1e")) not in drawn  # ring 1 is no loop
    assert 'class="band band' in svg and 'class="rim"' in svg


def test_start_position_shows_18_pieces_a_side_round_and_square(app):
    svg = svg_of(app, GAME, GAME.start(2, {}, "x"))
    assert svg.count('class="piece red"') == 18 and svg.count('class="piece blue"') == 18
    red, blue = cell_markup(svg, "4g"), cell_markup(svg, "4c")
    # the sides differ by shape, not only by colour, and the title names the side
    assert '<circle class="body"' in red and "<rect" not in red and "Red piece" in red
    assert '<rect class="body"' in blue and "Blue piece" in blue
    assert "promoted" not in svg and "crown" not in svg
    assert "<title>1a</title>" in svg  # empty spaces are named too


def test_promoted_pieces_have_a_double_outline_and_a_crown(app):
    state = position({"1a": "R", "1e": "B", "3g": "r", "3c": "b"})
    svg = svg_of(app, GAME, state)
    for name, shape, side in (("1a", "circle", "Red"), ("1e", "rect", "Blue")):
        cell = cell_markup(svg, name)
        assert f'class="piece {side.lower()} promoted"' in cell
        assert f'<{shape} class="inner-outline"' in cell and 'class="crown"' in cell
        assert f"<title>{name}: promoted {side} piece</title>" in cell
    for name in ("3g", "3c"):
        assert "crown" not in cell_markup(svg, name) and "inner-outline" not in cell_markup(svg, name)


def test_targets_selection_and_last_move_are_marked(app):
    state = GAME.start(2, {}, "x")
    svg = svg_of(app, GAME, state, selected=("4g",), targets={"3e": "/play/t?path=4g.3e"},
                 last={"4f", "4e"})
    target = cell_markup(svg, "3e")
    assert target.startswith('<a href="/play/t?path=4g.3e" class="cell" data-cell="3e"')
    assert 'class="target"' in target
    assert 'class="mark selected"' in cell_markup(svg, "4g")
    assert 'class="mark last"' in cell_markup(svg, "4f") and 'mark last' in cell_markup(svg, "4e")
    assert svg.count('class="target"') == 1 and svg.count("<a ") == 1



def test_spaces_with_pieces_are_images_named_like_their_titles_and_links_escaped(app):
    state = position({"1a": "R", "3c": "b", "4g": "r"})
    svg = svg_of(app, GAME, state, seat=None, selected=("3c", "2a"),
                 targets={"3c": '/play/t/conditional?path=3c&m=4g-3g&m=<"x">'})
    assert cell_markup(svg, "1a").startswith(
        '<g class="cell" data-cell="1a" transform="translate(52.0 -0.0)" role="img" '
        'aria-label="1a: promoted Red piece"><title>1a: promoted Red piece</title>')
    assert cell_markup(svg, "3c").startswith(
        '<a href="/play/t/conditional?path=3c&amp;m=4g-3g&amp;m=&lt;&#34;x&#34;&gt;" '
        'class="cell" data-cell="3c" transform="translate(111.72 -111.72)">'
        "<title>3c: Blue piece (selected)</title>")
    # an empty space is named by its title alone, even when selected
    assert cell_markup(svg, "2a").startswith(
        '<g class="cell" data-cell="2a" transform="translate(104.0 -0.0)"><title>2a</title>')
    assert 'class="space selected"' in cell_markup(svg, "2a")
    assert 'class="space inner"' in cell_markup(svg, "1a")


# -- clicking moves --------------------------------------------------------------------------

def test_click_paths_of_steps_skips_and_chains():
    assert board.click_path("4b-3b") == ("4b", "3b")
    assert board.click_path("1i-3k") == ("1i", "3k")
    assert board.click_path("4ex2e") == ("4e", "2e")
    assert board.click_path("3ex3gx3i") == ("3e", "3g", "3i")
    # a skip to where a jump from the same start could land ends with the "skip" choice
    assert board.click_path("3a-3c") == ("3a", "3c", "-")
    assert board.click_path("2a-1i") == ("2a", "1i", "-")
    assert board.is_cell("3c") and board.is_cell("1m") and not board.is_cell("-")
    assert not board.is_cell("2b") and not board.is_cell("1c")
    assert board.choice_label("-").startswith("Skip")
    with pytest.raises(ValueError):
        board.click_path("3a-3c-3e")


def test_move_cells_include_jumped_spaces():
    assert board.move_cells("4b-3b") == {"4b", "3b"}
    assert board.move_cells("3ex3gx3i") == {"3e", "3f", "3g", "3h", "3i"}
    assert board.move_cells("2ax1i") == {"2a", "1a", "1i"}


def test_click_paths_name_one_move_each_in_random_games():
    rng = random.Random(7)
    for _ in range(8):
        state = GAME.start(2, {}, "x")
        while state.outcome is None and state.ply < 150:
            moves = GAME.legal_moves(state, state.to_move[0])
            paths = [board.click_path(m) for m in moves]
            assert len(set(paths)) == len(moves)
            state = GAME.apply(state, state.to_move[0], rng.choice(moves))


def test_builder_offers_each_chain_prefix_and_further_landings():
    # Red on 3e; Blue on 3f and 3h: 3ex3g, then on to 3i.
    state = position({"3e": "r", "3f": "b", "3h": "b", "5a": "b", "5b": "b", "5c": "r"})
    assert {"3ex3g", "3ex3gx3i"} <= set(GAME.legal_moves(state, 0))
    first = builds(state, 0, "3e")
    assert "3g" in first.cells and first.complete is None
    landed = builds(state, 0, "3e", "3g")
    assert landed.complete == "3ex3g" and landed.cells == ("3i",) and not landed.choices
    end = builds(state, 0, "3e", "3g", "3i")
    assert end.complete == "3ex3gx3i" and not end.cells


def test_skip_and_jump_to_the_same_space_do_not_collide():
    # A promoted Red piece on 3a may jump the Blue piece on 3b to 3c, or skip to 3c round
    # it through 2a and 2c; and from 3c the jump may go on over 3d to 3e.
    state = position({"3a": "R", "3b": "b", "3d": "b", "5h": "b", "5i": "r"})
    moves = GAME.legal_moves(state, 0)
    assert {"3a-3c", "3ax3c", "3ax3cx3e"} <= set(moves)
    landed = builds(state, 0, "3a", "3c")
    assert landed.complete == "3ax3c"          # the jump, playable at once
    assert landed.cells == ("3e",)             # the chain goes on
    assert landed.choices == ("-",)            # or the skip, one button away
    assert builds(state, 0, "3a", "3c", "-").complete == "3a-3c"
    # a skip elsewhere needs no button (3a-2a-2c-2e-3e), nor does a step
    assert builds(state, 0, "3a", "3e").complete == "3a-3e"
    assert builds(state, 0, "3a", "4a").complete == "3a-4a"


# -- pages through the test client ---------------------------------------------------------------

def test_clicking_a_chain_and_playing_it(client, new_game):
    played, chain = find_chain_game()
    game = new_game("the-right-moves")
    for ply, move in enumerate(played):
        assert api_move(client, game, ply % 2, move).status_code == 200
    seat = len(played) % 2
    start, *landings = board.click_path(chain)
    page = client.get(game.urls[seat]).get_data(as_text=True)
    assert "Your turn." in page
    page = client.get(cell_link(page, start)).get_data(as_text=True)
    assert 'class="mark selected"' in cell_markup(page, start)
    page = client.get(cell_link(page, landings[0])).get_data(as_text=True)
    first = chain.rsplit("x", 1)[0]
    assert f"Play {first}" in page           # the chain may stop here
    page = client.get(cell_link(page, landings[1])).get_data(as_text=True)
    assert f"Play {chain}" in page
    form = re.search(r'name="move" value="([^"]+)"[^>]*>\s*<input type="hidden" '
                     r'name="version" value="(\d+)"', page)
    assert form.groups() == (chain, str(len(played)))  # one event a move so far
    answer = client.post(f"{game.urls[seat]}/move", data={"move": chain, "version": form[2]})
    assert answer.status_code == 303
    after = client.get(game.apis[seat]).json
    assert after["view"]["last_move"] == chain and after["ply"] == len(played) + 1
    page = client.get(game.urls[seat]).get_data(as_text=True)
    assert f"You played {chain}" in page
    assert all('mark last' in cell_markup(page, c) for c in board.move_cells(chain))


def test_a_chain_may_stop_after_the_first_jump(client, new_game):
    played, chain = find_chain_game()
    game = new_game("the-right-moves")
    for ply, move in enumerate(played):
        api_move(client, game, ply % 2, move)
    seat = len(played) % 2
    start, first_landing, _ = board.click_path(chain)
    page = client.get(game.urls[seat]).get_data(as_text=True)
    page = client.get(cell_link(page, start)).get_data(as_text=True)
    page = client.get(cell_link(page, first_landing)).get_data(as_text=True)
    first = f"{start}x{first_landing}"
    assert f'<button type="submit" id="confirm-move">Play {first}</button>' in page
    answer = client.post(f"{game.urls[seat]}/move", data={"move": first, "ply": len(played)})
    assert answer.status_code == 303
    assert client.get(game.apis[seat]).json["view"]["last_move"] == first


def test_two_player_game_over_http(client, new_game):
    game = new_game("the-right-moves", players=2)
    assert api_move(client, game, 1, "3c-2c").status_code == 422      # not Blue's turn
    wrong = api_move(client, game, 0, "3c-2c")
    assert wrong.status_code == 422 and "Red" in wrong.json["error"]  # a Blue piece
    assert api_move(client, game, 0, "3g-2g").json["to_move"] == [1]
    assert api_move(client, game, 1, "3c-2c").json["to_move"] == [0]
    page = client.get(game.urls[0]).get_data(as_text=True)
    assert "Your turn." in page and "team" not in page
    watch = client.get(game.watch).get_data(as_text=True)
    assert "(spectating)" in watch and "<a href" not in watch.split("<svg", 1)[1].split("</svg>")[0]


def test_four_players_take_turns_in_two_teams(client, new_game):
    game = new_game("the-right-moves", players=4)
    names = ["Red (1)", "Blue (1)", "Red (2)", "Blue (2)"]
    colours = ["red", "blue", "red", "blue"]
    state = GAME.start(4, {}, "x")
    for ply in range(8):
        seat = ply % 4
        info = client.get(game.apis[seat]).json
        assert info["to_move"] == [seat] and info["view"]["turn"]["name"] == names[seat]
        for other in range(4):
            if other != seat:
                assert api_move(client, game, other, info["legal_moves"][0]).status_code == 422
                assert client.get(game.apis[other]).json["legal_moves"] == []
        # a piece of the other team's colour may not be moved
        enemy = GAME.generate_moves(state, (seat + 1) % 4)
        refused = api_move(client, game, seat, enemy[0])
        assert refused.status_code == 422 and "you play" in refused.json["error"]
        move = info["legal_moves"][ply % len(info["legal_moves"])]
        mover = info["view"]["pieces"][board.click_path(move)[0]]
        assert mover["colour"] == colours[seat]
        answer = api_move(client, game, seat, move)
        assert answer.status_code == 200 and answer.json["to_move"] == [(seat + 1) % 4]
        state = GAME.apply(state, seat, move)
    page = client.get(game.urls[2]).get_data(as_text=True)
    assert "Red (2) — team Red" in page and "Blue (1) — team Blue" in page
    page = client.get(game.urls[0]).get_data(as_text=True)
    assert "Your turn." in page and "You play Red (1) — team Red." in page
    page = client.get(game.urls[3]).get_data(as_text=True)
    assert "Waiting for Player 1 (Red (1) — team Red)." in page


def test_rules_page(client):
    page = client.get("/rules/the-right-moves").get_data(as_text=True)
    for words in ("inner circle", "ring 2", "promoted", "skip", "chain", "three pieces or fewer",
                  "third time", "Red (2)", "3ex3gx3i", "1i-3k"):
        assert words in page
    assert "the-right-moves" in client.get("/rules").get_data(as_text=True)


def test_mastery_page_is_unchanged_by_teams(client, new_game):
    game = new_game("mastery")
    page = client.get(game.urls[1]).get_data(as_text=True)
    assert "Waiting for Player 1 (Dark)." in page and "team" not in page


# -- a real browser ------------------------------------------------------------------------------

def click_move(page, move: str) -> None:
    """Click a step on the board, then the Play button."""
    from playwright.sync_api import expect

    start, dest = board.click_path(move)
    page.click(f'#game a.cell[data-cell="{start}"]')
    expect(page.locator(f'#game [data-cell="{start}"] .mark.selected')).to_have_count(1)
    page.click(f'#game a.cell[data-cell="{dest}"]')
    expect(page.locator("#confirm-move")).to_have_text(f"Play {move}")
    page.click("#confirm-move")


@pytest.mark.browser
def test_four_players_in_chromium(open_context, live_server, new_game, client):
    """Four players, each on their own secret link in their own browser context, take a turn
    each by clicking the board. JavaScript is off: board clicks are plain links (see the
    next test for why)."""
    from playwright.sync_api import expect

    game = new_game("the-right-moves", players=4)
    sides = ["Red (1) — team Red", "Blue (1) — team Blue", "Red (2) — team Red",
             "Blue (2) — team Blue"]
    contexts = [open_context(java_script_enabled=False) for _ in range(4)]
    pages = [context.new_page() for context in contexts]
    for page, url in zip(pages, game.urls):
        page.set_default_timeout(10_000)
        page.goto(live_server + url)
    for seat in range(1, 4):
        expect(pages[seat].locator("#status")).to_contain_text(
            "Waiting for Player 1 (Red (1) — team Red).")
        expect(pages[seat].locator("#game a.cell")).to_have_count(0)
    for seat, page in enumerate(pages):
        page.reload()
        status = page.locator("#status")
        expect(status).to_contain_text("Your turn.")
        expect(status).to_contain_text(f"You play {sides[seat]}.")
        move = next(m for m in client.get(game.apis[seat]).json["legal_moves"]
                    if "-" in m and board.click_path(m)[-1] != "-")
        click_move(page, move)
        expect(page.locator(".notice[role=status]")).to_contain_text(f"You played {move}")
        following = (seat + 1) % 4
        expect(page.locator("#status")).to_contain_text(
            f"Waiting for Player {following + 1} ({sides[following]}).")
        dest = board.click_path(move)[1]
        expect(page.locator(f'#game [data-cell="{dest}"] .mark.last')).to_have_count(1)
        colour = ["red", "blue"][seat % 2]
        expect(page.locator(f'#game [data-cell="{dest}"] .piece.{colour}')).to_have_count(1)
    pages[0].reload()
    expect(pages[0].locator("#status")).to_contain_text("Your turn.")
    expect(pages[0].locator(".moves li")).to_have_count(4)


@pytest.mark.browser
def test_board_clicks_with_javascript(open_context, live_server, new_game):
    from playwright.sync_api import expect

    game = new_game("the-right-moves", players=4)
    context = open_context()
    page = context.new_page()
    page.set_default_timeout(3_000)
    page.goto(live_server + game.urls[0])
    click_move(page, "3g-2g")
    expect(page.locator(".notice[role=status]")).to_contain_text("You played 3g-2g")


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900},
                                      {"width": 390, "height": 844}], ids=["desktop", "phone"])
def test_a_team_resigns_in_chromium_only_when_the_partner_confirms(open_context, live_server,
                                                                   new_game, viewport):
    """Ann proposes that Red resign, Cid plays on, Ann is told; Ann proposes again, Cid
    agrees, and every page says who won, by name."""
    from playwright.sync_api import expect

    game = new_game("the-right-moves", players=4, names=["Ann", "Bob", "Cid", "Dee"])
    contexts = [open_context(viewport=viewport) for _ in range(3)]
    ann, bob, cid = (context.new_page() for context in contexts)
    for page, seat in ((ann, 0), (bob, 1), (cid, 2)):
        page.set_default_timeout(10_000)
        page.goto(live_server + game.urls[seat])

    def propose() -> None:
        form = ann.locator("form.resign")
        expect(form.get_by_role("button")).to_have_text("Propose resigning")
        expect(form).to_contain_text("Your team resigns once Cid confirms.")
        form.get_by_label("I want my team to resign").check()
        form.get_by_role("button", name="Propose resigning").click()
        expect(ann.locator(".notice.offers")).to_have_text(
            "You propose that your team resign; waiting for Cid to confirm.")
        expect(ann.locator("form.resign")).to_have_count(0)
        cid.reload()
        expect(cid.locator(".notice.offers")).to_have_text(
            "Ann proposes that your team resign: resign together, or play on.")

    propose()
    play_on = cid.get_by_role("button", name="Play on")
    play_on.scroll_into_view_if_needed()
    expect(play_on).to_be_in_viewport()
    play_on.click()
    expect(cid.locator(".notice.offers")).to_have_text(
        "You declined Ann's proposal to resign: your team plays on.")
    ann.reload()
    expect(ann.locator(".notice.offers")).to_have_text(
        "Cid declined your proposal to resign: your team plays on.")
    bob.reload()
    expect(bob.locator(".notice.offers")).to_have_count(0)  # Red's business
    expect(bob.locator("#game .game-over")).to_have_count(0)

    propose()
    agree = cid.locator("form.resign")
    agree.get_by_label("I agree that we resign").check()
    agree.get_by_role("button", name="Resign with Ann").click()
    over = "Game over — Bob and Dee won (team Blue): team Red resigned."
    expect(cid.locator("#game .game-over")).to_have_text(over)  # the answer has loaded
    for page in (cid, ann, bob):
        page.reload()
        banner = page.locator("#game .game-over")
        expect(banner).to_have_text(over)
        expect(banner).to_be_in_viewport(ratio=1)
        expect(page.locator("section.actions")).to_have_count(0)
