"""The Right Moves: every rule and Ruling of shared/rules/the-right-moves.md."""
import dataclasses
import json
import random

import pytest

from engine.core import IllegalMove, InvalidGameSetup, perft, random_playout
from engine.the_right_moves import (GAME, INDEX, JUMPS, LINES, NAMES, NEIGHBOURS, PATHS,
                                    SPACES, direction, geometry, space_polar)

LETTERS = "abcdefghijklmnop"


def position(pieces, seat=0, players=2, options=None):
    """A state with exactly ``pieces`` ({space: "r", "b", "R" or "B"}; upper case =
    promoted) on the board and ``seat`` to move."""
    cells = ["."] * 60
    for name, piece in pieces.items():
        cells[INDEX[name]] = piece
    board = "".join(cells)
    state = GAME.start(players, options or {})
    return dataclasses.replace(state, board=board, to_move=(seat,), seen={(board, seat): 1})


def pieces_of(state):
    return {name: ("R" if cell["promoted"] else "r") if cell["colour"] == "red"
            else ("B" if cell["promoted"] else "b")
            for name, cell in GAME.view(state, None)["pieces"].items()}


def moves_from(state, space, seat=None):
    seat = state.to_move[0] if seat is None else seat
    return sorted(m for m in GAME.legal_moves(state, seat)
                  if m.split("-")[0].split("x")[0] == space)


# Four red pieces and four blue ones far away, so that no capture in a test ends the game
# and both sides always have moves (5f, 5h, 5n and 5p can step along ring 5).
RED_RESERVE = {"5f": "r", "5g": "r", "5h": "r", "4g": "r"}
BLUE_RESERVE = {"5n": "b", "5o": "b", "5p": "b", "4o": "b"}


def with_reserves(pieces):
    return {**RED_RESERVE, **BLUE_RESERVE, **pieces}


# -- the board ---------------------------------------------------------------------------

def test_board_has_60_spaces_on_five_rings():
    assert len(SPACES) == len(NAMES) == len(set(NAMES)) == 60
    by_ring = {ring: "".join(s.letter for s in SPACES if s.ring == ring) for ring in range(1, 6)}
    assert by_ring == {1: "aeim", 2: "acegikmo", 3: LETTERS, 4: LETTERS, 5: LETTERS}


def test_board_has_90_distinct_paths():
    assert len(PATHS) == 90
    assert len({frozenset(p) for p in PATHS}) == 90
    assert all(a != b and a in INDEX and b in INDEX for a, b in PATHS)
    assert ("1a", "1i") in PATHS and ("1e", "1m") in PATHS  # across the centre
    for a, b in [("1a", "1e"), ("2b", "1a"), ("5b", "4b"), ("3b", "2b"), ("2a", "3b")]:
        assert frozenset((a, b)) not in {frozenset(p) for p in PATHS}, (a, b)


# Derived by hand from the rules text, ring by ring, in letter order:
# ring 1: spoke to ring 2 + across the centre = 2;
# ring 2: loop 2 + spoke out 1 (+ spoke in 1 at a e i m);
# ring 3: loop 2 + spoke to ring 4 (+ spoke to ring 2 at even letters a c e g i k m o);
# ring 4: loop 2 + spoke to ring 3 (+ spoke to ring 5 at a e i m);
# ring 5: loop 2 (+ spoke to ring 4 at a e i m).
EXPECTED_DEGREES = {
    1: ("aeim", "2222"),
    2: ("acegikmo", "43434343"),
    3: (LETTERS, "4343434343434343"),
    4: (LETTERS, "4333433343334333"),
    5: (LETTERS, "3222322232223222"),
}


def test_degree_of_every_space():
    expected = {f"{ring}{letter}": int(degree)
                for ring, (letters, degrees) in EXPECTED_DEGREES.items()
                for letter, degree in zip(letters, degrees)}
    assert len(expected) == 60
    actual = {NAMES[i]: len(NEIGHBOURS[i]) for i in range(60)}
    assert actual == expected
    assert sum(expected.values()) == 2 * 90


def test_space_angles_and_polar_helper():
    assert space_polar("1a") == (1, 0.0)
    assert space_polar("1e") == (1, 90.0)  # north
    assert space_polar("2c") == (2, 45.0)
    assert space_polar("3i") == (3, 180.0)  # west
    assert space_polar("4m") == (4, 270.0)  # south
    assert space_polar("5p") == (5, 337.5)
    data = geometry()
    json.dumps(data)
    assert len(data["spaces"]) == 60 and len(data["paths"]) == 90
    assert {"name": "3b", "ring": 3, "angle": 22.5} in data["spaces"]
    assert data["inner_circle"] == ["1a", "1e", "1i", "1m"]


def test_straight_lines():
    lines = {line.spaces: line.closed for line in LINES}
    assert lines[("5a", "4a", "3a", "2a", "1a", "1i", "2i", "3i", "4i", "5i")] is False
    assert lines[("5e", "4e", "3e", "2e", "1e", "1m", "2m", "3m", "4m", "5m")] is False
    for x in "cgko":
        assert lines[(f"4{x}", f"3{x}", f"2{x}")] is False
    for x in "bdfhjlnp":
        assert lines[(f"4{x}", f"3{x}")] is False
    assert lines[("2a", "2c", "2e", "2g", "2i", "2k", "2m", "2o")] is True
    for ring in (3, 4, 5):
        assert lines[tuple(f"{ring}{x}" for x in LETTERS)] is True
    assert len(LINES) == 4 + 2 + 4 + 8

    def jumps(space):
        return sorted((NAMES[over], NAMES[landing]) for over, landing in JUMPS[INDEX[space]])

    assert jumps("2a") == sorted([("1a", "1i"), ("3a", "4a"), ("2c", "2e"), ("2o", "2m")])
    assert jumps("1a") == [("1i", "2i"), ("2a", "3a")]
    assert jumps("4c") == [("3c", "2c"), ("4b", "4a"), ("4d", "4e")]
    assert jumps("4b") == [("4a", "4p"), ("4c", "4d")]  # 4b 3b is too short to jump along
    assert jumps("3b") == [("3a", "3p"), ("3c", "3d")]
    assert jumps("5b") == [("5a", "5p"), ("5c", "5d")]
    assert jumps("3p") == [("3a", "3b"), ("3o", "3n")]  # the loop closes
    # Rings 2-5: 56 triples; two diameters of 10: 16; four segments of 3: 4. Both ways.
    assert sum(len(j) for j in JUMPS) == 2 * (56 + 16 + 4)


def test_direction_of_moves():
    assert direction("3a", "3b") == "around"
    assert direction("3a", "2a") == "inward"
    assert direction("2a", "3a") == "outward"
    assert direction("1a", "1i") == "inward"  # across the centre
    assert direction("2a", "1i") == "inward"  # a jump is judged from start to landing
    assert direction("1a", "2i") == "outward"
    assert direction("4a", "2a") == "inward"


# -- setup -------------------------------------------------------------------------------

def test_start_position():
    state = GAME.start(2)
    pieces = pieces_of(state)
    red = {f"{r}{x}" for r in (3, 4, 5) for x in "fghnop"}
    blue = {f"{r}{x}" for r in (3, 4, 5) for x in "bcdjkl"}
    assert {s for s, p in pieces.items() if p == "r"} == red
    assert {s for s, p in pieces.items() if p == "b"} == blue
    assert len(pieces) == 36
    assert state.to_move == (0,) and state.ply == 0 and state.outcome is None
    assert GAME.view(state, 0)["pieces_left"] == {"red": 18, "blue": 18}


def test_red_opening_moves():
    # By hand: per group, the end pieces of each ring step around into the gap, the middle
    # of ring 3 steps inward to ring 2, nothing steps outward and nothing can jump.
    assert sorted(GAME.legal_moves(GAME.start(2), 0)) == sorted([
        "5f-5e", "5h-5i", "4f-4e", "4h-4i", "3f-3e", "3h-3i", "3g-2g",
        "5n-5m", "5p-5a", "4n-4m", "4p-4a", "3n-3m", "3p-3a", "3o-2o"])


def test_blue_cannot_move_before_red():
    state = GAME.start(2)
    assert GAME.legal_moves(state, 1) == []
    with pytest.raises(IllegalMove, match="not your turn"):
        GAME.apply(state, 1, "3c-2c")


# -- steps and jumps ---------------------------------------------------------------------

def test_step_to_an_adjacent_empty_space_only():
    state = position(with_reserves({"4a": "r", "4b": "r", "3a": "r"}))
    assert moves_from(state, "4a") == ["4a-4p"]  # 4b and 3a occupied, 5a outward
    with pytest.raises(IllegalMove, match="occupied"):
        GAME.apply(state, 0, "4a-3a")
    with pytest.raises(IllegalMove, match="no path"):
        GAME.apply(state, 0, "4a-2a")  # two spaces: only a promoted piece skips
    after = GAME.apply(state, 0, "4a-4p")
    assert pieces_of(after)["4p"] == "r" and "4a" not in pieces_of(after)
    assert after.to_move == (1,) and after.ply == 1


def test_jump_over_an_enemy_piece():
    state = position(with_reserves({"4a": "r", "3a": "b"}))
    assert "4ax2a" in GAME.legal_moves(state, 0)
    after = GAME.apply(state, 0, "4ax2a")
    pieces = pieces_of(after)
    assert pieces["2a"] == "r" and "3a" not in pieces and "4a" not in pieces


def test_no_jump_over_own_piece_or_empty_space():
    state = position(with_reserves({"4a": "r", "3a": "r", "4b": "b", "4c": "b"}))
    assert not [m for m in GAME.legal_moves(state, 0) if m.startswith("4ax")]
    with pytest.raises(IllegalMove, match="own piece"):
        GAME.apply(state, 0, "4ax2a")
    with pytest.raises(IllegalMove, match="occupied"):
        GAME.apply(state, 0, "4ax4c")  # over 4b, but 4c is taken
    lone = position(with_reserves({"4a": "r"}))
    with pytest.raises(IllegalMove, match="empty"):
        GAME.apply(lone, 0, "4ax2a")


def test_jump_follows_a_straight_line_only():
    # 3b, 3a and 2a are not on one line; 3b over 3a lands on 3p, straight along ring 3.
    state = position(with_reserves({"3b": "r", "3a": "b", "4d": "r", "3d": "b"}))
    with pytest.raises(IllegalMove, match="straight line"):
        GAME.apply(state, 0, "3bx2a")
    assert [m for m in moves_from(state, "3b") if "x" in m] == ["3bx3p"]
    # The line 4d 3d ends at 3d (no path 3d-2d): nothing to land on beyond it.
    assert moves_from(state, "4d") == ["4d-4c", "4d-4e"]


def test_jump_chain_may_change_line():
    state = position(with_reserves({"4a": "r", "3a": "b", "2c": "b"}))
    moves = moves_from(state, "4a")
    assert "4ax2a" in moves and "4ax2ax2e" in moves  # radial line, then ring 2
    after = GAME.apply(state, 0, "4ax2ax2e")
    pieces = pieces_of(after)
    assert pieces["2e"] == "r" and not {"4a", "3a", "2a", "2c"} & set(pieces)


def test_notation_examples_from_the_rules():
    state = position(with_reserves({"4e": "r", "3e": "b", "3f": "b", "3h": "b"}))
    moves = GAME.legal_moves(state, 0)
    assert "4ex2e" in moves
    state = position(with_reserves({"3e": "r", "3f": "b", "3h": "b"}))
    assert {"3ex3g", "3ex3gx3i"} <= set(GAME.legal_moves(state, 0))
    state = position(with_reserves({"1i": "R"}))
    assert "1i-3k" in GAME.legal_moves(state, 0)


def test_a_piece_cannot_be_jumped_twice():
    # A promoted piece may jump back and forth, but never over the same piece again.
    state = position(with_reserves({"2a": "R", "2c": "b"}))
    moves = moves_from(state, "2a")
    assert "2ax2e" in moves and "2ax2ex2a" not in moves
    with pytest.raises(IllegalMove, match="second time"):
        GAME.apply(state, 0, "2ax2ex2a")


def test_jumped_pieces_stay_until_the_move_ends():
    # 3a over 2a to 1a, over 1i to 2i, over 2g to 2e: 2a would be the next landing, over
    # 2c, but the jumped piece is still on 2a until the move ends.
    state = position(with_reserves({"3a": "R", "2a": "b", "1i": "b", "2g": "b", "2c": "b"}))
    moves = moves_from(state, "3a")
    assert "3ax1ax2ix2e" in moves
    assert "3ax1ax2ix2ex2a" not in moves
    with pytest.raises(IllegalMove, match="occupied"):
        GAME.apply(state, 0, "3ax1ax2ix2ex2a")
    after = GAME.apply(state, 0, "3ax1ax2ix2e")
    pieces = pieces_of(after)
    assert pieces["2e"] == "R" and pieces["2c"] == "b"
    assert not {"3a", "2a", "1i", "2g", "1a", "2i"} & set(pieces)


def test_the_start_space_is_empty_during_a_chain():
    # Around ring 2: 2a over 2c, 2g, 2k and 2o comes back to 2a.
    state = position(with_reserves({"2a": "R", "2c": "b", "2g": "b", "2k": "b", "2o": "b"}))
    assert "2ax2ex2ix2mx2a" in moves_from(state, "2a")
    after = GAME.apply(state, 0, "2ax2ex2ix2mx2a")
    assert pieces_of(after)["2a"] == "R"
    assert after.outcome is None and GAME.view(after, None)["pieces_left"]["blue"] == 4


def test_a_chain_may_stop_after_any_jump():
    state = position(with_reserves({"3e": "r", "3f": "b", "3h": "b", "3j": "b"}))
    moves = moves_from(state, "3e")
    assert moves == sorted(["3e-2e", "3e-3d", "3ex3g", "3ex3gx3i", "3ex3gx3ix3k"])
    after = GAME.apply(state, 0, "3ex3g")
    pieces = pieces_of(after)
    assert pieces["3g"] == "r" and "3f" not in pieces
    assert pieces["3h"] == "b" and pieces["3j"] == "b"
    assert after.to_move == (1,)  # the turn is over


def test_jumping_is_never_compulsory():
    state = position(with_reserves({"4a": "r", "3a": "b"}))
    assert "4a-4b" in GAME.legal_moves(state, 0)
    assert GAME.apply(state, 0, "4a-4b").outcome is None


# -- direction ---------------------------------------------------------------------------

def test_unpromoted_piece_moves_around_or_inward_only():
    state = position(with_reserves({"4a": "r"}))
    assert moves_from(state, "4a") == ["4a-3a", "4a-4b", "4a-4p"]
    with pytest.raises(IllegalMove, match="outward"):
        GAME.apply(state, 0, "4a-5a")
    state = position(with_reserves({"3c": "r"}))
    assert moves_from(state, "3c") == ["3c-2c", "3c-3b", "3c-3d"]


def test_unpromoted_jump_outward_is_illegal():
    state = position(with_reserves({"3a": "r", "4a": "b"}))
    assert moves_from(state, "3a") == ["3a-2a", "3a-3b", "3a-3p"]
    with pytest.raises(IllegalMove, match="outward"):
        GAME.apply(state, 0, "3ax5a")
    # The same jump inward is fine.
    state = position(with_reserves({"5a": "r", "4a": "b"}))
    assert "5ax3a" in moves_from(state, "5a")


def test_jump_direction_is_judged_from_start_to_landing():
    # From ring 3, over 2a to 1a (inward); then over 1i (across the centre, inward) to 2i:
    # from ring 1 to ring 2 is outward, so the chain cannot go on. The piece is promoted
    # only when the move ends, so it still moves as an unpromoted piece.
    state = position(with_reserves({"3a": "r", "2a": "b", "1i": "b"}))
    moves = moves_from(state, "3a")
    assert "3ax1a" in moves and "3ax1ax2i" not in moves
    with pytest.raises(IllegalMove, match="outward"):
        GAME.apply(state, 0, "3ax1ax2i")


def test_crossing_the_centre_counts_as_inward():
    # An unpromoted piece on ring 1 cannot arise in play (landing there promotes), but the
    # direction rule alone allows 1a-1i and forbids 1a-2a.
    state = position(with_reserves({"1a": "r"}))
    assert moves_from(state, "1a") == ["1a-1i"]


def test_ring_2_ruling_steps_outward():
    state = position(with_reserves({"2c": "r"}))
    assert moves_from(state, "2c") == ["2c-2a", "2c-2e", "2c-3c"]
    after = GAME.apply(state, 0, "2c-3c")
    assert pieces_of(after)["3c"] == "r"  # still unpromoted
    # Back on ring 3 it cannot go outward again.
    assert "3c-4c" not in moves_from(dataclasses.replace(after, to_move=(0,)), "3c")


def test_ring_2_ruling_jumps_outward_for_the_whole_turn():
    state = position(with_reserves({"2c": "r", "3c": "b"}))
    assert "2cx4c" in moves_from(state, "2c")
    # From 2a over 1a to 1i, then outward over 2i to 3i: the piece began on ring 2.
    state = position(with_reserves({"2a": "r", "1a": "b", "2i": "b"}))
    assert "2ax1ix3i" in moves_from(state, "2a")
    after = GAME.apply(state, 0, "2ax1ix3i")
    assert pieces_of(after)["3i"] == "R"  # landed on ring 1 on the way: promoted


def test_ring_2_ruling_needs_the_turn_to_begin_on_ring_2():
    # 4c over 3c to 2c (inward), over 2e to 2g (around); over 3g to 4g would be outward,
    # and reaching ring 2 during the move does not allow it.
    state = position({**BLUE_RESERVE, "5f": "r", "5h": "r", "4h": "r",
                      "4c": "r", "3c": "b", "2e": "b", "3g": "b"})
    moves = moves_from(state, "4c")
    assert "4cx2cx2g" in moves and "4cx2cx2gx4g" not in moves
    with pytest.raises(IllegalMove, match="outward"):
        GAME.apply(state, 0, "4cx2cx2gx4g")
    # The same piece beginning its turn on 2c may go outward.
    state = position({**BLUE_RESERVE, "5f": "r", "5h": "r", "4h": "r",
                      "2c": "r", "2e": "b", "3g": "b"})
    assert "2cx2gx4g" in moves_from(state, "2c")


# -- promotion ---------------------------------------------------------------------------

def test_promotion_on_reaching_ring_1_by_a_step():
    state = position(with_reserves({"2a": "r"}))
    assert moves_from(state, "2a") == ["2a-1a", "2a-2c", "2a-2o", "2a-3a"]
    after = GAME.apply(state, 0, "2a-1a")
    assert pieces_of(after)["1a"] == "R"
    assert GAME.view(after, None)["pieces"]["1a"] == {"colour": "red", "promoted": True}


def test_promotion_when_a_jump_lands_on_ring_1():
    state = position(with_reserves({"3e": "r", "2e": "b"}))
    after = GAME.apply(state, 0, "3ex1e")
    assert pieces_of(after)["1e"] == "R"


def test_promotion_is_permanent():
    state = position(with_reserves({"1a": "R"}))
    after = GAME.apply(state, 0, "1a-5a")  # a skip out to the edge
    assert pieces_of(after)["5a"] == "R"


def test_no_promotion_without_reaching_ring_1():
    state = position(with_reserves({"3a": "r"}))
    assert pieces_of(GAME.apply(state, 0, "3a-2a"))["2a"] == "r"


# -- promoted pieces and skips -----------------------------------------------------------

def test_promoted_piece_steps_and_jumps_in_any_direction():
    # Hemmed in by its own pieces, it can still jump outward.
    state = position(with_reserves({"3a": "R", "4a": "b", "3b": "r", "3p": "r", "2a": "r"}))
    assert moves_from(state, "3a") == ["3ax5a"]
    after = GAME.apply(state, 0, "3ax5a")
    assert pieces_of(after)["5a"] == "R" and "4a" not in pieces_of(after)
    # It steps outward too, when its only open neighbour is outward.
    state = position({**BLUE_RESERVE, "4a": "R", "4b": "r", "4p": "r", "3a": "r",
                      "5b": "r", "5p": "r"})
    assert moves_from(state, "4a") == ["4a-5a"]


def test_skip_to_any_space_reachable_through_empty_spaces():
    # A promoted piece on 5b between its own pieces on 5a and 5d: it reaches 5c only.
    state = position(with_reserves({"5b": "R", "5a": "r", "5d": "r"}))
    assert moves_from(state, "5b") == ["5b-5c"]
    # Open it up on one side: everything reachable along ring 5 without passing 5f-5h.
    state = position(with_reserves({"5b": "R", "5a": "r"}))
    moves = moves_from(state, "5b")
    assert "5b-5e" in moves and "5b-5c" in moves
    assert "5b-1a" in moves  # via 5e 4e 3e 2e 1e 1m ... any route through empty spaces
    assert "5b-5i" in moves  # around the reserve via the inner rings


def test_skip_passes_through_no_occupied_space():
    # 5b's only way out is past 5c; a blue piece there blocks every skip (it may jump it).
    state = position(with_reserves({"5b": "R", "5a": "r", "5c": "b"}))
    assert moves_from(state, "5b") == ["5bx5d"]
    with pytest.raises(IllegalMove, match="blocked"):
        GAME.apply(state, 0, "5b-5e")


def test_no_jump_inside_a_skip_and_no_skip_inside_a_chain():
    state = position(with_reserves({"5b": "R", "5a": "r", "5c": "b"}))
    for bad in ("5b-5d", "5bx5dx5e", "5bx5d-5e", "5bx5e"):
        with pytest.raises(IllegalMove):
            GAME.apply(state, 0, bad)


def test_skip_1i_to_3k():
    state = position(with_reserves({"1i": "R"}))
    after = GAME.apply(state, 0, "1i-3k")
    assert pieces_of(after)["3k"] == "R" and "1i" not in pieces_of(after)
    blocked = position(with_reserves({"1i": "R", "2i": "b", "1a": "b"}))
    assert "1i-3k" not in GAME.legal_moves(blocked, 0)


# -- the end of the game -----------------------------------------------------------------

def test_win_by_filling_the_inner_circle():
    state = position(with_reserves({"1a": "R", "1e": "R", "1i": "R", "2m": "r"}))
    after = GAME.apply(state, 0, "2m-1m")
    assert after.outcome.winners == (0,) and not after.outcome.draw
    assert "inner circle" in after.outcome.reason
    assert after.to_move == ()
    assert GAME.legal_moves(after, 1) == []


def test_inner_circle_must_be_all_own_pieces():
    state = position(with_reserves({"1a": "R", "1e": "B", "1i": "R", "2m": "r"}))
    assert GAME.apply(state, 0, "2m-1m").outcome is None


def test_win_when_the_opponent_has_three_or_fewer_pieces():
    state = position({**RED_RESERVE, "4a": "r", "3a": "b", "5n": "b", "5o": "b", "5p": "b"})
    after = GAME.apply(state, 0, "4ax2a")
    assert after.outcome.winners == (0,)
    assert "3 pieces" in after.outcome.reason
    # Four left is not enough to win.
    state = position({**RED_RESERVE, "4a": "r", "3a": "b", "5n": "b", "5o": "b", "5p": "b",
                      "4o": "b"})
    assert GAME.apply(state, 0, "4ax2a").outcome is None


def test_side_to_move_without_legal_moves_loses():
    # Blue's four pieces on 5b-5e are hemmed in: 5a, 5f, 4e, with 5p, 5g, 3e behind them.
    blue = {"5b": "b", "5c": "b", "5d": "b", "5e": "b"}
    red = {"5a": "r", "5p": "r", "5f": "r", "5g": "r", "4e": "r", "3e": "r", "3k": "r"}
    state = position({**blue, **red})
    assert GAME.legal_moves(dataclasses.replace(state, to_move=(1,)), 1) == []
    after = GAME.apply(state, 0, "3k-2k")
    assert after.outcome.winners == (0,)
    assert after.outcome.reason == "Blue has no legal move"


def test_repetition_draw():
    pieces = with_reserves({"2a": "R", "2i": "B"})
    cycle = ["2a-2c", "2i-2k", "2c-2a", "2k-2i"]
    state = position(pieces)
    for move in cycle:
        state = GAME.apply(state, state.to_move[0], move)
    assert state.outcome is None  # the position's second time
    for move in cycle[:3]:
        state = GAME.apply(state, state.to_move[0], move)
    assert state.outcome is None
    state = GAME.apply(state, 1, cycle[3])  # third time, Red to move
    assert state.outcome.draw and state.outcome.winners == ()
    assert "three times" in state.outcome.reason


def test_repetition_draw_can_be_switched_off():
    state = position(with_reserves({"2a": "R", "2i": "B"}),
                     options={"repetition_draw": False})
    for _ in range(4):
        for move in ["2a-2c", "2i-2k", "2c-2a", "2k-2i"]:
            state = GAME.apply(state, state.to_move[0], move)
    assert state.outcome is None and state.ply == 16


def test_repetition_needs_the_same_player_to_move():
    # Red shuffles 2a-2c-2a while Blue shuffles three spaces: positions recur with the other
    # player to move, which does not count.
    state = position(with_reserves({"2a": "R", "2i": "B"}))
    red = ["2a-2c", "2c-2a"] * 3
    blue = ["2i-2k", "2k-2m", "2m-2i"] * 2
    for r, b in zip(red, blue):
        state = GAME.apply(state, 0, r)
        assert state.outcome is None
        state = GAME.apply(state, 1, b)
    # The start board has now occurred three times (twice with Red to move, once in the
    # middle with Blue to move): not a third time with the same player to move.
    assert state.ply == 12 and state.outcome is None
    state = GAME.apply(state, 0, "2a-2c")
    state = GAME.apply(state, 1, "2i-2k")
    assert state.outcome is None


def test_options_and_player_counts():
    assert GAME.default_options == {"repetition_draw": True}
    assert GAME.player_counts == (2, 4)
    assert GAME.start(2, {"repetition_draw": "false"}).options["repetition_draw"] is False
    with pytest.raises(InvalidGameSetup):
        GAME.start(2, {"variant": 1})
    with pytest.raises(InvalidGameSetup):
        GAME.start(3)


# -- four players ------------------------------------------------------------------------

def test_four_player_turn_order_and_team_colours():
    state = GAME.start(4)
    assert GAME.teams(4) == ((0, 2), (1, 3))
    assert [GAME.seat_name(4, s) for s in range(4)] == ["Red (1)", "Blue (1)", "Red (2)",
                                                        "Blue (2)"]
    order = []
    for move in ["3g-2g", "3c-2c", "3o-2o", "3k-2k", "2g-2e"]:
        seat = state.to_move[0]
        order.append(seat)
        state = GAME.apply(state, seat, move)
    assert order == [0, 1, 2, 3, 0]
    assert pieces_of(state)["2o"] == "r"  # seat 2 moved a red piece
    assert pieces_of(state)["2k"] == "b"  # seat 3 moved a blue piece


def test_four_player_seats_move_any_piece_of_their_colour():
    state = GAME.start(4)
    state = GAME.apply(state, 0, "3g-2g")
    state = GAME.apply(state, 1, "3c-2c")
    # Seat 2 may move the piece seat 0 just moved; it may not move a blue piece.
    assert {"2g-2e", "2g-2i", "2g-3g"} <= set(GAME.legal_moves(state, 2))
    with pytest.raises(IllegalMove, match="Blue's"):
        GAME.apply(state, 2, "2c-1a")
    with pytest.raises(IllegalMove, match="not your turn"):
        GAME.apply(state, 0, "2g-2i")
    red2 = dataclasses.replace(state, to_move=(0,))
    assert sorted(GAME.legal_moves(state, 2)) == sorted(GAME.legal_moves(red2, 0))


def test_four_player_team_wins_and_loses_together():
    state = position(with_reserves({"1a": "R", "1e": "R", "1i": "R", "2m": "r"}),
                     seat=2, players=4)
    after = GAME.apply(state, 2, "2m-1m")
    assert after.outcome.winners == (0, 2)
    assert GAME.resignation(GAME.start(4), 3).winners == (0, 2)
    assert GAME.resignation(GAME.start(4), 0).winners == (1, 3)


def test_four_player_loss_without_moves_names_the_player():
    blue = {"5b": "b", "5c": "b", "5d": "b", "5e": "b"}
    red = {"5a": "r", "5p": "r", "5f": "r", "5g": "r", "4e": "r", "3e": "r", "3k": "r"}
    after = GAME.apply(position({**blue, **red}, seat=2, players=4), 2, "3k-2k")
    assert after.outcome.winners == (0, 2)
    assert after.outcome.reason == "Blue (2) has no legal move"


# -- notation and the list of legal moves ------------------------------------------------

def test_legal_list_one_entry_per_step_or_skip_destination():
    # 1a's neighbour 1i is also reachable the long way round (2a 2c 2e ... 2i 1i): one entry.
    state = position(with_reserves({"1a": "R"}))
    moves = GAME.legal_moves(state, 0)
    assert len(moves) == len(set(moves))
    assert moves.count("1a-1i") == 1 and moves.count("1a-2i") == 1
    empty_spaces = 60 - len(with_reserves({"1a": "R"}))
    assert len(moves_from(state, "1a")) == empty_spaces  # the board is one open region


def test_legal_list_one_entry_per_jump_path_including_every_prefix():
    # 4a over 3a to 2a, then three ways on: over 2c, over 2o, or across over 1a.
    state = position(with_reserves({"4a": "r", "3a": "b", "2c": "b", "2o": "b", "1a": "b"}))
    jumps = [m for m in moves_from(state, "4a") if "x" in m]
    assert sorted(jumps) == ["4ax2a", "4ax2ax1i", "4ax2ax2e", "4ax2ax2m"]
    everything = GAME.legal_moves(state, 0)
    assert len(everything) == len(set(everything))


def test_move_text_is_read_leniently():
    state = position(with_reserves({"4e": "r", "3e": "b", "4a": "r"}))
    for text in ["4ex2e", "4E X 2E", "4e x 2e", "4e:2e", "4e*2e", "4e \u00d7 2e", "4e 2e"]:
        after = GAME.apply(state, 0, text)
        assert after.last_move == "4ex2e", text
    for text in ["4a-4b", "4A - 4B", "4a 4b", "4a\u20134b", " 4a-4b "]:
        assert GAME.apply(state, 0, text).last_move == "4a-4b", text


def test_skip_and_jump_to_the_same_space_must_be_told_apart():
    # 4e to 2e: a jump over 3e, or a skip by 4d 4c 3c 2c 2e.
    state = position(with_reserves({"4e": "R", "3e": "b"}))
    moves = GAME.legal_moves(state, 0)
    assert "4e-2e" in moves and "4ex2e" in moves
    with pytest.raises(IllegalMove, match="4e-2e for the skip or 4ex2e for the jump"):
        GAME.apply(state, 0, "4e 2e")
    assert GAME.apply(state, 0, "4e-2e").board != GAME.apply(state, 0, "4ex2e").board


@pytest.mark.parametrize("text, words", [
    ("hello", "not a move"),
    ("4b", "only one space"),
    ("6a-5a", "rings are numbered 1"),
    ("2b-3b", "ring 2 has only the letters a, c, e"),
    ("1c-1e", "ring 1 has only the letters a, e, i, m"),
    ("4q-4p", "ring 4 has only the letters a, b"),
    ("b4-b3", "not a move"),
    ("4c-3c-2c", "start and destination only"),
    ("4ex3e-2e", "not both"),
    ("4f-4e;", "not a move"),
    ("3a-2a", "no piece on 3a"),
    ("3c-2c", "Blue's; you play Red"),
    ("5g-5f", "occupied"),
])
def test_malformed_or_illegal_input_explains_itself(text, words):
    state = GAME.start(2)
    with pytest.raises(IllegalMove, match=words) as raised:
        GAME.apply(state, 0, text)
    assert text in str(raised.value)


def test_non_text_and_empty_moves_are_rejected():
    state = GAME.start(2)
    with pytest.raises(IllegalMove):
        GAME.apply(state, 0, None)
    with pytest.raises(IllegalMove, match="empty"):
        GAME.apply(state, 0, "   ")


def test_a_jump_written_as_a_step_gets_a_hint():
    state = position(with_reserves({"4e": "r", "3e": "b"}))
    with pytest.raises(IllegalMove, match="a jump is written with x: 4ex2e"):
        GAME.apply(state, 0, "4e-2e")


def test_illegal_move_lists_what_the_piece_can_do():
    with pytest.raises(IllegalMove, match="It can play: 3g-2g") as raised:
        GAME.apply(GAME.start(2), 0, "3g-3f")
    assert "occupied" in str(raised.value)


def test_no_moves_after_the_game_is_over():
    state = position(with_reserves({"1a": "R", "1e": "R", "1i": "R", "2m": "r"}))
    after = GAME.apply(state, 0, "2m-1m")
    with pytest.raises(IllegalMove, match="over"):
        GAME.apply(after, 1, "5n-5m")


# -- view, immutability, replay, perft, playouts -----------------------------------------

def test_view_is_json_ready_and_the_same_for_everyone():
    state = GAME.apply(GAME.start(4), 0, "3g-2g")
    view = GAME.view(state, 1)
    json.dumps(view)
    assert view["pieces"]["2g"] == {"colour": "red", "promoted": False}
    assert view["pieces_left"] == {"red": 18, "blue": 18}
    assert view["to_move"] == [1]
    assert view["turn"] == {"seat": 1, "name": "Blue (1)", "colour": "blue"}
    assert view["colour"] == "blue" and view["seat"] == 1
    assert view["teams"] == [{"colour": "red", "seats": [0, 2]},
                             {"colour": "blue", "seats": [1, 3]}]
    assert view["last_move"] == "3g-2g"
    spectator = GAME.view(state, None)
    assert spectator["colour"] is None
    assert {k: v for k, v in spectator.items() if k not in ("seat", "colour")} \
        == {k: v for k, v in view.items() if k not in ("seat", "colour")}


def test_apply_leaves_the_state_unchanged():
    state = GAME.start(2)
    before = (state.board, dict(state.seen), state.ply, state.to_move)
    GAME.apply(state, 0, "3g-2g")
    assert (state.board, dict(state.seen), state.ply, state.to_move) == before


def test_perft_two_players():
    # Depth 1 and 2 by hand: 14 moves each side, and no first move changes the other's 14
    # count (each blocks one reply and opens one jump back into the vacated space).
    state = GAME.start(2)
    assert [perft(GAME, state, d) for d in (1, 2, 3)] == [14, 196, 3256]


def test_perft_four_players():
    # Seat 2 moves Red exactly as seat 0 would, so the counts match the two-player game.
    state = GAME.start(4)
    assert [perft(GAME, state, d) for d in (1, 2, 3)] == [14, 196, 3256]


@pytest.mark.parametrize("players, seed", [(2, 1), (2, 2), (4, 3), (4, 4)])
def test_random_playout_ends_and_replays(players, seed):
    start = GAME.start(players, {}, seed="x")
    end, moves = random_playout(GAME, start, random.Random(seed))
    assert end.outcome is not None
    assert end.ply == len(moves)
    assert [seat for seat, _ in moves] == [i % players for i in range(len(moves))]
    replayed = GAME.replay(players, {}, "x", moves)
    assert replayed == end
    view = GAME.view(end, None)
    json.dumps(view)
    left = view["pieces_left"]
    if not end.outcome.draw:
        winner_colour = "red" if end.outcome.winners[0] % 2 == 0 else "blue"
        loser_colour = "blue" if winner_colour == "red" else "red"
        reason = end.outcome.reason
        assert ("inner circle" in reason
                or left[loser_colour] <= 3
                or "no legal move" in reason), reason


# -- a slow, plain reference written from the rules text alone ----------------------------

def _reference_board():
    rings = {1: "aeim", 2: "acegikmo", 3: LETTERS, 4: LETTERS, 5: LETTERS}
    adjacent = {f"{r}{x}": set() for r, letters in rings.items() for x in letters}

    def link(a, b):
        adjacent[a].add(b)
        adjacent[b].add(a)

    for r in (2, 3, 4, 5):
        letters = rings[r]
        for i, x in enumerate(letters):
            link(f"{r}{x}", f"{r}{letters[(i + 1) % len(letters)]}")
    link("1a", "1i")
    link("1e", "1m")
    for x in "aeim":
        link(f"5{x}", f"4{x}")
        link(f"2{x}", f"1{x}")
    for x in LETTERS:
        link(f"4{x}", f"3{x}")
    for x in "acegikmo":
        link(f"3{x}", f"2{x}")
    return adjacent


REF_ADJACENT = _reference_board()


def _ring(space):
    return int(space[0])


def _around(a, b):
    return _ring(a) == _ring(b) > 1


def _reference_jumps(a):
    """(over, landing) pairs: two paths in a row both around a ring, or both radial (a
    spoke or across the centre), never turning back."""
    return [(over, landing) for over in REF_ADJACENT[a] for landing in REF_ADJACENT[over]
            if landing != a and _around(a, over) == _around(over, landing)]


def reference_moves(pieces, colour):
    enemy = "b" if colour == "r" else "r"
    found = set()
    for start, piece in pieces.items():
        if piece.lower() != colour:
            continue
        promoted = piece.isupper()
        free = promoted or _ring(start) == 2

        # allowed and chains are called within this iteration only (noqa: B023)
        def allowed(a, b):
            return free or _ring(b) <= _ring(a)  # around, inward or across the centre  # noqa: B023

        if promoted:
            reached, todo = {start}, [start]
            while todo:
                for t in REF_ADJACENT[todo.pop()]:
                    if t not in reached and t not in pieces:
                        reached.add(t)
                        todo.append(t)
                        found.add(f"{start}-{t}")
        else:
            found.update(f"{start}-{t}" for t in REF_ADJACENT[start]
                         if t not in pieces and allowed(start, t))

        def chains(pos, path, captured):
            for over, landing in _reference_jumps(pos):
                if (pieces.get(over, ".").lower() == enemy and over not in captured
                        and (landing not in pieces or landing == start)  # noqa: B023
                        and allowed(pos, landing)):
                    found.add("x".join([start, *path, landing]))  # noqa: B023
                    chains(landing, [*path, landing], captured | {over})

        chains(start, [], frozenset())
    return found


def reference_apply(pieces, move):
    spaces = move.replace("x", "-").split("-")
    piece = pieces[spaces[0]]
    after = {s: p for s, p in pieces.items() if s != spaces[0]}
    if "x" in move:
        for a, b in zip(spaces, spaces[1:]):
            (over,) = [o for o, landing in _reference_jumps(a) if landing == b]
            del after[over]
    if any(_ring(s) == 1 for s in spaces[1:]):
        piece = piece.upper()
    after[spaces[-1]] = piece
    return after


@pytest.mark.parametrize("players, seed", [(2, 11), (2, 13), (2, 15), (4, 12), (4, 14)])
def test_moves_match_a_reference_written_from_the_rules(players, seed):
    rng = random.Random(seed)
    state = GAME.start(players)
    promoted_seen = jumps_seen = chains_seen = 0
    while state.outcome is None:
        seat = state.to_move[0]
        colour = "r" if seat % 2 == 0 else "b"
        pieces = pieces_of(state)
        legal = GAME.legal_moves(state, seat)
        assert len(legal) == len(set(legal))
        assert set(legal) == reference_moves(pieces, colour), state.ply
        move = rng.choice(legal)
        jumps_seen += "x" in move
        chains_seen += move.count("x") > 1
        promoted_seen += pieces[move.split("-")[0].split("x")[0]].isupper()
        state = GAME.apply(state, seat, move)
        assert pieces_of(state) == reference_apply(pieces, move)
    assert promoted_seen and jumps_seen and chains_seen
