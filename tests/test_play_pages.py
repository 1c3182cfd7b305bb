"""The pages a secret link opens, without a browser: playing by clicks (links) and by typed
notation, errors that change nothing, resign and draw, history plies, record downloads."""
from __future__ import annotations

import json
import random
import re
from html import unescape

import pytest

import engine
from pbem.web import browser
from pbem.store import utc
from pbem.store.db import connect

from helpers import confirm_move, links_in, session_of

# What is checked is what the pages draw and say; the moves' path into storage is the API's
# and the core's, tested on both engines (test_api, test_stale_moves).
pytestmark = pytest.mark.one_database

MASTERY = engine.get("mastery")


def form_move(client, url: str, move: str, ply: int, **kwargs):
    return client.post(f"{url}/move", data={"move": move, "ply": ply}, **kwargs)


def event_count(app) -> int:
    return connect(app.config["DATABASE"]).execute("SELECT count(*) FROM events").fetchone()[0]


def test_the_play_page_shows_the_board_the_turn_and_the_move_forms(client, new_game):
    game = new_game()
    page = client.get(game.urls[0])
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="board mastery"' in html
    assert html.count('class="piece owner0"') == 13 and html.count('class="piece owner1"') == 13
    assert "Your turn." in html and 'name="move"' in html and 'name="version" value="0"' in html
    assert "All legal moves (40)" in html
    waiting = client.get(game.urls[1]).get_data(as_text=True)
    assert "Waiting for Player 1 (Dark)" in waiting and 'name="move"' not in waiting


def test_clicking_a_piece_then_a_target_builds_the_move_without_javascript(client, new_game):
    game = new_game()
    start = client.get(game.urls[0]).get_data(as_text=True)
    assert 'href="/play/' in start and "?path=e3" in start  # every movable piece is a link
    selected = client.get(f"{game.urls[0]}?path=e3").get_data(as_text=True)
    links = set(re.findall(r"\?path=e3\.([a-h][1-8])", selected))
    assert links == {"e4", "e5"}  # an Officer: e4 (move), e5 (capture); e2 is blocked
    assert "Selected: <strong>e3</strong>" in selected
    chosen = client.get(f"{game.urls[0]}?path=e3.e4").get_data(as_text=True)
    assert 'id="confirm-move">Play e3-e4</button>' in chosen
    done = client.post(f"{game.urls[0]}/move", data={"move": "e3-e4", "ply": 0})
    assert done.status_code == 303 and done.headers["Location"].endswith(game.urls[0])
    assert "You played e3-e4." in client.get(game.urls[0]).get_data(as_text=True)


def test_a_stale_or_unknown_click_path_starts_over(client, new_game):
    game = new_game()
    html = client.get(f"{game.urls[0]}?path=a1.h8").get_data(as_text=True)
    assert "Selected:" not in html and "Click one of your pieces" in html


def resurrection_game(client, new_game):
    """A game played (through the API) up to a position where Dark may capture an enemy
    Officer and bring a Pawn back; returns the game and that capture."""
    rng = random.Random(7)
    for _ in range(200):
        state = MASTERY.start(2, {}, "x")
        moves = []
        for _ in range(60):
            seat = state.to_move[0]
            legal = MASTERY.legal_moves(state, seat)
            reviving = [m for m in legal if "=P@" in m]
            if seat == 0 and reviving:
                game = new_game()
                for ply, (s, m) in enumerate(moves):
                    client.post(f"{game.apis[s]}/moves", json={"move": m, "ply": ply})
                return game, reviving[0].split("=")[0], len(moves)
            move = rng.choice(legal)
            state = MASTERY.apply(state, seat, move)
            moves.append((seat, move))
            if state.outcome:
                break
    pytest.fail("no resurrection position found")


def test_resurrection_is_offered_as_a_choice_after_the_capture(client, new_game):
    game, capture, ply = resurrection_game(client, new_game)
    origin, target = capture.split("x")
    html = client.get(f"{game.urls[0]}?path={origin}.{target}").get_data(as_text=True)
    # no default: the capture is played only once "no resurrection" is chosen explicitly
    assert confirm_move(html) is None
    assert "Bring back a Pawn" in html and "No resurrection" in html
    assert set(links_in(html)) >= {"P", "none"}
    without = client.get(f"{game.urls[0]}?path={origin}.{target}.none").get_data(as_text=True)
    assert confirm_move(without) == capture
    assert f"Selected: <strong>{origin} → {target} → no resurrection</strong>" in without
    chosen = client.get(f"{game.urls[0]}?path={origin}.{target}.P").get_data(as_text=True)
    square = re.findall(rf"\?path={origin}\.{target}\.P\.([a-h][1-8])", chosen)[0]
    final = client.get(f"{game.urls[0]}?path={origin}.{target}.P.{square}").get_data(as_text=True)
    assert f"Play {capture}=P@{square}</button>" in final
    assert form_move(client, game.urls[0], f"{capture}=P@{square}", ply).status_code == 303


def test_a_typed_move_is_recorded_in_canonical_notation(app, client, new_game):
    game = new_game()
    assert form_move(client, game.urls[0], "  D4 X C5 ", 0).status_code == 303
    assert client.get(game.apis[0]).json["ply"] == 1
    assert connect(app.config["DATABASE"]).execute("SELECT move FROM events").fetchone()[0] == "d4xc5"


@pytest.mark.parametrize("move, status, words", [
    ("d4-d6", 422, "cannot go to d6"),
    ("hello", 422, "not a Mastery move"),
    ("", 422, "Write a move"),
])
def test_an_illegal_move_is_explained_and_changes_nothing(app, client, new_game, move, status, words):
    game = new_game()
    response = form_move(client, game.urls[0], move, 0)
    html = response.get_data(as_text=True)
    assert response.status_code == status
    assert words in html and 'class="error"' in html
    assert f'value="{move}"' in html  # the typed text is kept for correcting
    assert event_count(app) == 0


def test_a_move_from_a_stale_page_is_refused(app, client, new_game):
    game = new_game()
    form_move(client, game.urls[0], "d4xc5", 0)
    response = form_move(client, game.urls[1], "b6xc5", 0)  # Light's page still showed ply 0
    assert response.status_code == 409
    assert "moved on" in response.get_data(as_text=True)
    assert event_count(app) == 1


def test_a_double_submit_records_one_move(app, client, new_game):
    game = new_game()
    first = form_move(client, game.urls[0], "d4xc5", 0)
    second = form_move(client, game.urls[0], "d4 x c5", 0)
    assert first.status_code == second.status_code == 303
    assert "already recorded" in client.get(game.urls[0]).get_data(as_text=True)
    assert event_count(app) == 1
    other = form_move(client, game.urls[0], "e3-e4", 0)  # a different move from the old page
    assert other.status_code == 409 and event_count(app) == 1


def test_forms_without_the_ply_are_refused(client, new_game):
    game = new_game()
    response = client.post(f"{game.urls[0]}/move", data={"move": "d4xc5"})
    assert response.status_code == 400 and "Reload" in response.get_data(as_text=True)


def test_resigning_needs_confirmation(client, new_game):
    game = new_game()
    refused = client.post(f"{game.urls[0]}/resign", data={"ply": 0})
    assert refused.status_code == 400 and "tick" in refused.get_data(as_text=True)
    done = client.post(f"{game.urls[0]}/resign", data={"ply": 0, "confirm": "yes"})
    assert done.status_code == 303
    html = client.get(game.urls[1]).get_data(as_text=True)
    assert "<strong>Game over</strong> — Player 2 won: Player 1 resigned." in html
    assert 'name="move"' not in html and "Resign" not in html


def test_draw_offer_and_acceptance_through_forms(client, new_game):
    game = new_game()
    client.post(f"{game.urls[0]}/draw", data={"ply": 0, "answer": "offer"})
    html = client.get(game.urls[1]).get_data(as_text=True)
    assert "Player 1 offers a draw: accept or decline it." in html and 'value="accept"' in html
    assert 'value="offer"' not in client.get(game.urls[0]).get_data(as_text=True)
    client.post(f"{game.urls[1]}/draw", data={"ply": 0, "answer": "accept"})
    assert "<strong>Game over</strong> — Draw: draw agreed." in \
        client.get(game.urls[0]).get_data(as_text=True)
    bad = client.post(f"{game.urls[0]}/draw", data={"ply": 0, "answer": "perhaps"})
    assert bad.status_code == 400


def play_moves(client, game, moves):
    for ply, (seat, move) in enumerate(moves):
        assert client.post(f"{game.apis[seat]}/moves", json={"move": move, "ply": ply}).status_code == 200


def test_every_ply_has_a_history_page_with_navigation(client, new_game):
    game = new_game()
    play_moves(client, game, [(0, "d4xc5"), (1, "b6xc5"), (0, "f4xe5")])
    for ply in range(4):
        html = client.get(f"{game.urls[1]}/history/{ply}").get_data(as_text=True)
        assert f"Position after ply {ply} of 3" in html
        assert f'rel="first" href="{game.urls[1]}/history/0"' in html
        assert f'rel="last" href="{game.urls[1]}/history/3"' in html
        assert (f'rel="prev" href="{game.urls[1]}/history/{ply - 1}"' in html) == (ply > 0)
        assert (f'rel="next" href="{game.urls[1]}/history/{ply + 1}"' in html) == (ply < 3)
        assert 'name="move"' not in html  # reviewing is read-only
    first = client.get(f"{game.urls[1]}/history/1").get_data(as_text=True)
    assert f'<a href="{game.urls[1]}/history/1" aria-current=step>' in first
    assert 'data-cell="c5" role="img" aria-label="c5: Dark Pawn">' in first  # after d4xc5
    assert 'aria-label="Light, off the board: 1 Pawn"' in first
    assert 'aria-label="Dark, off the board: none"' in first
    assert client.get(f"{game.urls[1]}/history/4").status_code == 404
    assert client.get(f"{game.watch}/history/2").status_code == 200


def test_the_move_list_links_every_ply(client, new_game):
    game = new_game()
    play_moves(client, game, [(0, "d4xc5"), (1, "b6xc5")])
    html = client.get(game.urls[0]).get_data(as_text=True)
    assert f'<a href="{game.urls[0]}/history/1"><span class="side">Dark</span> d4xc5</a>' in html
    assert f'<a href="{game.urls[0]}/history/2"><span class="side">Light</span> b6xc5</a>' in html


def notices(html: str) -> list[str]:
    return [unescape(n) for n in re.findall(r'<p class="notice offers">([^<]*)</p>', html)]


def test_a_declined_draw_is_told_to_the_offerer_until_they_move(client, new_game):
    game = new_game(names=["Ann", "Bob"])
    page = lambda url: client.get(url).get_data(as_text=True)  # noqa: E731
    client.post(f"{game.urls[0]}/draw", data={"ply": 0, "answer": "offer"})
    assert notices(page(game.urls[0])) == ["You offer a draw."]
    assert notices(page(game.watch)) == ["Ann offers a draw."]
    client.post(f"{game.urls[1]}/draw", data={"ply": 0, "answer": "decline"})
    assert notices(page(game.urls[0])) == ["Bob declined your draw offer."]
    assert notices(page(game.urls[1])) == ["You declined Ann's draw offer."]
    assert notices(page(game.watch)) == ["Bob declined Ann's draw offer."]
    form_move(client, game.urls[0], "d4xc5", 0)
    assert notices(page(game.urls[0])) == []  # the offerer has moved on since
    # Moving instead of answering declines too, and says so.
    client.post(f"{game.urls[0]}/draw", data={"ply": 1, "answer": "offer"})
    form_move(client, game.urls[1], "b6xc5", 1)
    assert notices(page(game.urls[0])) == ["Bob played on instead of accepting your draw offer."]


def test_a_finished_game_says_so_first_on_every_page(client, new_game):
    game = new_game(names=["Ann", "Bob"])
    form_move(client, game.urls[0], "d4xc5", 0)
    assert "game-over" not in client.get(game.urls[0]).get_data(as_text=True)
    client.post(f"{game.urls[1]}/resign", data={"ply": 1, "confirm": "yes"})
    banner = ('<div id="game" data-ply="1" data-said="Ann played d4xc5">\n  <p class="game-over" '
              'role="status"><strong>Game over</strong> — Ann won: Bob resigned.</p>\n  <h1>')
    for url in (game.urls[0], game.urls[1], game.watch):
        assert banner in client.get(url).get_data(as_text=True), url
        history = client.get(f"{url}/history/0").get_data(as_text=True)
        assert banner.replace('data-ply="1" data-said="Ann played d4xc5"',
                              'data-ply="0" data-said=""') in history, url


def test_a_team_resigns_from_the_page_only_when_the_partner_confirms(client, new_game):
    game = new_game("the-right-moves", players=4, names=["Ann", "Bob", "Cid", "Dee"])
    page = lambda seat: client.get(game.urls[seat]).get_data(as_text=True)  # noqa: E731
    assert "Propose resigning" in page(0) and "I want my team to resign" in page(0)
    refused = client.post(f"{game.urls[0]}/resign", data={"ply": 0})
    assert refused.status_code == 400  # the box must be ticked
    assert client.post(f"{game.urls[0]}/resign",
                       data={"ply": 0, "confirm": "yes"}).status_code == 303
    assert notices(page(0)) == ["You propose that your team resign; waiting for Cid to "
                                "confirm."]
    assert "Propose resigning" not in page(0)
    assert "You proposed resigning: your team resigns once Cid confirms." in page(0)
    partner = page(2)
    assert notices(partner) == ["Ann proposes that your team resign: resign together, or "
                                "play on."]
    assert "Resign with Ann" in partner and 'value="decline">Play on</button>' in partner
    for opponent in (1, 3):  # a team's deliberation is its own
        assert notices(page(opponent)) == [] and "Propose resigning" in page(opponent)
    assert client.post(f"{game.urls[2]}/resign",
                       data={"ply": 0, "answer": "decline"}).status_code == 303
    assert notices(page(0)) == ["Cid declined your proposal to resign: your team plays on."]
    assert "game-over" not in page(0) and "Propose resigning" in page(0)

    client.post(f"{game.urls[0]}/resign", data={"ply": 0, "confirm": "yes"})
    client.post(f"{game.urls[2]}/resign", data={"ply": 0, "confirm": "yes"})
    for seat in range(4):
        assert "<strong>Game over</strong> — Bob and Dee won (team Blue): team Red " \
               "resigned." in page(seat)


def test_game_records_download_as_json_and_text(client, new_game):
    game = new_game()
    play_moves(client, game, [(0, "d4xc5"), (1, "b6xc5")])
    client.post(f"{game.apis[1]}/draw", json={"answer": "offer"})
    response = client.get(f"{game.urls[0]}/record.json")
    assert response.headers["Content-Disposition"].startswith("attachment")
    record = json.loads(response.data)
    assert [e.get("move") for e in record["events"]] == ["d4xc5", "b6xc5", None]
    assert [e["action"] for e in record["events"]] == ["move", "move", "draw_offer"]
    assert record["players"][0] == {"seat": 0, "side": "Dark", "name": "Player 1"}
    assert "seed" not in record and "email" not in json.dumps(record)
    text = client.get(f"{game.watch}/record.txt").get_data(as_text=True)
    assert "   1. Dark: d4xc5" in text and "   2. Light: b6xc5" in text
    assert "Player 2 (Light): draw offer" in text and "Result: in progress" in text
    client.post(f"{game.apis[0]}/resign", json={})
    finished = json.loads(client.get(f"{game.urls[1]}/record.json").data)
    assert finished["seed"] and finished["outcome"]["winners"] == [1]


def test_a_text_record_names_the_options_as_its_reader_reads_them(client, new_game):
    game = new_game("magnetic-field", options={"colours": "seat0-red"})
    records = [client.get(f"{url}/record.txt").text for url in (*game.urls, game.watch)]
    assert "\nColours: You play Red\n" in records[0]
    assert "\nColours: You play Blue\n" in records[1]
    assert "Colours" not in records[2] and "seat0" not in "".join(records)  # its sides say it


def test_a_spectator_sees_the_game_and_can_do_nothing(client, new_game):
    game = new_game()
    html = client.get(game.watch).get_data(as_text=True)
    assert "(spectating)" in html and "<svg" in html
    assert "<form" not in html and "?path=" not in html
    token = game.watch.rsplit("/", 1)[1]
    assert client.post(f"/play/{token}/move", data={"move": "d4xc5", "ply": 0}).status_code == 404
    assert client.get(f"/play/{token}").status_code == 404
    player_token = game.urls[0].rsplit("/", 1)[1]
    assert client.get(f"/watch/{player_token}").status_code == 404


def test_unknown_links_get_a_readable_404(client, new_game):
    new_game()
    response = client.get("/play/" + "Z" * 32)
    assert response.status_code == 404
    assert "does not open any game" in response.get_data(as_text=True)


def test_the_new_game_form_creates_a_game_and_shows_the_links(app, client, db, monkeypatch):
    form = client.get("/new/mastery").get_data(as_text=True)
    assert 'name="name1"' in form and 'name="option-setup"' in form
    response = client.post("/new/mastery", data={
        "players": "2", "name0": "Ann", "email0": "ann@example.org", "name1": "Bob",
        "email1": "bob@example.org", "option-setup": "crown", "option-repetition_draw": "false"})
    # Post/Redirect/Get: the links' page, whose reload starts no second game (nor emails)
    (game_id,) = [row[0] for row in db.execute("SELECT id FROM games")]
    assert response.status_code == 303 and response.location == f"/games/{game_id}/links"
    html = client.get(response.location).text
    assert client.get(response.location).text == html
    assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1
    seat_links = re.findall(r'class="seat-link" data-seat="\d" href="http://localhost(/play/[^"]+)"', html)
    assert len(seat_links) == 2 and 'class="spectator-link"' in html
    # kept for that page in this browser alone, sealed (only the links' hashes are stored),
    # for a day
    assert not any(link.rsplit("/", 1)[1] in json.dumps(session_of(client))
                   for link in seat_links)
    assert app.test_client().get(response.location).status_code == 404
    later = utc.now() + browser.SHOWN_FOR
    monkeypatch.setattr(utc, "now", lambda: later)
    assert "shown once" in client.get(response.location).text
    api = seat_links[0].replace("/play/", "/api/play/")
    body = client.get(api).json
    assert body["view"]["board"]["c1"]["piece"] == "M"  # crown
    assert client.get(api).json["players"][1]["name"] == "Bob"


@pytest.mark.parametrize("game", engine.GAMES)
def test_the_new_game_form_names_option_values_in_words(client, game):
    form = client.get(f"/new/{game}").get_data(as_text=True)
    for option in engine.get(game).options:
        select = re.search(rf'<select name="option-{option.name}">(.*?)</select>', form, re.S)[1]
        shown = dict(re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select))
        assert list(shown) == [str(c).lower() for c in option.choices]  # what the form posts
        for text in shown.values():  # words, not codes such as "seat0-blue"
            assert re.fullmatch(r"[A-Za-z][a-z]*(?: [A-Za-z0-9][a-z]*)*", text), text
    if game == "magnetic-field":
        assert list(shown.values()) == ["drawn at random", "You play Blue", "You play Red"]


def test_the_new_game_form_explains_what_is_wrong(client):
    response = client.post("/new/mastery", data={"players": "2", "name0": "Ann",
                                                 "email0": "nope", "name1": "Bob",
                                                 "email1": "bob@example.org"})
    html = response.get_data(as_text=True)
    assert response.status_code == 400 and "valid email" in html
    assert 'value="Ann"' in html  # what was typed is kept
    assert client.get("/new/chess").status_code == 404
