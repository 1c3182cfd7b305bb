"""The operators' console and a player's data download as a person uses them, in a real
headless Chromium (see test_browser.py): by keyboard alone, on a desktop and a 390 px
phone, checked by axe-core."""
from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from pbem import players, roles
from pbem.jobs import scheduler

from helpers import fits, free_port, sign_up
from test_accessibility import serious_violations
from test_console import run_every_job

pytestmark = pytest.mark.browser

expect.set_options(timeout=10_000)

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def tabbed_to(page, wanted: str, presses: int = 40) -> bool:
    """Whether Tab, pressed from the top of the page, reaches an element matching the CSS
    ``wanted``."""
    page.locator("body").focus()
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate("(wanted) => document.activeElement.matches(wanted)", wanted):
            return True
    return False


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_an_operator_reads_the_console_and_a_player_downloads_their_data(
        open_context, app, client, db, live_server, viewport):
    sign_up(client, db, "Olga")
    roles.grant(db, players.by_handle(db, "Olga"), "operator")
    created = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]})
    assert created.status_code == 201
    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=free_port())  # nobody answers there
    run_every_job(app)
    scheduler.recorded(scheduler.send_reminders, app, "send-reminders", 300)
    context = open_context(viewport=viewport)
    context.add_cookies([{"name": "session", "url": live_server,
                          "value": client.get_cookie("session").value}])
    page = context.new_page()

    page.goto(f"{live_server}/console")
    expect(page.get_by_role("heading", name="Console")).to_be_visible()
    expect(page.locator("#health .verdict")).to_contain_text("keeps up")
    expect(page.get_by_role("region", name="Each job's runs")).to_contain_text("send-emails")
    failures = page.get_by_role("region", name="The latest messages whose last attempt failed")
    expect(failures).to_contain_text("ann@example.org")
    expect(failures).to_contain_text("ConnectionRefusedError")
    fits(page)  # the tables scroll inside their boxes, the page does not
    assert tabbed_to(page, '#failures .console-table')  # its box, to scroll by keyboard
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.matches('#health .console-table')")
    if viewport is DESKTOP:
        assert serious_violations(page) == []

    page.goto(f"{live_server}/games")
    assert tabbed_to(page, ".export a")
    with page.expect_download() as downloading:
        page.keyboard.press("Enter")
    download = downloading.value
    assert download.suggested_filename == "Olga.json"
    with open(download.path()) as saved:
        assert json.load(saved)["handle"] == "Olga"
    fits(page)
