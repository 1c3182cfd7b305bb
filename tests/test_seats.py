"""Open seats, join links, the lobby of public challenges and "My games": a game may leave
seats open; each has a join link (a secret like the play links), or, in a public game, an
entry in the lobby; the game starts, and its emails go out, once every seat is taken; a
browser remembers the seats it opened."""
from __future__ import annotations

import logging
import re
import urllib.request
from datetime import timedelta
from email.message import EmailMessage

import pytest
from flask import url_for

import engine
from pbem import commands, creation, links, signals
from pbem.web import browser
from pbem.events import Command, InvalidRequest, Joiner, SeatTaken
from pbem.store import utc
from pbem.jobs import scheduler
from pbem.web.database import get_db
from pbem.mail.inbound import receive

from helpers import NewGame, database_errors, everything_in, normalised, path_of, session_of

ANN = {"name": "Ann", "email": "ann@example.org"}
OPEN = {"open": True}
TOKEN = re.compile(r"[A-Za-z0-9_-]{32}")


def create(client, players, game="mastery", **extra) -> dict:
    response = client.post("/api/games", json={"game": game, "players": players, **extra})
    assert response.status_code == 201, response.json
    return response.json


def join(client, url: str, name: str = "Bob", email: str | None = "bob@example.org"):
    body = {"name": name} if email is None else {"name": name, "email": email}
    return client.post(path_of(url), json=body)


def outbox(db) -> list[dict]:
    return [dict(row) for row in db.query(
        "SELECT recipient, kind, seat, game_id FROM outbox ORDER BY id")]


def kinds(db, game_id: str) -> list[tuple[int | None, str, str | None]]:
    return [(row["seat"], row["kind"], row["move"]) for row in db.query(
        "SELECT seat, kind, move FROM events WHERE game_id = ? ORDER BY seq", [game_id])]


# -- join links ----------------------------------------------------------------------------

def test_an_open_seat_has_a_secret_join_link_instead_of_a_play_link(client, db):
    game = create(client, [ANN, OPEN])
    first, second = game["seats"]
    assert {"url", "api"} <= set(first) and "join" not in first
    assert second["seat"] == 1 and "join" in second and not {"url", "api"} & set(second)
    token = second["join"].rsplit("/", 1)[1]
    assert re.fullmatch(r"http://localhost/join/[A-Za-z0-9_-]{32}", second["join"])
    assert len(token) * 6 >= 128
    dump = everything_in(db)
    assert token not in dump and links.token_hash(token) in dump


def test_a_join_link_takes_its_seat_once(client, db):
    game = create(client, [ANN, OPEN])
    join_url = game["seats"][1]["join"]
    refused = join(client, join_url, name="  ")
    assert refused.status_code == 400 and "name" in refused.json["error"]
    assert join(client, join_url, email="not an address").status_code == 400
    assert kinds(db, game["id"]) == []  # a refused join changes nothing

    taken = join(client, join_url)
    assert taken.status_code == 201
    assert set(taken.json) == {"seat", "url", "api"} and taken.json["seat"] == 1
    mine = client.get(path_of(taken.json["api"])).json
    assert (mine["seat"], mine["players"][1]["name"]) == (1, "Bob")
    assert client.get(path_of(taken.json["url"])).status_code == 200

    again = join(client, join_url, name="Carol", email="carol@example.org")
    assert again.status_code == 409
    assert again.json == {"error": "Someone has already taken this seat (Light)."}
    assert client.get(path_of(game["seats"][0]["api"])).json["players"][1]["name"] == "Bob"

    for unknown in ("/join/" + "Q" * 32, "/join/nonsense"):
        answer = client.post(unknown, json={"name": "Eve"})
        assert answer.status_code == 404 and "error" in answer.json
        assert client.get(unknown).status_code == 404


def test_moves_wait_until_every_seat_is_taken(client):
    game = create(client, [ANN, OPEN])
    api = path_of(game["seats"][0]["api"])
    waiting = client.get(api).json
    assert waiting["open_seats"] == [1]
    assert (waiting["to_move"], waiting["legal_moves"]) == ([], [])
    refused = client.post(f"{api}/moves", json={"move": "d4-d5", "ply": 0})
    assert refused.status_code == 422 and "waiting for players" in refused.json["error"]
    for action, body in (("resign", {}), ("draw", {"answer": "offer"})):
        assert client.post(f"{api}/{action}", json=body).status_code == 422

    taken = join(client, game["seats"][1]["join"]).json
    started = client.get(api).json
    assert "open_seats" not in started and started["to_move"] == [0]
    move = started["legal_moves"][0]
    assert client.post(f"{api}/moves", json={"move": move, "ply": 0}).status_code == 200
    assert client.get(path_of(taken["api"])).json["to_move"] == [1]


def test_start_emails_go_out_once_every_seat_is_taken_to_every_seat_with_an_address(
        client, db):
    carl = {"name": "Carl", "email": "carl@example.org"}
    game = create(client, [ANN, OPEN, carl, OPEN], game="the-right-moves")
    assert outbox(db) == []
    assert join(client, game["seats"][1]["join"]).status_code == 201
    # one seat is still open: only the creator's seats hear who joined
    assert [(m["recipient"], m["kind"], m["seat"]) for m in outbox(db)] == [
        ("ann@example.org", "joined", 0), ("carl@example.org", "joined", 2)]
    assert join(client, game["seats"][3]["join"], name="Dora", email=None).status_code == 201
    assert sorted((m["recipient"], m["kind"], m["seat"]) for m in outbox(db)[2:]) == [
        ("ann@example.org", "start", 0), ("bob@example.org", "start", 1),
        ("carl@example.org", "start", 2)]
    assert [(seat, kind) for seat, kind, _ in kinds(db, game["id"])] == [(1, "join"), (3, "join")]


def test_a_seat_without_an_email_address_is_never_emailed(app, client, db):
    game = create(client, [ANN, OPEN])
    bob = join(client, game["seats"][1]["join"], email="").json
    apis = [path_of(game["seats"][0]["api"]), path_of(bob["api"])]
    move = client.get(apis[0]).json["legal_moves"][0]
    assert client.post(f"{apis[0]}/moves", json={"move": move, "ply": 0}).status_code == 200
    # Bob to move: no turn email, no reminder, no digest even when he asks for one
    assert client.post(f"{path_of(bob['url'])}/email",
                       data={f"notify-{game['id']}-1": "digest"}).status_code == 303
    later = utc.now() + timedelta(days=5)
    assert scheduler.send_reminders(app, later) == 0
    assert scheduler.send_digests(app, later.replace(hour=23)) == 0
    # a reply sent to his seat's reply address is played but answered to nobody
    reply = EmailMessage()
    reply["From"], reply["Subject"] = "bob@example.org", "Re: game"
    reply.set_content(client.get(apis[1]).json["legal_moves"][0])
    token = path_of(bob["url"]).rsplit("/", 1)[1]
    with app.test_request_context():
        result = receive(get_db(), bytes(reply), [f"move+1.{token}@pbem.localhost"])
    assert (result.status, result.answer) == ("recorded", None)
    assert client.post(f"{apis[0]}/resign", json={}).status_code == 200
    assert {m["recipient"] for m in outbox(db)} == {"ann@example.org"}
    assert all(m["recipient"] for m in outbox(db))


def test_the_clock_starts_when_the_last_seat_is_taken(client, db):
    game = create(client, [ANN, OPEN], clock={"mode": "per_move", "days": 3})
    api = path_of(game["seats"][0]["api"])
    assert not any(seat["running"] for seat in client.get(api).json["clocks"])
    join(client, game["seats"][1]["join"])
    joined = db.execute("SELECT created_at FROM events WHERE kind = 'join'").fetchone()[0]
    dark = client.get(api).json["clocks"][0]
    assert dark["running"]
    assert utc.parse(dark["deadline"]) == utc.parse(joined) + timedelta(days=3)


def test_the_creator_may_withdraw_a_game_that_waits_for_players(client, db):
    game = create(client, [ANN, OPEN], public=True)
    api = path_of(game["seats"][0]["api"])
    assert [c["id"] for c in client.get("/api/challenges").json["challenges"]] == [game["id"]]
    withdrawn = client.post(f"{api}/withdraw", json={})
    assert withdrawn.status_code == 200
    assert withdrawn.json["outcome"] == {"winners": [], "draw": False,
                                         "reason": "withdrawn before it started"}
    assert "open_seats" not in withdrawn.json
    assert client.get("/api/challenges").json == {"challenges": []}
    late = join(client, game["seats"][1]["join"])
    assert late.status_code == 409 and "withdrawn" in late.json["error"]
    assert client.post(f"{api}/withdraw", json={}).status_code == 422
    assert kinds(db, game["id"]) == [(0, "withdraw", None)]
    assert outbox(db) == []  # a game that never started emails nobody


def test_only_the_creator_withdraws_and_only_before_the_start(client):
    carl = {"name": "Carl", "email": "carl@example.org"}
    four = create(client, [ANN, OPEN, carl, OPEN], game="the-right-moves")
    joined = join(client, four["seats"][1]["join"]).json
    refused = client.post(f"{path_of(joined['api'])}/withdraw", json={})
    assert refused.status_code == 422 and "creator" in refused.json["error"]
    two = create(client, [ANN, OPEN])
    join(client, two["seats"][1]["join"])
    assert client.post(f"{path_of(two['seats'][0]['api'])}/withdraw", json={}).status_code == 422
    started = create(client, [ANN, {"name": "Bob", "email": "bob@example.org"}])
    assert client.post(f"{path_of(started['seats'][0]['api'])}/withdraw",
                       json={}).status_code == 422


def test_the_creator_makes_new_join_links_while_the_game_waits(client):
    game = create(client, [ANN, OPEN])
    page = path_of(game["seats"][0]["url"])
    assert f'action="{page}/invite"' in client.get(page).get_data(as_text=True)
    made = client.post(f"{page}/invite")
    assert made.status_code == 303 and made.location == f"/games/{game['id']}/links"
    shown = client.get(made.location).text
    (new_link,) = re.findall(r'class="join-link" data-seat="1" href="([^"]+)"', shown)
    assert new_link != game["seats"][1]["join"] and "New join links" in shown
    assert f'class="seat-link" data-seat="0" href="{game["seats"][0]["url"]}"' in shown
    taken = join(client, new_link)
    assert taken.status_code == 201
    assert join(client, game["seats"][1]["join"]).status_code == 409  # the seat is taken
    assert client.post(f"{page}/invite").status_code == 422  # the game has started
    assert client.post(f"{path_of(taken.json['url'])}/invite").status_code == 422


def test_the_log_records_joins_and_withdrawals_and_stays_append_only(client, db):
    game = create(client, [ANN, OPEN])
    join(client, game["seats"][1]["join"])
    assert kinds(db, game["id"]) == [(1, "join", None)]
    with pytest.raises(database_errors(), match="append-only"):
        db.execute("UPDATE events SET seat = 0 WHERE kind = 'join'")
    record = client.get(path_of(game["seats"][0]["url"]) + "/record.json").json
    assert [e["action"] for e in record["events"]] == ["join"]


def test_a_join_is_a_command_like_any_other(app, client, db):
    """Taking a seat goes the one way every event goes (``commands.submit``, the ``join``
    kind with the player as its payload): the kind's check refuses what the join page
    refuses, the player is kept in the seat's row, and the log's join carries nothing."""
    game = create(client, [ANN, OPEN])
    heard = []
    with app.test_request_context(), signals.event_recorded.connected_to(
                lambda sender, *, before, after, event, latest: heard.append(
                    (event.kind, event.seat, after.seats[1].name))):
        with pytest.raises(InvalidRequest, match="name"):
            commands.submit(get_db(), game["id"], 1, Command.of("join", Joiner("  ")))
        with pytest.raises(InvalidRequest, match="email address"):
            commands.submit(get_db(), game["id"], 1,
                            Command.of("join", Joiner("Bob", "not an address")))
        joined = commands.submit(get_db(), game["id"], 1,
                                 Command.of("join", Joiner(" Bob ", "bob@example.org")))
        assert (joined.kind, joined.match.seats[1].name, joined.match.seats[1].email) == (
            "join", "Bob", "bob@example.org")
        assert not joined.match.waiting  # the last open seat: the game starts
        with pytest.raises(SeatTaken):
            commands.submit(get_db(), game["id"], 1, Command.of("join", Joiner("Cid")))
    assert heard == [("join", 1, "Bob")]
    assert kinds(db, game["id"]) == [(1, "join", None)]
    assert [row["kind"] for row in outbox(db)].count("start") == 2  # Ann's and Bob's


# -- the lobby -----------------------------------------------------------------------------

def test_public_challenges_are_listed_until_their_seats_are_taken(client):
    private = create(client, [ANN, OPEN])
    public = create(client, [ANN, OPEN], options={"setup": "crown"},
                    clock={"mode": "per_move", "days": 5}, public=True)
    four = create(client, [{"name": "Carl", "email": "carl@example.org"}, OPEN, OPEN, OPEN],
                  game="the-right-moves", public=True)
    listed = client.get("/api/challenges").json["challenges"]
    assert [(c["id"], c["seat"]) for c in listed] == [
        (public["id"], 1), (four["id"], 1), (four["id"], 2), (four["id"], 3)]
    entry = listed[0]
    assert entry["game"] == "mastery" and entry["players"] == ["Ann"]
    assert entry["options"] == {"setup": "crown", "repetition_draw": True}
    assert entry["time_control"]["days"] == 5 and entry["created_at"]
    assert entry["join"] == f"http://localhost/lobby/{public['id']}/1"
    assert private["id"] not in client.get("/lobby").get_data(as_text=True)

    taken = join(client, entry["join"])
    assert taken.status_code == 201 and taken.json["seat"] == 1
    assert join(client, entry["join"], name="Carol").status_code == 409
    join(client, listed[2]["join"], name="Dora")
    assert [(c["id"], c["seat"]) for c in client.get("/api/challenges").json["challenges"]] == [
        (four["id"], 1), (four["id"], 3)]
    assert client.get(path_of(four["seats"][0]["api"])).json["open_seats"] == [1, 3]
    # a private game's seats cannot be taken by its id
    assert client.post(f"/lobby/{private['id']}/1", json={"name": "Eve"}).status_code == 404
    assert client.get(f"/lobby/{public['id']}/7").status_code == 404


def test_a_public_challenge_needs_a_waiting_player_and_an_open_seat(client):
    for players in ([ANN, {"name": "Bob", "email": "bob@example.org"}], [OPEN, OPEN]):
        refused = client.post("/api/games", json={"game": "mastery", "players": players,
                                                  "public": True})
        assert refused.status_code == 400 and "public" in refused.json["error"]
    assert client.post("/api/games", json={"game": "mastery", "players": [ANN, OPEN],
                                           "public": "yes"}).status_code == 400
    assert client.post("/api/games", json={"game": "mastery",
                                           "players": [ANN, {"open": 1}]}).status_code == 400


@pytest.mark.one_database  # the pages' words
@pytest.mark.parametrize("colours, joiner", [("seat0-blue", "Red"), ("seat0-red", "Blue")])
def test_join_and_lobby_pages_name_options_in_the_form_s_words_for_their_reader(
        client, colours, joiner):
    """Option values are shown in the words of the form that creates the game, as the
    player joining reads them: never a code such as "seat0-blue"."""
    game = create(client, [ANN, OPEN], game="magnetic-field", options={"colours": colours},
                  public=True)
    join_page = client.get(path_of(game["seats"][1]["join"])).get_data(as_text=True)
    for page in (join_page, client.get("/lobby").get_data(as_text=True)):
        assert f"Colours: You play {joiner}" in page and colours not in page
    mastery = create(client, [ANN, OPEN], options={"repetition_draw": False})
    page = client.get(path_of(mastery["seats"][1]["join"])).get_data(as_text=True)
    assert "Starting position: Imperial; Draw by threefold repetition: no" in page


def test_the_lobby_page_lists_each_challenge_with_a_join_form(client):
    game = create(client, [ANN, OPEN], options={"setup": "crown"}, public=True)
    page = client.get("/lobby").get_data(as_text=True)
    assert "Mastery" in page and "Ann" in page and "Starting position: Crown" in page
    assert "no time limit" in page
    assert f'action="/lobby/{game["id"]}/1"' in page
    joined = client.post(f"/lobby/{game['id']}/1", data={"name": "Bob", "email": ""})
    assert joined.status_code == 303 and joined.location.startswith("/play/")
    assert "Bob" in client.get(joined.location).get_data(as_text=True)
    assert game["id"] not in client.get("/lobby").get_data(as_text=True)


@pytest.mark.one_database  # what the lobby draws, not how it is stored
@pytest.mark.parametrize("game_id, options, seeds", [
    ("magnet", {"random_setup": True}, ("seed-a", "seed-b")),
    ("magnetic-field", {}, ("seed-a", "seed-b")),
])
def test_the_lobby_reveals_nothing_a_seed_decides(app, client, monkeypatch, game_id, options,
                                                   seeds):
    """Two games that differ only in their secret seed look the same in the lobby, in the
    challenges API and on their join pages, byte for byte (created at the same moment: the
    lobby says since when, to the minute)."""
    now = utc.now()
    monkeypatch.setattr(utc, "now", lambda: now)
    game = engine.get(game_id)
    starts = [game.start(2, options, seed) for seed in seeds]
    assert starts[0] != starts[1]
    if game_id == "magnetic-field":  # the colours are dealt from the seed
        assert game.side_name(starts[0], 1) != game.side_name(starts[1], 1)
    seen = []
    for seed in seeds:
        with app.test_request_context():
            created = creation.create(get_db(), game_id, [ANN, OPEN], options, seed=seed,
                                     public=True)
            join_page = url_for("lobby.join", token=created.joins[1])
            creator = url_for("api.game", role="play", token=created.tokens[0])
        shown = NewGame(created.match.id, [], [], "")
        seen.append([normalised(client.get(path).get_data(as_text=True), shown)
                     for path in ("/api/challenges", "/lobby", join_page,
                                  f"/lobby/{created.match.id}/1")])
        assert client.post(f"{creator}/withdraw", json={}).status_code == 200
    assert seen[0] == seen[1]


# -- secrets in logs -----------------------------------------------------------------------

@pytest.mark.one_database  # what is logged
def test_no_join_link_reaches_a_log_line(app, client, live_server, caplog):
    game = create(client, [ANN, OPEN])
    path = path_of(game["seats"][1]["join"])
    token = path.rsplit("/", 1)[1]
    caplog.set_level(logging.INFO)
    with urllib.request.urlopen(f"{live_server}{path}") as response:
        assert response.status == 200
    app.logger.error("Exception on %s [POST]", path)
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "/join/[secret]" in logged and token not in logged


# -- my games ------------------------------------------------------------------------------

def remembered(client) -> list[list]:
    """The seats in the client's session cookie."""
    return session_of(client).get("seats", [])


def game_ids_in(section: str, page: str) -> list[str]:
    found = re.search(rf'<section class="my-games {section}">(.*?)</section>', page, re.S)
    return re.findall(r'data-game="([^"]+)"', found.group(1)) if found else []


def test_my_games_lists_the_seats_this_browser_opened_your_turn_first(client, new_game):
    yours, theirs, over = new_game(), new_game(), new_game()
    client.post(f"{over.apis[0]}/resign", json={})
    for game in (over, theirs, yours):
        client.get(game.urls[0])  # Dark's pages: Dark is to move in the first two
    client.get(yours.urls[1])
    move = client.get(theirs.apis[0]).json["legal_moves"][0]
    client.post(f"{theirs.apis[0]}/moves", json={"move": move, "ply": 0})
    page = client.get("/games").get_data(as_text=True)
    assert game_ids_in("your-turn", page) == [yours.id]
    assert game_ids_in("waiting", page) == [yours.id, theirs.id]  # Light's seat of yours
    assert game_ids_in("finished", page) == [over.id]
    assert page.index('class="my-games your-turn"') < page.index('class="my-games waiting"') \
        < page.index('class="my-games finished"')
    # no secret link on the page: each game opens with a fresh one
    assert not TOKEN.search(page)
    opened = client.post(f"/games/{theirs.id}/0")
    assert opened.status_code == 303 and opened.location.startswith("/play/")
    assert client.get(opened.location).get_data(as_text=True).count("(you)") == 1
    assert client.post(f"/games/{theirs.id}/1").status_code == 404  # never opened here


def test_my_games_says_what_waits_for_each_seat(client, new_game):
    """A seat may be waited for by its turn, a draw offer or a partner's proposal that
    the team resign (The Right Moves for four: teams 0 and 2, 1 and 3)."""
    draw, team = new_game(), new_game("the-right-moves", players=4, names=["Ann", "Bob",
                                                                          "Cid", "Dee"])
    client.post(f"{draw.apis[0]}/draw", json={"answer": "offer"})
    client.post(f"{team.apis[1]}/resign", json={})  # Bob proposes it to Dee
    for url in (draw.urls[1], team.urls[3]):
        client.get(url)
    page = client.get("/games").get_data(as_text=True)
    assert game_ids_in("your-turn", page) == [team.id, draw.id]
    states = re.findall(r'<span class="state">(.*?)</span>', page, re.S)
    assert states == ["Bob proposes that your team resign", "Dark offers a draw"]


def test_my_games_shows_the_time_left_when_a_clock_runs(client):
    game = create(client, [ANN, {"name": "Bob", "email": "bob@example.org"}],
                  clock={"mode": "per_move", "days": 3})
    client.get(path_of(game["seats"][0]["url"]))
    page = client.get("/games").get_data(as_text=True)
    assert "your turn: 2 days 23 hours left" in page


@pytest.mark.one_database  # the cookie, not the database
def test_the_cookie_is_signed_http_only_lax_holds_no_link_and_stays_small(client, new_game):
    game = new_game()
    response = client.get(game.urls[0])
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    assert remembered(client) == [[game.id, 0]]
    assert game.urls[0].rsplit("/", 1)[1] not in cookie
    # a forged cookie (the list changed, the signature kept) is not believed
    value = client.get_cookie("session").value
    client.set_cookie("session", value.replace(value[5], "A" if value[5] != "A" else "B", 1))
    assert game.id not in client.get("/games").get_data(as_text=True)

    games = [new_game() for _ in range(browser.MAX_REMEMBERED + 5)]
    for game in games:
        client.get(game.urls[0])
    kept = remembered(client)
    assert kept == [[game.id, 0] for game in games[-browser.MAX_REMEMBERED:]]
    assert len(client.get_cookie("session").value) < 1500


def test_forget_this_browser_empties_the_list(client, new_game):
    game = new_game()
    client.get(game.urls[0])
    assert game.id in client.get("/games").get_data(as_text=True)
    assert client.post("/games/forget").status_code == 400  # unticked: nothing forgotten
    assert game.id in client.get("/games").get_data(as_text=True)
    forgot = client.post("/games/forget", data={"confirm": "yes"})
    assert forgot.status_code == 303 and remembered(client) == []
    assert game.id not in client.get("/games").get_data(as_text=True)
    assert client.get(game.urls[0]).status_code == 200  # the link itself still works


def test_a_copy_of_a_forgotten_cookie_lists_and_opens_nothing(app, client, new_game):
    """"Forget this browser" forgets the list on the server too, not only in this cookie."""
    game = new_game()
    client.get(game.urls[0])
    copied = client.get_cookie("session").value
    thief = app.test_client()
    thief.set_cookie("session", copied)
    assert game.id in thief.get("/games").get_data(as_text=True)
    assert client.post("/games/forget", data={"confirm": "yes"}).status_code == 303
    for _ in range(2):  # the copy as it was, each time
        thief.set_cookie("session", copied)
        assert game.id not in thief.get("/games").get_data(as_text=True)
        thief.set_cookie("session", copied)
        assert thief.post(f"/games/{game.id}/0").status_code == 404
    # both browsers start lists of their own, which work as before
    for visitor in (client, thief):
        visitor.get(game.urls[1])
        assert game.id in visitor.get("/games").get_data(as_text=True)
        assert visitor.post(f"/games/{game.id}/1").status_code == 303


def test_the_cookie_is_secure_when_the_server_is_reached_over_https(tmp_path, monkeypatch):
    from pbem import create_app

    monkeypatch.setenv("PBEM_INSTANCE", str(tmp_path / "instance"))
    app = create_app({"DATABASE": str(tmp_path / "db.sqlite"), "SECRET_KEY": "test",
                      "PUBLIC_URL": "https://games.example.org"})
    client = app.test_client()
    game = create(client, [ANN, {"name": "Bob", "email": "bob@example.org"}])
    cookie = client.get(path_of(game["seats"][0]["url"]),
                        base_url="https://games.example.org").headers["Set-Cookie"]
    assert "Secure" in cookie


# -- the new-game form ---------------------------------------------------------------------

def test_the_form_leaves_a_seat_open_and_shows_its_join_link(client):
    form = {"name0": "Ann", "email0": "ann@example.org", "open1": "yes", "public": "yes"}
    created = client.post("/new/mastery", data=form, follow_redirects=True)
    page = created.get_data(as_text=True)
    assert created.status_code == 200 and "The game waits for players" in page
    (join_url,) = re.findall(r'class="join-link" data-seat="1" href="([^"]+)"', page)
    assert re.fullmatch(r"http://localhost/join/[A-Za-z0-9_-]{32}", join_url)
    assert len(client.get("/api/challenges").json["challenges"]) == 1
    assert remembered(client)[0][1] == 0  # the creator's seat
    refused = client.post("/new/mastery", data={"name0": "Ann", "email0": "ann@example.org",
                                                "name1": "", "email1": ""})
    assert refused.status_code == 400 and "Player 2 needs a name" in refused.get_data(
        as_text=True)
