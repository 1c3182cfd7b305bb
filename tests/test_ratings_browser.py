"""Issue 24's flow in real browsers (Debian's Chromium through Playwright), on a desktop and
a 390 px phone: Ann signs in from the link emailed to her and chooses a handle, offers a
rated challenge in the lobby, on a clock; Bob, signed in the same way in a browser of his
own, takes it; once each has made two moves Ann resigns, and both profiles show the ratings
the game gave them."""
from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, expect

from pbem import glicko
from pbem.mail import outbox

from helpers import fits


pytestmark = pytest.mark.browser

LINK = re.compile(r"http://127\.0\.0\.1:\d+/sign-in/\S+")


def sign_in(page: Page, live_server: str, app, db, smtp, handle: str) -> None:
    """Sign in as a new player, from the link emailed (over SMTP, on loopback)."""
    email = f"{handle.lower()}@example.org"
    page.goto(live_server + "/sign-in")
    page.get_by_label("Email").fill(email)
    page.get_by_role("button", name="Email me a sign-in link").click()
    expect(page.get_by_role("status")).to_contain_text("a link is on its way")
    outbox.deliver_due(db, outbox.SMTPTransport("127.0.0.1", smtp.port, timeout=5),
                       app.config["MAIL_FROM"], app.config["PUBLIC_URL"])
    [message] = [m for m in smtp.messages if m["To"] == email]
    page.goto(LINK.search(message.get_body(("plain",)).get_content()).group(0))
    page.get_by_label("Handle").fill(handle)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_text(f"You are signed in as {handle}.")).to_be_visible()


def rating_on_profile(page: Page, live_server: str, handle: str) -> str:
    page.goto(f"{live_server}/players/{handle}")
    return page.locator('table.ratings tr[data-game="mastery"] td.rating').inner_text()


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900},
                                      {"width": 390, "height": 844}], ids=["desktop", "phone"])
def test_sign_in_rated_challenge_play_to_the_end_and_see_the_ratings(
        open_context, live_server, app, db, smtp, viewport):
    ann = open_context(viewport=viewport).new_page()
    bob = open_context(viewport=viewport).new_page()
    sign_in(ann, live_server, app, db, smtp, "Ann")
    sign_in(bob, live_server, app, db, smtp, "Bob")

    # Ann offers a rated game in the lobby
    ann.goto(live_server + "/new/mastery")
    form = ann.locator("form.new-game")
    # signed in, she is the first player already: her handle and address
    expect(form.locator('input[name="name0"]')).to_have_value("Ann")
    expect(form.locator('input[name="email0"]')).to_have_value("ann@example.org")
    form.get_by_label("I'll send the link myself").check()
    form.get_by_label("List the open seats in the lobby").check()
    form.get_by_label("Rated").check()
    form.get_by_label("from").fill("1200")
    form.locator('select[name="clock-mode"]').select_option("per_move")  # a rated game's
    form.get_by_role("button", name="Start the game").click()
    expect(ann.get_by_role("heading", level=1)).to_have_text("The game waits for players")
    ann.locator('a.seat-link[data-seat="0"]').click()

    # Bob finds it in the lobby, with Ann's provisional rating, and takes it as himself
    bob.goto(live_server + "/lobby?game=mastery")
    challenge = bob.locator("li.challenge")
    expect(challenge).to_have_count(1)
    expect(challenge).to_contain_text("Ann (1500?)")
    expect(challenge).to_contain_text("from 1200")
    fits(bob)
    challenge.get_by_role("button", name="Join as Bob").click()
    expect(bob.locator("ul.players")).to_contain_text("Bob (1500?)")
    expect(bob.locator("#status")).to_contain_text("Waiting for Ann (Dark)")
    fits(bob)

    # two moves each (through the API of their pages' links): from then on its end counts
    client = app.test_client()
    apis = {name: "/api" + urlsplit(page.url).path for name, page in (("Ann", ann), ("Bob", bob))}
    for ply, name in enumerate(["Ann", "Bob"] * 2):
        move = client.get(apis[name]).json["legal_moves"][0]
        assert client.post(f"{apis[name]}/moves", json={"move": move, "ply": ply}).status_code == 200

    # Ann resigns: the game is over, and rated
    ann.reload()
    resign = ann.locator("form.resign")
    resign.get_by_label("I want to resign").check()
    resign.get_by_role("button", name="Resign").click()
    expect(ann.locator("#game .game-over")).to_contain_text("Bob won: Ann resigned")
    won, lost = glicko.game(glicko.Rating(), glicko.Rating(), 1)
    expect(ann.locator("ul.players")).to_contain_text(f"Ann (1500 → {round(lost.rating)})")

    # both profiles show the change, from either browser
    assert rating_on_profile(bob, live_server, "Bob") == f"{round(won.rating)}?"
    assert rating_on_profile(bob, live_server, "Ann") == f"{round(lost.rating)}?"
    assert rating_on_profile(ann, live_server, "Ann") == f"{round(lost.rating)}?"
    fits(ann)
