"""Every page type in both languages, checked in Chromium by axe-core (WCAG 2 A and AA, as
``axe-playwright-python`` ships it): no serious or critical violation. One browser visit
per page type and language, not per test: a new page type joins ``PAGES``."""
from __future__ import annotations

import json

import pytest
from axe_playwright_python.base import AXE_SCRIPT

from pbem import players, roles

from helpers import api_move, path_of, sign_up

pytestmark = pytest.mark.browser

WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}, "resultTypes": ["violations"]}
# The whole page but the boards of the rules' diagrams: the play pages' boards are the same
# drawings, checked there (each diagram's SVG text takes axe seconds to measure)
DIAGRAMS = ".rules figure.diagram svg"
CHECKED = {"exclude": [DIAGRAMS]}


# (run and filtered in the page, so that only the few serious ones cross to Python; null
# where axe is not loaded yet)
AXE_RUN = """async ([context, options]) => typeof axe !== "object" ? null :
    (await axe.run(context, options)).violations
        .filter(v => v.impact === "serious" || v.impact === "critical")
        .map(v => `${v.id} (${v.impact}, ${v.nodes.length}) ` +
                  JSON.stringify(v.nodes.slice(0, 5).map(node => node.target)))"""


def serious_violations(page) -> list[str]:
    """The serious and critical WCAG A/AA violations axe finds on ``page``, each with the
    first of its elements: what every browser test of a page asserts is empty."""
    found = page.evaluate(AXE_RUN, [CHECKED, WCAG])
    if found is None:  # not in the context's init scripts
        page.evaluate(AXE_SCRIPT)
        found = page.evaluate(AXE_RUN, [CHECKED, WCAG])
    return found


GAMES = ("mastery", "the-right-moves", "magnetic-field", "magnet")


def two_player_game(client, game: str, **seats) -> dict:
    created = client.post("/api/games", json={"game": game, "players": [
        {"name": "Ann", "email": "ann@example.org"},
        seats.get("second", {"name": "Bob", "email": "bob@example.org"})]})
    assert created.status_code == 201, created.json
    return created.json


def page_types(client, db, games: tuple[str, ...] = GAMES) -> dict[str, str]:
    """A path of each page type, of games made for them (of ``games``)."""
    pages = {"front": "/", "choose a game": "/new", "lobby": "/lobby", "rules index": "/rules",
             "my games": "/games", "ask for my games": "/home", "not found": "/nowhere"}
    for game in games:
        pages[f"new {game}"] = f"/new/{game}"
        pages[f"rules of {game}"] = f"/rules/{game}"
        created = two_player_game(client, game)
        pages[f"play {game}"] = path_of(created["seats"][0]["url"])
    mastery = two_player_game(client, "mastery")
    seat = path_of(mastery["seats"][0]["url"])
    pages["spectator"] = path_of(mastery["spectator"])
    pages["notification settings"] = seat + "/email"
    second = path_of(mastery["seats"][1]["url"])
    pages["conditional moves"] = second + "/conditional"
    waiting = two_player_game(client, "mastery", second={"open": True})
    pages["join"] = path_of(waiting["seats"][1]["join"])
    pages["waiting game"] = path_of(waiting["seats"][0]["url"])
    pages["analysis"] = seat + "/analysis"
    api_move(client, mastery["seats"][0]["api"],
             client.get(mastery["seats"][0]["api"]).json["legal_moves"][0])
    record = client.get(mastery["seats"][0]["api"] + "/record?format=apgamerecord").json
    uploaded = client.post("/records", data={"pasted": json.dumps(record)})
    pages["record review"] = path_of(uploaded.headers["Location"])
    bob = path_of(sign_up(client, db, "Bob"))
    key = path_of(sign_up(client, db, "Ann"))
    roles.grant(db, players.by_handle(db, "Ann"), "operator")  # the console's too
    # a moderator's pages: a report waiting, with its evidence, and an action to appeal
    roles.grant(db, players.by_handle(db, "Ann"), "moderator")
    shared = client.post("/api/games", json={"game": "mastery", "players": [
        {"key": key}, {"key": bob}]}).json
    client.post(path_of(shared["seats"][1]["api"]) + "/chat", json={"text": "Hello!"})
    client.post(f"{key}/reports", json={"handle": "Bob", "game": shared["id"],
                                        "reason": "abuse", "text": "Rude."})
    client.post(f"{key}/blocks", json={"handle": "Bob"})
    client.post(f"{key}/moderation/actions", json={"handle": "Bob", "action": "warn",
                                                   "note": "Будьте вежливы."})
    (told,) = db.execute("SELECT body FROM outbox WHERE kind = 'moderation'").fetchone()
    pages["appeal"] = path_of(next(w for w in told.split() if "/appeal/" in w))
    bob_seat = path_of(shared["seats"][1]["url"])
    message = client.get(path_of(shared["seats"][0]["api"])).json["chat"]  # hidden: blocked
    assert message == []
    pages["report from a game"] = bob_seat + "/report"
    cup = client.post(f"{key}/tournaments", json={"name": "Autumn cup", "game": "mastery",
                                                  "format": "round-robin"}).json
    assert client.post(f"{key}/bot", json={"handle": "Robo", "games": ["mastery"]}
                       ).status_code == 201  # listed on the bots' page and the new-game form
    pages |= {"bots": "/bots", "bot's profile": "/players/Robo"}
    pages |= {"sign in": "/sign-in", "profile": "/players/Ann", "leaderboard": "/ratings/mastery",
              "tournaments": "/tournaments", "tournament": path_of(cup["url"]),
              "record upload": "/records", "offline": "/offline"}
    return pages


@pytest.mark.parametrize("language", ["en", "ru"])
def test_no_serious_violation_on_any_page_type(client, db, live_server, open_context, language,
                                               plugin_games):
    # axe-core (half a megabyte of script) compiled by each page as it loads, not sent to
    # each by the test; a context of its own, as a kept one would carry the script on
    context = open_context(reuse=False, locale=language, extra_http_headers={
        "Accept-Language": language})
    context.add_init_script(AXE_SCRIPT)
    page = context.new_page()
    found = []
    signed_in = {"my games, signed in": "/games", "all games' notifications": "/me/notifications",
                 "console": "/console", "bots, signed in": "/bots", "moderation": "/moderation",
                 "moderation log": "/moderation/log", "blocked players": "/me/blocks",
                 "report a player": "/players/Bob/report", "profile of another": "/players/Bob"}
    # and the plugins' pages (tests/conftest.py, plugin_games): a generic board of a view,
    # a drawing of the plugin's own
    plugins = ("four-in-a-row", "high-card")
    for name, path in [*page_types(client, db, (*GAMES, *plugins)).items(),
                       *signed_in.items()]:
        if name in signed_in:  # the browser signed in as the player page_types made
            context.add_cookies([{"name": "session", "url": live_server,
                                  "value": client.get_cookie("session").value}])
        page.goto(live_server + path)
        # The page's language and sign-in read, and the rules' diagrams, which CHECKED
        # leaves out, emptied, in one call: axe still walked their thousands of nodes on
        # each rule to leave them out (2 s a rules page, not 0.3). Their ids are their own
        # patterns' and markers'; their drawings are checked on the play pages.
        in_language, signed = page.evaluate("""([language, diagrams]) => {
            document.querySelectorAll(diagrams).forEach(svg => svg.replaceChildren());
            return [document.querySelectorAll(`html[lang="${language}"]`).length,
                    document.querySelectorAll("header.site nav.wide .signed-in").length];
        }""", [language, DIAGRAMS])
        assert in_language == 1, name
        if name in signed_in:
            assert signed == 1, name
        found += [f"{name}: {violation}" for violation in serious_violations(page)]
    assert not found, "\n".join(found)
