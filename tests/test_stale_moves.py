"""When a move sent from an older ply is stale (``Match.moved_on``): only when something the
sender can see has changed since. Checked on a game made for it (sealed bids, where both
seats move at once and the options decide what the first bid shows), on Mastery, and on
Magnet's secret setup through the JSON API and the page forms (emailed replies:
test_inbound.py)."""
from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import engine
from pbem.store.db import connect
from pbem.events import Event, Move
from pbem.matches import Match
from pbem.positions import Positions

RED, BLUE = 0, 1
MAGNET = engine.get("magnet")
SETUP = {seat: MAGNET.setup_text(seat, engine.magnet.SET) for seat in (RED, BLUE)}


# -- the rule, on a game where both seats move at once ---------------------------------------

@dataclasses.dataclass(frozen=True, kw_only=True)
class BidState(engine.State):
    bids: tuple[int | None, ...] = (None, None)


class SealedBids(engine.Game):
    """Both seats bid 1, 2 or 3 at the same time; the higher bid wins. ``shown``: a bid is
    seen by the other seat at once; ``exclusive``: a number bid is taken from the other."""

    id = "sealed-bids"
    title = "Sealed bids"
    state_type = BidState
    options = (engine.Option("shown", False, (False, True), "Bids are shown at once"),
               engine.Option("exclusive", False, (False, True), "A number bid is taken"))

    def initial_state(self, players: int, options: dict[str, Any], seed: str) -> BidState:
        return BidState(players=players, options=options, to_move=(0, 1))

    def generate_moves(self, state: BidState, seat: int) -> list[str]:
        return [f"bid {n}" for n in (1, 2, 3)
                if not (state.options["exclusive"] and n in state.bids)]

    def play(self, state: BidState, seat: int, text: str) -> BidState:
        if text not in self.generate_moves(state, seat):
            raise engine.IllegalMove(f"'{text}' is not one of {self.generate_moves(state, seat)}.")
        bids = tuple(int(text[4:]) if s == seat else bid for s, bid in enumerate(state.bids))
        waiting = tuple(s for s in state.to_move if s != seat)
        outcome = None if waiting else engine.Outcome(
            (bids.index(max(bids)),) if bids[0] != bids[1] else (), bids[0] == bids[1], "bids")
        return dataclasses.replace(state, bids=bids, ply=state.ply + 1, to_move=waiting,
                                   outcome=outcome)

    def observe(self, state: BidState, seat: int | None) -> dict[str, Any]:
        shown = state.options["shown"] or state.outcome is not None
        return {"has_bid": [bid is not None for bid in state.bids],
                "bids": [bid if shown or s == seat else None for s, bid in enumerate(state.bids)]}


def played(game: engine.Game, *moves: tuple[int, str], **options: Any) -> Match:
    start = game.start(2, options, "stale")
    match = Match(id="m", game=game, players=2, options=start.options, seed="stale",
                  created_at="", seats=(), states=Positions.starting(game, start),
                  current=start)
    return match.with_events([Event(n, seat, "move", Move(move), "")
                              for n, (seat, move) in enumerate(moves, start=1)])


def test_a_move_made_at_the_same_time_and_unseen_leaves_the_position_current():
    match = played(SealedBids(), (0, "bid 2"))
    assert not match.moved_on(1, 0)  # seat 1 sees only that seat 0 has bid
    assert not match.moved_on(1, 1)
    assert match.moved_on(0, 0)  # seat 0's own bid: its page at ply 0 is out of date
    assert match.moved_on(1, 2) and match.moved_on(1, -1)  # plies that do not exist
    assert match.already_played(0, 0, "bid  2") and not match.already_played(0, 0, "bid 3")
    assert not match.already_played(1, 0, "bid 2")  # seat 1 has not bid


@pytest.mark.parametrize("option", ["shown", "exclusive"])
def test_a_move_that_changes_what_the_other_seat_sees_or_may_do_makes_it_stale(option):
    # shown: seat 1 sees the bid and may answer it; exclusive: seat 1's choices shrank
    match = played(SealedBids(), (0, "bid 2"), **{option: True})
    assert match.moved_on(1, 0) and not match.moved_on(1, 1)


def test_in_turn_based_games_every_move_since_makes_a_ply_stale():
    mastery = engine.get("mastery")
    match = played(mastery, (0, "d4xc5"))
    assert match.moved_on(1, 0) and match.moved_on(0, 0) and not match.moved_on(1, 1)
    reply = mastery.legal_moves(match.current, 1)[0]
    match = match.with_events([Event(2, 1, "move", Move(reply), "")])
    assert match.moved_on(0, 0) and match.moved_on(0, 1) and not match.moved_on(0, 2)
    # a double submit is recognised only as the move made from the position seen
    assert match.already_played(0, 0, "d4 x c5") and not match.already_played(0, 1, "d4xc5")
    assert match.already_played(1, 1, reply) and not match.already_played(1, 0, reply)


# -- Magnet's secret setup, through the API and the pages --------------------------------------

def events(app) -> list[tuple]:
    return [(r["seat"], r["move"]) for r in connect(app.config["DATABASE"]).query(
        "SELECT seat, move FROM events ORDER BY seq")]


def form_move(client, url: str, move: str, version: int, **kwargs):
    """The page's move form, from the page at ``version`` (as its hidden field says)."""
    return client.post(f"{url}/move", data={"move": move, "version": str(version)}, **kwargs)


@pytest.mark.parametrize("first", [RED, BLUE])
def test_the_second_setup_is_played_from_the_ply_its_player_saw_through_the_api(
        app, client, new_game, first):
    game = new_game("magnet")
    second = 1 - first
    assert client.get(game.apis[second]).json["ply"] == 0  # what the second setter saw
    done = client.post(f"{game.apis[first]}/moves", json={"move": SETUP[first], "ply": 0})
    assert done.status_code == 200 and done.json["ply"] == 1
    answer = client.post(f"{game.apis[second]}/moves", json={"move": SETUP[second], "ply": 0})
    assert answer.status_code == 200, answer.json
    assert answer.json["ply"] == 2 and answer.json["view"]["phase"] == "play"
    assert events(app) == [(first, SETUP[first]), (second, SETUP[second])]
    # The game has moved on for both now: the setups were made, a turn is due. The same
    # setup sent again is stale through the API (its contract), as another is.
    for seat in (RED, BLUE):
        again = client.post(f"{game.apis[seat]}/moves", json={"move": SETUP[seat], "ply": 0})
        assert again.status_code == 409 and "moved on" in again.json["error"]
        other = client.post(f"{game.apis[seat]}/moves", json={"move": SETUP[1 - seat],
                                                              "ply": 0})
        assert other.status_code == 409 and "moved on" in other.json["error"]
    assert len(events(app)) == 2
    opening = client.get(game.apis[RED]).json["legal_moves"][0]
    assert client.post(f"{game.apis[RED]}/moves",
                       json={"move": opening, "ply": 2}).status_code == 200
    blue_turn = client.get(game.apis[BLUE]).json["legal_moves"][0]
    stale = client.post(f"{game.apis[BLUE]}/moves", json={"move": blue_turn, "ply": 2})
    assert stale.status_code == 409 and "you saw ply 2, it is now at ply 3" in stale.json["error"]
    assert len(events(app)) == 3


def test_the_second_setup_is_played_from_the_page_its_player_saw(app, client, new_game):
    game = new_game("magnet")
    assert 'name="version" value="0"' in client.get(game.urls[BLUE]).get_data(as_text=True)
    assert form_move(client, game.urls[RED], SETUP[RED], 0).status_code == 303
    response = form_move(client, game.urls[BLUE], SETUP[BLUE], 0, follow_redirects=True)
    assert response.status_code == 200
    assert f"You played {SETUP[BLUE]}." in response.get_data(as_text=True)
    assert events(app) == [(RED, SETUP[RED]), (BLUE, SETUP[BLUE])]
    # The same form sent again is a double submit, answered as a success; another setup
    # from that page is stale (Blue has set up since).
    again = form_move(client, game.urls[BLUE], SETUP[BLUE], 0, follow_redirects=True)
    assert "Your move was already recorded." in again.get_data(as_text=True)
    other = SETUP[BLUE].replace("b1=K", "b1=X").replace("c1=T2", "c1=K").replace("X", "T2")
    refused = form_move(client, game.urls[BLUE], other, 0)
    assert refused.status_code == 409 and "moved on" in refused.get_data(as_text=True)
    assert len(events(app)) == 2


# -- the game's version, which every answer carries ------------------------------------------

def test_the_version_grows_with_every_event_its_seat_may_know_of(client, new_game):
    """A move, a takeback's words, the chat for the players (spectators once it is over), a
    team's talk of resigning for that team alone."""
    game = new_game("the-right-moves", players=4)
    watch = "/api" + game.watch

    def versions() -> list[int]:
        return [client.get(api).json["version"] for api in (*game.apis, watch)]

    assert versions() == [0] * 5
    [mover] = client.get(game.apis[0]).json["to_move"]
    move = client.get(game.apis[mover]).json["legal_moves"][0]
    assert client.post(f"{game.apis[mover]}/moves", json={"move": move, "version": 0}
                       ).json["version"] == 1
    assert versions() == [1] * 5
    assert client.post(f"{game.apis[0]}/chat", json={"text": "Good luck"}).status_code == 201
    assert versions() == [2, 2, 2, 2, 1]
    proposed = client.post(f"{game.apis[0]}/resign", json={})  # that the team resign
    assert proposed.status_code == 200
    told = [client.get(api).json["resign_offers"] == [0] for api in game.apis]
    assert told.count(True) == 2  # seat 0 and its partner
    assert versions() == [3 if knows else 2 for knows in told] + [1]


def test_the_api_s_version_must_be_the_current_one_a_page_s_only_still_true(client,
                                                                          new_game):
    """Through the API a version not the current one is stale (its contract), even after
    only a chat message; a page from before the message still plays its move."""
    game = new_game("mastery")
    saw = client.get(game.apis[0]).json
    assert client.post(f"{game.apis[1]}/chat", json={"text": "Hello"}).status_code == 201
    move = saw["legal_moves"][0]
    stale = client.post(f"{game.apis[0]}/moves", json={"move": move, "version": saw["version"]})
    assert stale.status_code == 409
    assert "you saw version 0, it is now at version 1" in stale.json["error"]
    for wrong in ("1", True, 1.5):
        assert client.post(f"{game.apis[0]}/moves", json={"move": move, "version": wrong}
                           ).status_code == 400
    assert client.post(f"{game.apis[0]}/moves", json={"move": move, "version": 7}
                       ).status_code == 409
    assert form_move(client, game.urls[0], move, saw["version"]).status_code == 303
    assert client.get(game.apis[1]).json["ply"] == 1
