"""Playing the computer as a person does it, in a real headless Chromium (Debian's, through
Playwright, with the fixtures of test_browser.py): the new-game form, a move, the job's
answer on the page."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from pbem.jobs import scheduler
from helpers import fits
from test_browser import type_move

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize("viewport, javascript", [(DESKTOP, True), (PHONE, True),
                                                  (PHONE, False)],
                         ids=["desktop", "phone", "phone without JavaScript"])
def test_a_person_plays_the_computer_from_the_new_game_form(open_context, live_server, app,
                                                            viewport, javascript):
    page = open_context(viewport=viewport, java_script_enabled=javascript).new_page()
    page.goto(live_server + "/new/mastery")
    form = page.locator("form.new-game")
    form.locator('input[name="name0"]').fill("Ann")
    form.locator('input[name="email0"]').fill("ann@example.org")
    expect(form.locator('input[name="email1"]')).to_be_visible()
    form.get_by_label("Played by").select_option(label="the computer (easy)")
    # no name, email or link for the computer's seat
    expect(form.locator('input[name="email1"]')).to_be_hidden()
    expect(form.get_by_label("I'll send the link myself")).to_be_hidden()
    form.get_by_role("button", name="Start the game").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("The game has started")
    expect(page.locator("table.links tbody tr").nth(1).locator("td")).to_have_text(
        ["Light", "Computer (easy)", "played by the server"])
    page.locator('a.seat-link[data-seat="0"]').click()
    type_move(page, "d1-c1")
    status = page.locator("#status")
    expect(status).to_have_text("Waiting for Computer (easy) (Light). The computer plays "
                                "within a few seconds.")

    assert scheduler.play_bots(app) == 1  # the job's run
    if not javascript:
        page.reload()  # with JavaScript, the page redraws itself
    expect(status).to_contain_text("Your turn.")
    expect(page.locator("section.moves ol li")).to_have_count(2)
    fits(page)
