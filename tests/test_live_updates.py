"""An open game page learns of new moves by itself: with JavaScript it polls the game's
event count (``/<role>/<token>/version``, answered 304 Not Modified while nothing happened)
and redraws when the game moves on, or, while its player is building a move, offers a
refresh instead. Without JavaScript nothing polls."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from helpers import api_move
from pbem import create_app
from test_browser import cell, move_list, select, started  # noqa: F401 - started: a fixture

# What is checked is what the pages poll and draw, not how the game is stored.
pytestmark = pytest.mark.one_database


def version_of(page_url: str) -> str:
    return f"{page_url}/version"


def api_of(page_url: str) -> str:
    """The API path of a seat's (absolute) page URL."""
    return "/api/play/" + page_url.rsplit("/", 1)[1]


# -- the poll endpoint ------------------------------------------------------------------------

def test_the_version_is_the_event_count_and_answers_304_while_it_holds(client, new_game):
    game = new_game("mastery")
    first = client.get(version_of(game.urls[1]))
    assert first.status_code == 200 and first.json == {"events": 0}
    assert first.headers["ETag"] == '"0"'
    for url in (game.urls[0], game.urls[1], game.watch):  # every link, the same count
        unchanged = client.get(version_of(url), headers={"If-None-Match": '"0"'})
        assert unchanged.status_code == 304 and unchanged.get_data() == b""

    api_move(client, game.apis[0], "e3-e4")
    client.post(f"{game.apis[1]}/draw", json={"answer": "offer"})  # not a move: an event too
    moved = client.get(version_of(game.watch), headers={"If-None-Match": '"0"'})
    assert moved.status_code == 200 and moved.json == {"events": 2}
    assert moved.headers["ETag"] == '"2"'
    assert client.get(version_of(game.urls[0]),
                      headers={"If-None-Match": '"2"'}).status_code == 304


def test_the_version_counts_only_what_the_viewer_may_know(client, new_game):
    """A team's talk of resigning is the team's own, and the chat the players' until the
    end: neither may show to anyone else as a change of the page."""
    game = new_game("the-right-moves", players=4)  # teams: seats 0 and 2, 1 and 3
    client.post(f"{game.apis[0]}/resign", json={})  # a proposal, to seat 2 alone
    client.post(f"{game.apis[1]}/chat", json={"text": "Good luck"})
    counts = [client.get(version_of(url)).json["events"] for url in (*game.urls, game.watch)]
    assert counts == [2, 1, 2, 1, 0]
    assert client.post(f"{game.apis[2]}/resign", json={}).json["outcome"]  # now it is over
    counts = [client.get(version_of(url)).json["events"] for url in (*game.urls, game.watch)]
    assert counts == [3, 3, 3, 3, 3]


def test_the_version_is_a_secret_page_and_opens_only_its_own_kind_of_link(client, new_game):
    game = new_game("mastery")
    for path in (version_of(game.urls[0]), version_of(game.watch)):
        for headers in ({}, {"If-None-Match": '"0"'}):
            response = client.get(path, headers=headers)
            assert response.status_code in (200, 304)
            assert response.headers["Referrer-Policy"] == "no-referrer"
            assert response.headers["Cache-Control"] == "no-store"
    token = game.urls[0].rsplit("/", 1)[1]
    for wrong in (f"/watch/{token}/version", "/play/" + "Q" * 32 + "/version",
                  f"/play/{token[:-1]}/version"):
        assert client.get(wrong).status_code == 404, wrong


def test_a_running_game_page_says_what_to_poll_and_a_finished_one_does_not(client, new_game):
    game = new_game("mastery")
    api_move(client, game.apis[0], "e3-e4")
    for url in (game.urls[0], game.watch, f"{game.urls[1]}/history/0"):
        html = client.get(url).get_data(as_text=True)
        base = url.split("/history/")[0]
        assert (f'data-version="{base}/version" data-events="1" data-poll-ms="500"'  # conftest's
                in html), url
    client.post(f"{game.apis[1]}/resign", json={})
    for url in (game.urls[0], game.watch, f"{game.urls[1]}/history/1"):
        assert "data-version" not in client.get(url).get_data(as_text=True), url


def test_pages_ask_every_3_seconds_unless_the_operator_says_otherwise(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_INSTANCE", str(tmp_path / "instance"))
    assert create_app({"DATABASE": str(tmp_path / "pbem.sqlite")}).config[
        "LIVE_UPDATE_SECONDS"] == DEFAULT_SECONDS


# -- in a real browser ------------------------------------------------------------------------

POLL_WAIT_MS = 5_000  # the promise: a new move shows within 5 seconds
DEFAULT_SECONDS = 3  # how often the players' pages ask, unless LIVE_UPDATE_SECONDS says


@pytest.mark.browser
def test_the_waiting_player_and_a_spectator_see_the_move_within_5_seconds(app, person, started):
    app.config["LIVE_UPDATE_SECONDS"] = DEFAULT_SECONDS  # as players get it, not conftest's
    links = started()
    dark = person(links["dark"])
    light = person(links["light"])
    watch = person(links["watch"])
    for page in (light, watch):
        expect(page.locator("#status")).to_have_text("Waiting for Player 1 (Dark).")
        page.evaluate("window.notReloaded = true")

    select(dark, "e3")
    select(dark, "e4")
    dark.locator("#confirm-move").click()
    expect(dark.locator("#status")).to_have_text("Waiting for Player 2 (Light).")

    expect(light.locator("#status")).to_have_text("Your turn.", timeout=POLL_WAIT_MS)
    expect(watch.locator("#status")).to_have_text("Waiting for Player 2 (Light).",
                                                  timeout=POLL_WAIT_MS)
    for page in (light, watch):
        expect(move_list(page)).to_have_text(["Dark e3-e4"])
        expect(page.locator('.board-area [data-cell="e4"] .piece.owner0')).to_have_count(1)
        assert page.evaluate("window.notReloaded === true"), "the page reloaded"
    expect(light.locator("#move-input")).to_be_visible()  # and Light can answer at once


@pytest.mark.browser
def test_a_move_being_built_is_kept_and_a_notice_offers_the_refresh(person, started, client):
    links = started("e3-e4")
    light = person(links["light"])
    select(light, "d6")  # Light is building a move ...
    dark_api, light_api = api_of(links["dark"]), api_of(links["light"])
    assert client.post(f"{dark_api}/draw", json={"answer": "offer"}).status_code == 200

    notice = light.locator("#moved-on")  # ... when Dark offers a draw
    expect(notice).to_have_text("The game has moved on — refresh.", timeout=POLL_WAIT_MS)
    expect(light).to_have_url(re.compile(r"\?path=d6$"))
    expect(light.locator('.board-area [data-cell="d6"] rect.square.selected')).to_have_count(1)
    expect(light.locator("p.notice", has_text="offers a draw")).to_have_count(0)

    notice.get_by_role("link", name="refresh").click()
    expect(light.locator("p.notice", has_text="Player 1 offers a draw")).to_be_visible()
    expect(light.locator("#moved-on")).to_have_count(0)

    light.goto(links["light"])  # a move typed into the box is not thrown away either
    light.locator("#move-input").fill("d6-d5")
    light.evaluate("document.activeElement.blur()")
    api_move(client, light_api, "c5-c4")  # from elsewhere (an email reply): an event
    expect(light.locator("#moved-on")).to_be_visible(timeout=POLL_WAIT_MS)
    expect(light.locator("#move-input")).to_have_value("d6-d5")


@pytest.mark.browser
def test_a_hidden_page_does_not_poll_until_it_is_shown_again(open_context, started):
    links = started()
    light = open_context(reuse=False).new_page()  # its clock and listener stay
    light.clock.install()  # the page's timers run on a clock the test moves on
    polls = []
    light.on("request", lambda r: polls.append(r.url) if r.url.endswith("/version") else None)
    light.goto(links["light"])
    with light.expect_request(lambda r: r.url.endswith("/version")):
        light.clock.run_for(600)  # conftest's pages ask every half a second
    assert polls, "a visible page polls every few seconds"

    light.evaluate("""() => {
        Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
        document.dispatchEvent(new Event("visibilitychange"));
    }""")
    polls.clear()
    light.clock.run_for(60_000)
    light.wait_for_timeout(300)  # a request started would have been seen by now
    assert polls == [], "a hidden page polled"

    with light.expect_request(lambda r: r.url.endswith("/version"), timeout=1_000):
        light.evaluate("""() => {
            Object.defineProperty(document, "hidden", { configurable: true, get: () => false });
            document.dispatchEvent(new Event("visibilitychange"));
        }""")


@pytest.mark.browser
def test_without_javascript_the_page_never_polls(person, started, client):
    links = started()
    light = person(links["light"], javascript=False, reuse=False)  # a listener stays
    polls = []
    light.on("request", lambda r: polls.append(r.url) if r.url.endswith("/version") else None)
    api_move(client, api_of(links["dark"]), "e3-e4")
    light.wait_for_timeout(2_000)  # four times conftest's half a second between polls
    assert polls == []
    expect(light.locator("#status")).to_have_text("Waiting for Player 1 (Dark).")
