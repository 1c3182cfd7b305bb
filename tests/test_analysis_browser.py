"""The analysis board as a person uses it, in a real headless Chromium (with the fixtures of
test_browser.py), on a desktop and on a 390 px phone: open it from the game, play a line by
clicks and by typing, step back, branch, save the line as conditional moves; in a finished
game, ask the computer."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from pbem import analysis

from helpers import fits
from test_browser import cell, started  # noqa: F401 - started: the shared fixture

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_player_analyses_a_line_and_saves_it_as_conditional_moves(open_context, started,
                                                                    viewport):
    links = started("e3-e4")  # Light is to move: Dark may prepare conditional moves
    page = open_context(viewport=viewport).new_page()
    page.goto(links["dark"])
    page.locator("#analyse").click()
    expect(page.locator("p.reviewing")).to_contain_text("From ply 1 of the game")
    fits(page)

    # Light's expected move by clicks, then Dark's reply typed
    cell(page, "c5").click()
    cell(page, "c4").click()
    page.locator("#add-move").click()
    expect(page.locator("section.line ol li")).to_have_text(["c5-c4"])
    page.locator("#add-input").fill("d4-d5")
    page.locator("form.typed").get_by_role("button", name="Play").click()
    expect(page.locator("section.line ol li")).to_have_text(["c5-c4", "d4-d5"])

    # back one step, then forward again: the line stays
    page.get_by_role("link", name="◀ back").click()
    expect(page.locator("p.reviewing")).to_contain_text("after 1 of 2 moves")
    page.get_by_role("link", name="forward ▶").click()
    expect(page.locator("p.reviewing")).to_contain_text("after 2 of 2 moves")

    page.locator("#save-conditional").click()
    expect(page.locator("section.stored")).to_contain_text("c5-c4")
    expect(page.locator("section.stored")).to_contain_text("d4-d5")


def test_the_computer_is_asked_about_a_finished_game(open_context, started, monkeypatch):
    monkeypatch.setattr(analysis, "ASSESSING_LEVEL", "easy")  # the flow, in a second
    links = started("e3-e4")
    page = open_context(viewport=PHONE).new_page()
    page.goto(links["light"])
    resign = page.locator("form.resign")
    resign.get_by_label("I want to resign").check()
    resign.get_by_role("button", name="Resign").click()
    expect(page.locator("#game .game-over")).to_be_visible()
    page.locator("#analyse").click()
    page.locator("#ask-computer").click()
    expect(page.locator("#assessment")).to_contain_text("The computer would play")
    page.locator("#assessment").get_by_role("link", name="Play it").click()
    expect(page.locator("section.line ol li")).to_have_count(1)
