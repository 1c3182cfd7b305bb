"""Magnetic Field's amended ring-out Ruling as a person meets it, in headless Chromium: the
move preview warns before a turn that would empty the player's own field while the opponent
has never entered a figure (a loss, not a 0-0 draw), and the rules page shows the case as a
diagram, on a desktop and on a 390 px phone, in English and in Russian."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from helpers import api_move, fits
from test_accessibility import serious_violations

pytestmark = pytest.mark.browser

BLUE_FIRST = {"colours": "seat0-blue"}
PICKS = ("K", "K", "D", "D")  # Blue, Red, Blue, Red
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture
def before_red_enters(client, seeded_game):
    """A game in which Blue has entered one figure (e4, N pole north) and Red has only
    placed a tile: Blue to move."""
    game = seeded_game("magnetic-field", "own-field", BLUE_FIRST)
    for seat, pick in enumerate(PICKS):
        api_move(client, game.apis[seat % 2], f"pick {pick}")
    api_move(client, game.apis[0], "K@e5 +e4:n")
    api_move(client, game.apis[1], "K@e6")
    return game


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_preview_warns_before_blue_empties_its_field_ahead_of_reds_first_figure(
        client, before_red_enters, live_server, open_context, viewport):
    game = before_red_enters
    page = open_context(viewport=viewport).new_page()
    page.set_default_timeout(10_000)
    page.goto(live_server + game.urls[0])
    expect(page.locator("#status")).to_contain_text("Your turn")
    # a second figure on e2, N pole north: its N faces the S of Blue's own figure on e4
    page.locator('.board-area a.cell[data-cell="e2"]').click()
    expect(page.locator(".builder")).to_contain_text("enter on e2: choose its direction")
    page.locator(".builder a.choice", has_text="N pole ↑ north").click()
    expect(page.locator("#confirm-move")).to_have_text("Play +e2:n")
    warning = page.locator(".builder .mf-outcome.loss")
    expect(warning).to_be_visible()
    expect(warning).to_have_text(
        "This turn loses the game: Blue has no figure on the field, and Red has not entered "
        "one yet. The scores settle an empty field only once both players have entered a "
        "figure: until then, emptying your own field loses.")
    expect(page.locator(".mf-preview")).to_contain_text("Score: Blue 0 – Red 0")
    # shown before the button that would play it, and on the phone's screen with it
    box, button = warning.bounding_box(), page.locator("#confirm-move").bounding_box()
    assert box["y"] + box["height"] <= button["y"]
    assert box["y"] < viewport["height"]  # it begins on the first screen, under the field
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], box
    fits(page)
    assert serious_violations(page) == []
    # another cell keeps the game going: no warning
    page.locator(".builder a.cancel").click()
    expect(page.locator("#confirm-move")).to_have_count(0)  # back to choosing a cell
    page.locator('.board-area a.cell[data-cell="c3"]').click()
    expect(page.locator(".builder")).to_contain_text("enter on c3: choose its direction")
    page.locator(".builder a.choice", has_text="N pole ↑ north").click()
    expect(page.locator("#confirm-move")).to_have_text("Play +c3:n")
    expect(page.locator(".mf-preview")).to_be_visible()
    expect(page.locator(".mf-outcome")).to_have_count(0)
    # nothing has been played: the warning is a preview only
    assert client.get(game.apis[0]).json["ply"] == 6


def test_the_preview_warns_in_russian(client, before_red_enters, live_server, open_context):
    game = before_red_enters
    page = open_context(viewport=PHONE, locale="ru",
                        extra_http_headers={"Accept-Language": "ru"}).new_page()
    page.set_default_timeout(10_000)
    page.goto(live_server + game.urls[0] + "?path=e2.n")
    expect(page.locator("html")).to_have_attribute("lang", "ru")
    warning = page.locator(".builder .mf-outcome.loss")
    expect(warning).to_be_visible()
    expect(warning).to_have_text(
        "Этим ходом вы проиграете партию: Синие: ни одной фигурки на поле; Красные: фигурки ещё "
        "не выставлялись. Очки решают при пустом поле, только когда оба игрока уже "
        "выставляли фигурки: до тех пор опустошить своё поле\u00a0— значит проиграть.")
    fits(page)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("query, caption", [
    ("", "yet this is no draw: Red has never entered a figure, so Blue, who emptied its own "
         "field, loses."),
    ("?lang=ru", "но это не ничья: Красные ни разу не выставляли фигурку, поэтому Синие, сами "
                 "опустошившие своё поле, проигрывают.")], ids=["en", "ru"])
def test_the_rules_page_shows_the_case_as_a_diagram(live_server, open_context, viewport,
                                                     query, caption):
    page = open_context(viewport=viewport).new_page()
    page.goto(f"{live_server}/rules/magnetic-field{query}")
    figure = page.locator("figure.diagram", has_text=caption)
    expect(figure).to_have_count(1)
    figure.scroll_into_view_if_needed()
    boards = figure.locator("svg.board.field")
    expect(boards).to_have_count(2)
    for board in boards.all():
        expect(board).to_be_visible()
    # before: Blue's figure on e4; after +e2:n, neither figure on the field
    expect(boards.nth(0).locator('[data-cell="e4"] .magnet.blue')).to_have_count(1)
    expect(boards.nth(1).locator(".magnet.blue:not(.gone)")).to_have_count(0)
    expect(figure.locator("code")).to_have_text("+e2:n")
    expect(figure.locator("figcaption")).to_be_visible()
    frames = figure.locator(".board-frame").evaluate_all(
        "frames => frames.map(f => f.getBoundingClientRect().toJSON())")
    for box in frames:
        assert box["left"] >= 0 and box["right"] <= viewport["width"], box
    if viewport is DESKTOP:  # side by side
        assert frames[0]["top"] == frames[1]["top"] and frames[0]["right"] < frames[1]["left"]
    fits(page)
