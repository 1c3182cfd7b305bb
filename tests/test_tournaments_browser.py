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
from pbem.events import Command, Move
from pbem.web.tournaments import checked

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
    # a form: each label above its field, a league's fields shown for a league alone
    name = form.get_by_label("Name")
    assert name.bounding_box()["y"] > form.get_by_text("Name", exact=True).bounding_box()["y"]
    division = form.get_by_label("Players in a division (league)")
    expect(division).to_be_hidden()
    form.get_by_label("Format").select_option("league")
    expect(division).to_be_visible()
    fits(ann)
    name.fill("Spring cup")
    form.get_by_label("Format").select_option("round-robin")
    expect(form.get_by_label("Format")).to_contain_text("round robin")  # words, not codes
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
    # what cannot be undone asks first, and is red
    start = ann.get_by_role("button", name="Start now")
    assert start.evaluate("b => getComputedStyle(b).backgroundColor") == "rgb(179, 38, 30)"
    start.click()  # unticked: the browser does not send it
    expect(ann.locator("p.status")).to_contain_text("Open for entries (2")
    ann.get_by_label("I want to close the entries and start with 2 players").check()
    start.click()
    expect(ann.locator("p.status")).to_contain_text("Being played: every round at once.")
    expect(ann.locator("form.withdraw button.danger")).to_have_text(
        "Withdraw (your unfinished games are lost)")
    fits(ann)

    # each opens their game from the tournament's page: "Your games", their own links
    [game] = tournaments.games(db, tournaments.listed(db)[0])
    bob.reload()
    bob.locator("section.your-games").get_by_role("link", name="Round 1: against Ann").click()
    expect(bob.locator("ul.players")).to_contain_text("Bob (you)")
    match = matches.load(db, game.game_id)
    type_move(bob, match.game.legal_moves(match.current, 0)[0])
    expect(bob.locator("section.moves li")).to_have_count(1)

    ann.reload()
    expect(ann.locator("section.your-games li")).to_contain_text("your turn")
    ann.locator("section.your-games").get_by_role("link", name="Round 1: against Bob").click()
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
    expect(bob.locator("ul.players")).to_contain_text("Bob (you)")  # his own page, not a
    expect(bob.locator("h1")).not_to_contain_text("(spectating)")   # spectator's


def test_a_cross_table_of_many_players_scrolls_in_its_own_box_on_a_phone(
        open_context, live_server, app, db):
    """Eight players with the longest handles: the page keeps to the phone's width, the
    cross-table scrolls sideways inside its box, and its last column's results open; a
    league's standings (with their divisions, and a player who withdrew) and a player's
    ratings fit as well, in English and in Russian."""
    with app.test_request_context():
        entered = [players.create(db, f"Player{n}-with-a-long", f"p{n}@example.org")
                   for n in range(8)]
        cup = tournaments.create(db, entered[0], checked({
            "name": "A cup with a rather long name for a phone", "game": "mastery",
            "format": "round-robin", "rated": True, "clock": {"mode": "per_move", "days": 3}}))
        league = tournaments.create(db, entered[0], checked({
            "name": "The league", "game": "mastery", "format": "league", "division_size": 4}))
        for tournament in (cup, league):
            for player in entered:
                tournaments.enter(db, tournament.id, player)
            tournaments.start(db, tournament.id, entered[0])
        last = next(g for g in tournaments.games(db, cup) if entered[7].id in
                    (g.first_id, g.second_id))
        for _ in range(4):  # two moves each: the game's end changes the ratings
            match = matches.load(db, last.game_id)
            (mover,) = match.to_move
            commands.submit(db, last.game_id, mover, Command.of(
                "move", Move(match.game.legal_moves(match.current, mover)[0])))
        commands.submit(db, last.game_id, 0, Command.of("resign"))  # a rated game's end
        tournaments.withdraw(db, league.id, entered[5].id)
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

    for language in ("en", "ru"):
        page.goto(f"{live_server}/tournaments/{league.id}?lang={language}")
        expect(page.locator("table.standings th.division").first).to_have_text(
            {"en": "Division 1", "ru": "Дивизион 1"}[language])
        fits(page)
        withdrawn = page.locator("table.standings .withdrawn")  # never broken mid-word
        assert withdrawn.evaluate("w => w.getClientRects().length") == 1
        page.goto(f"{live_server}/players/{entered[0].handle}")
        expect(page.locator("table.ratings td.rating")).to_have_count(1)
        fits(page)
