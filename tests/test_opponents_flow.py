"""Finding an opponent and playing again, as two people do it in real browsers (Debian's
Chromium through Playwright): Ann leaves a seat open on the new-game form, Bob joins from
the lobby (and a second game from its link), they chat, play, Bob answers in advance with a
conditional line, Ann resigns, and both ask for a rematch and land in the new game."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from helpers import fits
from test_browser import chat_lines, send_chat, type_move
from test_seats_browser import start_game

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900},
                                      {"width": 390, "height": 844}], ids=["desktop", "phone"])
def test_open_seat_lobby_chat_conditional_line_end_and_rematch(open_context, live_server,
                                                               viewport):
    ann = open_context(viewport=viewport).new_page()
    bob = open_context(viewport=viewport).new_page()

    # a second game, joined from the link Ann sends herself
    link = start_game(ann, live_server, public=False)
    bob.goto(link)
    bob.get_by_label("Your name").fill("Bob")
    bob.get_by_role("button", name="Join").click()
    expect(bob.locator("#status")).to_contain_text("Waiting for Ann (Dark)")

    # the first game, joined from the lobby
    start_game(ann, live_server, public=True)
    ann.locator('a.seat-link[data-seat="0"]').click()
    bob.goto(live_server + "/lobby")
    challenge = bob.locator("li.challenge")
    expect(challenge).to_have_count(1)
    challenge.get_by_label("Your name").fill("Bob")
    challenge.get_by_role("button", name="Join").click()
    expect(bob.locator("#status")).to_contain_text("Waiting for Ann (Dark)")
    fits(bob)

    # they talk, and Ann's open page learns of Bob's message by itself
    ann.reload()
    send_chat(bob, "Hello Ann, good luck!")
    expect(chat_lines(ann)).to_have_text(["Hello Ann, good luck!"], timeout=8000)

    type_move(ann, "e3-e4")
    expect(bob.locator("#status")).to_contain_text("Your turn", timeout=8000)
    type_move(bob, "c5-c4")

    # Bob answers Ann's next move in advance
    bob.get_by_role("link", name="Conditional moves").click()
    for move in ("d1-c1", "e5-f5"):
        bob.locator("#add-input").fill(move)
        bob.locator("form.typed").get_by_role("button", name="Add").click()
    bob.get_by_role("button", name="Save this line").click()
    expect(bob.get_by_text("Your conditional moves are saved.")).to_be_visible()

    ann.reload()
    type_move(ann, "d1-c1")
    expect(ann.locator(".moves li")).to_have_count(4)  # Bob's reply was played at once
    expect(ann.locator(".moves li").last).to_contain_text("e5-f5")
    expect(ann.locator("#status")).to_contain_text("Your turn")

    # the game ends, and both ask for a rematch
    resign = ann.locator("form.resign")
    resign.get_by_label("I want to resign").check()
    resign.get_by_role("button", name="Resign").click()
    expect(ann.locator("#game .game-over")).to_contain_text("Bob won: Ann resigned")
    ann.get_by_role("button", name="Ask for a rematch").click()
    bob.goto(bob.url.split("/conditional")[0])
    expect(bob.locator("#game .game-over")).to_contain_text("Bob won: Ann resigned")
    bob.get_by_role("button", name="Accept the rematch").click()
    expect(bob).to_have_title("Mastery — Dark")  # one seat on: the colours swapped
    expect(bob.locator("#status")).to_contain_text("Your turn")
    ann.reload()
    ann.get_by_role("button", name="Go to the rematch").click()
    expect(ann).to_have_title("Mastery — Light")
    fits(ann)
