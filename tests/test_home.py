"""The "my games" page: ask for a link by email, list that address's games, open one.

The emailed link is read from the real .eml file the file transport writes, as a player
would read it from their mailbox.
"""
from __future__ import annotations

import email
import email.policy
import re
from pathlib import Path

import pytest

from pbem.jobs import scheduler


HOME_LINK = re.compile(r"http://localhost(/home/([A-Za-z0-9_-]{32}))")
OPEN_FORM = re.compile(r'action="(/home/[A-Za-z0-9_-]{32}/open/([A-Za-z0-9_-]+)/(\d+))"')
PLAY_PATH = re.compile(r"^(?:http://localhost)?(/play/([A-Za-z0-9_-]{32}))$")


def create(client, *emails: str) -> tuple[str, list[str]]:
    """A Mastery game between these addresses; returns its id and each seat's API path."""
    players = [{"name": f"Name {i}", "email": address} for i, address in enumerate(emails)]
    response = client.post("/api/games", json={"game": "mastery", "players": players})
    assert response.status_code == 201, response.json
    apis = [re.sub(r"^http://localhost", "", seat["api"]) for seat in response.json["seats"]]
    return response.json["id"], apis


def ask_for_home(client, app, address: str) -> tuple[str, str]:
    """POST the form, deliver the mail, and read the link from the .eml file sent to
    ``address``. Returns the answer page's text and the home page path."""
    response = client.post("/home", data={"email": address}, follow_redirects=True)
    assert response.status_code == 200
    folder = Path(app.config["MAIL_FOLDER"])
    before = set(folder.glob("*.eml")) if folder.exists() else set()
    sent, failed = scheduler.deliver_mail(app)
    assert sent >= 1 and failed == 0
    mine = []
    for path in set(folder.glob("*.eml")) - before:
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if message["Subject"] == "Your games":
            mine.append(message)
    assert len(mine) == 1
    assert mine[0]["To"] == address
    (link,) = HOME_LINK.findall(mine[0].get_body(("plain",)).get_content())
    return response.get_data(as_text=True), link[0]


def open_forms(page: str) -> dict[tuple[str, int], str]:
    """The page's Open buttons: {(game id, seat): form action}."""
    return {(game_id, int(seat)): action for action, game_id, seat in OPEN_FORM.findall(page)}


def rows_of(page: str) -> dict[str, str]:
    """Each listed game's table row, keyed by game id."""
    rows = {}
    for row in re.findall(r"<tr class=.*?</tr>", page, re.S):
        found = OPEN_FORM.search(row)
        if found:
            rows[found.group(2)] = row
    return rows


@pytest.mark.one_database  # what the page draws
def test_the_form(client):
    page = client.get("/home")
    assert page.status_code == 200
    assert b'<form method="post" action="/home">' in page.data
    assert b'name="email"' in page.data


def test_the_answer_is_the_same_whether_or_not_the_address_has_games(app, client, db):
    create(client, "known@example.org", "other@example.org")
    with_games, known_link = ask_for_home(client, app, "known@example.org")
    without, unknown_link = ask_for_home(client, app, "nobody@example.org")
    assert with_games.replace("known@example.org", "X") == without.replace("nobody@example.org", "X")
    assert "We have sent a link to the list of games of known@example.org" in with_games
    assert known_link != unknown_link

    # One "Your games" email each, threaded nowhere, its secret gone from the stored copy.
    rows = list(db.query("SELECT * FROM outbox WHERE subject = 'Your games' ORDER BY id"))
    assert [row["recipient"] for row in rows] == ["known@example.org", "nobody@example.org"]
    assert all(row["status"] == "sent" and row["game_id"] is None for row in rows)
    assert all("/home/[secret]" in row["body"] for row in rows)

    page = client.get(unknown_link)
    assert page.status_code == 200
    assert b"This address has no games yet." in page.data


def test_the_home_page_lists_exactly_that_address_games(app, client):
    mine_first, apis_first = create(client, "me@example.org", "you@example.org")
    mine_second, apis_second = create(client, "them@example.org", "ME@Example.ORG")
    other, _ = create(client, "them@example.org", "you@example.org")
    finished, apis_finished = create(client, "Me@example.org", "them@example.org")
    assert client.post(f"{apis_finished[0]}/resign", json={}).status_code == 200

    _, home = ask_for_home(client, app, "me@EXAMPLE.org")
    response = client.get(home)
    assert response.status_code == 200
    assert response.headers["Referrer-Policy"] == "no-referrer"  # the URL is a secret
    assert "no-store" in response.headers["Cache-Control"]
    page = response.get_data(as_text=True)

    # The address matches whatever its case; the other game is not shown.
    assert set(open_forms(page)) == {(mine_first, 0), (mine_second, 1), (finished, 0)}
    assert other not in page
    rows = rows_of(page)
    assert "<strong>your turn</strong>" in rows[mine_first]  # Dark moves first
    assert 'class="your-turn"' in rows[mine_first]
    assert "waiting, ply 0" in rows[mine_second]
    assert "Name 1 won: Name 0 resigned" in rows[finished]
    assert "Name 0, Name 1" in rows[mine_first]

    # Once the opponent has moved, it is this address's turn in the second game.
    state = client.get(apis_second[0]).json
    moved = client.post(f"{apis_second[0]}/moves",
                        json={"move": state["legal_moves"][0], "ply": 0})
    assert moved.status_code == 200
    rows = rows_of(client.get(home).get_data(as_text=True))
    assert "<strong>your turn</strong>" in rows[mine_second]


def test_open_mints_a_fresh_link_to_a_working_play_page(app, client, db):
    game_id, apis = create(client, "them@example.org", "me@example.org")
    _, home = ask_for_home(client, app, "me@example.org")
    action = open_forms(client.get(home).get_data(as_text=True))[(game_id, 1)]
    links_before = db["links"].count

    first = client.post(action)
    assert first.status_code == 303
    path, token = PLAY_PATH.match(first.headers["Location"]).groups()
    second = client.post(action)
    assert second.status_code == 303
    assert PLAY_PATH.match(second.headers["Location"]).group(2) != token  # a new one each time
    assert db["links"].count == links_before + 2

    page = client.get(path)
    assert page.status_code == 200
    assert client.get(f"/api{path}").json["seat"] == 1
    # The original link of that seat still works too: opening mints, it does not revoke.
    assert client.get(apis[1]).json["seat"] == 1

    # A GET cannot open a game (the page uses a form so link scanners do not mint links).
    assert client.get(action).status_code == 405


def test_another_address_game_or_seat_is_not_opened(app, client, db):
    mine, _ = create(client, "me@example.org", "you@example.org")
    theirs, _ = create(client, "them@example.org", "you@example.org")
    _, home = ask_for_home(client, app, "me@example.org")
    links_before = db["links"].count
    for game_id, seat in [(theirs, 0), (theirs, 1), (mine, 1), (mine, 2), ("nosuchgame", 0)]:
        response = client.post(f"{home}/open/{game_id}/{seat}")
        assert response.status_code == 404, (game_id, seat)
        assert b"That game is not one of yours." in response.data
    assert db["links"].count == links_before  # nothing minted
    assert client.post(f"{home}/open/{mine}/0").status_code == 303


@pytest.mark.one_database  # a link refused before anything is read
@pytest.mark.parametrize("token", ["A" * 32, "short", "x" * 31 + "-"])
def test_an_unknown_home_link_opens_nothing(app, client, token):
    game_id, _ = create(client, "me@example.org", "you@example.org")
    for response in (client.get(f"/home/{token}"), client.post(f"/home/{token}/open/{game_id}/0")):
        assert response.status_code == 404
        assert b"This link does not open a list of games." in response.data


@pytest.mark.one_database  # a link refused before anything is read
def test_a_play_link_is_not_a_home_link(app, client):
    response = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "A", "email": "a@example.org"}, {"name": "B", "email": "b@example.org"}]})
    token = response.json["seats"][0]["url"].rsplit("/", 1)[1]
    assert client.get(f"/home/{token}").status_code == 404


@pytest.mark.one_database  # refused before anything is stored
@pytest.mark.parametrize("address", ["", "   ", "not-an-address", "a@b@example.org",
                                     "two words@example.org", "<a@example.org>",
                                     "x" * 250 + "@example.org"])
def test_an_invalid_address_is_refused_readably_and_sends_nothing(client, db, address):
    response = client.post("/home", data={"email": address})
    assert response.status_code == 400
    assert b"Please enter a valid email address." in response.data
    assert b'name="email"' in response.data  # the form again, to correct it
    assert db["outbox"].count == 0
    assert db["home_links"].count == 0


@pytest.mark.one_database  # how an address is read
def test_the_address_is_trimmed(app, client, db):
    create(client, "me@example.org", "you@example.org")
    client.post("/home", data={"email": "  me@example.org \n"})
    (row,) = db.query("SELECT recipient FROM outbox WHERE subject = 'Your games'")
    assert row["recipient"] == "me@example.org"


def test_a_teams_talk_of_resigning_does_not_reorder_its_opponents_list(client, app, db):
    """The list puts the latest-changed games first; a team's proposal to resign (and a
    partner playing on) is the team's own until the game ends (Match.known_to), so it must
    not move the game up the list of an opponent, who would learn that it happened."""
    players = [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(4)]
    games = [client.post("/api/games", json={"game": "the-right-moves",
                                             "players": players}).json for _ in range(2)]
    for day, game in enumerate(games, start=1):  # the first last changed a day earlier
        db.execute("UPDATE games SET updated_at = ? WHERE id = ?",
                   [f"2026-01-0{day}T00:00:00+00:00", game["id"]])
    _, home = ask_for_home(client, app, "p1@example.org")  # seat 1: the other team

    def order() -> list[str]:
        page = client.get(home).get_data(as_text=True)
        return sorted((g["id"] for g in games), key=page.index)

    before = order()
    assert before == [games[1]["id"], games[0]["id"]]
    apis = [re.sub(r"^http://localhost", "", seat["api"]) for seat in games[0]["seats"]]
    assert client.post(f"{apis[0]}/resign", json={}).status_code == 200  # proposed to seat 2
    assert client.post(f"{apis[2]}/resign", json={"answer": "decline"}).status_code == 200
    assert order() == before
