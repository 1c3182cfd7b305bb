"""Signing in as a person does it, in a real headless Chromium (see test_browser.py): the
form, the emailed link read from the mail a real SMTP server on loopback received, the
handle chosen on the link's page, the dashboard; on a desktop and on a 390 px phone."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from pbem.mail import outbox

from helpers import fits

pytestmark = pytest.mark.browser

expect.set_options(timeout=10_000)

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_signing_in_from_the_emailed_link_and_choosing_a_handle(open_context, app, client, db,
                                                                live_server, smtp, viewport):
    game = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]})
    assert game.status_code == 201
    context = open_context(viewport=viewport)
    page = context.new_page()
    page.goto(live_server)
    if viewport == PHONE:  # the menu is folded behind its button
        page.locator("header.site").get_by_text("Menu", exact=True).click()
    page.get_by_role("link", name="Sign in").click()
    page.get_by_label("Email").fill("ann@example.org")
    page.get_by_role("button", name="Email me a sign-in link").click()
    expect(page.get_by_role("status")).to_contain_text("a link is on its way")

    outbox.deliver_due(db, outbox.SMTPTransport("127.0.0.1", smtp.port, timeout=5),
                       app.config["MAIL_FROM"], app.config["PUBLIC_URL"])
    (message,) = [m for m in smtp.messages if m["Subject"] == "Sign in"]
    link = re.search(re.escape(live_server) + r"/sign-in/[A-Za-z0-9_-]{32}",
                     message.get_content()).group()
    page.goto(link)
    page.get_by_label("Handle").fill("Ann")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("p.signed-in")).to_contain_text("Signed in as Ann")
    expect(page.locator(".my-games.your-turn li")).to_contain_text("Mastery")
    fits(page)
    # the header names her (her dashboard) and offers to sign out; on a phone behind its
    # "Menu" button, every item of the menu in view, in either language
    header = page.locator("header.site")
    for language, menu, sign_out in (("ru", "Меню", "Выйти"), ("en", "Menu", "Sign out")):
        page.goto(f"{live_server}/tournaments?lang={language}")
        if viewport == PHONE:
            expect(header.get_by_role("link")).to_have_count(1)  # the brand: the rest folded
            header.get_by_text(menu, exact=True).click()
        expect(header.get_by_role("button", name=sign_out)).to_be_visible()
        fits(page)
        items = header.locator("nav > *").filter(visible=True)
        expect(items).to_have_count(7)
        for item in items.all():
            box = item.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], \
                (item.inner_text(), box)
    expect(header.get_by_role("link", name="Signed in as Ann")).to_have_attribute("href", "/games")
    header.get_by_role("link", name="Signed in as Ann").click()
    expect(page.locator(".my-games.your-turn li")).to_contain_text("Mastery")
    page.locator(".my-games.your-turn").get_by_role("button", name="Open").click()
    expect(page.locator("#game")).to_be_visible()
    page.goto(link)  # used: the link opens nothing any more
    expect(page.locator("main")).to_contain_text("used, expired or unknown")
    if viewport == PHONE:
        header.get_by_text("Menu", exact=True).click()
    header.get_by_role("button", name="Sign out").click()
    expect(page.locator("p.notice")).to_contain_text("You are signed out")
    if viewport == PHONE:
        header.get_by_text("Menu", exact=True).click()
    expect(header.get_by_role("link", name="Sign in")).to_be_visible()
