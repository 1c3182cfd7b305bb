"""Issue 25's flow in real browsers (Debian's Chromium through Playwright): Ann, signed in,
organises a round robin on /tournaments; Bob enters it from a browser of his own; Ann
enters and starts it; each opens the game from their games, Bob moves and Ann resigns;
the tournament's page shows the winner and a cross-table whose result opens the game's
review."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from pbem import matches, tournaments

from test_browser import open_context, type_move  # noqa: F401
from test_ratings_browser import sign_in

pytestmark = pytest.mark.browser


def test_organise_enter_from_another_browser_start_play_and_read_the_cross_table(
        open_context, live_server, app, db, smtp):
    ann = open_context().new_page()
    bob = open_context().new_page()
    sign_in(ann, live_server, app, db, smtp, "Ann")
    sign_in(bob, live_server, app, db, smtp, "Bob")

    ann.goto(live_server + "/tournaments")
    form = ann.locator("form.new-tournament")
    form.get_by_label("Name").fill("Spring cup")
    form.get_by_label("Format").select_option("round-robin")
    form.get_by_role("button", name="Create the tournament").click()
    expect(ann.get_by_role("heading", level=1)).to_have_text("Spring cup")
    expect(ann.locator("p.status")).to_contain_text("Open for entries (0")

    bob.goto(live_server + "/tournaments")
    bob.get_by_role("link", name="Spring cup").click()
    bob.get_by_role("button", name="Enter as Bob").click()
    expect(bob.get_by_role("status")).to_have_text("You are entered.")

    ann.reload()
    ann.get_by_role("button", name="Enter as Ann").click()
    ann.get_by_role("button", name="Start now").click()
    expect(ann.locator("p.status")).to_contain_text("Being played: round 1")

    # Bob entered first, so he is the first seed and has the first move
    bob.goto(live_server + "/games")
    bob.locator("section.your-turn").get_by_role("button", name="Open").click()
    [game] = tournaments.games(db, tournaments.listed(db)[0])
    match = matches.load(db, game.game_id)
    type_move(bob, match.game.legal_moves(match.current, 0)[0])
    expect(bob.locator("section.moves li")).to_have_count(1)

    ann.goto(live_server + "/games")
    ann.locator("section.your-turn").get_by_role("button", name="Open").click()
    resign = ann.locator("form.resign")
    resign.get_by_label("I want to resign").check()
    resign.get_by_role("button", name="Resign").click()
    expect(ann.locator("#game .game-over")).to_contain_text("Bob won: Ann resigned")

    bob.goto(f"{live_server}/tournaments/{tournaments.listed(db)[0].id}")
    expect(bob.locator("strong.winner")).to_have_text("Winner: Bob")
    expect(bob.locator('table.standings tr[data-player="Bob"]')).to_contain_text("1")
    cross = bob.locator("table.cross-table")
    expect(cross.locator(f'a[data-game="{game.game_id}"]')).to_have_count(2)
    cross.get_by_role("row", name="Bob").get_by_role("link", name="1").click()
    expect(bob.locator("#game .game-over")).to_contain_text("Bob won: Ann resigned")
