"""Every game played to its end with the keyboard alone, in Chromium: Tab to each click of a
move on the board (each a link, whose ``path`` names the clicks so far), Enter, Tab to the
confirm button, Enter; then Tab to the resign box, Space, Tab to Resign, Enter. No mouse,
no typing. Also what a screen reader is given: the position in words (from what the viewer
may know) and the opponent's move announced when the live page redraws."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page, expect

from pbem.boards import board_for

from helpers import api_move, path_of

pytestmark = pytest.mark.browser

TABS = 800  # more than any page has places to stop at
TIMEOUT_MS = 15_000  # generous: the machine's two cores are shared with other work


def start(client, game: str) -> dict:
    created = client.post("/api/games", json={"game": game, "players": [
        {"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]})
    assert created.status_code == 201, created.json
    return created.json


def focused_path(page: Page) -> str | None:
    """The ``path`` of the link that has the focus (None: no link, or no path)."""
    href = page.evaluate("document.activeElement.closest('a')?.getAttribute('href')")
    return parse_qs(urlsplit(href).query).get("path", [None])[0] if href else None


def tab_until(page: Page, found) -> None:
    for _ in range(TABS):
        page.keyboard.press("Tab")
        if found():
            return
    raise AssertionError("Tab never reached it")


def focused(page: Page, selector: str) -> bool:
    return page.evaluate("s => document.activeElement.matches(s)", selector)


@pytest.mark.parametrize("game_id", ["mastery", "the-right-moves", "magnetic-field", "magnet"])
def test_a_game_played_to_its_end_with_the_keyboard_alone(client, live_server, browser,
                                                          game_id):
    game = start(client, game_id)
    # the seat to move first (in Magnetic Field the seed decides it)
    seat, legal = next((seat, legal) for seat in game["seats"]
                       if (legal := client.get(path_of(seat["api"])).json["legal_moves"]))
    move = legal[0]
    page = browser.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(live_server + path_of(seat["url"]))
    clicks = board_for(game_id).click_path(move)
    for i in range(len(clicks)):
        wanted = ".".join(clicks[:i + 1])
        tab_until(page, lambda wanted=wanted: focused_path(page) == wanted)
        page.keyboard.press("Enter")
        page.wait_for_function("p => new URL(location.href).searchParams.get('path') === p",
                               arg=wanted)
    tab_until(page, lambda: focused(page, "#confirm-move"))
    page.keyboard.press("Enter")
    expect(page.locator("#game .moves li")).to_have_count(1, timeout=TIMEOUT_MS)
    tab_until(page, lambda: focused(page, "form.resign input[name=confirm]"))
    page.keyboard.press("Space")
    tab_until(page, lambda: focused(page, "form.resign button"))
    page.keyboard.press("Enter")
    expect(page.locator(".game-over")).to_contain_text("Game over", timeout=TIMEOUT_MS)
    page.close()


def test_the_opponents_move_is_announced_and_the_position_given_in_words(
        client, live_server, browser):
    game = start(client, "magnet")
    seats = [path_of(seat["api"]) for seat in game["seats"]]
    for api in seats:  # both set up: Bob's values are his secret
        api_move(client, api, client.get(api).json["legal_moves"][0])
    page = browser.new_page()
    page.goto(live_server + path_of(game["seats"][0]["url"]))
    words = page.locator("#position-words li")
    expect(words.first).to_be_attached(timeout=TIMEOUT_MS)
    said = words.all_text_contents()
    assert any(w.startswith("a2: Red (yours) king") for w in said), said  # Ann's own
    bob = [w for w in said if "Blue" in w]
    assert bob and all(w.endswith("value unknown") for w in bob), bob  # not Bob's values
    mover = client.get(seats[0]).json
    assert mover["to_move"] == [0]
    api_move(client, seats[0], mover["legal_moves"][0])
    reply = client.get(seats[1]).json["legal_moves"][0]
    api_move(client, seats[1], reply)
    expect(page.locator("#announcer")).to_contain_text("Bob played", timeout=TIMEOUT_MS)
    assert page.locator("#announcer[aria-live=polite]").count() == 1
    page.close()
