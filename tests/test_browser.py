"""The game pages as a person uses them, in a real headless Chromium.

Each test drives the app on ``live_server`` (a real HTTP server on loopback) through
Playwright's sync API: starting a game through the form, building a move by clicking the SVG
board (with and without JavaScript), typing a move, an illegal move, walking the history
with the move list and the arrow keys, spectating, and resigning.

Chromium is Debian's (``/usr/bin/chromium``, which ``./dev test`` installs); Playwright never
downloads a browser of its own here. Without it these tests fail rather than skip, so a
missing browser cannot pass unnoticed.
"""
from __future__ import annotations

import re

import pytest

from playwright.sync_api import BrowserContext, Page, expect

pytestmark = pytest.mark.browser

TIMEOUT_MS = 10_000  # generous: the machine's two cores are shared with other work

expect.set_options(timeout=TIMEOUT_MS)


# -- fixtures ------------------------------------------------------------------------------

@pytest.fixture
def open_context(browser):
    """``open_context(**options)`` → a fresh browser context (its own cookies: one person);
    all are closed after the test."""
    contexts: list[BrowserContext] = []

    def open_(**options) -> BrowserContext:
        context = browser.new_context(**options)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        return context

    yield open_
    for context in contexts:
        context.close()


@pytest.fixture
def person(open_context):
    """``person(url, javascript=True)`` → a page of a new context, opened at ``url``."""

    def open_(url: str, *, javascript: bool = True) -> Page:
        page = open_context(java_script_enabled=javascript).new_page()
        page.goto(url)
        return page

    return open_


@pytest.fixture
def started(client, new_game, live_server):
    """``started(*moves)`` → a Mastery game made through the API with ``moves`` already
    played (alternating Dark, Light); its links as absolute URLs."""

    def start(*moves: str) -> dict:
        game = new_game("mastery")
        for ply, move in enumerate(moves):
            response = client.post(f"{game.apis[ply % 2]}/moves", json={"move": move, "ply": ply})
            assert response.status_code == 200, response.json
        return {"dark": live_server + game.urls[0], "light": live_server + game.urls[1],
                "watch": live_server + game.watch}

    return start


# -- helpers -------------------------------------------------------------------------------

def cell(page: Page, name: str):
    """The clickable cell ``name`` of the board (present only while it may be clicked)."""
    return page.locator(f'.board-area a.cell[data-cell="{name}"]')


def targets(page: Page) -> list[str]:
    """The cells highlighted as the next click."""
    return page.locator(".board-area a.cell:has(.target)").evaluate_all(
        "links => links.map(a => a.dataset.cell).sort()")


def move_list(page: Page):
    return page.locator("section.moves li")


def select(page: Page, square: str) -> None:
    """Click the highlighted cell ``square``; it becomes part of the selection."""
    expect(cell(page, square).locator(".target")).to_be_visible()
    cell(page, square).click()
    expect(page.locator(f'.board-area [data-cell="{square}"] rect.square.selected')).to_have_count(1)


def confirm(page: Page, move: str) -> None:
    expect(page.locator("#confirm-move")).to_have_text(f"Play {move}")
    page.locator("#confirm-move").click()


def play_by_clicks(page: Page, start: str, end: str) -> None:
    """Click ``start`` then ``end`` on the board and confirm: the move ``start-end``."""
    select(page, start)
    expect(page.locator(".builder")).to_contain_text(f"Selected: {start}")
    select(page, end)
    confirm(page, f"{start}-{end}")


def type_move(page: Page, move: str) -> None:
    page.locator("#move-input").fill(move)
    page.locator("form.typed").get_by_role("button", name="Play").click()


def token_of(url: str) -> str:
    return re.escape(url.rsplit("/", 1)[1])


# -- 1. starting a game --------------------------------------------------------------------

def test_two_players_start_a_game_through_the_form(person, live_server):
    page = person(live_server + "/")
    page.locator("header.site").get_by_role("link", name="New game").click()
    expect(page).to_have_url(f"{live_server}/new")
    page.get_by_role("link", name="Mastery", exact=True).click()
    expect(page).to_have_url(f"{live_server}/new/mastery")
    expect(page.get_by_role("heading", level=1)).to_have_text("New game of Mastery")

    form = page.locator("form.new-game")
    form.locator('input[name="name0"]').fill("Ann")
    form.locator('input[name="email0"]').fill("ann@example.org")
    form.locator('input[name="name1"]').fill("Bob")
    form.locator('input[name="email1"]').fill("bob@example.org")
    form.get_by_role("button", name="Start the game").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("The game has started")
    seat_links = page.locator("a.seat-link")
    expect(seat_links).to_have_count(2)
    expect(seat_links.nth(0)).to_have_attribute("href", re.compile(rf"^{live_server}/play/\S+$"))
    expect(seat_links.nth(1)).to_have_attribute("href", re.compile(rf"^{live_server}/play/\S+$"))
    expect(page.locator("table.links tbody tr").nth(0)).to_contain_text("Dark")
    expect(page.locator("table.links tbody tr").nth(0)).to_contain_text("Ann")
    expect(page.locator("table.links tbody tr").nth(1)).to_contain_text("Light")
    expect(page.locator("table.links tbody tr").nth(1)).to_contain_text("Bob")
    spectator = page.locator("a.spectator-link")
    expect(spectator).to_have_count(1)
    expect(spectator).to_have_attribute("href", re.compile(rf"^{live_server}/watch/\S+$"))
    dark, light = (a.get_attribute("href") for a in seat_links.all())
    assert len({dark, light, spectator.get_attribute("href")}) == 3

    # each secret link opens its own side
    seat_links.nth(0).click()
    expect(page).to_have_title("Mastery — Dark")
    expect(page.locator("#status")).to_have_text("Your turn.")
    expect(page.locator("ul.players")).to_contain_text("Ann (you)")
    other = person(light)
    expect(other).to_have_title("Mastery — Light")
    expect(other.locator("#status")).to_have_text("Waiting for Ann (Dark).")


# -- 2. building a move by clicking the board ----------------------------------------------

def test_board_clicks_with_javascript(person, started):
    links = started()
    page = person(links["dark"])
    expect(page.locator("#status")).to_have_text("Your turn.")
    # every own piece that can move is a target before the first click
    assert {"c3", "d1", "e3", "f4"} <= set(targets(page))
    page.evaluate("window.notReloaded = true")  # survives only while app.js swaps in place

    expect(cell(page, "e3").locator(".target")).to_be_visible()
    with page.expect_response(lambda r: "/play/" in r.url) as fetched:
        cell(page, "e3").click()
    assert fetched.value.ok, f"the board click fetched {fetched.value.url}"
    expect(page.locator(".builder")).to_contain_text("Selected: e3")
    expect(page.locator('.board-area [data-cell="e3"] rect.square.selected')).to_have_count(1)
    expect(page).to_have_url(re.compile(rf"/play/{token_of(links['dark'])}\?path=e3$"))
    assert targets(page) == ["e4", "e5"]  # Officer e3: e3-e4, e3xe5

    select(page, "e4")
    expect(page).to_have_url(re.compile(r"\?path=e3\.e4$"))
    assert page.evaluate("window.notReloaded === true"), "a board click reloaded the page"
    confirm(page, "e3-e4")

    expect(page).to_have_url(links["dark"])
    expect(move_list(page)).to_have_count(1)
    expect(move_list(page).first).to_have_text("Dark e3-e4")
    expect(page.locator("#status")).to_have_text("Waiting for Player 2 (Light).")
    expect(page.locator("p.notice")).to_have_text("You played e3-e4.")
    expect(page.locator("#move-input")).to_have_count(0)


def test_board_clicks_without_javascript(person, started):
    links = started()
    page = person(links["dark"], javascript=False)
    assert {"c3", "d1", "e3", "f4"} <= set(targets(page))

    cell(page, "e3").click()  # a plain link: the clicks so far travel in the URL
    expect(page).to_have_url(re.compile(rf"/play/{token_of(links['dark'])}\?path=e3$"))
    expect(page.locator(".builder")).to_contain_text("Selected: e3")
    expect(page.locator('.board-area [data-cell="e3"] rect.square.selected')).to_have_count(1)
    assert targets(page) == ["e4", "e5"]
    expect(page.locator("#confirm-move")).to_have_count(0)

    cell(page, "e4").click()
    expect(page).to_have_url(re.compile(r"\?path=e3\.e4$"))
    expect(page.locator(".builder")).to_contain_text("Selected: e3 → e4")
    page.locator("#confirm-move").click()

    expect(page).to_have_url(links["dark"])  # the post redirects back to the game
    expect(move_list(page)).to_have_count(1)
    expect(move_list(page).first).to_have_text("Dark e3-e4")
    expect(page.locator("#status")).to_have_text("Waiting for Player 2 (Light).")
    expect(page.locator("p.notice")).to_have_text("You played e3-e4.")


def test_start_again_link_clears_the_selection(person, started):
    links = started()
    page = person(links["dark"], javascript=False)
    cell(page, "e3").click()
    expect(page.locator(".builder")).to_contain_text("Selected: e3")
    page.locator(".builder a.cancel").click()
    expect(page).to_have_url(links["dark"])
    expect(page.locator(".builder")).not_to_contain_text("Selected")


# -- 3. typing a move ------------------------------------------------------------------------

def test_both_players_move_in_their_own_browsers(person, started, tmp_path):
    links = started()
    dark = person(links["dark"], javascript=False)
    light = person(links["light"])
    expect(light.locator("#status")).to_have_text("Waiting for Player 1 (Dark).")
    expect(light.locator("#move-input")).to_have_count(0)  # not Light's turn: no move form

    play_by_clicks(dark, "e3", "e4")
    expect(dark.locator("#status")).to_have_text("Waiting for Player 2 (Light).")

    light.reload()
    expect(light.locator("#status")).to_have_text("Your turn.")
    expect(move_list(light)).to_have_count(1)
    type_move(light, "d6xd4")  # Light's Officer takes the Pawn on d4
    expect(light.locator("p.notice")).to_have_text("You played d6xd4.")
    expect(move_list(light)).to_have_count(2)
    expect(move_list(light).nth(1)).to_have_text("Light d6xd4")
    expect(light.locator("#status")).to_have_text("Waiting for Player 1 (Dark).")
    expect(light.locator('.board-area [data-cell="d4"] .piece.owner1')).to_have_count(1)

    dark.reload()
    expect(dark.locator("#status")).to_have_text("Your turn.")
    expect(move_list(dark)).to_have_text(["Dark e3-e4", "Light d6xd4"])

    shot = tmp_path / "play.png"
    light.screenshot(path=str(shot), full_page=True)
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 1000


# -- 4. an illegal move ------------------------------------------------------------------------

def test_an_illegal_typed_move_shows_an_error(person, started):
    links = started("e3-e4")
    light = person(links["light"])
    expect(move_list(light)).to_have_count(1)

    type_move(light, "d6-d3")  # an Officer moves at most two squares
    error = light.locator("p.error")
    expect(error).to_be_visible()
    message = error.inner_text().strip()
    assert "d6-d3" in message and "Traceback" not in message and "<" not in message
    expect(light.locator("#move-input")).to_have_value("d6-d3")  # kept, to correct it
    expect(move_list(light)).to_have_count(1)
    expect(light.locator("#status")).to_have_text("Your turn.")

    type_move(light, "not a move")
    expect(light.locator("p.error")).to_contain_text("is not a Mastery move")
    expect(move_list(light)).to_have_count(1)

    light.goto(links["light"])  # nothing was recorded
    expect(move_list(light)).to_have_text(["Dark e3-e4"])
    expect(light.locator("p.error")).to_have_count(0)


# -- 5. walking the history ----------------------------------------------------------------------

def test_walking_the_history_with_the_move_list_and_arrow_keys(person, started):
    links = started("e3-e4", "c5-c4", "d4-d5")
    page = person(links["dark"])
    game = page.locator("#game")
    expect(game).to_have_attribute("data-ply", "3")
    expect(move_list(page)).to_have_text(["Dark e3-e4", "Light c5-c4", "Dark d4-d5"])
    history = re.escape(links["dark"]) + "/history/"

    move_list(page).nth(0).get_by_role("link").click()
    expect(page).to_have_url(re.compile(history + "1$"))
    expect(game).to_have_attribute("data-ply", "1")
    expect(page.locator("p.reviewing")).to_contain_text("Position after ply 1 of 3")
    expect(move_list(page).nth(0).locator("a")).to_have_attribute("aria-current", "step")
    expect(page.locator('.board-area [data-cell="e4"] .piece.owner0')).to_have_count(1)
    expect(page.locator('.board-area [data-cell="c4"] .piece')).to_have_count(0)
    expect(page.locator("#move-input")).to_have_count(0)  # no moves from a past position

    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(history + "2$"))
    expect(game).to_have_attribute("data-ply", "2")
    expect(page.locator('.board-area [data-cell="c4"] .piece.owner1')).to_have_count(1)

    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(history + "3$"))
    expect(game).to_have_attribute("data-ply", "3")

    for ply in (2, 1, 0):
        page.keyboard.press("ArrowLeft")
        expect(page).to_have_url(re.compile(history + f"{ply}$"))
        expect(game).to_have_attribute("data-ply", str(ply))
    expect(page.locator('.board-area [data-cell="e3"] .piece.owner0')).to_have_count(1)
    expect(page.locator('nav.plies a[rel="prev"]')).to_have_count(0)

    page.locator('nav.plies a[rel="last"]').click()
    expect(page).to_have_url(re.compile(history + "3$"))
    expect(game).to_have_attribute("data-ply", "3")
    page.locator('nav.plies a[rel="first"]').click()
    expect(page).to_have_url(re.compile(history + "0$"))
    expect(game).to_have_attribute("data-ply", "0")

    page.go_back()  # the steps were pushed on the browser history
    expect(page).to_have_url(re.compile(history + "3$"))
    expect(game).to_have_attribute("data-ply", "3")

    page.locator("p.reviewing a").click()  # back to the game
    expect(page).to_have_url(links["dark"])
    expect(page.locator("p.reviewing")).to_have_count(0)
    expect(page.locator("#status")).to_have_text("Waiting for Player 2 (Light).")


def test_history_links_work_without_javascript(person, started):
    links = started("e3-e4", "c5-c4")
    page = person(links["light"], javascript=False)
    move_list(page).nth(0).get_by_role("link").click()
    expect(page).to_have_url(links["light"] + "/history/1")
    expect(page.locator("p.reviewing")).to_contain_text("Position after ply 1 of 2")
    page.locator('nav.plies a[rel="next"]').click()
    expect(page).to_have_url(links["light"] + "/history/2")
    page.locator('nav.plies a[rel="first"]').click()
    expect(page).to_have_url(links["light"] + "/history/0")
    expect(page.locator("#game")).to_have_attribute("data-ply", "0")


# -- 6. spectating ---------------------------------------------------------------------------------

def test_a_spectator_sees_the_board_and_moves_but_cannot_act(person, started):
    links = started("e3-e4")
    page = person(links["watch"])
    expect(page.get_by_role("heading", level=1)).to_have_text("Mastery (spectating)")
    board = page.locator("svg.board")
    expect(board).to_be_visible()
    expect(board.locator(".piece")).to_have_count(26)  # 13 a side, none taken yet
    expect(board.locator('[data-cell="e4"] .piece.owner0')).to_have_count(1)
    expect(move_list(page)).to_have_text(["Dark e3-e4"])
    expect(page.locator("#status")).to_have_text("Waiting for Player 2 (Light).")
    for absent in ("#move-input", "form.typed", "#confirm-move", "section.builder",
                   "form.resign", "section.actions", "svg.board a.cell"):
        expect(page.locator(absent)).to_have_count(0)
    expect(page.get_by_role("button", name="Resign")).to_have_count(0)

    move_list(page).nth(0).get_by_role("link").click()  # spectators walk the history too
    expect(page).to_have_url(links["watch"] + "/history/1")


# -- 7. resigning ------------------------------------------------------------------------------------

def test_resigning_ends_the_game_for_both_players(person, started):
    links = started("e3-e4")
    dark = person(links["dark"])
    light = person(links["light"], javascript=False)

    resign = dark.locator("form.resign")
    resign.get_by_label("I want to resign").check()
    resign.get_by_role("button", name="Resign").click()

    over = "Game over — Player 2 won: Player 1 resigned."
    expect(dark.locator("#game .game-over")).to_have_text(over)
    light.reload()
    expect(light.locator("#game .game-over")).to_have_text(over)
    for page in (dark, light):
        expect(page.locator("form.resign")).to_have_count(0)
        expect(page.locator("#move-input")).to_have_count(0)
        expect(page.locator("svg.board a.cell")).to_have_count(0)
        expect(move_list(page)).to_have_text(["Dark e3-e4"])


# -- 8. the end of a game, said first ---------------------------------------------------------

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_finished_game_says_so_at_the_top_of_every_page(open_context, started, viewport):
    links = started("e3-e4")
    dark = open_context(viewport=viewport).new_page()
    dark.goto(links["dark"])
    expect(dark.locator("#game .game-over")).to_have_count(0)
    resign = dark.locator("form.resign")
    resign.get_by_label("I want to resign").check()
    resign.get_by_role("button", name="Resign").click()

    over = "Game over — Player 2 won: Player 1 resigned."
    for url in (links["dark"], links["light"], links["watch"], links["watch"] + "/history/0",
                links["light"] + "/history/1"):
        page = open_context(viewport=viewport).new_page()
        page.goto(url)
        banner = page.locator("#game > :first-child")
        expect(banner).to_have_class("game-over")
        expect(banner).to_have_text(over)
        expect(banner).to_be_in_viewport(ratio=1)  # on screen as the page opens, whole
        box = banner.bounding_box()
        assert box["y"] < viewport["height"] / 3 and box["width"] <= viewport["width"], url
        styles = banner.evaluate("e => [getComputedStyle(e).color, getComputedStyle(e)."
                                 "backgroundColor, getComputedStyle(e).fontSize]")
        assert styles[0] != styles[1] and float(styles[2].rstrip("px")) >= 16, styles


# -- 9. chat and rematch -------------------------------------------------------------------------

def send_chat(page: Page, text: str) -> None:
    page.locator("#chat-text").fill(text)
    page.locator("form.chat-form").get_by_role("button", name="Send").click()


def chat_lines(page: Page):
    return page.locator(".chat-messages li p")


def test_two_players_chat_resign_and_land_in_their_rematch(person, started):
    links = started("e3-e4")
    dark = person(links["dark"])
    light = person(links["light"], javascript=False)

    send_chat(dark, "Good luck, <b>Light</b>!")
    expect(dark).to_have_url(links["dark"] + "#chat")
    expect(chat_lines(dark)).to_have_text(["Good luck, <b>Light</b>!"])
    light.reload()
    expect(chat_lines(light)).to_have_text(["Good luck, <b>Light</b>!"])
    expect(light.locator(".chat-messages .who")).to_have_text(["Dark (Player 1)"])
    send_chat(light, "Thanks!\nYou too.")
    expect(chat_lines(light)).to_have_text(["Good luck, <b>Light</b>!", "Thanks!\nYou too."])
    dark.reload()
    expect(chat_lines(dark)).to_have_text(["Good luck, <b>Light</b>!", "Thanks!\nYou too."])
    expect(dark.locator(".chat-messages li.mine")).to_have_count(1)

    resign = dark.locator("form.resign")
    resign.get_by_label("I want to resign").check()
    resign.get_by_role("button", name="Resign").click()
    expect(dark.locator("#game .game-over")).to_have_text(
        "Game over — Player 2 won: Player 1 resigned.")
    dark.get_by_role("button", name="Ask for a rematch").click()
    expect(dark.locator("section.rematch")).to_contain_text(
        "You asked for a rematch. Waiting for Light (Player 2) to ask too.")

    light.reload()
    expect(light.locator("section.rematch")).to_contain_text("Dark (Player 1) asked for a rematch.")
    light.get_by_role("button", name="Accept the rematch").click()
    expect(light).to_have_title("Mastery — Dark")  # the sides are swapped
    expect(light.locator("#status")).to_have_text("Your turn.")
    expect(light.locator("ul.players")).to_contain_text("Player 2 (you)")
    assert light.url.split("#")[0] not in (links["light"], links["dark"])
    expect(light.locator(".chat-messages li")).to_have_count(0)  # a new game, a new chat

    dark.reload()
    dark.get_by_role("button", name="Go to the rematch").click()
    expect(dark).to_have_title("Mastery — Light")
    expect(dark.locator("#status")).to_have_text("Waiting for Player 2 (Dark).")
    expect(dark.locator("ul.players")).to_contain_text("Player 1 (you)")


def test_a_message_being_typed_survives_a_click_on_the_board(person, started):
    links = started()
    dark = person(links["dark"])
    dark.locator("#chat-text").fill("half a thought")
    select(dark, "e3")  # app.js swaps the game in place
    expect(dark.locator(".builder")).to_contain_text("Selected: e3")
    expect(dark.locator("#chat-text")).to_have_value("half a thought")


def test_the_chat_fits_a_phone_without_sideways_scrolling(open_context, started, tmp_path):
    links = started("e3-e4")
    phone = open_context(viewport={"width": 390, "height": 844}).new_page()
    phone.goto(links["light"])
    send_chat(phone, "A-very-long-word-" * 3 + "x" * 120 + "\nand a second line")
    expect(chat_lines(phone)).to_have_count(1)
    expect(phone.locator("#chat-text")).to_be_in_viewport()
    widths = phone.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the page is {widths[0]}px wide on a {widths[1]}px screen"
    for part in (".chat-messages li", "#chat-text", "#notes-text"):
        box = phone.locator(part).first.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, part
    phone.screenshot(path=str(tmp_path / "chat-phone.png"), full_page=True)
