"""Open seats, the lobby and "My games" as people use them, in a real headless Chromium
(Debian's, through Playwright, with the fixtures of test_browser.py): each person has a
browser context of their own, so their own cookies."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from pbem import matches
from pbem.store import utc

from helpers import fits
from test_browser import type_move

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def start_game(page: Page, live_server: str, *, public: bool) -> str:
    """Ann starts a Mastery game on the form, leaving Light's seat open; returns the join
    link the page shows her."""
    page.goto(live_server + "/new/mastery")
    form = page.locator("form.new-game")
    form.locator('input[name="name0"]').fill("Ann")
    form.locator('input[name="email0"]').fill("ann@example.org")
    form.get_by_label("I'll send the link myself").check()
    expect(form.locator('input[name="email1"]')).to_be_hidden()  # nothing to fill in
    if public:
        form.get_by_label("List the open seats in the lobby").check()
    form.get_by_role("button", name="Start the game").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("The game waits for players")
    expect(page.locator("a.seat-link")).to_have_count(1)
    return page.locator('a.join-link[data-seat="1"]').get_attribute("href")


def listed(page: Page, section: str) -> list[str]:
    """The game ids of a section of the My games page, in order, once the page a click led
    to has loaded (a click waits only until the new page begins)."""
    page.wait_for_load_state()
    return page.locator(f"section.my-games.{section} li").evaluate_all(
        "items => items.map(li => li.dataset.game)")


def test_seats_taken_from_the_lobby_and_from_a_link_then_my_games_by_turn(
        open_context, live_server, db):
    ann = open_context().new_page()
    start_game(ann, live_server, public=True)
    ann_first = ann.locator('a.seat-link[data-seat="0"]').get_attribute("href")

    # Bob, in his own browser and without JavaScript, takes the seat from the lobby
    bob = open_context(java_script_enabled=False).new_page()
    bob.goto(live_server + "/")
    bob.locator("header.site").get_by_role("link", name="Lobby").click()
    challenge = bob.locator("li.challenge")
    expect(challenge).to_have_count(1)
    expect(challenge).to_contain_text("Ann is waiting")
    expect(challenge).to_contain_text("no time limit")
    challenge.get_by_label("Your name").fill("Bob")
    challenge.get_by_role("button", name="Join").click()
    expect(bob.locator(".notice")).to_contain_text("You have joined the game: it starts now.")
    expect(bob.locator("#status")).to_contain_text("Waiting for Ann (Dark)")
    bob.goto(live_server + "/lobby")
    expect(bob.locator("li.challenge")).to_have_count(0)
    expect(bob.locator(".empty")).to_have_text("No open challenges at the moment.")

    # a second game, its seat left open for the link Ann sends Bob herself
    join_link = start_game(ann, live_server, public=False)
    bob.goto(join_link)
    expect(bob.get_by_role("heading", level=1)).to_have_text("Join a game of Mastery")
    bob.get_by_label("Your name").fill("Bob")
    bob.get_by_role("button", name="Join the game").click()
    expect(bob.locator("#status")).to_contain_text("Waiting for Ann (Dark)")
    first, second = [row["id"] for row in db.query("SELECT id FROM games ORDER BY rowid")]

    # Ann moves in the first game: Bob's turn there, Ann's in the second
    ann.goto(ann_first)
    type_move(ann, "d1-c1")
    expect(ann.locator("#status")).to_contain_text("Waiting for Bob (Light)")

    ann.locator("header.site").get_by_role("link", name="My games").click()
    assert (listed(ann, "your-turn"), listed(ann, "waiting")) == ([second], [first])
    bob.goto(live_server + "/")
    bob.locator("header.site").get_by_role("link", name="My games").click()
    assert (listed(bob, "your-turn"), listed(bob, "waiting")) == ([first], [second])
    expect(bob.locator("section.my-games.your-turn")).to_contain_text("your turn")
    bob.locator("section.my-games.your-turn").get_by_role("button", name="Open").click()
    expect(bob.locator("#status")).to_have_text("Your turn.")

    bob.goto(live_server + "/games")
    bob.get_by_label("I want this browser to forget its list of games").check()
    bob.get_by_role("button", name="Forget this browser").click()
    expect(bob.locator(".notice")).to_contain_text("no longer remembers your games")
    expect(bob.locator("section.my-games")).to_have_count(0)


def test_the_creator_withdraws_a_game_nobody_joined(open_context, live_server, monkeypatch):
    ann = open_context().new_page()
    start_game(ann, live_server, public=True)
    ann.locator('a.seat-link[data-seat="0"]').click()
    expect(ann.locator("#status")).to_contain_text("Waiting for players")
    expect(ann.locator("form.typed")).to_have_count(0)  # nothing to play yet
    ann.get_by_role("button", name="New join links").click()  # the first one was lost
    # shown on a page of their own, as a new game's links are, with Ann's link back to it
    expect(ann.get_by_role("heading", level=1)).to_have_text("New join links")
    expect(ann.locator('a.join-link[data-seat="1"]')).to_have_attribute(
        "href", re.compile(rf"^{live_server}/join/[A-Za-z0-9_-]{{32}}$"))
    ann.locator('a.seat-link[data-seat="0"]').click()
    expect(ann.locator("#status")).to_contain_text("Waiting for players")
    # a week later nobody took the seat: the page says so, and makes no more join links
    later = utc.now() + matches.CHALLENGE_LIFETIME
    monkeypatch.setattr(utc, "now", lambda: later)
    ann.reload()
    expect(ann.locator("#status")).to_have_text(re.compile(
        r"\s*Nobody took the open seats of this game within a week: it will not start"))
    expect(ann.get_by_role("button", name="New join links")).to_have_count(0)
    ann.get_by_label("I want to withdraw this game").check()
    ann.get_by_role("button", name="Withdraw").click()
    expect(ann.locator(".notice")).to_contain_text("You withdrew the game")
    expect(ann.locator("#game .game-over")).to_contain_text("withdrawn before it started")
    ann.goto(live_server + "/lobby")
    expect(ann.locator("li.challenge")).to_have_count(0)


LONG_NAME = "Maximilianoalexandrovichvonundzuhohenzollernsigmaringenheim"


@pytest.mark.parametrize("path", ["/lobby", "/games"])
def test_no_sideways_scroll_on_a_phone(open_context, live_server, client, path):
    """At 390x844, with long names and several entries, the page fits the screen's width."""
    phone = open_context(viewport=PHONE).new_page()
    for game, players in (("mastery", 2), ("the-right-moves", 4)):
        seats = [{"name": LONG_NAME, "email": "long.address@example.org"}] + \
            [{"open": True}] * (players - 1)
        created = client.post("/api/games", json={
            "game": game, "players": seats, "public": True,
            "clock": {"mode": "fischer", "initial_days": 7, "increment_days": 1,
                      "max_days": 14, "weekends": "pause", "vacation_days": 10}}).json
        phone.goto(created["seats"][0]["url"])
    phone.goto(live_server + path)
    expect(phone.locator("li.challenge, section.my-games li").first).to_be_visible()
    fits(phone)
