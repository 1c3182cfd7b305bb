"""Bot accounts as a person uses them, in a real headless Chromium (see test_browser.py):
registering a bot on the "Bots" page with the keyboard, then starting a game against it
from the new-game form, while its program (here the test, through the API) takes the seat
it is offered; on a desktop and a 390 px phone, checked by axe-core, in both languages."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from helpers import fits, path_of, sign_up
from test_accessibility import serious_violations
from test_console_browser import tabbed_to

pytestmark = pytest.mark.browser

expect.set_options(timeout=10_000)

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_registering_a_bot_and_starting_a_game_against_it(open_context, client, db,
                                                          live_server, viewport):
    sign_up(client, db, "Ann")
    context = open_context(viewport=viewport)
    context.add_cookies([{"name": "session", "url": live_server,
                          "value": client.get_cookie("session").value}])
    page = context.new_page()

    page.goto(f"{live_server}/bots")
    expect(page.get_by_role("heading", name="Bots", exact=True)).to_be_visible()
    expect(page.locator("main")).to_contain_text("No bot is registered yet.")
    # the form, by keyboard alone: the handle typed, a game ticked, the button pressed
    assert tabbed_to(page, "form.register-bot input[name=handle]")
    page.keyboard.type("Robo")
    page.get_by_label("Mastery").focus()
    page.keyboard.press("Space")
    assert tabbed_to(page, "form.register-bot button")
    page.keyboard.press("Enter")
    expect(page.get_by_role("status")).to_contain_text("Your bot Robo is registered")
    expect(page.get_by_role("table", name="Every bot")).to_contain_text("Robo")
    expect(page.locator("tr[data-bot=Robo]")).to_contain_text("Ann")
    page.locator(".own-bots summary").click()
    key = page.locator(".own-bots code").inner_text()
    assert client.get(path_of(key)).json["handle"] == "Robo"
    fits(page)
    assert serious_violations(page) == []

    # a new game against it: "Played by" the bot
    page.goto(f"{live_server}/new/mastery")
    page.get_by_label("Played by").select_option(label="the bot Robo")
    expect(page.locator("input[name=email1]")).to_be_hidden()  # a bot needs no address
    fits(page)
    page.get_by_role("button", name="Start the game").click()
    expect(page.get_by_role("heading", name="The game waits for players")).to_be_visible()
    expect(page.locator("td.offered")).to_contain_text("a bot")
    expect(page.get_by_role("link", name="Robo")).to_be_visible()
    fits(page)

    # its program is told, and takes the seat with its key: the game starts, Ann to move
    [challenge] = client.get(f"{path_of(key)}/events?after=0").json["events"]
    assert challenge["event"] == "challenge" and challenge["data"]["game"] == "mastery"
    joined = client.post(path_of(challenge["data"]["join"]), json={"key": key})
    assert joined.status_code == 201, joined.json
    page.goto(f"{live_server}/games")
    expect(page.locator(".my-games.your-turn li")).to_contain_text("Robo")

    # its profile says it is a bot and names its owner, in either language
    for language, says in (("en", "a program plays its games"),
                           ("ru", "в его партиях ходит программа")):
        page.goto(f"{live_server}/players/Robo?lang={language}")
        expect(page.locator(".bot-account")).to_contain_text(says)
        expect(page.locator(".bot-account").get_by_role("link", name="Ann")).to_be_visible()
        fits(page)
        assert serious_violations(page) == []
    page.goto(f"{live_server}/bots?lang=ru")
    expect(page.get_by_role("heading", name="Боты", exact=True)).to_be_visible()
    fits(page)
    assert serious_violations(page) == []
