"""Game pages drawn once and reused (pbem/web/play.py): each board once per game, event, viewer,
ply and selection; each page once per everything its viewer sees, answered 304 Not Modified
when the viewer's copy (its ETag) is current; the legal moves generated once per position
and seat, whatever clicks build the move. Nothing drawn for one viewer reaches another."""
from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest

import engine
from pbem import links
from pbem.web import play
from pbem.store.db import connect, write
from pbem.web.database import get_db
from pbem.matches import CACHE

from helpers import api_move, links_in, normalised, path_of, sign_up


class Counted:
    """Counts the calls of one function of a module or object shared by every request."""

    def __init__(self, monkeypatch, owner, name: str):
        self.count = 0
        original = getattr(owner, name)

        def counted(*args, **kwargs):
            self.count += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)


def random_moves(client, game, plies: int, seed: int = 3) -> None:
    rng = random.Random(seed)
    for _ in range(plies):
        answer = client.get(game.apis[0]).json
        if answer["outcome"]:
            return
        seat = answer["to_move"][0]
        api_move(client, game.apis[seat], rng.choice(client.get(game.apis[seat]).json["legal_moves"]))


@pytest.mark.one_database  # the cache of drawn pages is in the process
@pytest.mark.parametrize("game_id, options", [("magnet", {"random_setup": True}),
                                              ("magnetic-field", {})])
def test_a_board_drawn_for_one_viewer_is_never_shown_to_another(client, new_game, game_id,
                                                                options):
    game = new_game(game_id, options=options)
    random_moves(client, game, 9)
    viewers = {0: game.urls[0], 1: game.urls[1], None: game.watch}

    def page(url: str, path: str = "") -> str:
        return normalised(client.get(url + path).get_data(as_text=True), game)

    def pages(viewer) -> list[str]:
        return [page(viewers[viewer]), page(viewers[viewer], "/history/3")]

    alone = {}
    for viewer in viewers:
        play.RENDERS.clear()
        alone[viewer] = pages(viewer)
    # Every viewer's pages drawn into one cache after the mover's selections, in both
    # orders: each viewer's pages come after (then before) each other viewer's, whose
    # board or page a key shared by mistake would show instead of its own.
    to_move = client.get(game.apis[0]).json["to_move"][0]
    selections = links_in(client.get(viewers[to_move]).get_data(as_text=True)).values()
    for order in (list(viewers), list(viewers)[::-1]):
        play.RENDERS.clear()
        for path in selections:
            client.get(path)
        drawn = {viewer: pages(viewer) for viewer in order}
        assert drawn == alone, order
        assert {viewer: pages(viewer) for viewer in order} == alone, order  # from the cache


@pytest.mark.one_database  # the cache of drawn pages is in the process
def test_each_board_and_page_is_drawn_once_and_the_legal_moves_generated_once(
        client, new_game, monkeypatch):
    game = new_game("magnet", options={"random_setup": True})
    magnet = engine.get("magnet")
    generated = Counted(monkeypatch, magnet, "legal_moves")
    drawn = Counted(monkeypatch, play.board_for("magnet"), "render")
    rendered = Counted(monkeypatch, play, "render_template")
    first = client.get(game.urls[0])
    assert (generated.count, drawn.count, rendered.count) == (1, 1, 1)  # play.py and the
    # board's builder once shared them
    again = client.get(game.urls[0])
    assert again.get_data() == first.get_data()
    assert (generated.count, drawn.count, rendered.count) == (1, 1, 1)
    # a page that shows something new (the notes) renders again, around the same board
    assert client.put(f"{game.apis[0]}/notes", json={"text": "Watch a5"}).status_code == 200
    assert "Watch a5" in client.get(game.urls[0]).get_data(as_text=True)
    assert (generated.count, drawn.count, rendered.count) == (1, 1, 2)
    # each click that builds the move draws a board of its own, from the same legal moves
    clicks = links_in(client.get(game.urls[0]).get_data(as_text=True))
    for number, click in enumerate(sorted(clicks.values())[:3], start=2):
        assert client.get(click).status_code == 200
        assert (generated.count, drawn.count) == (1, number)


def test_a_seats_every_link_gets_its_own_token_in_a_page_rendered_once(app, client,
                                                                        new_game):
    game = new_game()
    with app.test_request_context(), write(get_db()) as db:
        other = links.mint(db, game.id, 0)
    mine = game.urls[0].rsplit("/", 1)[1]
    first = client.get(game.urls[0]).get_data(as_text=True)
    second = client.get(f"/play/{other}").get_data(as_text=True)
    assert mine in first and other not in first
    assert other in second and mine not in second
    assert first.replace(mine, other) == second


def etag_of(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.headers["ETag"]


@pytest.mark.one_database  # the cache of drawn pages is in the process
def test_a_repeat_view_is_answered_304_until_anything_the_page_shows_changes(app, client):
    created = client.post("/api/games", json={
        "game": "mastery", "players": [{"name": "Ann", "email": "ann@example.org"},
                                       {"name": "Bob", "email": "bob@example.org"}],
        "clock": {"mode": "per_move", "days": 5, "vacation_days": 3}}).json
    ann, bob = (path_of(s["url"]) for s in created["seats"])
    ann_api, bob_api = (path_of(s["api"]) for s in created["seats"])
    seen = {etag_of(client, ann)}

    def unchanged() -> None:
        etag = etag_of(client, ann)
        repeat = client.get(ann, headers={"If-None-Match": etag})
        assert repeat.status_code == 304 and repeat.get_data() == b""
        assert repeat.headers["ETag"] == etag
        assert repeat.headers["Cache-Control"] == "no-store"

    def changed() -> None:
        etag = etag_of(client, ann)
        assert etag not in seen
        seen.add(etag)
        unchanged()

    unchanged()
    # the clocks run: the same game, begun two days earlier
    past = (datetime.now(timezone.utc) - timedelta(days=2)).isoformat(timespec="seconds")
    connect(app.config["DATABASE"]).execute("UPDATE games SET created_at = ? WHERE id = ?",
                                            [past, created["id"]])
    CACHE.clear()
    changed()
    api_move(client, ann_api, "e3-e4")
    changed()
    # a conditional line (Bob's answer, then Ann's reply), played out when Bob answers so
    mastery = engine.get("mastery")
    state = mastery.start(2, {}, "")
    state = mastery.apply(state, 0, "e3-e4")
    theirs = mastery.legal_moves(state, 1)[0]
    mine = mastery.legal_moves(mastery.apply(state, 1, theirs), 0)[0]
    saved = client.post(f"{ann}/conditional", data={"m": [theirs, mine]},
                        follow_redirects=True)  # which shows "saved"
    assert saved.status_code == 200
    assert client.get(ann_api).json["conditional"] == [[theirs, mine]]
    changed()  # the count of conditional lines
    api_move(client, bob_api, theirs)
    changed()
    assert client.post(f"{bob_api}/chat", json={"text": "Your move"}).status_code == 201
    changed()
    assert client.post(f"{bob_api}/draw", json={"answer": "offer"}).status_code == 200
    changed()  # a notice
    assert client.put(f"{ann_api}/notes", json={"text": "Bob likes draws"}).status_code == 200
    changed()
    # the notes' time shows to the minute: saved again within it, the page is the same
    db = connect(app.config["DATABASE"])
    [stamp] = db.execute("SELECT updated_at FROM notes WHERE game_id = ?",
                         [created["id"]]).fetchone()

    def saved_at(moment: str) -> None:
        db.execute("UPDATE notes SET updated_at = ? WHERE game_id = ?", [moment, created["id"]])

    before = etag_of(client, ann)
    saved_at(f"{stamp[:17]}{'01' if stamp[17:19] == '00' else '00'}{stamp[19:]}")
    assert etag_of(client, ann) == before
    saved_at("2026-01-01T09:30:00+00:00")
    changed()
    api_move(client, bob_api, client.get(bob_api).json["legal_moves"][0])
    changed()
    assert client.get(bob).status_code == 200  # another viewer changes nothing of Ann's
    unchanged()
    # a selection on the board, and each history ply, is a page of its own
    selection = next(iter(links_in(client.get(ann).get_data(as_text=True)).values()))
    assert etag_of(client, selection) not in seen
    assert etag_of(client, f"{ann}/history/1") != etag_of(client, f"{ann}/history/2")
    # a message shown once (after a move) is a page of its own, sent without an ETag
    answer = client.post(f"{ann}/move", data={"move": client.get(ann_api).json["legal_moves"][0],
                                             "ply": client.get(ann_api).json["ply"]})
    assert answer.status_code == 303
    flashed = client.get(ann)
    assert "You played" in flashed.get_data(as_text=True) and "ETag" not in flashed.headers
    changed()


@pytest.mark.one_database  # the cache of drawn pages is in the process
def test_a_teams_talk_of_resigning_changes_no_page_of_the_other_team(client, new_game):
    game = new_game("the-right-moves", players=4)
    before = [etag_of(client, url) for url in (*game.urls, game.watch)]
    assert client.post(f"{game.apis[0]}/resign", json={}).status_code == 200  # a proposal
    after = [etag_of(client, url) for url in (*game.urls, game.watch)]
    team = engine.get("the-right-moves").team_of(4, 0)
    assert [old != new for old, new in zip(before, after)] == \
        [seat in team for seat in range(4)] + [False]  # nor the spectator's


@pytest.mark.one_database  # the cache of drawn pages is in the process
def test_a_page_drawn_once_names_in_its_header_the_player_it_was_drawn_for(app, client, db,
                                                                          new_game):
    """The header names the player signed in: a page kept for one browser is not shown,
    with another's name or none, to the next, on either link of a seat or as a spectator."""
    game = new_game()
    visitor = app.test_client()
    sign_up(client, db, "Ann")
    for url in (game.watch, game.urls[0]):
        first = visitor.get(url).text
        assert ">Sign in</a>" in first and "Ann</a>" not in first
        assert "Signed in as </span>Ann</a>" in client.get(url).text
        assert visitor.get(url).text == first
