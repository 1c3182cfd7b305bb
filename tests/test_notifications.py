"""Notifications with real parts (the app's SQLite file, a real SMTP server on loopback):
boards as text, the "your turn" email of every game, hidden information in emails, the
email settings and one-click unsubscribe, the daily digest, reminders, and the "Your games"
opt-out.

The jobs take the time as a parameter: "two days later" is a call with a later ``now``,
never a faked clock; "a restart" is a new app on the same database file.
"""
from __future__ import annotations

import dataclasses
import json
import re
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest
from flask import url_for

import engine
from engine.magnetic_field import CELL_INDEX, CELLS, EMPTY, TILE_ORDER
from pbem import commands, create_app, creation, matches
from pbem.events import Command, Move
from pbem.mail import notify, outbox, preferences
from pbem.jobs import scheduler
from pbem.links import resolve
from pbem.boards import board_for
from pbem.boards import magnetic_field as mf_board
from pbem.boards import mastery as mastery_board
from pbem.boards import the_right_moves as trm_board
from pbem.web.database import get_db
from pbem.matches import CACHE

PLAY_LINK = re.compile(r"http://localhost(/play/[A-Za-z0-9_-]{32})(?![/A-Za-z0-9_-])")
SETTINGS_LINK = re.compile(r"http://localhost(/email/[A-Za-z0-9_-]{32})\n")
UNSUBSCRIBE_LINK = re.compile(r"http://localhost(/email/[A-Za-z0-9_-]{32}/unsubscribe)")
SECRET = re.compile(r"/[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])")
NOW = datetime.now(timezone.utc)


def outbox_rows(db, where: str = "", params=()) -> list[dict]:
    return [dict(row) for row in db.query(f"SELECT * FROM outbox {where} ORDER BY id", params)]


def after(db, mark: int, where: str = "", params=()) -> list[dict]:
    """The outbox rows queued after row ``mark``."""
    return outbox_rows(db, f"WHERE id > ? {'AND ' + where if where else ''}", [mark, *params])


def last_id(db) -> int:
    rows = outbox_rows(db)
    return rows[-1]["id"] if rows else 0


def one(pattern: re.Pattern, body: str) -> str:
    found = pattern.findall(body)
    assert len(found) == 1, body
    return found[0]


def seat_opened(client, path: str) -> int:
    assert client.get(path).status_code == 200
    return client.get("/api" + path).json["seat"]


def play(client, api: str, move: str | None = None) -> str:
    state = client.get(api).json
    move = move or state["legal_moves"][0]
    response = client.post(f"{api}/moves", json={"move": move, "ply": state["ply"]})
    assert response.status_code == 200, response.json
    return move


def to_move(client, game) -> int:
    return client.get(game.apis[0]).json["view"]["to_move"][0]


def create(client, *emails: str, game: str = "mastery", options=None) -> SimpleNamespace:
    body = {"game": game, "options": options or {},
            "players": [{"name": f"Name {i}", "email": e} for i, e in enumerate(emails)]}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.json
    seats = response.json["seats"]
    strip = lambda url: url.replace("http://localhost", "")  # noqa: E731
    return SimpleNamespace(id=response.json["id"], urls=[strip(s["url"]) for s in seats],
                           apis=[strip(s["api"]) for s in seats])


def choose(db, game_id: str, seat: int, choice: str) -> None:
    db.execute("UPDATE seats SET notify = ? WHERE game_id = ? AND seat = ?",
               [choice, game_id, seat])


def current_text(app, game_id: str, seat: int) -> str:
    with app.test_request_context():
        match = matches.load(get_db(), game_id)
        return board_for(match.game.id).text(match.game.view(match.current, seat), seat)


# -- boards as text --------------------------------------------------------------------------

def test_mastery_text_is_an_8x8_grid_with_coordinates_from_the_seats_side():
    game = engine.get("mastery")
    state = game.start(2, {}, "")
    dark = mastery_board.text(game.view(state, 0), 0).splitlines()
    assert dark[0] == "    a b c d e f g h" == dark[9]
    assert dark[1] == " 8  . . m m m . . .  8"   # Light's Masters (lower case), far side
    assert dark[8] == " 1  . . . M M M . .  1"   # Dark's Masters in capitals, near side
    assert len([line for line in dark if re.fullmatch(r" [1-8]  (?:[.MOPmop] ){7}[.MOPmop]  [1-8]",
                                                        line)]) == 8
    light = mastery_board.text(game.view(state, 1), 1).splitlines()
    assert light[0] == "    h g f e d c b a"     # Light sees rank 8 at the bottom
    assert light[1] == " 1  . . M M M . . .  1"
    assert "Off the board" not in "\n".join(light)
    # A capture shows on the grid and in the count of pieces off the board.
    after = game.apply(state, 0, "d4xc5")
    text = mastery_board.text(game.view(after, 0), 0)
    assert " 5  . . P . p . . .  5" in text
    assert "Off the board: Dark none; Light 1 Pawn." in text


def test_the_right_moves_text_lists_each_ring_and_marks_promoted_pieces():
    from engine.the_right_moves import INDEX
    game = engine.get("the-right-moves")
    state = game.start(2, {}, "")
    board = list(state.board)
    board[INDEX["3f"]] = "R"  # a promoted Red piece
    board[INDEX["2a"]] = "b"
    state = dataclasses.replace(state, board="".join(board))
    lines = trm_board.text(game.view(state, 1), 1).splitlines()
    assert lines[0].split() == list("abcdefghijklmnop")
    rows = {line[:6]: line[8:] for line in lines[1:6]}
    assert list(rows) == ["ring 5", "ring 4", "ring 3", "ring 2", "ring 1"]
    columns = {ring: {letter: row[3 * i] if 3 * i < len(row) else " "
                      for i, letter in enumerate("abcdefghijklmnop")}
               for ring, row in rows.items()}
    assert columns["ring 3"]["f"] == "R" and columns["ring 3"]["g"] == "r"
    assert columns["ring 4"]["b"] == "b" and columns["ring 4"]["a"] == "."
    assert columns["ring 2"]["a"] == "b" and columns["ring 2"]["b"] == " "  # no space 2b
    assert [columns["ring 1"][x] for x in "aeim"] == ["."] * 4
    text = "\n".join(lines)
    assert "\nRed, 18 pieces: 3f* 3g 3h 3n 3o 3p 4f 4g 4h 4n 4o 4p 5f 5g 5h 5n 5o 5p\n" in text
    assert re.search(r"^Blue \(you\), 19 pieces: 2a 3b ", text, re.M)
    assert "* promoted" in text and "R / B = promoted" in text


def mf_field(cells: dict[str, str]) -> str:
    squares = [EMPTY] * CELLS
    for name, char in cells.items():
        squares[CELL_INDEX[name]] = char
    return "".join(squares)


def mf_position(hands=("KD", "CK"), public=("", "K")):
    """A Magnetic Field play position: seat 0 Blue; Red holds a drafted K and one hidden tile."""
    game = engine.get("magnetic-field")
    state = game.start(2, {"colours": "seat0-blue"}, "t")
    for pick in "KKDD":
        state = game.apply(state, state.to_move[0], f"pick {pick}")
    return game, dataclasses.replace(
        state, figures=mf_field({"e4": "N", "h3": "w", "b9": "E"}),
        tiles=mf_field({"e5": "K", "e4": "D"}), hands=hands, public_hands=public,
        in_hand=(3, 4), entered=(True, True), scores=(3, 1), deck="CC", passes=0,
        to_move=(0,))


def test_magnetic_field_text_shows_the_field_figures_scores_and_only_what_the_seat_knows():
    game, state = mf_position()
    blue = mf_board.text(game.view(state, 0), 0)
    lines = blue.splitlines()
    assert lines[0].split() == list("abcdefghij")
    row = {int(line[:3]): line[5:] for line in lines[1:11]}
    cell = lambda rank, file: row[rank][4 * "abcdefghij".index(file):][:3]  # noqa: E731
    assert cell(4, "e") == "DB^"   # a Domination tile under a Blue figure, N pole north
    assert cell(3, "h") == ".R<"   # a Red figure facing west
    assert cell(9, "b") == ".B>"
    assert cell(5, "e") == "K  " and cell(5, "f") == ":  " and cell(1, "a") == ".  "
    assert "Score: Blue 3, Red 1 (first to 15 wins)." in blue
    assert "Blue (you): figures 3 in hand, 2 on the field; tiles: K D." in blue
    assert "Red: figures 4 in hand, 1 on the field; tiles: K and 1 face down." in blue
    assert "Deck: 2 tiles face down." in blue
    # Red's hidden tile changes nothing Blue (or a spectator) reads; Red sees its own tiles.
    _, other = mf_position(hands=("KD", "KD"))
    assert mf_board.text(game.view(other, 0), 0) == blue
    assert mf_board.text(game.view(other, None), None) == mf_board.text(game.view(state, None), None)
    red = mf_board.text(game.view(state, 1), 1)
    assert "Red (you): figures 4 in hand, 1 on the field; tiles: C K." in red
    assert "Blue: figures 3 in hand, 2 on the field; tiles: 2 face down." in red
    assert red != mf_board.text(game.view(other, 1), 1)


# -- the "your turn" email -------------------------------------------------------------------

@pytest.mark.one_database  # what an email says
@pytest.mark.parametrize("game_id", ["mastery", "the-right-moves", "magnetic-field"])
def test_your_turn_email_has_the_board_the_last_move_a_hint_and_a_working_link(
        app, client, db, game_id):
    game = create(client, "p1@example.org", "p2@example.org", game=game_id)
    mover = to_move(client, game)
    mark = last_id(db)
    move = play(client, game.apis[mover])
    (row,) = after(db, mark)
    seat = 1 - mover
    assert (row["kind"], row["seat"], row["recipient"]) == ("turn", seat, f"p{seat + 1}@example.org")
    body = row["body"]
    title = engine.get(game_id).title
    assert f"It is your turn in {title} (ply 1)." in body
    with app.test_request_context():
        match = matches.load(get_db(), game.id)
        shown = match.game.public_move(mover, match.moves[0].move, seat, match.current)
        mover_name, sides = match.seats[mover].name, match.sides
        legal = match.game.legal_moves(match.current, seat)
    assert f"{mover_name} played: {shown}" in body and shown == move
    assert current_text(app, game.id, seat) in body
    hint = re.search(r"^(Your legal moves|You have \d+(?: or more)? legal moves)[:,].*$", body,
                     re.M)
    assert hint, body
    named = re.split(r", ", hint.group(0).split(": ", 1)[1].rstrip("."))
    assert named and set(named) <= set(legal)
    assert seat_opened(client, one(PLAY_LINK, body)) == seat
    assert row["subject"] == f"Your move — {title}: {sides} [{game.id}]"


@pytest.mark.one_database  # what an email says
def test_magnetic_field_emails_never_show_the_opponents_hidden_tiles(app, client, db):
    with app.test_request_context():
        created = creation.create(get_db(), "magnetic-field",
                                 [{"name": "Ann", "email": "ann@example.org"},
                                  {"name": "Bob", "email": "bob@example.org"}],
                                 {"colours": "seat0-blue"}, seed="hidden")
        apis = [url_for("api.game", role="play", token=t) for t in created.tokens]
    for seat, move in [(0, "pick K"), (1, "pick K"), (0, "pick D"), (1, "pick D"),
                       (0, "K@e5 +e4:n"), (1, "K@e6 +e7:s")]:
        play(client, apis[seat], move)
    # Red (seat 1) has now drawn a tile from the deck: hidden from Blue.
    game = engine.get("magnetic-field")
    state = matches.load(db, created.match.id).current
    assert game.view(state, 0)["hands"][1]["hidden"] == 1
    blue_mail = outbox_rows(db, "WHERE recipient = 'ann@example.org' AND kind = 'turn'")[-1]["body"]
    assert "Red: figures 4 in hand, 1 on the field; tiles: D and 1 face down." in blue_mail
    # Blue's email is the same whatever Red's hidden tile is ...
    hidden = state.hands[1].replace(state.public_hands[1], "", 1)
    for code in TILE_ORDER:
        if code == hidden:
            continue
        swapped = "".join(sorted(state.public_hands[1] + code, key=TILE_ORDER.index))
        twin = dataclasses.replace(state, hands=(state.hands[0], swapped))
        assert mf_board.text(game.view(twin, 0), 0) in blue_mail
        # ... while the swap really changes what Red sees.
        assert mf_board.text(game.view(twin, 1), 1) != mf_board.text(game.view(state, 1), 1)
    # Red's own emails show Red's tiles.
    red_mail = outbox_rows(db, "WHERE recipient = 'bob@example.org'")[-1]["body"]
    assert "Red (you)" in red_mail


@pytest.mark.one_database  # what an email says
def test_every_email_of_a_game_over_smtp_has_settings_unsubscribe_and_one_thread(
        app, client, db, smtp):
    game = create(client, "p1@example.org", "p2@example.org")
    play(client, game.apis[0])
    assert client.post(f"{game.apis[0]}/draw", json={"answer": "offer"}).status_code == 200
    transport = outbox.SMTPTransport("127.0.0.1", smtp.port, timeout=5)
    # (delivered before the game ends, which would take back the offer's email unsent)
    assert outbox.deliver_due(db, transport, app.config["MAIL_FROM"], app.config["PUBLIC_URL"]) == (4, 0)
    assert client.post(f"{game.apis[1]}/resign", json={}).status_code == 200
    assert outbox.deliver_due(db, transport, app.config["MAIL_FROM"], app.config["PUBLIC_URL"]) == (2, 0)
    queued = outbox_rows(db)
    assert [row["kind"] for row in queued] == ["start", "start", "turn", "draw_offer", "end", "end"]
    thread = f"<game-{game.id}@pbem.localhost>"
    urls = set()
    for message in smtp.messages:
        body = message.get_body(("plain",)).get_content().replace("\r\n", "\n")
        assert message["References"] == thread == message["In-Reply-To"]
        unsubscribe = "http://localhost" + one(UNSUBSCRIBE_LINK, body)
        # (a long header is folded onto a second line; unfolded, it is the URL in <>)
        assert message["List-Unsubscribe"].strip() == f"<{unsubscribe}>"
        assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        settings = one(SETTINGS_LINK, body)
        assert unsubscribe.endswith(settings + "/unsubscribe")
        assert client.get(settings).status_code == 200
        urls.add(unsubscribe)
    assert len(urls) == 6  # a fresh secret in every email
    # Once sent, the stored copies lose the settings secrets too, headers included.
    for row in outbox_rows(db):
        assert not SECRET.search(row["body"]) and not SECRET.search(row["headers"]), row


# -- settings and unsubscribing --------------------------------------------------------------

def test_settings_page_from_an_email_and_from_the_play_page(app, client, db):
    game = create(client, "p1@example.org", "p2@example.org")
    start = outbox_rows(db)[1]  # Light's start email
    settings = one(SETTINGS_LINK, start["body"])
    page = client.get(settings).get_data(as_text=True)
    field = f"notify-{game.id}-1"
    assert re.search(rf'name="{field}" value="each" checked', page)
    assert "p2@example.org" in page and "you play Light" in page
    # The settings secret opens the settings, never the game (nor the API).
    token = settings.rsplit("/", 1)[1]
    assert client.get(f"/play/{token}").status_code == 404
    assert client.get(f"/api/play/{token}").status_code == 404
    assert client.get("/email/" + "A" * 32).status_code == 404

    response = client.post(settings, data={field: "digest", f"notify-{game.id}-0": "none"})
    assert response.status_code == 303 and response.headers["Location"] == settings
    page = client.get(settings).get_data(as_text=True)
    assert re.search(rf'name="{field}" value="digest" checked', page)
    assert "Your settings are saved." in page
    chosen = {r["seat"]: r["notify"] for r in db.query("SELECT seat, notify FROM seats")}
    assert chosen == {0: "each", 1: "digest"}  # a seat's link changes only that seat

    # From the play page: its link to the seat's settings, opened by the play link itself.
    play_page = client.get(game.urls[0]).get_data(as_text=True)
    here = f"{game.urls[0]}/email"
    assert f'href="{here}"' in play_page
    assert re.search(rf'name="notify-{game.id}-0" value="each" checked',
                     client.get(here).get_data(as_text=True))
    assert client.post(here, data={f"notify-{game.id}-0": "none"}).status_code == 303
    assert preferences.preference(db, game.id, 0) == "none"
    assert client.post(here, data={f"notify-{game.id}-0": "bogus"}).status_code == 303
    assert preferences.preference(db, game.id, 0) == "none"
    assert client.get("/play/" + "B" * 32 + "/email").status_code == 404

    # Neither seat gets turn emails now; the game's result still reaches both.
    mark = last_id(db)
    play(client, game.apis[0])
    play(client, game.apis[1])
    assert after(db, mark) == []
    assert client.post(f"{game.apis[0]}/resign", json={}).status_code == 200
    assert sorted(r["recipient"] for r in after(db, mark, "kind = 'end'")) == [
        "p1@example.org", "p2@example.org"]


def test_one_click_unsubscribe_by_post_to_the_list_unsubscribe_url(app, client, db, smtp):
    game = create(client, "p1@example.org", "p2@example.org")
    play(client, game.apis[0])
    transport = outbox.SMTPTransport("127.0.0.1", smtp.port, timeout=5)
    outbox.deliver_due(db, transport, app.config["MAIL_FROM"], app.config["PUBLIC_URL"])
    turn = smtp.messages[-1]
    assert turn["To"] == "p2@example.org"
    url = re.fullmatch(r"<http://localhost(/email/[A-Za-z0-9_-]{32}/unsubscribe)>",
                       turn["List-Unsubscribe"].strip()).group(1)

    # A GET (a mail scanner, or the person) changes nothing: it shows the button.
    page = client.get(url).get_data(as_text=True)
    assert '<button type="submit">Unsubscribe</button>' in page and "Mastery" in page
    assert preferences.preference(db, game.id, 1) == "each"

    # RFC 8058: the provider POSTs "List-Unsubscribe=One-Click", with no further step.
    response = client.post(url, data={"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert "You are unsubscribed" in response.get_data(as_text=True)
    assert preferences.preference(db, game.id, 1) == "none"
    assert preferences.preference(db, game.id, 0) == "each"
    assert client.post(url).status_code == 200  # again: harmless
    assert client.post("/email/" + "C" * 32 + "/unsubscribe").status_code == 404
    # the page's own button answers with the page, which says it is done (a reload sends
    # nothing again), as it does when opened again
    pressed = client.post(url, data={"List-Unsubscribe": "One-Click", "from": "page"})
    assert pressed.status_code == 303 and pressed.location == url
    assert "You are unsubscribed" in client.get(url).text
    assert "<button" not in client.get(url).text.split("<main>")[1]

    mark = last_id(db)
    play(client, game.apis[1])
    play(client, game.apis[0])  # Light's turn again: no email to Light
    assert [r["recipient"] for r in after(db, mark)] == ["p1@example.org"]


def test_an_offer_answered_before_its_email_went_out_is_not_emailed(app, client, db, smtp):
    """Before the mail goes out, Dark plays on past Light's request to take back a move,
    then Light accepts Dark's draw; in a team game one proposal to resign is declined:
    nobody is told of an offer that no longer stands."""
    game = create(client, "p1@example.org", "p2@example.org")
    play(client, game.apis[0])
    play(client, game.apis[1])
    assert client.post(f"{game.apis[1]}/takeback").status_code == 202
    play(client, game.apis[0])  # moving on ends the request
    assert client.post(f"{game.apis[0]}/draw", json={"answer": "offer"}).status_code == 200
    team = create(client, *(f"t{n}@example.org" for n in range(4)), game="the-right-moves")
    assert client.post(f"{team.apis[0]}/resign", json={}).status_code == 200  # to seat 2
    assert client.post(f"{team.apis[1]}/resign", json={}).status_code == 200  # to seat 3
    assert client.post(f"{team.apis[2]}/resign", json={"answer": "decline"}).status_code == 200
    assert client.post(f"{game.apis[1]}/draw", json={"answer": "accept"}).status_code == 200
    outbox.deliver_due(db, outbox.SMTPTransport("127.0.0.1", smtp.port, timeout=5),
                       app.config["MAIL_FROM"], app.config["PUBLIC_URL"])
    subjects = [(m["To"], m["Subject"].split(" — ")[0]) for m in smtp.messages
                if m["Subject"].split(" — ")[0] not in ("Game started", "Your move")]
    assert sorted(subjects) == [("p1@example.org", "Game over"),
                                ("p2@example.org", "Game over"),
                                ("t0@example.org", "Resignation declined"),
                                ("t3@example.org", "Resignation proposed")]


def test_none_and_digest_stop_turn_emails_reminders_and_draw_offers(app, client, db):
    game = create(client, "p1@example.org", "p2@example.org")
    choose(db, game.id, 1, "none")
    mark = last_id(db)
    play(client, game.apis[0])
    assert client.post(f"{game.apis[0]}/draw", json={"answer": "offer"}).status_code == 200
    assert after(db, mark) == []
    assert scheduler.send_reminders(app, NOW + timedelta(days=5)) == 0
    assert scheduler.send_digests(app, NOW.replace(hour=23) + timedelta(days=1)) == 0
    choose(db, game.id, 1, "digest")
    assert scheduler.send_reminders(app, NOW + timedelta(days=5)) == 0
    assert after(db, mark) == []


# -- the daily digest ------------------------------------------------------------------------

def test_a_partner_who_chose_the_digest_finds_the_proposal_to_resign_there(app, client, db):
    game = create(client, *(f"p{i}@example.org" for i in range(4)), game="the-right-moves")
    choose(db, game.id, 2, "digest")
    mark = last_id(db)
    assert client.post(f"{game.apis[0]}/resign", json={}).status_code == 200
    assert after(db, mark) == []  # no email now: the digest will say it
    assert scheduler.send_digests(app, NOW.replace(hour=23)) == 1
    (digest,) = after(db, mark)
    assert digest["recipient"] == "p2@example.org"
    assert "The Right Moves: Name 0 & Name 2 vs Name 1 & Name 3. You play Red (2)." in \
        digest["body"]
    assert "Name 0 proposes that your team resign: resign together, or play on." in \
        digest["body"]


def test_digest_once_a_day_across_runs_and_a_restart_listing_only_waiting_games(
        app, client, db, smtp):
    me = "me@example.org"
    waiting = create(client, me, "a@example.org")                 # my move (Dark)
    not_yet = create(client, "b@example.org", "ME@example.org")   # the opponent's move
    offered = create(client, "c@example.org", me)                 # a draw offer to answer
    finished = create(client, me, "d@example.org")
    every = create(client, me, "e@example.org")                   # my move, but "each"
    other = create(client, "x@example.org", "y@example.org")
    assert client.post(f"{offered.apis[0]}/draw", json={"answer": "offer"}).status_code == 200
    for game, seat in ((waiting, 0), (not_yet, 1), (offered, 1), (finished, 0)):
        choose(db, game.id, seat, "digest")
    choose(db, other.id, 0, "digest")  # x is to move: x gets its own digest
    assert client.post(f"{finished.apis[1]}/resign", json={}).status_code == 200
    mark = last_id(db)

    day = (NOW + timedelta(days=1)).replace(hour=6, minute=59)
    assert scheduler.send_digests(app, day) == 0  # before DIGEST_HOUR (7 UTC)
    assert after(db, mark) == []
    at_seven = day.replace(hour=7, minute=3)
    assert scheduler.send_digests(app, at_seven) == 2
    digests = after(db, mark)
    assert {r["recipient"] for r in digests} == {me, "x@example.org"}
    (mine,) = [r for r in digests if r["recipient"] == me]
    assert mine["kind"] == "digest" and mine["game_id"] is None
    assert mine["subject"] == f"Your games: 2 waiting for you ({at_seven.date().isoformat()})"
    body = mine["body"]
    assert "2 games wait for you today" in body
    assert "Name 0 vs Name 1" in body
    assert "Name 0 offers a draw: accept or decline it." in body
    links = PLAY_LINK.findall(body)
    assert len(links) == 2
    opened = {(resolve(db, link.rsplit("/", 1)[1]).game_id, seat_opened(client, link))
              for link in links}
    assert opened == {(waiting.id, 0), (offered.id, 1)}
    assert not {game.id for game in (not_yet, finished, every, other)} & {g for g, _ in opened}

    # Later the same day, and after a restart (a new app on the same database): nothing.
    assert scheduler.send_digests(app, at_seven + timedelta(hours=5)) == 0
    CACHE.clear()
    restarted = create_app({"TESTING": True, "DATABASE": app.config["DATABASE"],
                            "MAIL_FOLDER": app.config["MAIL_FOLDER"], "SECRET_KEY": "test"})
    assert scheduler.send_digests(restarted, at_seven + timedelta(minutes=10)) == 0
    assert len(after(db, mark)) == 2
    # The next day, the games still waiting are listed again.
    assert scheduler.send_digests(restarted, at_seven + timedelta(days=1)) == 2

    # Delivered: no game thread, and its own one-click unsubscribe, which stops the digests.
    transport = outbox.SMTPTransport("127.0.0.1", smtp.port, timeout=5)
    outbox.deliver_due(db, transport, app.config["MAIL_FROM"], app.config["PUBLIC_URL"])
    (message, *_) = [m for m in smtp.messages if m["Subject"].startswith("Your games") and
                     m["To"] == me]
    assert message["References"] is None and message["In-Reply-To"] is None
    url = re.fullmatch(r"<http://localhost(/email/[A-Za-z0-9_-]{32}/unsubscribe)>",
                       message["List-Unsubscribe"].strip()).group(1)
    assert client.post(url, data={"List-Unsubscribe": "One-Click"}).status_code == 200
    choices = {r["game_id"]: r["notify"] for r in db.query(
        "SELECT game_id, notify FROM seats WHERE lower(email) = lower(?)", [me])}
    assert choices == {waiting.id: "none", not_yet.id: "none", offered.id: "none",
                       finished.id: "none", every.id: "each"}
    assert scheduler.send_digests(app, at_seven + timedelta(days=2)) == 1  # x's only


# -- reminders -------------------------------------------------------------------------------

def test_reminders_after_the_configured_time_once_per_turn_even_after_a_restart(
        app, client, db):
    game = create(client, "p1@example.org", "p2@example.org")
    mark = last_id(db)
    assert scheduler.send_reminders(app, NOW + timedelta(hours=47)) == 0
    assert scheduler.send_reminders(app, NOW + timedelta(hours=49)) == 1
    (row,) = after(db, mark)
    assert (row["kind"], row["seat"], row["recipient"]) == ("reminder", 0, "p1@example.org")
    assert row["subject"] == f"Reminder: your move — Mastery: Name 0 vs Name 1 [{game.id}]"
    assert json.loads(row["headers"])["References"] == f"<game-{game.id}@pbem.localhost>"
    assert re.search(r"has been waiting for your move for 4[89] hours, since ", row["body"])
    assert current_text(app, game.id, 0) in row["body"]
    assert seat_opened(client, one(PLAY_LINK, row["body"])) == 0
    # Once per turn: not again later, nor after a restart.
    assert scheduler.send_reminders(app, NOW + timedelta(days=9)) == 0
    CACHE.clear()
    restarted = create_app({"TESTING": True, "DATABASE": app.config["DATABASE"],
                            "MAIL_FOLDER": app.config["MAIL_FOLDER"], "SECRET_KEY": "test"})
    assert scheduler.send_reminders(restarted, NOW + timedelta(days=9)) == 0

    # Dark moves: Light's turn begins now; Dark is not reminded again.
    move = play(client, game.apis[0])
    mark = last_id(db)
    assert scheduler.send_reminders(app, NOW + timedelta(hours=47)) == 0
    assert scheduler.send_reminders(app, NOW + timedelta(hours=49)) == 1
    (row,) = after(db, mark)
    assert (row["kind"], row["seat"]) == ("reminder", 1)
    assert f"Name 0 played: {move}" in row["body"]
    # Light moves: a new turn of Dark's, which may be reminded once more.
    play(client, game.apis[1])
    assert scheduler.send_reminders(app, NOW + timedelta(hours=49)) == 1
    assert [r["seat"] for r in after(db, mark, "kind = 'reminder'")] == [1, 0]
    assert scheduler.send_reminders(app, NOW + timedelta(hours=49)) == 0


def test_reminder_hours_is_configurable_and_zero_turns_reminders_off(app, client, db):
    create(client, "p1@example.org", "p2@example.org")
    app.config["REMINDER_HOURS"] = 0
    assert scheduler.send_reminders(app, NOW + timedelta(days=30)) == 0
    app.config["REMINDER_HOURS"] = 2
    assert scheduler.send_reminders(app, NOW + timedelta(hours=1)) == 0
    assert scheduler.send_reminders(app, NOW + timedelta(hours=3)) == 1


def test_a_player_on_vacation_is_reminded_once_the_vacation_is_over(app, client, db):
    body = {"game": "mastery", "clock": {"mode": "per_move", "days": 30, "vacation_days": 10},
            "players": [{"name": "A", "email": "a@example.org"},
                        {"name": "B", "email": "b@example.org"}]}
    api = client.post("/api/games", json=body).json["seats"][0]["api"]
    api = api.replace("http://localhost", "")
    assert client.post(f"{api}/vacation", json={"days": 5}).status_code == 200
    assert scheduler.send_reminders(app, NOW + timedelta(days=3)) == 0
    assert scheduler.send_reminders(app, NOW + timedelta(days=6)) == 1


def subjects(smtp, what: str) -> list[str]:
    return [m["Subject"] for m in smtp.messages if m["Subject"].startswith(what)]


def test_no_your_move_email_while_the_player_is_there_and_one_once_they_left(
        app, client, db, smtp):
    """A person playing the computer is not emailed each reply while they play; the turn's
    email goes out once they have been away AWAY_MINUTES, once, and at once when a reply
    comes after they left."""
    app.config.update(AWAY_MINUTES=5, SMTP_HOST="127.0.0.1", SMTP_PORT=smtp.port)
    response = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Ann", "email": "ann@example.org"}, {"bot": "easy"}]})
    ann = response.json["seats"][0]["api"].replace("http://localhost", "")
    began = datetime.now(timezone.utc)
    for _ in range(3):
        play(client, ann)
        assert scheduler.play_bots(app) == 1
    scheduler.deliver_mail(app)
    assert subjects(smtp, "Your move") == []  # not 3
    assert scheduler.send_turn_emails(app, began + timedelta(minutes=2)) == 0

    assert scheduler.send_turn_emails(app, began + timedelta(minutes=6)) == 1
    assert scheduler.send_turn_emails(app, began + timedelta(minutes=9)) == 0  # once a turn
    scheduler.deliver_mail(app)
    (told,) = [m for m in smtp.messages if m["Subject"].startswith("Your move")]
    last = matches.load(db, response.json["id"]).moves[-1].move
    assert f"Computer (easy) played: {last}" in told.get_body(("plain",)).get_content()

    play(client, ann)  # and the computer answers after Ann has left
    assert scheduler.play_bots(app, began + timedelta(minutes=20)) == 1
    scheduler.deliver_mail(app)
    assert len(subjects(smtp, "Your move")) == 2


def test_an_open_game_page_holds_the_turn_email_back_until_it_is_closed(
        app, client, db, smtp):
    app.config.update(AWAY_MINUTES=5, SMTP_HOST="127.0.0.1", SMTP_PORT=smtp.port)
    game = create(client, "ann@example.org", "bob@example.org")
    began = datetime.now(timezone.utc)
    assert client.get(f"{game.urls[1]}/version").status_code == 200  # Bob's page polls
    play(client, game.apis[0])
    scheduler.deliver_mail(app)
    assert subjects(smtp, "Your move") == []
    assert scheduler.send_turn_emails(app, began + timedelta(minutes=4)) == 0
    assert scheduler.send_turn_emails(app, began + timedelta(minutes=6)) == 1
    scheduler.deliver_mail(app)
    assert [m["To"] for m in smtp.messages if m["Subject"].startswith("Your move")] == [
        "bob@example.org"]
    assert len(list(db.query("SELECT 1 FROM seats WHERE seen_at IS NOT NULL"))) == 1


# -- "Your games" emails ---------------------------------------------------------------------

def test_home_link_emails_can_be_stopped_for_the_address_and_turned_back_on(app, client, db):
    def ask() -> list[dict]:
        db.execute("UPDATE home_links SET created_at = '2000-01-01T00:00:00+00:00'")  # rate limit
        mark = last_id(db)
        page = client.post("/home", data={"email": "Me@Example.org"}, follow_redirects=True)
        assert page.status_code == 200
        assert "We have sent a link" in page.get_data(as_text=True)  # the same answer always
        return after(db, mark)

    (row,) = ask()
    assert row["kind"] == "home" and row["subject"] == "Your games"
    headers = json.loads(row["headers"])
    assert "References" not in headers
    url = one(UNSUBSCRIBE_LINK, row["body"])
    assert headers["List-Unsubscribe"] == f"<http://localhost{url}>"
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert "a list of its games" in client.get(url).get_data(as_text=True)
    assert ask()  # a GET stopped nothing

    assert client.post(url, data={"List-Unsubscribe": "One-Click"}).status_code == 200
    assert ask() == []
    settings = one(SETTINGS_LINK, row["body"])
    page = client.get(settings).get_data(as_text=True)
    assert re.search(r'name="home" value="off" checked', page)
    assert client.post(settings, data={"home": "on"}).status_code == 303
    assert len(ask()) == 1


# One Gmail mailbox, spelt seven ways
MAILBOX_SPELLINGS = ["vic@gmail.com", "Vic@Gmail.com", "v.i.c@gmail.com", "vic+games@gmail.com",
                     "vi.c+x@googlemail.com", "VIC@googlemail.com", "v.ic+1@gmail.com"]


def test_home_link_emails_are_counted_and_stopped_per_mailbox_however_it_is_spelt(client, db):
    mark = last_id(db)
    for spelling in MAILBOX_SPELLINGS * 4:
        assert client.post("/home", data={"email": spelling}).status_code == 303
    (row,) = after(db, mark)  # one within the interval, as for one spelling
    assert client.post(one(UNSUBSCRIBE_LINK, row["body"]),
                       data={"List-Unsubscribe": "One-Click"}).status_code == 200
    for spelling in MAILBOX_SPELLINGS:
        db.execute("UPDATE home_links SET created_at = '2000-01-01T00:00:00+00:00'")
        assert client.post("/home", data={"email": spelling}).status_code == 303
    assert after(db, row["id"]) == []  # the mailbox opted out, whatever the spelling
    assert client.post("/home", data={"email": "vic@example.org"}).status_code == 303
    assert [r["recipient"] for r in after(db, row["id"])] == ["vic@example.org"]


@pytest.mark.one_database  # what an email says
@pytest.mark.parametrize("game, complete", [("mastery", True), ("magnet", True),
                                             ("the-right-moves", True),
                                             ("magnetic-field", False)])
def test_the_legal_move_hint_says_or_more_only_where_the_list_is_partial(app, game, complete):
    assert engine.get(game).lists_every_move is complete
    players = [{"name": "A", "email": "a@example.org"}, {"name": "B", "email": "b@example.org"}]
    options = {"random_setup": True} if game == "magnet" else {}
    with app.test_request_context():
        match = creation.create(get_db(), game, players, options).match
        seat = match.current.to_move[0]
        if game == "magnetic-field":  # past the draft, where the many turns are
            for _ in range(4):
                seat = match.current.to_move[0]
                match = commands.submit(get_db(), match.id, seat, Command.of("move", Move(
                    match.game.legal_moves(match.current, seat)[0]))).match
            seat = match.current.to_move[0]
        hint = notify.legal_hint(match, seat)
    assert re.fullmatch(r"You have \d+ legal moves, for example: .*\.", hint) if complete \
        else re.match(r"You have \d+ or more legal moves\. ", hint)


@pytest.mark.one_database  # what an email says
def test_the_magnetic_field_hint_shows_a_turn_of_each_kind_and_how_to_write_one(app):
    """Not a random sample of thousands of turns: one of each kind, each legal, with words,
    and the notation of the rest."""
    players = [{"name": "A", "email": "a@example.org"}, {"name": "B", "email": "b@example.org"}]
    with app.test_request_context():
        match = creation.create(get_db(), "magnetic-field", players,
                               {"colours": "seat0-blue"}, seed="hint").match
        for move in ("pick K", "pick K", "pick D", "pick D", "K@e5 +e4:n", "K@e6 +e7:s"):
            match = commands.submit(get_db(), match.id, match.current.to_move[0],
                                    Command.of("move", Move(move))).match
        hint = notify.legal_hint(match, 0)
        assert hint == notify.legal_hint(match, 0)  # the same every time
    lines = hint.splitlines()
    count = len(match.game.legal_moves(match.current, 0))
    assert lines[0].startswith(f"You have {count} or more legal moves.")
    assert all(len(line) <= 80 for line in lines)  # fits an email's width
    for notation in ("CODE@cell", "+cell:d", "cell:d ", "cell-cell", "pass"):
        assert notation in hint, notation
    examples = dict(re.fullmatch(r"  (\S+(?: \S+)?) +(.+)", line).groups()
                    for line in lines[lines.index("or it is: pass. For example:") + 1:])
    assert list(examples.values()) == [
        "place a Domination tile, nothing else", "enter on e5 facing north",
        "turn e4 to face east", "move e4 to e5", "a tile, then a figure action",
        "no tile, no figure action"]
    tile, enter, turn, slide, both, _ = examples
    assert re.fullmatch(r"D@[a-j]\d+", tile) and both == f"{tile} {enter}"
    for move in examples:
        match.game.apply(match.current, 0, move)  # each is legal
    assert (enter, turn, slide) == ("+e5:n", "e4:e", "e4-e5")  # near the centre
