"""The reminders before a clock runs out, chosen as a person does on the game's notification
settings, in a real headless Chromium (see test_browser.py): by keyboard alone, on a
desktop and a 390 px phone, checked by axe-core."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from helpers import fits, path_of
from test_accessibility import serious_violations
from test_clocks import apis, create
from test_console_browser import DESKTOP, PHONE, tabbed_to
from test_reminders import THREE_DAYS

pytestmark = pytest.mark.browser

expect.set_options(timeout=10_000)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_player_chooses_reminders_by_keyboard(client, live_server, open_context, viewport):
    created = create(client, THREE_DAYS)
    dark, _light = apis(created)
    page = open_context(viewport=viewport).new_page()
    page.goto(live_server + path_of(created["seats"][0]["url"]) + "/email")
    reminders = page.get_by_role("group", name="Before your time runs out")
    expect(reminders).to_be_visible()
    fits(page)
    if viewport is DESKTOP:
        assert serious_violations(page) == []
    assert tabbed_to(page, ".reminders input[value=warning]")
    page.keyboard.press("ArrowDown")  # the radio group's other choice
    expect(reminders.get_by_label("a reminder at each time I tick")).to_be_checked()
    for hours in ("8 hours before", "1 hour before"):
        box = reminders.get_by_label(hours, exact=True)
        box.focus()
        page.keyboard.press("Space")
        expect(box).to_be_checked()
    page.get_by_role("button", name="Save").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_text("Your settings are saved.")).to_be_visible()
    fits(page)
    assert client.get(f"{dark}/email").json["deadline_reminders"] == [8, 1]
