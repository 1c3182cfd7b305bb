"""Tests of the Magnet rules engine (shared/rules/magnet.md)."""
from __future__ import annotations

import itertools
import json
import random
from math import factorial

import pytest

from engine.core import IllegalMove, InvalidGameSetup, chance, perft, random_playout
from engine import magnet as M
from engine.magnet import GAME

RED, BLUE = 0, 1
CANON = {RED: GAME.setup_text(RED, M.SET), BLUE: GAME.setup_text(BLUE, M.SET)}


# -- helpers -------------------------------------------------------------------------------

def position(pieces: dict[str, str], to_move: int = RED, turn: int = 1,
             captured: tuple = ()) -> M.MagnetState:
    """A position in play. ``pieces``: vertex -> owner letter, code and optional rank,
    e.g. "RK", "B4", "R3/2" (Red plain 3 of rank 2), "BT2"."""
    board = [0] * 91
    for name, spec in pieces.items():
        owner = "RB".index(spec[0])
        code, _, rank = spec[1:].partition("/")
        board[M.INDEX[name]] = M._piece(owner, M._CODE_KIND[code.lower()], int(rank or 1))
    board = tuple(board)
    return M.MagnetState(players=2, options={"random_setup": False}, board=board,
                         arrangements=(M.SET, M.SET), turn=turn, to_move=(to_move,),
                         captured=tuple((o, M._CODE_KIND[c.lower()], 0, 0) for o, c in captured),
                         seen={(M.public_board(board), to_move): 1})


def at(state: M.MagnetState, name: str) -> str | None:
    """The piece on a vertex as "R3/2" (owner, code, rank), or None."""
    x = state.board[M.INDEX[name]]
    if not x:
        return None
    return "RB"[x >> 6] + M.CODES[(x >> 3) & 7] + f"/{x & 7}"


def started(seed: str = "t") -> M.MagnetState:
    return GAME.start(2, {"random_setup": True}, seed)


def with_magnet(moves: list[str], magnet: str) -> set[str]:
    return {m for m in moves if m.split(":")[0] == magnet}


def message(state, seat, move) -> str:
    with pytest.raises(IllegalMove) as info:
        GAME.apply(state, seat, move)
    return str(info.value)


# Kings parked off every line through f6, so that they stay out of the way.
KINGS = {"b7": "RK", "j3": "BK"}


# -- the board -----------------------------------------------------------------------------

def test_board_has_91_vertices_with_up_to_six_neighbours():
    assert len(M.NAMES) == len(set(M.NAMES)) == 91
    degrees = sorted(len(n) for n in M.NEIGHBOURS)
    assert degrees.count(3) == 6 and degrees.count(4) == 24 and degrees.count(6) == 61
    for i, rays in enumerate(M.RAYS):
        assert len(rays) == 6  # three lines through every vertex, six rays
        for j in M.NEIGHBOURS[i]:
            assert i in M.NEIGHBOURS[j]


def test_vertex_names_and_coordinates():
    assert M.coords("f6") == (0, 0) and M.NAMES[M.CENTRE] == "f6"
    assert M.coords("a1") == (-5, 0) and M.coords("a6") == (-5, 5)
    assert M.coords("k1") == (5, -5) and M.coords("k6") == (5, 0)
    assert M.coords("f1") == (0, -5) and M.coords("f11") == (0, 5)
    for q, r in M.COORDS:
        assert -5 <= q <= 5 and -5 <= r <= 5 and -5 <= q + r <= 5
        assert M.coords(M.vertex_name(q, r)) == (q, r)
    lengths = {f: sum(1 for n in M.NAMES if n[0] == f) for f in M.FILES}
    assert lengths == {"a": 6, "b": 7, "c": 8, "d": 9, "e": 10, "f": 11, "g": 10, "h": 9,
                       "i": 8, "j": 7, "k": 6}
    # sort order: by file, then rank as a number
    assert M.NAMES[:7] == ("a1", "a2", "a3", "a4", "a5", "a6", "b1")
    assert M.NAMES.index("f10") > M.NAMES.index("f9")
    with pytest.raises(ValueError):
        M.coords("a7")


def test_geometry_helpers_for_a_renderer():
    g = M.geometry()
    json.dumps(g)
    assert len(g["vertices"]) == 91 and g["vertices"]["f6"] == [0, 0]
    assert len(g["edges"]) == sum(len(n) for n in M.NEIGHBOURS) // 2
    assert g["centre"] == "f6" and g["start"][0][0] == "a2"
    x, y = M.pixel("f6")
    assert (x, y) == (0, 0)
    for a, b in g["edges"]:  # neighbours are one unit apart
        (xa, ya), (xb, yb) = M.pixel(a), M.pixel(b)
        assert abs((xa - xb) ** 2 + (ya - yb) ** 2 - 1) < 1e-9
    assert M.pixel("f7")[1] < M.pixel("f6")[1]  # higher ranks are drawn higher up


def test_start_vertices_are_the_non_corner_vertices_of_three_sides():
    corners = {"a1", "a6", "f11", "k6", "k1", "f1"}
    red = M.START_NAMES[RED].split()
    blue = M.START_NAMES[BLUE].split()
    assert red == "a2 a3 a4 a5 b7 c8 d9 e10 g10 h9 i8 j7".split()
    assert blue == "b1 c1 d1 e1 g1 h1 i1 j1 k2 k3 k4 k5".split()
    for name in red + blue:
        assert len(M.NEIGHBOURS[M.INDEX[name]]) == 4 and name not in corners
    assert {M.coords(n)[0] for n in red[:4]} == {-5}
    assert {M.coords(n)[1] for n in red[4:8]} == {5}
    assert {sum(M.coords(n)) for n in red[8:]} == {5}
    assert {sum(M.coords(n)) for n in blue[:4]} == {-5}
    assert {M.coords(n)[1] for n in blue[4:8]} == {-5}
    assert {M.coords(n)[0] for n in blue[8:]} == {5}


def test_game_description():
    assert GAME.id == "magnet" and GAME.title == "Magnet"
    assert GAME.player_counts == (2,)
    assert GAME.default_options == {"random_setup": False}
    assert GAME.seat_name(2, 0) == "Red" and GAME.seat_name(2, 1) == "Blue"
    with pytest.raises(InvalidGameSetup):
        GAME.start(3)
    with pytest.raises(InvalidGameSetup):
        GAME.start(2, {"colour": "red"})
    codes = [M.CODES[k] for k in M.SET]
    assert {c: codes.count(c) for c in codes} == {"K": 1, "T2": 1, "T3": 1, "2": 3, "3": 3, "4": 3}
    assert [M.VALUE[k] for k in M.SET] == [1, 2, 3, 2, 2, 2, 3, 3, 3, 4, 4, 4]


# -- setup ---------------------------------------------------------------------------------

def test_setup_both_seats_may_move_first_and_list_holds_one_move():
    state = GAME.start(2, {}, "s")
    assert state.to_move == (0, 1) and state.ply == 0
    assert GAME.legal_moves(state, RED) == [
        "setup a2=K a3=T2 a4=T3 a5=2 b7=2 c8=2 d9=3 e10=3 g10=3 h9=4 i8=4 j7=4"]
    assert GAME.legal_moves(state, BLUE) == [
        "setup b1=K c1=T2 d1=T3 e1=2 g1=2 h1=2 i1=3 j1=3 k2=3 k3=4 k4=4 k5=4"]
    blue_first = GAME.apply(state, BLUE, CANON[BLUE])
    assert blue_first.to_move == (RED,) and blue_first.ply == 1
    assert GAME.legal_moves(blue_first, BLUE) == []
    both = GAME.apply(blue_first, RED, CANON[RED])
    red_first = GAME.apply(GAME.apply(state, RED, CANON[RED]), BLUE, CANON[BLUE])
    assert both.to_move == red_first.to_move == (RED,) and both.ply == 2
    assert both.board == red_first.board
    assert at(both, "a2") == "RK/1" and at(both, "k5") == "B4/1"
    assert all("," in m or ":" in m for m in GAME.legal_moves(both, RED))


def test_any_arrangement_is_accepted_in_any_written_form():
    rng = random.Random(5)
    state = GAME.start(2, {}, "s")
    for _ in range(20):
        for seat in (RED, BLUE):
            kinds = list(M.SET)
            rng.shuffle(kinds)
            pairs = [f"{n}={M.CODES[k]}" for n, k in zip(M.START_NAMES[seat].split(), kinds)]
            rng.shuffle(pairs)
            after = GAME.apply(state, seat, "setup " + " ".join(pairs))
            assert after.arrangements[seat] == tuple(kinds)
    lenient = ("SETUP: A2 = k, a3=t2; a4=T3 a5=2 b7=2 c8=2 d9=3 e10=3 g10=3 h9=4 i8=4 j7=4")
    assert GAME.apply(state, RED, lenient).arrangements[RED] == M.SET
    without_word = "a2=K a3=T2 a4=T3 a5=2 b7=2 c8=2 d9=3 e10=3 g10=3 h9=4 i8=4 j7=4"
    assert GAME.apply(state, RED, without_word).arrangements[RED] == M.SET
    # The distinct arrangements of the twelve pieces (three 2s, three 3s, three 4s) number
    # 12!/(3!)^3; the rules' 13,305,600 is 12!/(3!)^2. Either way, all are accepted.
    assert factorial(12) // factorial(3) ** 3 == 2_217_600


@pytest.mark.parametrize("text, words", [
    ("setup b1=K a3=T2 a4=T3 a5=2 b7=2 c8=2 d9=3 e10=3 g10=3 h9=4 i8=4 j7=4", "b1 is not one"),
    ("setup a2=K a2=T2 a4=T3 a5=2 b7=2 c8=2 d9=3 e10=3 g10=3 h9=4 i8=4 j7=4", "more than once"),
    ("setup a2=K a3=T2 a4=T3 a5=2 b7=2 c8=2 d9=3 e10=3 g10=3 h9=4 i8=4", "j7 has none"),
    ("setup a2=K a3=K a4=T3 a5=2 b7=2 c8=2 d9=3 e10=3 g10=3 h9=4 i8=4 j7=4", "2 × K"),
    ("setup a2=K a3=T2 a4=T3 a5=2 b7=2 c8=2 d9=3 e10=3 g10=3 h9=4 i8=4 j7=5", "not a setup"),
    ("setup please", "not a setup"),
    ("setup a2=K a3=T2 a4=T3 a5=2 b7=2 c8=2 d9=3 e10=3 g10=3 h9=4 i8=4 j7=4 z1=2",
     "not one of your start"),
    ("f6:a2", "First set up your pieces"),
])
def test_bad_setups_are_rejected(text, words):
    state = GAME.start(2, {}, "s")
    assert words in message(state, RED, text)
    assert GAME.legal_moves(state, RED) == [CANON[RED]]  # nothing changed


def test_setup_twice_or_in_a_random_game_is_rejected():
    state = GAME.apply(GAME.apply(GAME.start(2, {}, "s"), RED, CANON[RED]), BLUE, CANON[BLUE])
    assert "already set up" in message(state, RED, CANON[RED])
    assert "at random" in message(started(), RED, CANON[RED])
    half = GAME.apply(GAME.start(2, {}, "s"), RED, CANON[RED])
    assert message(half, RED, CANON[RED]) == "It is not your turn."


def test_random_setup_deals_both_sides_from_the_seed():
    state = GAME.start(2, {"random_setup": True}, "seed-7")
    assert state.to_move == (RED,) and state.ply == 0 and state.turn == 0
    for seat in (RED, BLUE):
        kinds = list(M.SET)
        chance("seed-7", "setup", seat).shuffle(kinds)
        assert state.arrangements[seat] == tuple(kinds)
    assert GAME.start(2, {"random_setup": "true"}, "seed-7") == state
    assert GAME.start(2, {"random_setup": True}, "seed-8").board != state.board
    assert all(":" in m for m in GAME.legal_moves(state, RED))


# -- placing the magnet and the affected pieces ----------------------------------------------

def test_affected_pieces_nearest_friendly_on_each_ray_enemies_do_not_block():
    state = position({**KINGS, "f8": "R2", "f9": "R3", "f7": "B2", "d4": "R2", "e5": "B3",
                      "g7": "R4", "f6": "R3", "h4": "R2"})
    # f8 is nearest on the upward ray (f9 behind it is not), d4 is found through the enemy
    # on e5, g7 is on no line through f6, and the piece on f6 itself is not affected.
    assert M.affected_pieces(state, RED, "f6") == ["d4", "f8", "h4"]
    # Red's pieces do not block Blue's either
    assert M.affected_pieces(state, BLUE, "f6") == ["e5", "f7"]
    assert M.affected_pieces(state, BLUE, "f8") == ["f7"]
    preview = M.path_preview(state, RED, "f6")
    assert preview["f8"] == {"path": ["f7"], "reaches": False, "captures": ["f7"],
                             "can_move": True, "can_promote": True}
    # h4 is next-but-one to f6 on the diagonal and rank 1: it moves to g5
    assert preview["h4"]["path"] == ["g5"]


def test_piece_on_the_magnet_vertex_is_not_affected_and_blocks():
    state = position({**KINGS, "f6": "R3", "f4": "R2/2", "f5": "B2"})
    assert M.affected_pieces(state, RED, "f6") == ["f4"]
    after = GAME.apply(state, RED, "f6:f4")
    assert at(after, "f5") == "R2/2" and at(after, "f6") == "R3/1"  # stopped before f6
    assert after.captured == ((BLUE, M.P2, M.INDEX["f5"], 1),)
    assert message(state, RED, "f6:f6") .startswith("'f6:f6': a magnet on f6 does not move f6")


def test_magnet_must_move_a_piece():
    state = position({**KINGS, "f6": "R3", "f5": "R2", "f4": "R4"})
    assert with_magnet(GAME.legal_moves(state, RED), "f6") == set()
    assert "blocks them all" in message(state, RED, "f6:f5")
    assert "nothing" in message(state, RED, "a2:b7")
    # a magnet may stand on any vertex, an enemy's too
    state = position({**KINGS, "f6": "B3", "f5": "R2"})
    assert GAME.apply(state, RED, "f6:f5").captured[0][:3] == (BLUE, M.P3, M.CENTRE)


# -- movement ------------------------------------------------------------------------------

def test_piece_moves_up_to_its_rank_toward_the_magnet_and_stops_on_it():
    state = position({**KINGS, "f1": "R4/2", "c3": "R4/4"})
    after = GAME.apply(state, RED, "f6:c3,f1")
    assert at(after, "f3") == "R4/2"  # rank 2: two steps
    assert at(after, "f6") == "R4/4"  # rank 4 but only three steps to the magnet
    assert at(after, "c3") is None and at(after, "f1") is None


def test_rulebook_example_order_decides_who_reaches_the_magnet():
    # A (rank 2) and B (rank 3) both reach the magnet; whoever moves first stops on it.
    state = position({**KINGS, "f4": "R3/2", "c3": "R4/3"})
    a_first = GAME.apply(state, RED, "f6:f4,c3")
    assert at(a_first, "f6") == "R3/2" and at(a_first, "e5") == "R4/3"  # B moved 2 only
    b_first = GAME.apply(state, RED, "f6:c3,f4")
    assert at(b_first, "f6") == "R4/3" and at(b_first, "f5") == "R3/2"
    assert with_magnet(GAME.legal_moves(state, RED), "f6") == {
        "f6:f4,c3", "f6:f4+,c3", "f6:f4,c3+", "f6:f4+,c3+",
        "f6:c3,f4", "f6:c3+,f4", "f6:c3,f4+", "f6:c3+,f4+"}


def test_input_accepts_any_order_and_plays_it_in_the_order_given():
    state = position({**KINGS, "f4": "R3/2", "c3": "R4/3", "f9": "R2"})
    canonical = GAME.apply(state, RED, "f6:c3,f4,f9")
    assert GAME.apply(state, RED, "f6:f9,c3,f4").board == canonical.board
    assert GAME.apply(state, RED, "f6:c3,f9,f4").board == canonical.board
    assert GAME.apply(state, RED, "f6:f4,f9,c3").board != canonical.board
    assert "f6:c3,f4,f9" in GAME.legal_moves(state, RED)
    assert "f6:f9,c3,f4" not in GAME.legal_moves(state, RED)


# -- captures, traps and promotion -------------------------------------------------------------

def test_rulebook_example_one_piece_captures_two():
    state = position({**KINGS, "f3": "R4/3", "f4": "B2", "f5": "B3/2"})
    after = GAME.apply(state, RED, "f6:f3")
    assert at(after, "f6") == "R4/3" and at(after, "f4") is None and at(after, "f5") is None
    assert [(o, M.CODES[k], M.NAMES[v]) for o, k, v, _ in after.captured] == [
        (BLUE, "2", "f4"), (BLUE, "3", "f5")]
    view = GAME.view(after, None)
    assert [c["piece"] for c in view["captured"]] == ["2", "3"]  # captured values are public


def test_trap_destroys_the_mover_after_all_its_captures():
    state = position({**KINGS, "f3": "R4/3", "f4": "BT2", "f5": "B3/2", "e6": "R2"})
    after = GAME.apply(state, RED, "f6:f3+,e6")
    assert at(after, "f4") is None and at(after, "f5") is None and at(after, "f3") is None
    assert [M.CODES[k] for _, k, _, _ in after.captured] == ["T2", "3"]
    assert [(o, M.CODES[k], r, M.NAMES[v]) for o, k, r, v, _ in after.destroyed] == [
        (RED, "4", 3, "f6")]
    # the magnet's vertex is free again, so e6 moves onto it
    assert at(after, "e6") is None and at(after, "f6") == "R2/1"
    # the destroyed piece's value is not revealed to Blue (it was not captured)
    assert "piece" not in GAME.view(after, BLUE)["destroyed"][0]
    assert GAME.view(after, RED)["destroyed"][0]["piece"] == "4"


def test_promotion_is_optional_and_capped_by_value():
    state = position({**KINGS, "f5": "R2", "f9": "R2/2", "d4": "RT3"})
    legal = with_magnet(GAME.legal_moves(state, RED), "f6")
    assert legal == {"f6:d4,f5,f9", "f6:d4+,f5,f9", "f6:d4,f5+,f9", "f6:d4+,f5+,f9"}
    after = GAME.apply(state, RED, "f6:d4+,f5+,f9")
    assert at(after, "f6") == "R2/2" and at(after, "e5") == "RT3/2"
    assert at(after, "f7") == "R2/2"  # f9 (rank 2) moved two steps, no promotion
    plain = GAME.apply(state, RED, "f6:d4,f5,f9")
    assert at(plain, "f6") == "R2/1"
    assert "its rank is already 2, its value" in message(state, RED, "f6:d4,f5,f9+")
    assert GAME.view(after, BLUE)["pieces"]["f6"] == {"owner": RED, "rank": 2}


def test_king_never_promotes_and_unmoved_piece_cannot_promote():
    state = position({**KINGS, "b7": "R2", "f5": "RK", "e5": "R3"})
    legal = with_magnet(GAME.legal_moves(state, RED), "f6")
    assert legal == {"f6:e5,f5", "f6:e5+,f5", "f6:f5,e5"}
    assert "a king never promotes" in message(state, RED, "f6:f5+,e5")
    assert "cannot end the turn having changed position" in message(state, RED, "f6:f5,e5+")
    # a piece that is blocked from the start cannot promote either
    blocked = position({**KINGS, "f6": "R2", "f5": "R3", "d4": "R4/2"})
    assert M.affected_pieces(blocked, RED, "f6") == ["d4", "f5"]
    assert with_magnet(GAME.legal_moves(blocked, RED), "f6") == {"f6:d4,f5", "f6:d4+,f5"}
    assert "it cannot move (your piece on f6 blocks it)" in message(blocked, RED, "f6:d4,f5+")
    after = GAME.apply(blocked, RED, "f6:f5,d4+")
    assert at(after, "e5") == "R4/3" and at(after, "f5") == "R3/1"


def test_promotion_of_a_piece_destroyed_by_a_trap_does_nothing():
    state = position({**KINGS, "f4": "R3", "f5": "BT3"})
    assert "f5:f4+" in GAME.legal_moves(state, RED)  # Red cannot know f5 is a trap
    after = GAME.apply(state, RED, "f5:f4+")
    assert at(after, "f5") is None and len(after.destroyed) == 1


def test_ruling_a_promotion_that_did_not_happen_is_dropped_from_the_record():
    # f4 (rank 2) dies on the trap f5. With value 3 Red may ask for its promotion, with
    # value 2 not: the record must be the same, or it would tell Blue which one it was.
    records, afters = [], []
    for f4 in ("R3/2", "R2/2"):
        state = position({**KINGS, "f4": f4, "f5": "BT3"})
        asked = "f5:f4+" if f4 == "R3/2" else "f5:f4"
        after = GAME.apply(state, RED, asked)
        record = GAME.canonical(state, RED, asked)
        assert record == "f5:f4" and GAME.apply(state, RED, record) == after
        assert GAME.public_move(RED, record, BLUE, after) == "f5:f4"
        records.append(record)
        afters.append(after)
    assert GAME.view(afters[0], BLUE) == GAME.view(afters[1], BLUE)
    assert GAME.view(afters[0], None) == GAME.view(afters[1], None)
    # The same for a piece the turn leaves where it stood: e6's promotion could happen only
    # if f4 died on f5 and freed the magnet's vertex, but f5 is a plain piece.
    state = position({**KINGS, "f4": "R3/2", "f5": "B2", "e6": "R2"})
    assert "f6:f4,e6+" in GAME.legal_moves(state, RED)
    after = GAME.apply(state, RED, "f6:f4+,e6+")
    assert at(after, "f6") == "R3/3" and at(after, "e6") == "R2/1"
    assert GAME.canonical(state, RED, "f6:f4+,e6+") == "f6:f4+,e6"
    # A log of recorded moves replays to the same game.
    moves = [(RED, CANON[RED]), (BLUE, CANON[BLUE])]
    game = GAME.replay(2, {}, "log", moves)
    rng = random.Random(3)
    while game.outcome is None:
        seat = game.to_move[0]
        typed = rng.choice(GAME.legal_moves(game, seat))
        moves.append((seat, GAME.canonical(game, seat, typed)))
        game = GAME.apply(game, seat, typed)
    assert GAME.replay(2, {}, "log", moves) == game


def test_promotion_impossible_when_every_possible_outcome_destroys_the_piece():
    # All of Blue's plain pieces have been captured: a rank-2 Blue piece can only be a trap
    # (kings have rank 1), so a Red piece capturing it never survives and cannot promote.
    captured = [(BLUE, c) for c in "222333444"]
    state = position({**KINGS, "f4": "R3", "f5": "BT2/2"}, captured=tuple(captured))
    legal = with_magnet(GAME.legal_moves(state, RED), "f5")
    assert legal == {"f5:f4"}
    assert "cannot end the turn" in message(state, RED, "f5:f4+")


# -- the opening move ------------------------------------------------------------------------

def test_opening_move_moves_exactly_one_piece():
    state = started("open")
    legal = GAME.legal_moves(state, RED)
    assert legal and all("," not in m for m in legal)
    for magnet in M.NAMES:
        pieces = M.affected_pieces(state, RED, magnet)
        if len(pieces) >= 2:
            two = f"{magnet}:{pieces[0]},{pieces[1]}"
            assert "exactly one piece moves" in message(state, RED, two)
            break
    else:
        pytest.fail("no magnet affects two pieces")
    after = GAME.apply(state, RED, legal[0])
    moved = [v for v in M.START_NAMES[RED].split() if at(after, v) is None]
    assert len(moved) == 1
    # from Blue's reply on, every affected piece moves
    assert any("," in m for m in GAME.legal_moves(after, BLUE))


def test_opening_move_counts_one_move_per_piece_and_magnet():
    state = started("open")
    kn = M.knowledge(state, RED)
    expected = 0
    for m in range(91):
        for p in M._affected(kn, m):
            if p.path:
                expected += 2 if p.promotable else 1
    assert len(GAME.legal_moves(state, RED)) == expected


# -- the end of the game -------------------------------------------------------------------

def test_captured_king_ends_the_game_at_once():
    state = position({**KINGS, "f5": "R3", "f6": "BK", "g6": "R2", "f9": "R2"})
    after = GAME.apply(state, RED, "f6:f5,f9,g6")
    assert after.outcome.winners == (RED,) and after.to_move == ()
    assert "captured Blue's king" in after.outcome.reason
    assert at(after, "f9") == "R2/1" and at(after, "g6") == "R2/1"  # the rest is not played


def test_king_on_the_centre_wins_at_the_start_of_its_turn():
    state = position({"f5": "RK", "k3": "BK", "k5": "B2", "a2": "R2"})
    after = GAME.apply(state, RED, "f6:f5")
    assert after.outcome is None and at(after, "f6") == "RK/1"  # not at the end of a turn
    blue_moves = GAME.legal_moves(after, BLUE)
    quiet = next(m for m in blue_moves if m.startswith("k6:"))
    end = GAME.apply(after, BLUE, quiet)
    assert end.outcome.winners == (RED,) and "held the centre" in end.outcome.reason
    assert end.to_move == ()


def test_king_on_the_centre_can_be_dislodged_in_time():
    state = position({"f5": "RK", "k3": "BK", "f8": "B2/2", "a2": "R2"})
    after = GAME.apply(state, RED, "f6:f5")
    end = GAME.apply(after, BLUE, "f6:f8")
    assert end.outcome.winners == (BLUE,) and "captured Red's king" in end.outcome.reason


def test_two_kings_race_wins_on_reaching_the_centre():
    state = position({"f5": "RK", "k3": "BK"})
    after = GAME.apply(state, RED, "f6:f5")
    assert after.outcome.winners == (RED,) and "only the kings" in after.outcome.reason


def test_two_kings_race_checked_after_every_piece_move():
    # Red's last plain piece dies on Blue's last trap: only the kings remain, and Blue's king
    # already stands on f6, so Blue wins at once.
    state = position({"a3": "RK", "f6": "BK", "d4": "R2", "e5": "BT2"})
    state = position({"a2": "RK", "f6": "BK", "b2": "R2", "c3": "BT2"})
    after = GAME.apply(state, RED, "c3:b2")
    assert after.outcome.winners == (BLUE,) and "only the kings" in after.outcome.reason


def test_threefold_repetition_is_a_draw():
    state = position({"a5": "RK", "b2": "R2", "k3": "BK", "i6": "B2"})
    cycle = [(RED, "c3:b2"), (BLUE, "j6:i6"), (RED, "b2:c3"), (BLUE, "i6:j6")]
    for n, (seat, move) in enumerate(cycle * 2):
        state = GAME.apply(state, seat, move)
        if n < 7:
            assert state.outcome is None
    assert state.outcome.draw and state.outcome.winners == ()
    assert "three times" in state.outcome.reason


def test_ruling_repetition_compares_the_position_both_players_see():
    # Red's c3 and c4 trade places every three turns (the magnet on the free corner of their
    # triangle pulls one of them in, the other is blocked); Blue walks h5 round a triangle.
    # Every six plies the public position comes back, with c3 and c4 swapped: a draw at ply
    # 12, whether or not Red's two pieces have the same value (Blue must not learn which).
    red = ["d4:c3,c4", "c3:c4,d4", "c4:d4,c3"]
    blue = ["i4:h5", "i5:i4", "h5:i5"]
    games = [position({"b7": "RK", "k1": "BK", "c3": "R2", "c4": c4, "h5": "B2"})
             for c4 in ("R2", "R3")]
    starts = [M.public_board(game.board) for game in games]
    for ply, (seat, move) in enumerate(zip(itertools.cycle((RED, BLUE)),
                                           itertools.chain(*zip(red * 2, blue * 2))), 1):
        games = [GAME.apply(game, seat, move) for game in games]
        assert all((game.outcome is None) == (ply < 12) for game in games)
        if ply < 12:  # (once the game is over, every value is public)
            assert GAME.view(games[0], BLUE) == GAME.view(games[1], BLUE)
            assert GAME.view(games[0], None) == GAME.view(games[1], None)
        if ply == 6:  # the same public position, yet c3 and c4 have traded places
            assert [M.public_board(game.board) for game in games] == starts
            assert at(games[1], "c3") == "R3/1" and at(games[1], "c4") == "R2/1"
    assert all(game.outcome.draw and "three times" in game.outcome.reason for game in games)


def test_promotion_or_capture_makes_earlier_positions_unrepeatable():
    state = position({"a5": "RK", "b2": "R2", "k3": "BK", "i6": "B2"})
    state = GAME.apply(state, RED, "c3:b2+")
    assert len(state.seen) == 1


def test_ruling_king_capturing_enemy_king_and_a_trap_in_one_move_wins():
    # A king moves one step, so this needs a constructed king of rank 2 (never in play).
    state = position({"f4": "RK/2", "f5": "BT3", "f6": "BK", "a2": "R2"})
    after = GAME.apply(state, RED, "f6:f4")
    assert after.outcome.winners == (RED,)
    assert "captured Blue's king" in after.outcome.reason


def test_ruling_king_dying_on_a_trap_loses_at_once():
    state = position({"f5": "RK", "f6": "BT2", "f8": "R2", "k3": "BK"})
    assert "f6:f5,f8" in GAME.legal_moves(state, RED)
    after = GAME.apply(state, RED, "f6:f5,f8")
    assert after.outcome.winners == (BLUE,) and "destroyed by a trap" in after.outcome.reason
    assert at(after, "f8") == "R2/1"  # the rest of the turn is not played
    other = GAME.apply(state, RED, "f6:f8,f5")
    assert other.outcome.winners == (BLUE,) and at(other, "f7") == "R2/1"


def test_ruling_player_without_a_legal_turn_loses():
    # In play every piece has a neighbour it can be drawn onto, so this needs a constructed
    # position in which Blue has no pieces at all.
    assert M.has_legal_turn(position({"a2": "R2"}).board, RED)
    assert not M.has_legal_turn(position({"a2": "R2"}).board, BLUE)
    state = position({"a2": "RK", "c3": "R2"})
    after = GAME.apply(state, RED, "d4:c3")
    assert after.outcome.winners == (RED,) and "no legal turn" in after.outcome.reason


# -- notation ------------------------------------------------------------------------------

def test_notation_canonical_form_and_lenient_input():
    state = position({**KINGS, "f4": "R3/2", "c3": "R4/3"})
    a = GAME.apply(state, RED, "f6:f4+,c3")
    for text in ("F6:F4+,C3", " f6 : f4 + , c3 ", "f6 f4+ c3", "f6:f4+ c3", "f6: f4+; c3"):
        assert GAME.apply(state, RED, text).board == a.board
    assert str(GAME.parse_turn(M.knowledge(state, RED), "F6 f4 + c3")) == "f6:f4+,c3"
    for move in GAME.legal_moves(state, RED):
        assert str(GAME.parse_turn(M.knowledge(state, RED), move)) == move


@pytest.mark.parametrize("text, words", [
    ("hello", "is not a Magnet turn"),
    ("f6", "is not a Magnet turn"),
    ("f6:", "is not a Magnet turn"),
    ("f6:f4++", "is not a Magnet turn"),
    ("z9:f4", "z9 is not a vertex"),
    ("f6:f4,c3,c3", "listed more than once"),
    ("f6:f4", "missing: c3"),
    ("f6:f4,c3,b7", "does not move b7 (that piece is not the nearest"),
    ("f6:f4,c3,j3", "that piece is your opponent's"),
    ("f6:f4,c3,b5", "there is no piece there"),
])
def test_bad_turns_are_rejected_with_a_reason(text, words):
    state = position({**KINGS, "f4": "R3/2", "c3": "R4/3"})
    assert words in message(state, RED, text)


def test_one_legal_move_per_distinct_result_smallest_piece_list():
    # f5 and g6 both reach the magnet (whoever goes first stays there); c6 does not, and its
    # place in the order changes nothing, so it is listed where the list is smallest.
    state = position({**KINGS, "c6": "R2/2", "f5": "R2/2", "g6": "R2/2"})
    assert with_magnet(GAME.legal_moves(state, RED), "f6") == {"f6:c6,f5,g6", "f6:c6,g6,f5"}
    same = GAME.apply(state, RED, "f6:f5,g6,c6")
    assert same.board == GAME.apply(state, RED, "f6:c6,f5,g6").board
    assert at(same, "f6") == "R2/2" and at(same, "g6") == "R2/2" and at(same, "e6") == "R2/2"


def brute_force_moves(state, seat, magnet):
    """The legal list for one magnet straight from the definition: every order and every
    set of promotion marks, grouped by their results under every labelling of the opponent's
    pieces the mover may capture (king, trap or plain as the public facts allow, at most one
    king); each group named by its smallest piece list, with no needless mark."""
    kn = M.knowledge(state, seat)
    pieces = M._affected(kn, magnet)
    groups = [[p] for p in pieces if p.path] if kn.opening else (
        [pieces] if any(p.path for p in pieces) else [])
    found = set()
    for group in groups:
        enemies = sorted({v for p in group for v in p.captures})
        choices = [[b for b in (M.MAY_KING, M.MAY_TRAP, M.MAY_PLAIN)
                    if kn.possible[kn.board[v] & 7] & b] for v in enemies]
        boards = []
        for labels in itertools.product(*choices):
            if labels.count(M.MAY_KING) <= 1:
                board = list(kn.board)
                for v, label in zip(enemies, labels):
                    board[v] = M._piece(1 - seat, M._LABEL_KIND[label], kn.board[v] & 7)
                boards.append(board)
        by = {p.origin: p for p in group}
        best: dict = {}
        for order in itertools.permutations(sorted(by)):
            marks = [o for o in order if by[o].promotable]
            for r in range(len(marks) + 1):
                for plus in itertools.combinations(marks, r):
                    key = []
                    for b0 in boards:
                        b = list(b0)
                        w, _, _ = M._run(b, seat, [(o, by[o].path, o in plus) for o in order],
                                         kn.own, kn.enemy)
                        key.append(w if w is not None else tuple(b))
                    name = (order, len(plus), tuple(sorted(plus)))
                    best[tuple(key)] = min(best.get(tuple(key), name), name)
        for order, _, plus in best.values():
            found.add(M.NAMES[magnet] + ":" + ",".join(
                M.NAMES[o] + ("+" if o in plus else "") for o in order))
    return found


def test_legal_list_matches_brute_force_definition():
    checked = 0
    rng = random.Random(3)
    for seed in ("bf1", "bf2"):
        state = started(seed)
        while state.outcome is None and state.turn < 60:
            seat = state.to_move[0]
            legal = GAME.legal_moves(state, seat)
            assert len(legal) == len(set(legal))
            if state.turn % 6 == 1:
                kn = M.knowledge(state, seat)
                for m in range(91):
                    if len(M._affected(kn, m)) <= 4:
                        assert with_magnet(legal, M.NAMES[m]) == brute_force_moves(state, seat, m)
                        checked += 1
            state = GAME.apply(state, seat, rng.choice(legal))
    assert checked > 500


def test_legal_list_matches_brute_force_in_crowded_positions():
    # Several reachers, enemies (possible traps and kings) on the paths, few pieces left.
    cases = [
        ({"f5": "R2", "e5": "R3/2", "g4": "R4/2", "f6": "B2", "h3": "B3", "d3": "RK",
          "a5": "R4", "k3": "BK", "f9": "BT3/2"}, ()),
        ({"f5": "RK", "e6": "R3/3", "c8": "R4/2", "f6": "BT2", "d7": "B3", "g6": "R2",
          "k3": "B2", "k4": "BK", "h6": "B2"}, ()),
        ({"e5": "RK", "f4": "R2", "f6": "B2", "g6": "R3/3", "h6": "B4/3", "i6": "B2",
          "k4": "BK"}, ((BLUE, "2"), (BLUE, "2"), (BLUE, "3"))),
        ({"e5": "RK", "f7": "R3/2", "f6": "BT3", "b2": "BK"}, ((RED, "T2"),)),
    ]
    for pieces, captured in cases:
        state = position(pieces, captured=captured)
        legal = GAME.legal_moves(state, RED)
        for m in range(91):
            assert with_magnet(legal, M.NAMES[m]) == brute_force_moves(state, RED, m), M.NAMES[m]


def test_orders_listed_as_one_move_give_the_same_real_result():
    # The classes are decided without Blue's values; whatever those are, every order of a
    # class must give the same real result.
    for pieces in ({"f4": "R3/2", "c3": "R4/3", "f5": "BT2", "e5": "B3", "f6": "BK",
                    "h4": "R2", "g5": "B2", "a5": "RK"},
                   {"f4": "R3/2", "c3": "R4/3", "f5": "B2", "e5": "BT3", "f6": "B2",
                    "h4": "RK", "g5": "BK", "a5": "R2"}):
        state = position(pieces)
        kn = M.knowledge(state, RED)
        for move in GAME.legal_moves(state, RED):
            turn = GAME.parse_turn(kn, move)
            origins = [o for o, _ in turn.pieces]
            plus = {o for o, p in turn.pieces if p}
            an = M._analyse(kn, turn.magnet, [p for p in M._affected(kn, turn.magnet)])
            reference = GAME.apply(state, RED, move)
            for perm in itertools.permutations(origins):
                if M._evaluate(an, perm) != M._evaluate(an, origins):
                    continue
                text = M.NAMES[turn.magnet] + ":" + ",".join(
                    M.NAMES[o] + ("+" if o in plus else "") for o in perm)
                other = GAME.apply(state, RED, text)
                assert (other.outcome and other.outcome.winners) == \
                    (reference.outcome and reference.outcome.winners)
                if reference.outcome is None:
                    assert other.board == reference.board


# -- perft, playouts, replay -----------------------------------------------------------------

def test_perft_from_the_start_of_setup():
    state = GAME.start(2, {}, "p")
    assert [perft(GAME, state, d) for d in (1, 2, 3)] == [2, 2, 712]


@pytest.mark.parametrize("setups, expected", [
    ("canonical", [356, 166252]),  # both sides in the order of the piece table
    ("perft-1", [357, 167433]),  # random setups from these seeds
    ("a", [356, 166964]),
])
def test_perft_from_fixed_setups(setups, expected):
    if setups == "canonical":
        state = GAME.start(2, {}, "p")
        state = GAME.apply(GAME.apply(state, RED, CANON[RED]), BLUE, CANON[BLUE])
    else:
        state = GAME.start(2, {"random_setup": True}, setups)
    assert [perft(GAME, state, d) for d in (1, 2)] == expected


def test_perft_in_the_middle_game():
    state, rng = started("perft-mid"), random.Random(0)
    for _ in range(30):
        seat = state.to_move[0]
        state = GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
    assert state.turn == 30 and len(state.captured) == 1
    assert [perft(GAME, state, d) for d in (1, 2)] == [124, 21054]


@pytest.mark.parametrize("seed", range(4))
def test_random_playouts_end_with_an_outcome(seed):
    state, moves = random_playout(GAME, started(f"playout-{seed}"), random.Random(seed))
    assert state.outcome is not None and state.to_move == ()
    assert GAME.legal_moves(state, RED) == GAME.legal_moves(state, BLUE) == []
    assert "game is over" in message(state, RED, moves[-1][1])
    json.dumps(GAME.view(state, None))


def test_replay_equals_the_live_state():
    state = GAME.start(2, {}, "replay")
    state, moves = random_playout(GAME, state, random.Random(8))
    assert moves[0][1].startswith("setup") and moves[1][1].startswith("setup")
    assert GAME.replay(2, {}, "replay", moves) == state


def test_apply_leaves_the_given_state_unchanged():
    state = started("frozen")
    before = (state.board, state.ply, state.to_move)
    GAME.apply(state, RED, GAME.legal_moves(state, RED)[0])
    assert (state.board, state.ply, state.to_move) == before


# -- hidden information --------------------------------------------------------------------

def test_views_show_own_values_and_only_rank_and_owner_of_enemies():
    state = GAME.apply(GAME.apply(GAME.start(2, {}, "v"), BLUE, CANON[BLUE]), RED, CANON[RED])
    red, blue, spectator = (GAME.view(state, s) for s in (RED, BLUE, None))
    for v in (red, blue, spectator):
        json.dumps(v)
    assert red["pieces"]["a2"] == {"owner": RED, "rank": 1, "piece": "K"}
    assert red["pieces"]["b1"] == {"owner": BLUE, "rank": 1}
    assert blue["pieces"]["b1"]["piece"] == "K" and "piece" not in blue["pieces"]["a2"]
    assert all("piece" not in p for p in spectator["pieces"].values())
    assert set(red["arrangements"]) == {"0"} and spectator["arrangements"] == {}
    assert red["phase"] == "play" and red["opening"]


def test_setup_phase_view_hides_the_other_arrangement():
    state = GAME.apply(GAME.start(2, {}, "v"), BLUE, CANON[BLUE])
    red = GAME.view(state, RED)
    assert red["phase"] == "setup" and red["set_up"] == [False, True]
    assert red["pieces"]["b1"] == {"owner": BLUE, "rank": 1}
    assert GAME.view(state, BLUE)["pieces"]["b1"]["piece"] == "K"


def test_everything_is_public_once_the_game_is_over():
    state = position({"f5": "RK", "k3": "BK"})
    after = GAME.apply(state, RED, "f6:f5")
    spectator = GAME.view(after, None)
    assert spectator["phase"] == "over"
    assert spectator["pieces"]["k3"]["piece"] == "K"
    assert set(spectator["arrangements"]) == {"0", "1"}


def test_setup_move_is_secret_until_the_end():
    state = GAME.start(2, {}, "pm")
    text = "setup a2=4 a3=T2 a4=T3 a5=2 b7=2 c8=2 d9=3 e10=3 g10=3 h9=K i8=4 j7=4"
    after = GAME.apply(state, RED, text)
    assert GAME.public_move(RED, text, BLUE, after) == "setup"
    assert GAME.public_move(RED, text, None, after) == "setup"
    assert GAME.public_move(RED, text, RED, after) == text
    assert GAME.public_move(RED, text.replace("setup ", ""), None, after) == "setup"
    assert GAME.public_move(RED, "f6:f5+,d4", BLUE, after) == "f6:f5+,d4"
    over = GAME.apply(position({"f5": "RK", "k3": "BK"}), RED, "f6:f5")
    assert GAME.public_move(RED, text, BLUE, over) == text


def test_a_trap_on_the_path_changes_nothing_the_mover_can_see():
    # f4 and c3 both reach f6; e5 lies on c3's path. Whether e5 is a trap decides whether c3
    # survives to block f4, but Red cannot know it, so lists and messages must not depend on it.
    base = {**KINGS, "f4": "R3/2", "c3": "R4/3", "h4": "R2", "f9": "R2"}
    bad_inputs = ["f6:c3", "f6:c3+,f4+,h4+,f9", "f6:f4,c3+,f9,h4+", "f6:f4+,c3,f9,h4",
                  "f6:c3,f4+,f9,h4", "e5:c3+", "f5:f4+,h4"]
    for blue in (("e5", "B", "T2"), ("e5", "B", "T3"), ("f6", "B", "T2"), ("g5", "B", "K")):
        variants = []
        for code in ("2", "3", "K", "T2", "T3"):
            pieces = {**base, "g5": "B3", blue[0]: "B" + code}
            if code == "K":
                pieces["j3"] = "B4"
            variants.append(position(pieces))
        first = variants[0]
        for other in variants[1:]:
            assert GAME.legal_moves(other, RED) == GAME.legal_moves(first, RED)
            assert GAME.view(other, RED) == GAME.view(first, RED)
            assert GAME.view(other, None) == GAME.view(first, None)
            for text in bad_inputs + GAME.legal_moves(first, RED)[::7]:
                assert outcome_text(first, RED, text) == outcome_text(other, RED, text)


def outcome_text(state, seat, text):
    try:
        GAME.apply(state, seat, text)
        return "ok"
    except IllegalMove as error:
        return str(error)


def swapped(kinds: tuple, a: int, b: int) -> tuple:
    out = list(kinds)
    out[a], out[b] = out[b], out[a]
    return tuple(out)


@pytest.mark.parametrize("seed, swap", [(0, (M.KING, M.P4)), (1, (M.T2, M.P2)),
                                        (2, (M.T3, M.P3)), (3, (M.KING, M.T2))])
def test_games_differing_only_in_blues_arrangement_look_the_same_to_red(seed, swap):
    rng = random.Random(seed)
    red_kinds, blue_kinds = list(M.SET), list(M.SET)
    rng.shuffle(red_kinds)
    rng.shuffle(blue_kinds)
    i, j = blue_kinds.index(swap[0]), blue_kinds.index(swap[1])
    setups = (GAME.setup_text(BLUE, blue_kinds),
              GAME.setup_text(BLUE, swapped(tuple(blue_kinds), i, j)))
    games = [GAME.start(2, {}, "same") for _ in setups]
    games = [GAME.apply(g, BLUE, s) for g, s in zip(games, setups)]
    assert len({GAME.public_move(BLUE, s, RED, g) for g, s in zip(games, setups)}) == 1
    assert len({GAME.public_move(BLUE, s, None, g) for g, s in zip(games, setups)}) == 1
    games = [GAME.apply(g, RED, GAME.setup_text(RED, red_kinds)) for g in games]
    plies = captures = 0
    while games[0].outcome is None and plies < 150:
        a, b = games
        assert a.to_move == b.to_move
        for viewer in (RED, None):
            assert GAME.view(a, viewer) == GAME.view(b, viewer)
        legal_a = GAME.legal_moves(a, RED)
        assert legal_a == GAME.legal_moves(b, RED)
        seat = a.to_move[0]
        if seat == RED:
            candidates = list(legal_a)
            sample = rng.sample(legal_a, min(4, len(legal_a)))
            probes = [m.replace(",", "+,") + "+" for m in sample]  # promote everything
            probes += [m.rsplit(",", 1)[0] for m in sample]  # leave a piece out
            probes += [m.split(":")[0] + ":" + ",".join(m.split(":")[1].split(",")[::-1])
                       for m in sample]  # another order
            probes += [f"{rng.choice(M.NAMES)}:{rng.choice(M.NAMES)},{rng.choice(M.NAMES)}"]
            for text in probes:
                assert outcome_text(a, RED, text) == outcome_text(b, RED, text)
        else:
            in_b = set(GAME.legal_moves(b, BLUE))
            candidates = [m for m in GAME.legal_moves(a, BLUE) if m in in_b]
        rng.shuffle(candidates)
        for move in candidates:
            after = [GAME.apply(g, seat, move) for g in games]
            # Stop short of what would make the difference public (capturing a swapped piece,
            # or an outcome that differs).
            if after[0].captured == after[1].captured and after[0].outcome == after[1].outcome:
                for viewer in (RED, None):
                    assert GAME.public_move(seat, move, viewer, after[0]) == \
                        GAME.public_move(seat, move, viewer, after[1])
                captures += len(after[0].captured) > len(games[0].captured)
                games = after
                break
        else:
            break
        plies += 1
    assert plies > 20 and captures > 0


def test_turn_builder_helpers_use_the_movers_knowledge():
    state = position({**KINGS, "f4": "R3/2", "c3": "R4/3", "e5": "BT2"})
    assert M.legal_turns(state, RED, "f6") == [
        m for m in GAME.legal_moves(state, RED) if m.startswith("f6:")]
    assert M.legal_turns(state, BLUE, "f6") == []  # not Blue's turn
    preview = M.path_preview(state, RED, "F6")
    assert preview["c3"] == {"path": ["d4", "e5", "f6"], "reaches": True, "captures": ["e5"],
                             "can_move": True, "can_promote": True}
    assert preview["f4"]["path"] == ["f5", "f6"] and preview["f4"]["reaches"]
    with pytest.raises(ValueError):
        M.affected_pieces(state, RED, "q7")
    plain = position({**KINGS, "f4": "R3/2", "c3": "R4/3", "e5": "B2"})
    assert M.path_preview(plain, RED, "f6") == preview


def test_view_describes_the_last_turn():
    state = position({**KINGS, "f3": "R4/3", "f4": "BT2", "f5": "B3/2", "e6": "R2"})
    after = GAME.apply(state, RED, "f6:f3+,e6")
    last = GAME.view(after, BLUE)["last_turn"]
    assert last == {"seat": RED, "magnet": "f6", "moves": [
        {"from": "f3", "to": "f6", "destroyed": True, "promoted": False,
         "captured": ["f4", "f5"]},
        {"from": "e6", "to": "f6", "destroyed": False, "promoted": False, "captured": []}]}
    assert GAME.legal_moves(after, RED) == [] and GAME.legal_moves(after, BLUE)
