"""A bounce as a player meets it, in a real headless Chromium (see test_browser.py): a
delivery report handed to the mail listener on loopback ends with the seat's page saying
that its emails bounce, and its button, reached by keyboard alone, sends email to it
again; on a desktop and a 390 px phone, checked by axe-core."""
from __future__ import annotations

import smtplib

import pytest
from playwright.sync_api import expect

from pbem.mail import listener

from helpers import fits, free_port
from test_accessibility import serious_violations
from test_bounces import ANN, return_path_of, sample
from test_console_browser import DESKTOP, PHONE, tabbed_to

pytestmark = pytest.mark.browser

expect.set_options(timeout=10_000)


@pytest.mark.parametrize("language", ["en", "ru"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_report_to_the_listener_shows_on_the_seats_page_with_a_button_to_try_again(
        app, client, new_game, smtp, live_server, open_context, viewport, language):
    game, verp = return_path_of(app, smtp, new_game)
    server = listener.MailListener(app, port=free_port())
    server.start()
    try:
        with smtplib.SMTP("127.0.0.1", server.port) as sending:
            assert sending.sendmail("", [verp], sample("gmail", verp)) == {}
    finally:
        server.stop()
    page = open_context(viewport=viewport, locale=language, extra_http_headers={
        "Accept-Language": language}).new_page()
    page.goto(live_server + game.urls[0])
    notice = page.locator("#bouncing")
    expect(notice).to_contain_text(
        f"Emails to {ANN} bounce." if language == "en" else f"Письма на {ANN} не доходят.")
    expect(notice).to_contain_text("5.1.1")
    fits(page)
    if viewport is DESKTOP:
        assert serious_violations(page) == []
    assert tabbed_to(page, "#bouncing button")
    page.keyboard.press("Enter")
    page.wait_for_url(live_server + game.urls[0])
    expect(page.locator("#bouncing")).to_have_count(0)
    expect(page.get_by_text(ANN)).to_be_visible()  # "Emails go to ... again"
    assert client.get(game.apis[0]).json["email_status"] == "ok"
    # the settings page says nothing more either
    page.goto(live_server + game.urls[0] + "/email")
    expect(page.locator("#bouncing")).to_have_count(0)
    fits(page)
