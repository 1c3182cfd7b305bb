"""Issue 25's flow in real browsers (Debian's Chromium through Playwright), on a desktop and
on a 390 px phone: Ann, signed in, organises a round robin on /tournaments; Bob enters it
from a browser of his own; Ann enters and starts it; each opens the game from their games,
Bob moves and Ann resigns; the tournament's page shows the winner and a cross-table whose
result opens the game's review. On the phone no tournament page scrolls sideways: a
cross-table of many players scrolls inside its own box."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from pbem import commands, matches, players, tournaments
from pbem.events import Command

from helpers import fits
from test_browser import DESKTOP, PHONE_CONTEXT, type_move
from test_ratings_browser import sign_in

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("context", [{"viewport": DESKTOP}, PHONE_CONTEXT],
                         ids=["desktop", "phone"])
def test_organise_enter_from_another_browser_start_play_and_read_the_cross_table(
        open_context, live_server, app, db, smtp, context):
    ann = open_context(**context).new_page()
    bob = open_context(**context).new_page()
    sign_in(ann, live_server, app, db, smtp, "Ann")
    sign_in(bob, live_server, app, db, smtp, "Bob")

    ann.goto(live_server + "/tournaments")
    fits(ann)
    form = ann.locator("form.new-tournament")
    form.get_by_label("Name").fill("Spring cup")
    form.get_by_label("Format").select_option("round-robin")
    form.get_by_role("button", name="Create the tournament").click()
    expect(ann.get_by_role("heading", level=1)).to_have_text("Spring cup")
    expect(ann.locator("p.status")).to_contain_text("Open for entries (0")
    fits(ann)

    bob.goto(live_server + "/tournaments")
    bob.get_by_role("link", name="Spring cup").click()
    bob.get_by_role("button", name="Enter as Bob").click()
    expect(bob.get_by_role("status")).to_have_text("You are entered.")

    ann.reload()
    ann.get_by_role("button", name="Enter as Ann").click()
    ann.get_by_role("button", name="Start now").click()
    expect(ann.locator("p.status")).to_contain_text("Being played: round 1")
    fits(ann)

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
    fits(bob)
    expect(bob.locator('table.standings tr[data-player="Bob"]')).to_contain_text("1")
    cross = bob.locator("table.cross-table")
    expect(cross.locator(f'a[data-game="{game.game_id}"]')).to_have_count(2)
    cross.get_by_role("row", name="Bob").get_by_role("link", name="1").click()
    expect(bob.locator("#game .game-over")).to_contain_text("Bob won: Ann resigned")


def test_a_cross_table_of_many_players_scrolls_in_its_own_box_on_a_phone(
        open_context, live_server, app, db):
    """Eight players with the longest handles: the page keeps to the phone's width, the
    cross-table scrolls sideways inside its box, and its last column's results open."""
    with app.test_request_context():
        entered = [players.create(db, f"Player{n}-with-a-long", f"p{n}@example.org")
                   for n in range(8)]
        cup = tournaments.create(db, entered[0], {"name": "A cup with a rather long name "
                                                  "for a phone", "game": "mastery",
                                                  "format": "round-robin"})
        for player in entered:
            tournaments.enter(db, cup.id, player)
        tournaments.start(db, cup.id, entered[0])
        last = next(g for g in tournaments.games(db, cup) if entered[7].id in
                    (g.first_id, g.second_id))
        commands.submit(db, last.game_id, 0, Command.of("resign"))
    page = open_context(**PHONE_CONTEXT).new_page()
    for path in ("/tournaments", f"/tournaments/{cup.id}"):
        page.goto(live_server + path)
        fits(page)
    standings = page.locator("table.standings").bounding_box()
    assert standings["x"] >= 0 and standings["x"] + standings["width"] <= 390  # no scrolling
    box = page.locator(".cross-table-box")
    assert box.evaluate("b => b.scrollWidth > b.clientWidth")  # wider than the phone: it
    assert box.bounding_box()["width"] <= 390                  # scrolls, the page does not
    result = box.locator(f'a[data-game="{last.game_id}"]').last
    result.scroll_into_view_if_needed()
    expect(result).to_be_in_viewport(ratio=1)
    result.click()
    expect(page.locator("#game .game-over")).to_contain_text("resigned")
