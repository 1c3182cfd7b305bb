"""The rules pages show each game's board and worked examples as diagrams: SVG drawn by the
game's own board code (``render``) from positions the engine reaches by replaying real
moves (``pbem/web/diagrams.py``), so that the pictures cannot disagree with the rules."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

import engine
from pbem.web import diagrams
from pbem.boards import board_for

from helpers import fits

PAGES = [(game_id, "") for game_id in engine.GAMES] + [("magnetic-field", "?lang=ru")]

# Rules pages are drawn from the engine alone; no game is stored.
pytestmark = pytest.mark.one_database


def replayed(game: engine.Game, diagram: diagrams.Diagram):
    """The diagram's positions through the engine's own ``replay``: before its example move,
    and after it (None without one)."""
    pairs, state = [], game.start(diagram.players, diagram.options, diagram.seed)
    for move in diagram.moves + ((diagram.example,) if diagram.example else ()):
        pairs.append((state.to_move[0], move))
        state = game.apply(state, *pairs[-1])
    before = game.replay(diagram.players, diagram.options, diagram.seed,
                         pairs[:len(diagram.moves)])
    after = game.replay(diagram.players, diagram.options, diagram.seed, pairs) \
        if diagram.example else None
    return before, after


def expected_boards(app, game_id: str, query: str = "") -> list[str]:
    """Every board the game's rules page (with ``query``: its language) should show:
    ``render`` of each replayed position as its viewer sees it, the example's cells selected
    before it and marked after it."""
    game, board = engine.get(game_id), board_for(game_id)
    boards = []
    with app.test_request_context(f"/rules/{game_id}{query}"):
        for diagram in diagrams.DIAGRAMS[game_id].values():
            before, after = replayed(game, diagram)
            viewer = diagram.viewer
            if after is None:
                boards.append(board.render(game.view(before, viewer), seat=viewer))
                continue
            cells = board.move_cells(diagram.example)
            boards.append(board.render(game.view(before, viewer), seat=viewer,
                                       selected=tuple(sorted(cells))))
            boards.append(board.render(game.view(after, viewer), seat=viewer, last=cells))
    return [str(svg) for svg in boards]


@pytest.mark.parametrize("game_id, query", PAGES, ids=[g + q for g, q in PAGES])
def test_every_rules_page_shows_every_diagram_drawn_from_its_replayed_position(
        app, client, game_id, query):
    page = client.get(f"/rules/{game_id}{query}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    boards = expected_boards(app, game_id, query)
    assert len(diagrams.DIAGRAMS[game_id]) >= 5
    for number, svg in enumerate(boards):
        assert svg in html, f"board {number} of {game_id} is not on its rules page"
    # and nothing else is drawn: every picture on the page is one of them
    assert html.count("<svg") == sum(svg.count("<svg") for svg in boards)
    assert html.count('<figure class="diagram">') == len(diagrams.DIAGRAMS[game_id])


def test_each_language_gets_the_diagrams_drawn_in_it_whichever_was_drawn_first(app, client):
    """The boards' words are the reader's: a diagram drawn once per process is drawn once
    per language, not shown in the language of whoever asked first."""
    pages = {query: client.get(f"/rules/magnet{query}").get_data(as_text=True)
             for query in ("?lang=ru", "?lang=en")}
    for query, html in pages.items():
        drawn = expected_boards(app, "magnet", query)
        assert all(svg in html for svg in drawn), query
    assert expected_boards(app, "magnet", "?lang=ru") != expected_boards(app, "magnet")


def test_magnet_s_rules_say_which_side_each_diagram_draws_at_the_bottom(client):
    """The rules page draws Red at the top (as spectators see it) while each player's page
    turns the board so that their own side is at the bottom: the page says so, and each
    caption says whose side is at the bottom, as its diagram is drawn."""
    from pbem.boards.magnet import SIDES, TURNED_FOR

    html = client.get("/rules/magnet").get_data(as_text=True)
    text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    assert "each player sees their own start vertices at the bottom" in text
    captions = [" ".join(re.sub(r"<[^>]+>", " ", c).split())
                for c in re.findall(r"<figcaption>(.*?)</figcaption>", html, re.S)]
    viewers = [d.viewer for d in diagrams.DIAGRAMS["magnet"].values()]
    assert len(captions) == len(viewers)
    for caption, viewer in zip(captions, viewers):
        bottom = SIDES[TURNED_FOR] if viewer == TURNED_FOR else SIDES[1 - TURNED_FOR]
        assert f"{bottom} at the bottom" in caption or \
            f"{SIDES[1 - SIDES.index(bottom)]} at the top" in caption, caption
        assert f"{SIDES[1 - SIDES.index(bottom)]} at the bottom" not in caption, caption


@pytest.mark.parametrize("game_id", list(engine.GAMES))
def test_every_example_is_a_legal_move_of_its_position(game_id):
    game = engine.get(game_id)
    examples = 0
    for name, diagram in diagrams.DIAGRAMS[game_id].items():
        before, after = replayed(game, diagram)
        assert before.outcome is None, name
        if diagram.example is None:
            continue
        examples += 1
        seat = before.to_move[0]
        recorded = game.canonical(before, seat, diagram.example)
        # Magnetic Field does not list turns that lay several tiles: they are still legal
        if game.lists_every_move or recorded.count("@") < 2:
            assert recorded in game.legal_moves(before, seat), name
        assert after == game.apply(before, seat, recorded), name
    assert examples >= 3


def test_a_diagram_shows_the_move_as_the_game_records_it(app):
    """Magnet drops the promotion a trap cancelled from the record; the caption follows."""
    with app.test_request_context():
        assert diagrams.draw("magnet", "capture").example == "g9:g1+,k5+"
        assert diagrams.draw("magnet", "trap").example == "g9:g1+,k5"
        assert diagrams.draw("mastery", "imperial").after is None


@pytest.mark.parametrize("game_id", list(engine.GAMES))
def test_a_diagram_whose_move_ends_the_game_says_how_under_its_board(client, game_id):
    """The result the replayed position's outcome gives, as a game's page words it, in
    each language; no result under a board whose move lets the game go on."""
    game = engine.get(game_id)
    ending = {name for name, diagram in diagrams.DIAGRAMS[game_id].items()
              if (after := replayed(game, diagram)[1]) is not None and after.outcome}
    for language, won in (("en", "won: "), ("ru", "Победа: ")):
        page = client.get(f"/rules/{game_id}?lang={language}").get_data(as_text=True)
        said = re.findall(r'<p class="diagram-result">(.*?)</p>', page)
        assert len(said) == len(ending)
        assert all(won in text or text.startswith(("Draw: ", "Ничья: ")) for text in said)
    if game_id == "magnetic-field":  # Blue sticks its figure to its own: Red wins, and why
        assert ending == {"attract", "own-field"}
        page = client.get("/rules/magnetic-field?lang=en").get_data(as_text=True)
        assert "Red won: Blue has no figure on the field, and Red has not entered one yet" \
            in page


# -- what a person sees ------------------------------------------------------------------------

@pytest.mark.browser
@pytest.mark.parametrize("game_id, query", PAGES, ids=[g + q for g, q in PAGES])
def test_rules_diagrams_fit_a_phone_and_sit_side_by_side_on_a_desktop(
        browser, live_server, game_id, query):
    url = f"{live_server}/rules/{game_id}{query}"
    phone = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        phone.goto(url)
        figures = phone.locator("figure.diagram")
        expect(figures.first.locator("svg.board").first).to_be_visible()
        fits(phone)
        for box in figures.locator("svg.board").evaluate_all(
                "svgs => svgs.map(s => s.getBoundingClientRect().toJSON())"):
            assert box["left"] >= 0 and box["right"] <= 390 and box["width"] >= 300, box
    finally:
        phone.close()
    desktop = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        desktop.goto(url)
        pair = desktop.locator("figure.diagram:has(svg + p) .diagram-boards").first
        before, after = (box for box in pair.locator(":scope > div").evaluate_all(
            "boards => boards.map(b => b.getBoundingClientRect().toJSON())"))
        assert before["top"] == after["top"] and before["right"] < after["left"]
    finally:
        desktop.close()
