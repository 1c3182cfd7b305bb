"""Blocks, reports and moderation as people click through them, in a real headless Chromium
(see test_browser.py), on a desktop and a 390 px phone, by keyboard: a player reports a
chat message and blocks its author from the game page and undoes the block from the list;
a moderator reads the report with its evidence and mutes the author, confirmed. The
moderation page and a profile's fair-play line are photographed for the record."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import expect

from pbem import commands, players, roles
from pbem.store import utc

from helpers import fits, path_of, sign_up
from test_accessibility import serious_violations
from test_console_browser import DESKTOP, PHONE

pytestmark = pytest.mark.browser

expect.set_options(timeout=10_000)

SHOTS = Path("/tmp/mod")  # where the screenshots are left to look at


def signed_in_context(open_context, live_server, client, viewport):
    context = open_context(viewport=viewport)
    context.add_cookies([{"name": "session", "url": live_server,
                          "value": client.get_cookie("session").value}])
    return context


def press(page, locator) -> None:
    """Activate ``locator`` by keyboard: focus it and press Enter."""
    locator.focus()
    page.keyboard.press("Enter")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_player_reports_and_blocks_and_a_moderator_mutes(app, db, live_server, open_context,
                                                          viewport):
    people = {handle: app.test_client() for handle in ("Bob", "Ann", "Mod")}
    keys = {handle: path_of(sign_up(client, db, handle)) for handle, client in people.items()}
    roles.grant(db, players.by_handle(db, "Mod"), "moderator")
    api = people["Ann"]
    # Bob's record: one game played out, one lost on time
    done = api.post("/api/games", json={"game": "mastery", "players": [
        {"key": keys["Ann"]}, {"key": keys["Bob"]}]}).json
    api.post(path_of(done["seats"][1]["api"]) + "/resign", json={})
    late = api.post("/api/games", json={"game": "mastery", "clock": {
        "mode": "per_move", "days": 1}, "players": [{"key": keys["Bob"]}, {"key": keys["Ann"]}]})
    with app.test_request_context():
        commands.record_timeouts(db, utc.now() + timedelta(days=2))
    assert late.status_code == 201
    game = api.post("/api/games", json={"game": "mastery", "players": [
        {"key": keys["Ann"]}, {"key": keys["Bob"]}]}).json
    bob_api = path_of(game["seats"][1]["api"])
    api.post(bob_api + "/chat", json={"text": "You play like a rude word."})
    suffix = "desktop" if viewport is DESKTOP else "phone"

    # Ann reports the message from her game page, then blocks Bob there
    ann = signed_in_context(open_context, live_server, people["Ann"], viewport).new_page()
    ann.goto(game["seats"][0]["url"])
    message = ann.locator(".chat-messages li", has_text="rude word")
    press(ann, message.get_by_role("link", name="Report this message"))
    expect(ann.get_by_role("heading", name="Report Bob")).to_be_visible()
    expect(ann.locator(".reported-message")).to_contain_text("rude word")
    ann.get_by_label("Abuse").check()
    ann.get_by_label("What happened").fill("He insults me in every game.")
    fits(ann)
    press(ann, ann.get_by_role("button", name="Send the report"))
    expect(ann.locator(".notice")).to_contain_text("your report is with")
    ann.get_by_text("Mute, block or report a player").click()
    press(ann, ann.get_by_role("button", name="Block Bob"))
    expect(ann.get_by_text("You block Bob")).to_be_visible()
    expect(ann.locator(".chat-messages")).to_have_count(0)  # his message is hidden
    fits(ann)

    # the list to undo it
    ann.goto(f"{live_server}/me/blocks")
    expect(ann.locator(".blocked-players")).to_contain_text("Bob")
    fits(ann)
    assert serious_violations(ann) == []
    press(ann, ann.get_by_role("button", name="Unblock Bob"))
    expect(ann.get_by_text("You block nobody.")).to_be_visible()

    # the moderator reads the report with its evidence and mutes Bob, confirmed
    mod = signed_in_context(open_context, live_server, people["Mod"], viewport).new_page()
    mod.goto(f"{live_server}/moderation")
    report = mod.locator("section.report").first
    expect(report).to_contain_text("He insults me in every game.")
    expect(report.locator(".evidence-chat mark")).to_contain_text("rude word")
    expect(report.locator(".fair-play")).to_contain_text("2 games finished")
    fits(mod)
    mod.screenshot(path=str(SHOTS / f"moderation-{suffix}.png"), full_page=True)
    if viewport is DESKTOP:
        assert serious_violations(mod) == []
    if viewport is PHONE:  # the same page in Russian, to look at
        russian = open_context(viewport=viewport, locale="ru",
                               extra_http_headers={"Accept-Language": "ru"})
        russian.add_cookies([{"name": "session", "url": live_server,
                              "value": people["Mod"].get_cookie("session").value}])
        in_russian = russian.new_page()
        in_russian.goto(f"{live_server}/moderation")
        expect(in_russian.get_by_role("heading", name="Модерация")).to_be_visible()
        fits(in_russian)
        in_russian.screenshot(path=str(SHOTS / "moderation-phone-ru.png"), full_page=True)
        in_russian.goto(f"{live_server}/players/Bob")
        expect(in_russian.locator("#fair-play")).to_contain_text("2 партии доиграны")
        in_russian.screenshot(path=str(SHOTS / "profile-phone-ru.png"))
    report.get_by_label("Action", exact=True).select_option("mute")
    report.get_by_label("Note to the player").fill("Mind your words, please.")
    act = report.get_by_role("button", name="Act")
    act.click()  # unticked: the browser refuses to send it
    expect(mod).to_have_url(f"{live_server}/moderation")
    report.get_by_label("I have read the evidence").check()
    press(mod, act)
    expect(mod.get_by_text("Done: Mute (chat refused), Bob.")).to_be_visible()
    expect(mod.get_by_text("No report waits.")).to_be_visible()
    refused = api.post(bob_api + "/chat", json={"text": "again"})
    assert refused.status_code == 422
    (told,) = db.execute("SELECT body FROM outbox WHERE kind = 'moderation'").fetchone()
    assert "Mind your words, please." in told

    # a profile's fair-play line
    mod.goto(f"{live_server}/players/Bob")
    line = mod.locator("#fair-play")
    expect(line).to_contain_text("2 games finished")
    expect(line).to_contain_text("1 lost on time")
    expect(line).to_contain_text("completion 50%")
    fits(mod)
    line.screenshot(path=str(SHOTS / f"profile-fair-play-{suffix}.png"))
    mod.screenshot(path=str(SHOTS / f"profile-{suffix}.png"))
