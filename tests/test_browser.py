"""The game pages as a person uses them, in a real headless Chromium.

Each test drives the app on ``live_server`` (a real HTTP server on loopback) through
Playwright's sync API: starting a game through the form, building a move by clicking the SVG
board (with and without JavaScript), typing a move, an illegal move, walking the history
with the move list and the arrow keys, spectating, resigning; Mastery's pieces off the board
and its resurrection choice; the keyboard focus and the names screen readers hear on every
game's board; and Mastery and The Right Moves on a 390×844 phone.

Chromium is Debian's (``/usr/bin/chromium``, which ``./dev test`` installs); Playwright never
downloads a browser of its own here. Without it these tests fail rather than skip, so a
missing browser cannot pass unnoticed.
"""
from __future__ import annotations

import re

import pytest

from playwright.sync_api import Page, expect

from helpers import TIMEOUT_MS, api_move, fits

pytestmark = pytest.mark.browser

HOOK = "https://93.184.216.34/hook"  # a webhook at a public address: no DNS look-up
expect.set_options(timeout=TIMEOUT_MS)


# -- fixtures ------------------------------------------------------------------------------

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
    """The move list's links, one a move (its item also says when it was played)."""
    return page.locator("section.moves li > a")


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

def start_ann_against_bob(page: Page) -> None:
    """Fill in the two players of the form that creates a game, and send it."""
    form = page.locator("form.new-game")
    form.locator('input[name="name0"]').fill("Ann")
    form.locator('input[name="email0"]').fill("ann@example.org")
    form.locator('input[name="name1"]').fill("Bob")
    form.locator('input[name="email1"]').fill("bob@example.org")
    form.get_by_role("button", name="Start the game").click()


def test_chromium_keeps_every_feature_off_that_playwright_or_the_tests_turn_off(open_context):
    """Chromium reads only the last of several --disable-features: the tests' own
    (conftest's CHROMIUM_ARGS) must hold Playwright's too."""
    page = open_context(reuse=False).new_page()
    page.goto("chrome://version")
    switches = page.locator("#command_line").inner_text().split()
    lists = [set(switch.split("=", 1)[1].split(",")) for switch in switches
             if switch.startswith("--disable-features=")]
    assert len(lists) == 2 and lists[0] <= lists[-1], lists[0] - lists[-1]


def back_to_it(page: Page) -> None:
    """Go to another page, then press Back."""
    page.locator("header.site").get_by_role("link", name="Rules").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Rules")
    page.evaluate("history.back()")  # (Playwright's go_back fails on the browser's own page)
    expect(page).not_to_have_url(re.compile(r"/rules$"))
    page.wait_for_load_state()


def test_two_players_start_a_game_through_the_form(person, live_server, db):
    page = person(live_server + "/")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")  # the installable app's
    page.locator("header.site").get_by_role("link", name="New game").click()
    expect(page).to_have_url(f"{live_server}/new")
    assert page.evaluate("navigator.serviceWorker.controller !== null")
    page.get_by_role("link", name="Mastery", exact=True).click()
    expect(page).to_have_url(f"{live_server}/new/mastery")
    expect(page.get_by_role("heading", level=1)).to_have_text("New game of Mastery")

    # a refused form's answer is a POST's: Back to it is the browser's to offer to send
    # again, never the service worker's offline page on a device that is online
    page.locator('input[name="name0"]').fill("Ann")
    page.locator('input[name="email0"]').fill("ann@example.org")
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("p.error")).to_contain_text("Player 2 needs a name")
    back_to_it(page)
    expect(page.get_by_role("heading", name="You are offline")).to_have_count(0)
    page.goto(live_server + "/new/mastery")

    start_ann_against_bob(page)

    # the answer is a page of its own (Post/Redirect/Get): Back to it and a reload show
    # the same links again, and start no second game
    expect(page.get_by_role("heading", level=1)).to_have_text("The game has started")
    expect(page).to_have_url(re.compile(rf"^{live_server}/games/[^/]+/links$"))
    shown = page.locator("a.seat-link, a.spectator-link").evaluate_all("a => a.map(a => a.href)")
    back_to_it(page)
    expect(page.get_by_role("heading", level=1)).to_have_text("The game has started")
    page.reload()
    assert page.locator("a.seat-link, a.spectator-link").evaluate_all(
        "a => a.map(a => a.href)") == shown
    assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1
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


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_the_form_shows_the_inputs_of_the_clock_chosen_and_none_without_one(
        person, live_server, javascript):
    page = person(live_server + "/new/mastery", javascript=javascript)
    clock = page.locator("fieldset.clock")
    per_move, bank = clock.locator('[name="clock-days"]'), clock.locator('[name="clock-initial_days"]')
    vacation = clock.locator('[name="clock-vacation_days"]')
    expect(clock.locator('[name="clock-mode"]')).to_have_value("none")
    for hidden in (per_move, bank, vacation, clock.locator('[name="clock-weekends"]')):
        expect(hidden).to_be_hidden()
    clock.locator('[name="clock-mode"]').select_option("per_move")
    expect(per_move).to_be_visible()
    expect(vacation).to_be_visible()
    expect(bank).to_be_hidden()
    clock.locator('[name="clock-mode"]').select_option("fischer")
    expect(bank).to_be_visible()
    expect(per_move).to_be_hidden()
    clock.locator('[name="clock-increment_days"]').fill("2")  # the no-JS form posts it
    start_ann_against_bob(page)
    expect(page.get_by_role("heading", level=1)).to_have_text("The game has started")
    page.locator("a.seat-link").nth(0).click()
    expect(page.locator("main")).to_contain_text("7 days, plus 2 days per move")


# -- 2. building a move by clicking the board ----------------------------------------------

def test_board_clicks_with_javascript(person, started):
    links = started()
    page = person(links["dark"])
    expect(page.locator("#status")).to_have_text("Your turn.")
    # every own piece that can move is a target before the first click
    assert {"c3", "d1", "e3", "f4"} <= set(targets(page))
    page.evaluate("window.notReloaded = true")  # survives only while app.js swaps in place

    expect(cell(page, "e3").locator(".target")).to_be_visible()
    # the click's own fetch, not the page's poll for a newer version
    with page.expect_response(lambda r: r.url.endswith("?path=e3")) as fetched:
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

    move_list(page).nth(0).click()
    expect(page).to_have_url(re.compile(history + "1$"))
    expect(game).to_have_attribute("data-ply", "1")
    expect(page.locator("p.reviewing")).to_contain_text("Position after ply 1 of 3")
    expect(move_list(page).nth(0)).to_have_attribute("aria-current", "step")
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
    move_list(page).nth(0).click()
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

    move_list(page).nth(0).click()  # spectators walk the history too
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


def test_a_declined_takeback_is_told_to_both_players_in_their_languages(person, started):
    links = started("e3-e4", "d6xd4")
    light = person(links["light"])
    light.get_by_role("button", name="Ask to take back your last move").click()
    expect(light.locator("p.notice.offers")).to_have_text("You asked to take back your last move.")
    dark = person(links["dark"] + "?lang=ru")  # Dark reads Russian: the buttons too
    expect(dark.locator("p.notice.offers")).to_contain_text("Player 2 просит вернуть")
    dark.get_by_role("button", name="Отказать в возврате хода").click()
    expect(dark.locator("p.notice.offers")).to_have_text(
        "Вы отклонили просьбу игрока Player 2 вернуть последний ход.")
    light.reload()
    expect(light.locator("p.notice.offers")).to_have_text(
        "Player 1 declined your request to take back your last move: the game goes on.")
    expect(move_list(light)).to_have_count(2)  # nothing taken back


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


def test_a_player_sets_and_clears_a_webhook_from_the_play_page(person, started):
    """An email's settings link sets emails alone: the webhook is set from the game."""
    dark = started()["dark"]
    page = person(dark)
    page.get_by_role("link", name="Notification settings").click()
    expect(page.get_by_role("heading", name="Notification settings")).to_be_visible()
    page.get_by_label("A Discord or Slack incoming-webhook URL").fill(HOOK)
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Your settings are saved.")).to_be_visible()
    expect(page.get_by_label("A Discord or Slack incoming-webhook URL")).to_have_value(HOOK)
    page.get_by_label("A Discord or Slack incoming-webhook URL").fill("")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Your settings are saved.")).to_be_visible()
    page.reload()
    expect(page.get_by_label("A Discord or Slack incoming-webhook URL")).to_have_value("")
    page.get_by_role("link", name="Back to the game").click()
    expect(page).to_have_url(dark)


def test_a_message_being_typed_survives_a_click_on_the_board(person, started):
    links = started()
    dark = person(links["dark"])
    dark.locator("#chat-text").fill("half a thought")
    select(dark, "e3")  # app.js swaps the game in place
    expect(dark.locator(".builder")).to_contain_text("Selected: e3")
    expect(dark.locator("#chat-text")).to_have_value("half a thought")


def test_the_chat_fits_a_phone_without_sideways_scrolling(open_context, started):
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


# -- 10. Mastery: the pieces off the board, and resurrection ----------------------------------

RESURRECTION = ("d1xd2", "c8-a8", "d2-a2", "a8-a5")  # then Dark's a2xa5 takes a Master:
# Dark may bring back the Officer its Master devoured, or not


def off_board(page: Page, side: str):
    """The strip of ``side``'s pieces off the board, as a screen reader finds it."""
    return page.locator("svg.board").get_by_role(
        "img", name=re.compile(rf"^{side}, off the board: "))


def test_both_sides_pieces_off_the_board_are_shown_to_everyone(person, started):
    links = started("d4xc5", "b6xc5")  # a Pawn each
    for url in (links["dark"], links["light"], links["watch"], links["dark"] + "/history/2"):
        page = person(url)
        for side in ("Dark", "Light"):
            strip = off_board(page, side)
            expect(strip).to_be_visible()
            expect(strip).to_have_accessible_name(f"{side}, off the board: 1 Pawn")
            expect(strip.locator('[data-piece="P"]')).to_be_visible()
            expect(strip).to_contain_text("×1")
            expect(strip.locator('[data-piece="O"], [data-piece="M"]')).to_have_count(0)
    # each side's strip is drawn on its own edge of the board: the opponent's above it
    for url, top, bottom in ((links["dark"], "Light", "Dark"), (links["light"], "Dark", "Light")):
        page = person(url)
        ranks = [page.locator(f'.board-area [data-cell="a{rank}"]').bounding_box()["y"]
                 for rank in (1, 8)]
        assert off_board(page, top).bounding_box()["y"] < min(ranks) < max(ranks) < \
            off_board(page, bottom).bounding_box()["y"]
    review = person(links["watch"] + "/history/1")  # only Light had lost a piece then
    expect(off_board(review, "Dark")).to_have_accessible_name("Dark, off the board: none")
    expect(off_board(review, "Light")).to_have_accessible_name("Light, off the board: 1 Pawn")


def test_a_capture_that_allows_a_resurrection_asks_which_piece_or_none(person, started):
    links = started(*RESURRECTION)
    page = person(links["dark"])
    expect(off_board(page, "Dark")).to_have_accessible_name("Dark, off the board: 1 Officer")
    select(page, "a2")
    select(page, "a5")
    # no default: nothing can be played until the choice is made
    expect(page.locator("#confirm-move")).to_have_count(0)
    choices = page.locator(".builder a.choice")
    expect(choices).to_have_text(["Bring back an Officer", "No resurrection"])
    expect(page.locator(".builder")).to_contain_text("choose which, or no resurrection")

    choices.get_by_text("No resurrection").click()
    expect(page.locator(".builder")).to_contain_text("Selected: a2 → a5 → no resurrection")
    expect(page.locator("#confirm-move")).to_have_text("Play a2xa5")
    page.locator(".builder a.cancel").click()

    select(page, "a2")
    select(page, "a5")
    page.locator(".builder a.choice").get_by_text("Bring back an Officer").click()
    expect(page.locator(".builder")).to_contain_text(
        "Click the empty square where your Officer comes back")
    expect(page.locator("#confirm-move")).to_have_count(0)
    assert {"a1", "b1", "d1", "h8"} <= set(targets(page)) and "e1" not in targets(page)
    select(page, "b1")
    confirm(page, "a2xa5=O@b1")

    expect(move_list(page).last).to_have_text("Dark a2xa5=O@b1")
    expect(page.locator('.board-area [data-cell="b1"] .piece.owner0')).to_have_text("O")
    expect(off_board(page, "Dark")).to_have_accessible_name("Dark, off the board: none")
    expect(off_board(page, "Light")).to_have_accessible_name("Light, off the board: 1 Master")


# -- 11. keyboard and screen readers, on every game's board -------------------------------------

def game_at(client, new_game, live_server, game: str, players: int, options: dict,
            moves: tuple[str, ...]) -> list[str]:
    """A new game with ``moves`` played in turn through the API; each seat's page URL."""
    created = new_game(game, players=players, options=options)
    for ply, move in enumerate(moves):
        api_move(client, created.apis[ply % players], move)
    return [live_server + url for url in created.urls]


BOARD_CLICKS = [  # a game, its moves so far, and a first click whose next clicks are on the board
    ("mastery", 2, {}, (), '[data-cell="e3"]'),
    ("the-right-moves", 2, {}, (), '[data-cell="3g"]'),
    ("the-right-moves", 4, {}, (), '[data-cell="3g"]'),
    ("magnet", 2, {}, (), '[data-choice="K"]'),  # setup: a piece of the tray, then its vertex
    ("magnetic-field", 2, {"colours": "seat0-blue"}, ("pick K", "pick K", "pick D", "pick D"),
     '[data-choice="K"]'),  # a tile of the hand, then its cell
]


@pytest.mark.parametrize("game, players, options, moves, first", BOARD_CLICKS,
                         ids=["mastery", "the-right-moves-2", "the-right-moves-4", "magnet",
                              "magnetic-field"])
def test_focus_stays_on_the_board_after_a_click(person, client, new_game, live_server,
                                                game, players, options, moves, first):
    urls = game_at(client, new_game, live_server, game, players, options, moves)
    page = person(urls[len(moves) % players])
    page.locator(f".board-area svg a{first}").click()
    expect(page).to_have_url(re.compile(r"\?path="))
    # not <body>: the first of the next targets, so Tab goes on through the others
    focused = page.locator(".board-area svg a:focus")
    expect(focused).to_have_count(1)
    expect(focused.locator(".target")).to_have_count(1)
    assert focused.evaluate("a => a === document.querySelector('.board-area svg a')")


def test_a_move_can_be_made_with_the_keyboard_alone(person, started):
    links = started()
    page = person(links["dark"])
    cell(page, "e3").focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"\?path=e3$"))
    expect(page.locator(".board-area a.cell:focus")).to_have_attribute("data-cell", "e4")
    page.keyboard.press("Enter")  # e4, the first target
    expect(page.locator("#confirm-move")).to_be_focused()  # nothing left to click on the board
    page.keyboard.press("Enter")
    expect(move_list(page)).to_have_text(["Dark e3-e4"])


def test_walking_the_history_by_its_links_keeps_the_focus_on_them(person, started):
    links = started("e3-e4", "c5-c4")
    page = person(links["dark"])
    page.locator('nav.plies a[rel="prev"]').focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/history/1$"))
    expect(page.locator('nav.plies a[rel="prev"]')).to_be_focused()
    page.keyboard.press("Enter")  # and again, without looking for the link
    expect(page).to_have_url(re.compile(r"/history/0$"))
    move_list(page).nth(1).click()
    expect(page).to_have_url(re.compile(r"/history/2$"))
    expect(move_list(page).nth(1)).to_be_focused()


def names_on_the_board(page: Page) -> str:
    """The board as a screen reader reads it: its accessibility tree, as text."""
    return page.locator("svg.board").first.aria_snapshot()


def test_every_mastery_piece_is_named_with_its_owner_and_square(person, started, client):
    links = started("e3-e4")
    view = client.get(links["watch"].replace("/watch/", "/api/watch/")).json["view"]
    sides, kinds = ("Dark", "Light"), {"M": "Master", "O": "Officer", "P": "Pawn"}
    for url in (links["dark"], links["light"], links["watch"]):
        page = person(url)
        board = page.locator("svg.board")
        for square, piece in view["board"].items():
            name = f"{square}: {sides[piece['owner']]} {kinds[piece['piece']]}"
            named = board.get_by_role("link", name=name, exact=True).or_(
                board.get_by_role("img", name=name, exact=True))
            expect(named).to_have_count(1)
        # no piece is read as a bare letter ("M O M O"), nor are the coordinates
        assert not re.search(r"^\s*- text: [MOP1-8a-h](\s|$)", names_on_the_board(page), re.M)
    light = person(links["light"])  # Light to move: its own pieces are links, Dark's images
    board = light.locator("svg.board")
    expect(board.get_by_role("link", name="c5: Light Pawn", exact=True)).to_have_count(1)
    expect(board.get_by_role("img", name="e4: Dark Officer", exact=True)).to_have_count(1)


@pytest.mark.parametrize("game, players, options, moves, opponent", [
    ("the-right-moves", 2, {}, (), re.compile(r"^3b: Blue piece$")),
    ("the-right-moves", 4, {}, (), re.compile(r"^3b: Blue piece$")),
    ("magnetic-field", 2, {"colours": "seat0-blue"},
     ("pick K", "pick K", "pick D", "pick D", "K@e5 +e4:n", "+c7:s"),
     re.compile(r"^c7: Red figure, N pole south$")),
], ids=["the-right-moves-2", "the-right-moves-4", "magnetic-field"])
def test_opponent_pieces_are_named_like_your_own(person, client, new_game, live_server,
                                                game, players, options, moves, opponent):
    page = person(game_at(client, new_game, live_server, game, players, options, moves)[0])
    board = page.locator("svg.board").first
    expect(board.get_by_role("img", name=opponent)).to_have_count(1)


def test_magnet_pieces_that_cannot_be_clicked_are_named_with_their_vertex(
        person, client, new_game, live_server):
    created = new_game("magnet")
    for seat in (0, 1):  # both secret setups, so that Red's opening turn follows
        legal = client.get(created.apis[seat]).json["legal_moves"]
        api_move(client, created.apis[seat], next(m for m in legal if m.startswith("setup")))
    view = client.get(created.apis[1]).json["view"]
    page = person(live_server + created.urls[1])  # Blue, waiting: nothing is clickable
    board = page.locator("svg.board").first
    expect(board.locator("a")).to_have_count(0)
    for vertex, piece in view["pieces"].items():
        owner = ("Red", "Blue")[piece["owner"]]
        expect(board.get_by_role("img", name=re.compile(rf"^{vertex}: {owner} "))).to_have_count(1)


# -- 12. on a phone ----------------------------------------------------------------------------

PHONE_CONTEXT = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}


def on_a_phone(open_context, url: str) -> Page:
    page = open_context(**PHONE_CONTEXT).new_page()
    page.goto(url)
    return page


def assert_fits_a_phone(page: Page) -> None:
    """No sideways scroll, and every target of the board at least 40 px each way."""
    # a click swaps the page in when its answer arrives: wait for the board's targets
    expect(page.locator(".board-area svg a").first).to_be_attached()
    fits(page)
    sizes = page.locator(".board-area svg a").evaluate_all(
        "links => links.map(a => { const r = a.getBoundingClientRect();"
        " return [a.dataset.cell || a.dataset.choice, Math.min(r.width, r.height)]; })")
    assert sizes, "nothing to tap"
    small = [(name, round(size, 1)) for name, size in sizes if size < 40]
    assert not small, f"tap targets under 40 px: {small}"


def test_mastery_on_a_phone(open_context, started):
    links = started(*RESURRECTION)
    page = on_a_phone(open_context, links["dark"])
    assert_fits_a_phone(page)
    select(page, "a2")
    assert_fits_a_phone(page)
    select(page, "a5")
    # the choices that end the capture are on screen, not below the board
    for choice in ("Bring back an Officer", "No resurrection"):
        expect(page.locator(".builder a.choice").get_by_text(choice)).to_be_in_viewport(ratio=1)
    # and so are the pieces it may bring back, above them, not under them
    strip, panel = off_board(page, "Dark").bounding_box(), page.locator(".builder").bounding_box()
    assert strip["y"] >= 0 and strip["y"] + strip["height"] <= panel["y"], (strip, panel)
    expect(page.locator(".board-area svg.board")).to_be_in_viewport()
    page.locator(".builder a.choice").get_by_text("Bring back an Officer").click()
    assert_fits_a_phone(page)
    select(page, "h8")  # the far corner: the page may scroll, the confirm button stays in view
    expect(page.locator("#confirm-move")).to_have_text("Play a2xa5=O@h8")
    for top in (0, 10_000):
        page.evaluate(f"window.scrollTo(0, {top})")
        expect(page.locator("#confirm-move")).to_be_in_viewport(ratio=1)
    page.locator("#confirm-move").click()
    expect(move_list(page).last).to_have_text("Dark a2xa5=O@h8")
    assert_fits_a_phone(on_a_phone(open_context, links["light"]))


@pytest.mark.parametrize("players", [2, 4])
def test_the_right_moves_on_a_phone(open_context, client, new_game, live_server, players):
    urls = game_at(client, new_game, live_server, "the-right-moves", players, {}, ())
    page = on_a_phone(open_context, urls[0])
    assert_fits_a_phone(page)
    page.locator('.board-area a.cell[data-cell="3g"]').click()
    expect(page.locator('.board-area [data-cell="3g"] .mark.selected')).to_have_count(1)
    assert_fits_a_phone(page)
    page.locator('.board-area a.cell[data-cell="2g"]').click()
    expect(page.locator("#confirm-move")).to_have_text("Play 3g-2g")
    for top in (0, 10_000):
        page.evaluate(f"window.scrollTo(0, {top})")
        expect(page.locator("#confirm-move")).to_be_in_viewport(ratio=1)
    fits(page)
    page.locator("#confirm-move").click()
    expect(page.locator(".moves li")).to_have_count(1)


def test_a_board_that_pans_on_a_phone_says_so(open_context, client, new_game, live_server):
    """The Right Moves' board, zoomed on its player's turn, is wider than a phone: a line
    under it says to swipe it; not on the desktop, nor when it is not zoomed."""
    mover, waiting = game_at(client, new_game, live_server, "the-right-moves", 2, {}, ())
    page = on_a_phone(open_context, mover)
    assert page.locator(".board-frame").evaluate("frame => frame.scrollWidth > frame.clientWidth")
    expect(page.locator(".pan-hint")).to_be_visible()
    expect(page.locator(".pan-hint")).to_contain_text("Swipe the board sideways")
    expect(on_a_phone(open_context, waiting).locator(".pan-hint")).to_be_hidden()
    desktop = open_context(viewport=DESKTOP).new_page()
    desktop.goto(mover)
    expect(desktop.locator(".pan-hint")).to_be_hidden()


def test_magnetic_field_s_ranks_stay_in_view_while_its_field_pans_on_a_phone(
        open_context, client, new_game, live_server):
    urls = game_at(client, new_game, live_server, "magnetic-field", 2, {"colours": "seat0-blue"},
                   ("pick K", "pick K", "pick D", "pick D"))
    page = on_a_phone(open_context, urls[0])
    frame = page.locator(".board-frame.mf-frame")
    expect(frame).to_be_visible()
    for left in (None, 30, 10_000):  # as the page opens, panned a little, to its end
        if left is not None:
            frame.evaluate(f"frame => {{ frame.scrollLeft = {left}; }}")
        shown = frame.evaluate("""frame => {
            const edges = frame.getBoundingClientRect(), shown = [];
            for (const text of frame.querySelectorAll("text")) {
                const box = text.getBoundingClientRect();
                const x = box.left + box.width / 2, y = box.top + box.height / 2;
                if (box.width && x > edges.left && x < edges.right
                        && document.elementFromPoint(x, y) === text) {
                    shown.push(text.textContent);
                }
            }
            return shown; }""")
        ranks = sorted(int(text) for text in shown if text.isdigit())
        assert ranks == list(range(1, 11)), (left, shown)
    expect(page.locator(".pan-hint")).to_be_visible()


def test_magnet_s_pieces_and_coordinates_at_the_edges_are_whole_on_a_phone(
        open_context, client, new_game, live_server):
    """The board fills a phone's width: what is drawn by its side edges (files a and k,
    each player's on their own side) keeps clear of the screen's edges."""
    created = new_game("magnet")
    for seat in (0, 1):
        legal = client.get(created.apis[seat]).json["legal_moves"]
        api_move(client, created.apis[seat], next(m for m in legal if m.startswith("setup")))
    for url in created.urls:  # Red's page is turned round: a2-a5 at its right edge
        page = on_a_phone(open_context, live_server + url)
        boxes = page.locator("svg.board.magnet :is(.coord, .piece)").evaluate_all(
            "marks => marks.map(m => { const r = m.getBoundingClientRect();"
            " return [m.textContent.trim(), r.left, r.right]; })")
        assert len(boxes) > 24 + 30
        clipped = [box for box in boxes if box[1] < 2 or box[2] > 388]
        assert not clipped, clipped
