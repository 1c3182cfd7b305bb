"""Rules tests for Mastery, derived by hand from shared/rules/mastery.md.

Positions are built with ``position({"d1": "M", "c8": "m"})``: upper case is Dark (seat 0),
lower case Light (seat 1). Expected move lists were worked out on paper from the rules file.
"""
from __future__ import annotations

import json
import re
import random

import pytest

import engine
from engine.core import perft
from engine.mastery import MasteryState

GAME = engine.get("mastery")
FILES = "abcdefgh"

IMPERIAL = {
    "d1": "M", "e1": "M", "f1": "M", "d2": "O", "e2": "O", "f2": "O", "e3": "O",
    "c3": "P", "d3": "P", "f3": "P", "g3": "P", "d4": "P", "f4": "P",
    "c8": "m", "d8": "m", "e8": "m", "c7": "o", "d7": "o", "e7": "o", "d6": "o",
    "b6": "p", "c6": "p", "e6": "p", "f6": "p", "c5": "p", "e5": "p",
}
CROWN = {
    "c1": "M", "e1": "M", "g1": "M", "d1": "O", "f1": "O", "e2": "O", "e3": "O",
    "c2": "P", "d2": "P", "f2": "P", "g2": "P", "b3": "P", "h3": "P",
    "b8": "m", "d8": "m", "f8": "m", "c8": "o", "e8": "o", "d7": "o", "d6": "o",
    "b7": "p", "c7": "p", "e7": "p", "f7": "p", "a6": "p", "g6": "p",
}


# -- helpers -------------------------------------------------------------------------------

def position(squares: dict[str, str], to_move: int = 0, **options) -> MasteryState:
    """A state with exactly these pieces, ``to_move`` to play."""
    cells = ["."] * 64
    for name, piece in squares.items():
        cells[FILES.index(name[0]) + 8 * (int(name[1]) - 1)] = piece
    board = "".join(cells)
    return MasteryState(players=2, options=GAME.resolve_options(options), to_move=(to_move,),
                        board=board, seen={(board, to_move): 1})


def pieces(state) -> dict[str, str]:
    """The board as {square: letter}, read through the public view."""
    return {square: info["piece"] if info["owner"] == 0 else info["piece"].lower()
            for square, info in GAME.view(state, None)["board"].items()}


def moves(state, seat: int | None = None) -> list[str]:
    seat = state.to_move[0] if seat is None else seat
    return GAME.legal_moves(state, seat)


def moves_from(state, square: str) -> list[str]:
    """Moves and captures (without resurrection) of the own piece on ``square``."""
    return sorted(m for m in moves(state) if m.startswith(square) and "=" not in m)


def control_moves(state, square: str) -> list[str]:
    return sorted(m for m in moves(state) if m.startswith("~" + square))


def controlled(state) -> set[str]:
    """The squares of the enemy pieces the player to move may control."""
    return {m[1:3] for m in moves(state) if m.startswith("~")}


def play(state, *texts: str):
    for text in texts:
        state = GAME.apply(state, state.to_move[0], text)
    return state


def lost(board: dict[str, str], seat: int) -> bool:
    mine = [p for p in board.values() if (p.isupper() if seat == 0 else p.islower())]
    kinds = {p.upper() for p in mine}
    return "M" not in kinds or not kinds & {"O", "P"}


# -- the game and its setups ------------------------------------------------------------------

def test_game_description():
    assert GAME.id == "mastery"
    assert GAME.title == "Mastery"
    assert GAME.player_counts == (2,)
    assert GAME.default_options == {"setup": "imperial", "repetition_draw": True}
    assert engine.GAMES["mastery"] is GAME


def test_imperial_setup_squares():
    state = GAME.start(2, {"setup": "imperial"}, "seed")
    assert pieces(state) == IMPERIAL


def test_crown_setup_squares():
    state = GAME.start(2, {"setup": "crown"}, "seed")
    assert pieces(state) == CROWN


def test_default_setup_is_imperial():
    assert pieces(GAME.start(2, {}, "x")) == IMPERIAL


def test_each_side_starts_with_three_masters_four_officers_six_pawns():
    for setup in (IMPERIAL, CROWN):
        letters = sorted(setup.values())
        assert letters == sorted("MMMOOOOPPPPPPmmmoooopppppp")


def test_dark_moves_first():
    state = GAME.start(2, {}, "x")
    assert state.to_move == (0,)
    assert state.ply == 0
    assert state.outcome is None
    assert GAME.legal_moves(state, 1) == []


def test_turns_alternate_and_ply_counts_moves():
    state = play(GAME.start(2, {}, "x"), "g3-h4")
    assert (state.ply, state.to_move) == (1, (1,))
    state = play(state, "b6-a5")
    assert (state.ply, state.to_move) == (2, (0,))


# -- movement ---------------------------------------------------------------------------------

def test_master_moves_one_to_three_squares_orthogonally():
    state = position({"d4": "M", "h1": "P", "h8": "m", "a8": "p"})
    assert moves_from(state, "d4") == sorted([
        "d4-d5", "d4-d6", "d4-d7", "d4-d3", "d4-d2", "d4-d1",
        "d4-c4", "d4-b4", "d4-a4", "d4-e4", "d4-f4", "d4-g4"])


def test_master_range_is_cut_by_the_board_edge():
    state = position({"a1": "M", "h5": "P", "h8": "m", "a8": "p"})
    assert moves_from(state, "a1") == sorted(["a1-a2", "a1-a3", "a1-a4", "a1-b1", "a1-c1", "a1-d1"])


def test_officer_moves_one_or_two_squares_orthogonally():
    state = position({"d4": "O", "a1": "M", "h8": "m", "a8": "p"})
    assert moves_from(state, "d4") == sorted([
        "d4-d5", "d4-d6", "d4-d3", "d4-d2", "d4-c4", "d4-b4", "d4-e4", "d4-f4"])


def test_pawn_moves_one_square_in_all_eight_directions():
    state = position({"d4": "P", "a1": "M", "h8": "m", "a8": "p"})
    assert moves_from(state, "d4") == sorted([
        "d4-c3", "d4-d3", "d4-e3", "d4-c4", "d4-e4", "d4-c5", "d4-d5", "d4-e5"])


def test_light_pawn_moves_in_all_eight_directions_too():
    state = position({"d4": "p", "h8": "m", "a1": "M", "h1": "P"}, to_move=1)
    assert moves_from(state, "d4") == sorted([
        "d4-c3", "d4-d3", "d4-e3", "d4-c4", "d4-e4", "d4-c5", "d4-d5", "d4-e5"])


def test_master_cannot_jump_and_stops_on_a_capture():
    # up: own Master on d6 blocks after d5; down: enemy Master on d2 is taken, d1 unreachable;
    # left: own Master on b4 blocks after c4; right: enemy Pawn on f4 is taken, g4 unreachable.
    state = position({"d4": "M", "d6": "M", "b4": "M", "d2": "m", "f4": "p", "h8": "m",
                      "h1": "P"})
    assert moves_from(state, "d4") == sorted(["d4-d5", "d4-c4", "d4-d3", "d4xd2", "d4-e4", "d4xf4"])


def test_officer_cannot_jump_over_pieces():
    # a2 (own Pawn) blocks the way up; c1 (enemy Pawn) is taken, d1 is out of reach anyway.
    state = position({"a1": "O", "a2": "P", "b1": ".", "c1": "p", "h1": "M", "h8": "m"})
    assert moves_from(state, "a1") == ["a1-b1", "a1xc1"]


def test_officer_blocked_by_enemy_master_in_the_way():
    # Officer d4, enemy Master d5: the Officer can neither take it nor pass it to d6.
    state = position({"d4": "O", "d5": "m", "a1": "M", "a8": "p"})
    assert [m for m in moves_from(state, "d4") if m[3] == "d"] == ["d4-d2", "d4-d3"]


def test_moves_go_only_to_empty_squares_or_captures():
    state = GAME.start(2, {}, "x")
    for text in ("c3-d3", "d2-d3", "e2-e1", "e1-d1"):  # own pieces in the way
        assert text not in moves(state)
        with pytest.raises(engine.IllegalMove):
            GAME.apply(state, 0, text)


def test_imperial_opening_moves_listed_by_hand():
    expected = [
        # Masters: d1 left 3 and devours d2; e1 devours e2; f1 right 2 and devours f2
        "d1-c1", "d1-b1", "d1-a1", "d1xd2", "e1xe2", "f1-g1", "f1-h1", "f1xf2",
        # Officers: d2 left 2; f2 right 2; e3 up to e4 and takes the Pawn on e5
        "d2-c2", "d2-b2", "f2-g2", "f2-h2", "e3-e4", "e3xe5",
        # Pawns
        "c3-b2", "c3-c2", "c3-b3", "c3-b4", "c3-c4",
        "d3-c2", "d3-c4", "d3-e4",
        "f3-g2", "f3-e4", "f3-g4",
        "g3-g2", "g3-h2", "g3-h3", "g3-g4", "g3-h4",
        "d4-c4", "d4-e4", "d4-d5", "d4xc5", "d4xe5",
        "f4-e4", "f4-g4", "f4-f5", "f4-g5", "f4xe5",
    ]
    assert len(expected) == 40
    assert sorted(moves(GAME.start(2, {}, "x"))) == sorted(expected)


def test_no_control_moves_in_either_setup():
    for setup in ("imperial", "crown"):
        state = GAME.start(2, {"setup": setup}, "x")
        assert not any(m.startswith("~") for m in moves(state))


# -- captures ---------------------------------------------------------------------------------

def test_pawn_takes_only_enemy_pawns():
    # around d4: own P c3 and own O d3; enemy Master c5, Pawn d5, Officer e5; rest empty.
    state = position({"d4": "P", "c3": "P", "d3": "O", "c5": "m", "d5": "p", "e5": "o",
                      "a1": "M"})
    assert moves_from(state, "d4") == sorted(["d4-c4", "d4-e3", "d4-e4", "d4xd5"])


def test_officer_takes_enemy_officers_and_pawns_but_not_masters():
    state = position({"d4": "O", "d6": "o", "b4": "p", "e4": "m", "d3": "P", "a1": "M"})
    assert moves_from(state, "d4") == sorted(["d4-d5", "d4xd6", "d4-c4", "d4xb4"])


def test_master_takes_any_enemy_piece():
    state = position({"d4": "M", "d5": "m", "c4": "o", "e4": "p", "d1": "p", "h1": "P",
                      "h8": "m"})
    assert moves_from(state, "d4") == sorted(["d4xd5", "d4xc4", "d4xe4", "d4-d3", "d4-d2", "d4xd1"])


def test_master_devours_own_officers_and_pawns_but_never_own_masters():
    state = position({"d4": "M", "d5": "O", "c4": "P", "e4": "M", "h8": "m", "a8": "p"})
    assert moves_from(state, "d4") == sorted(["d4xd5", "d4xc4", "d4-d3", "d4-d2", "d4-d1"])
    with pytest.raises(engine.IllegalMove):
        GAME.apply(state, 0, "d4xe4")


def test_officers_and_pawns_never_take_own_pieces():
    state = position({"d4": "O", "d5": "P", "e5": "P", "a1": "M", "h8": "m", "a8": "p"})
    assert not any(m.startswith("d4") and m[3:5] == "d5" for m in moves(state))
    assert not any(m.startswith("d5") and m[3:5] in ("d4", "e5") for m in moves(state))


def test_capture_removes_the_taken_piece_and_the_capturer_stops_there():
    state = position({"d4": "O", "d6": "o", "a1": "M", "h8": "m", "a8": "p"})
    after = GAME.apply(state, 0, "d4xd6")
    assert pieces(after) == {"d6": "O", "a1": "M", "h8": "m", "a8": "p"}


def test_devouring_removes_the_own_piece():
    state = position({"d4": "M", "d6": "O", "h1": "P", "h8": "m", "a8": "p"})
    after = GAME.apply(state, 0, "d4xd6")
    assert pieces(after) == {"d6": "M", "h1": "P", "h8": "m", "a8": "p"}
    assert after.outcome is None


# -- resurrection -----------------------------------------------------------------------------

# Dark has 2 Masters, 1 Officer and 1 Pawn on the board: Officers and Pawns are off the board.
RESURRECT = {"d4": "M", "a1": "M", "h2": "O", "h1": "P", "d6": "m", "h8": "m", "a8": "p"}


def test_capturing_a_master_allows_resurrecting_an_officer_or_a_pawn():
    state = position(RESURRECT)
    after_capture = [m for m in moves(state) if m.startswith("d4xd6")]
    # after d4xd6: 6 pieces on the board, 58 empty squares, 2 kinds to choose from
    assert len(after_capture) == 1 + 2 * 58
    assert "d4xd6=O@b4" in after_capture and "d4xd6=P@b4" in after_capture
    after = GAME.apply(state, 0, "d4xd6=O@b4")
    assert pieces(after) == {"d6": "M", "a1": "M", "h2": "O", "h1": "P", "h8": "m", "a8": "p",
                             "b4": "O"}


def test_resurrection_may_use_the_square_the_capturer_just_left():
    state = position(RESURRECT)
    assert "d4xd6=P@d4" in moves(state)
    after = GAME.apply(state, 0, "d4xd6=P@d4")
    assert pieces(after)["d4"] == "P" and pieces(after)["d6"] == "M"


def test_resurrection_only_on_an_empty_square():
    state = position(RESURRECT)
    for text in ("d4xd6=O@h8", "d4xd6=O@d6", "d4xd6=P@a1"):
        assert text not in moves(state)
        with pytest.raises(engine.IllegalMove):
            GAME.apply(state, 0, text)


def test_resurrection_is_optional():
    state = position(RESURRECT)
    after = GAME.apply(state, 0, "d4xd6")
    assert pieces(after) == {"d6": "M", "a1": "M", "h2": "O", "h1": "P", "h8": "m", "a8": "p"}
    assert GAME.view(after, None)["off_board"][0] == {"M": 1, "O": 3, "P": 5}


def test_capturing_an_officer_allows_resurrecting_only_a_pawn():
    # Dark's Officer takes Light's Officer; Dark has Officers and Pawns off the board.
    state = position({"d4": "O", "d6": "o", "a1": "M", "h1": "P", "h8": "m", "a8": "p"})
    after_capture = [m for m in moves(state) if m.startswith("d4xd6")]
    assert len(after_capture) == 1 + 59  # 5 pieces left after the capture
    assert all(m == "d4xd6" or m.startswith("d4xd6=P@") for m in after_capture)
    with pytest.raises(engine.IllegalMove, match="Pawn"):
        GAME.apply(state, 0, "d4xd6=O@b4")


def test_master_capturing_an_officer_also_resurrects_only_a_pawn():
    state = position({"d4": "M", "d6": "o", "h2": "O", "h1": "P", "h8": "m", "a8": "p"})
    assert "d4xd6=P@b4" in moves(state)
    assert "d4xd6=O@b4" not in moves(state)


def test_capturing_a_pawn_gives_no_resurrection():
    state = position({"d4": "O", "d6": "p", "a1": "M", "h1": "P", "h8": "m", "a8": "p"})
    assert [m for m in moves(state) if m.startswith("d4xd6")] == ["d4xd6"]
    with pytest.raises(engine.IllegalMove):
        GAME.apply(state, 0, "d4xd6=P@b4")


def test_devouring_gives_no_resurrection():
    state = position({"d4": "M", "d5": "O", "h1": "P", "h8": "m", "a8": "p"})
    assert [m for m in moves(state) if m.startswith("d4xd5")] == ["d4xd5"]
    with pytest.raises(engine.IllegalMove):
        GAME.apply(state, 0, "d4xd5=P@b4")


FULL_DARK = {"a1": "M", "a2": "O", "b2": "O", "c2": "O", "f2": "O",
             "a3": "P", "b3": "P", "c3": "P", "f3": "P", "g3": "P", "h3": "P"}


def test_resurrection_is_lost_when_no_piece_is_eligible():
    # every Dark Officer and Pawn is on the board: capturing a Master brings nothing back
    state = position({**FULL_DARK, "d4": "M", "d6": "m", "h8": "m", "a8": "p"})
    assert [m for m in moves(state) if m.startswith("d4xd6")] == ["d4xd6"]


def test_capturing_an_officer_brings_back_no_officer_when_all_pawns_stand():
    # one Dark Officer is off the board, but only a Pawn may return after taking an Officer
    squares = {**FULL_DARK, "d4": "M", "d6": "o", "h8": "m", "a8": "p"}
    del squares["f2"]
    state = position(squares)
    assert [m for m in moves(state) if m.startswith("d4xd6")] == ["d4xd6"]


def test_masters_never_return():
    # Dark: one Master on the board (two off), every Officer and Pawn on the board
    squares = {**FULL_DARK, "d4": "M", "d6": "m", "h8": "m", "a8": "p"}
    del squares["a1"]
    state = position(squares)
    assert [m for m in moves(state) if m.startswith("d4xd6")] == ["d4xd6"]
    with pytest.raises(engine.IllegalMove):
        GAME.apply(state, 0, "d4xd6=M@d4")


def test_ruling_devoured_pieces_are_eligible_for_resurrection():
    state = position({"a1": "M", "a2": "P", "b2": "P", "c2": "P", "d2": "P", "e2": "P",
                      "f2": "P", "h1": "O", "h2": "O", "h3": "O", "d4": "O",
                      "h8": "m", "g8": "m", "d6": "o", "a7": "p"})
    # all six Pawns stand: taking the Officer on d6 brings nothing back yet
    assert [m for m in moves(state) if m.startswith("d4xd6")] == ["d4xd6"]
    state = play(state, "a1xa2", "h8-h7")  # Dark devours a Pawn; Light moves
    assert "d4xd6=P@a1" in moves(state)
    state = play(state, "d4xd6=P@a1")
    assert pieces(state)["a1"] == "P" and pieces(state)["d6"] == "O"


# -- control ----------------------------------------------------------------------------------

def test_master_controls_enemy_officers_and_pawns_at_walking_distance_two():
    zone = {"d6": "p", "d2": "o", "b4": "p", "f4": "o", "c5": "p", "e5": "p", "c3": "o",
            "e3": "p"}
    farther = {"a4": "p", "f5": "p", "f6": "p", "d7": "o"}  # distance 3 or more
    state = position({"d4": "M", "h1": "O", "h2": "P", "h8": "m", **zone, **farther})
    assert controlled(state) == set(zone)


def test_master_does_not_control_enemy_masters():
    state = position({"d4": "M", "h1": "O", "h2": "P", "d6": "m", "e5": "m", "a8": "p"})
    assert controlled(state) == set()


def test_master_zone_is_not_blocked_by_a_piece_in_between():
    # the zone is the set of squares at walking distance 2, whatever stands between
    state = position({"d4": "M", "d5": "P", "d6": "o", "h1": "O", "h8": "m", "a8": "p"})
    assert controlled(state) == {"d6"}


def test_master_zone_excludes_adjacent_squares():
    state = position({"d4": "M", "d5": "p", "e4": "o", "h1": "O", "h2": "P", "h8": "m"})
    assert controlled(state) == set()


def test_officer_controls_enemy_pawns_on_its_eight_neighbours():
    around = {sq: "p" for sq in ("c3", "d3", "e3", "c4", "e4", "c5", "d5", "e5")}
    state = position({"d4": "O", "a1": "M", "h1": "P", "h8": "m", "d6": "p", "f4": "p",
                      **around})
    assert controlled(state) == set(around)  # not d6 or f4, two squares away


def test_officer_does_not_control_officers_or_masters():
    state = position({"d4": "O", "a1": "M", "h1": "P", "d5": "o", "e5": "m", "a8": "p"})
    assert controlled(state) == set()


def test_pawns_have_no_zone_of_control():
    state = position({"d4": "P", "a1": "M", "h1": "O", "d5": "p", "e6": "o", "h8": "m"})
    assert controlled(state) == set()


def test_own_pieces_are_never_controlled():
    state = position({"d4": "M", "d6": "P", "e5": "O", "f4": "P", "h8": "m", "a8": "p"})
    assert controlled(state) == set()


def test_controlled_officer_moves_as_an_officer():
    # Light Officer on d6 in the zone of Dark's Master on d4
    state = position({"d4": "M", "h1": "O", "h2": "P", "d6": "o", "h8": "m", "a8": "p"})
    assert control_moves(state, "d6") == sorted([
        "~d6-d7", "~d6-d8", "~d6-d5", "~d6-c6", "~d6-b6", "~d6-e6", "~d6-f6"])


def test_controlled_pawn_slides_one_to_three_squares_in_eight_directions():
    # Light Pawn on e5 next to Dark's Officer on d4, which blocks the way down-left
    state = position({"d4": "O", "a1": "M", "h1": "P", "e5": "p", "a8": "m"})
    assert control_moves(state, "e5") == sorted([
        "~e5-e6", "~e5-e7", "~e5-e8", "~e5-e4", "~e5-e3", "~e5-e2",
        "~e5-d5", "~e5-c5", "~e5-b5", "~e5-f5", "~e5-g5", "~e5-h5",
        "~e5-f6", "~e5-g7", "~e5-h8", "~e5-f4", "~e5-g3", "~e5-h2",
        "~e5-d6", "~e5-c7", "~e5-b8"])


def test_controlled_pawn_slide_stops_before_pieces():
    state = position({"d4": "O", "a1": "M", "h1": "P", "e5": "p", "e7": "m", "g5": "P",
                      "c7": "p"})
    slides = control_moves(state, "e5")
    assert "~e5-e6" in slides and "~e5-e8" not in slides and "~e5-e7" not in slides
    assert "~e5-f5" in slides and "~e5-g5" not in slides and "~e5-h5" not in slides
    assert "~e5-d6" in slides and "~e5-c7" not in slides and "~e5-b8" not in slides


def test_ruling_a_controlled_piece_never_captures():
    # Light's Pawn on e5 could take Dark's Pawn on e6 by itself, but not under control;
    # Light's Officer on d6 (in the Master's zone) could take Dark's Pawn on d7, but not so.
    state = position({"d4": "M", "c4": "O", "e6": "P", "d7": "P", "a1": "M",
                      "d5": "p", "d6": "o", "h8": "m"})
    assert control_moves(state, "d6") == sorted(["~d6-c6", "~d6-b6"])
    assert not any(m.startswith("~") and m[4:6] in ("e6", "d7", "c4", "d4") for m in moves(state))
    for text in ("~d6xd7", "~d6-d7", "~d5xe6"):
        with pytest.raises(engine.IllegalMove):
            GAME.apply(state, 0, text)


def test_control_move_moves_the_enemy_piece():
    state = position({"d4": "O", "a1": "M", "h1": "P", "e5": "p", "a8": "m"})
    after = GAME.apply(state, 0, "~e5-e8")
    assert pieces(after) == {"d4": "O", "a1": "M", "h1": "P", "e8": "p", "a8": "m"}
    assert after.to_move == (1,)


def test_ruling_control_needs_an_own_officer_and_an_own_pawn():
    enemy = {"d6": "p", "h8": "m", "a8": "o"}
    assert controlled(position({"d4": "M", "h1": "O", "h2": "P", **enemy})) == {"d6"}
    no_pawn = position({"d4": "M", "h1": "O", **enemy})
    no_officer = position({"d4": "M", "h2": "P", **enemy})
    for state in (no_pawn, no_officer):
        assert controlled(state) == set()
        with pytest.raises(engine.IllegalMove, match="Officer"):
            GAME.apply(state, 0, "~d6-d7")


def test_ruling_the_controlling_officer_and_pawn_may_stand_anywhere():
    # the Officer and the Pawn that allow control are far from the Master that controls
    state = position({"d4": "M", "a8": "O", "h1": "P", "d6": "p", "h8": "m"})
    assert controlled(state) == {"d6"}


KO = {"a1": "M", "d4": "O", "a3": "P", "h8": "m", "e6": "p"}


def test_ko_control_may_not_recreate_the_position_before_the_opponents_last_move():
    state = play(position(KO), "a1-b1", "e6-e5")  # Light's Pawn steps into the Officer's zone
    assert "~e5-e6" not in moves(state)
    assert "~e5-e7" in moves(state) and "~e5-d6" in moves(state)
    with pytest.raises(engine.IllegalMove, match="KO"):
        GAME.apply(state, 0, "~e5-e6")


def test_ko_only_looks_at_the_position_before_the_last_move():
    state = play(position(KO), "a1-b1", "e6-e5", "b1-a1", "h8-h7")
    assert "~e5-e6" in moves(state)
    assert pieces(play(state, "~e5-e6"))["e6"] == "p"


def test_ko_with_a_master_controlling_an_officer():
    state = play(position({"a1": "M", "d4": "M", "h1": "O", "h2": "P", "d7": "o", "h8": "m"}),
                 "a1-b1", "d7-d6")  # Light's Officer steps into the Master's zone
    assert "~d6-d7" not in moves(state) and "~d6-d8" in moves(state)


def test_ko_does_not_forbid_an_ordinary_move_back():
    # Light controls Dark's Pawn c4 -> c3; Dark may walk it straight back.
    state = play(position({"a1": "M", "c4": "P", "h1": "O", "h8": "m", "d5": "o", "a8": "p"}),
                 "a1-b1", "~c4-c3")
    assert "c3-c4" in moves(state)
    assert pieces(play(state, "c3-c4"))["c4"] == "P"


# -- end of the game --------------------------------------------------------------------------

def test_capturing_the_last_enemy_master_wins():
    state = position({"d4": "M", "h1": "O", "d5": "m", "a8": "p"})
    after = GAME.apply(state, 0, "d4xd5")
    assert after.outcome.winners == (0,) and not after.outcome.draw
    assert "Master" in after.outcome.reason
    assert after.to_move == ()


def test_capturing_the_last_enemy_officer_and_pawn_wins():
    state = position({"d4": "O", "a1": "M", "d5": "p", "h8": "m"})
    after = GAME.apply(state, 0, "d4xd5")
    assert after.outcome.winners == (0,)
    assert "Officers" in after.outcome.reason and "Pawns" in after.outcome.reason


def test_losing_all_pawns_or_all_officers_alone_is_not_the_end():
    after = GAME.apply(position({"d4": "O", "a1": "M", "d5": "p", "a8": "o", "h8": "m"}), 0,
                       "d4xd5")
    assert after.outcome is None  # Light still has an Officer
    after = GAME.apply(position({"d4": "O", "a1": "M", "d5": "o", "a8": "p", "h8": "m"}), 0,
                       "d4xd5")
    assert after.outcome is None  # Light still has a Pawn


def test_devouring_your_own_last_officer_and_pawn_loses():
    state = position({"d4": "M", "d5": "O", "h8": "m", "a8": "p"})
    after = GAME.apply(state, 0, "d4xd5")
    assert after.outcome.winners == (1,) and not after.outcome.draw
    assert after.to_move == ()


def test_light_devouring_its_own_last_pawn_loses():
    state = position({"d5": "m", "d4": "p", "h1": "M", "a1": "P"}, to_move=1)
    after = GAME.apply(state, 1, "d5xd4")
    assert after.outcome.winners == (0,)


def test_ruling_a_player_with_no_legal_turn_loses(monkeypatch):
    # A player who still has a Master always has a move (a Master can always step, take or
    # devour unless boxed in by its own Masters, which three Masters cannot achieve), so this
    # Ruling cannot arise in play: simulate Light having no legal turn.
    import engine.mastery as mastery
    real = mastery.generate
    monkeypatch.setattr(mastery, "generate",
                        lambda board, seat, before: iter(()) if seat == 1
                        else real(board, seat, before))
    after = GAME.apply(GAME.start(2, {}, "x"), 0, "g3-h4")
    assert after.outcome.winners == (0,) and not after.outcome.draw
    assert "no legal move" in after.outcome.reason


SHUFFLE = ["f1-g1", "e8-f8", "g1-f1", "f8-e8"]


def test_repetition_draw_on_the_third_occurrence():
    state = GAME.start(2, {}, "x")
    for ply, text in enumerate(SHUFFLE * 2, start=1):
        state = play(state, text)
        if ply < 8:
            assert state.outcome is None
    # the start position with Dark to move: at ply 0, 4 and 8
    assert state.outcome.draw and state.outcome.winners == ()
    assert state.to_move == ()


def test_repetition_counts_only_the_same_player_to_move():
    # Dark's Pawn walks a triangle c1-d2-d1-c1 while Light's walks f8-e7-f8, so the start
    # board returns with Light to move (ply 5), then Dark (10), Light (15), Dark (20).
    state = position({"a1": "M", "c1": "P", "h8": "m", "f8": "p"})
    dark_first = ["c1-d2", "f8-e7", "d2-d1", "e7-f8", "d1-c1"]
    light_first = ["f8-e7", "c1-d2", "e7-e8", "d2-c1", "e8-f8"]
    for ply, text in enumerate((dark_first + light_first) * 2, start=1):
        state = play(state, text)
        if ply in (5, 10, 15):
            assert pieces(state) == {"a1": "M", "c1": "P", "h8": "m", "f8": "p"}
        if ply < 20:
            assert state.outcome is None, ply
    assert state.outcome.draw


def test_repetition_draw_can_be_switched_off():
    state = GAME.start(2, {"repetition_draw": False}, "x")
    state = play(state, *SHUFFLE * 3)
    assert state.outcome is None
    assert state.ply == 12 and state.to_move == (0,)


def test_finished_game_accepts_no_moves():
    state = GAME.apply(position({"d4": "M", "h1": "O", "d5": "m", "a8": "p"}), 0, "d4xd5")
    assert GAME.legal_moves(state, 0) == [] and GAME.legal_moves(state, 1) == []
    for seat in (0, 1):
        with pytest.raises(engine.IllegalMove, match="over"):
            GAME.apply(state, seat, "h1-h2")


# -- notation and input -----------------------------------------------------------------------

MOVE_SHAPE = r"^(~[a-h][1-8]-[a-h][1-8]|[a-h][1-8][-x][a-h][1-8](=[OP]@[a-h][1-8])?)$"


def test_notation_move_capture_devour():
    state = position({"d4": "M", "d6": "O", "c4": "p", "h1": "P", "h8": "m"})
    listed = moves(state)
    assert "d4-d5" in listed  # move to an empty square
    assert "d4xc4" in listed  # capture
    assert "d4xd6" in listed  # devour
    assert "d4-d6" not in listed and "d4-c4" not in listed


def test_notation_control():
    state = position({"d4": "O", "a1": "M", "h1": "P", "e5": "p", "a8": "m"})
    assert "~e5-e6" in moves(state)


def test_notation_resurrection():
    assert "d4xd6=O@b4" in moves(position(RESURRECT))


def test_every_listed_move_has_the_documented_shape():
    for state in (GAME.start(2, {}, "x"), position(RESURRECT),
                  position({"d4": "M", "h1": "O", "h2": "P", "d6": "o", "h8": "m", "a8": "p"})):
        listed = moves(state)
        assert listed and all(re.match(MOVE_SHAPE, m) for m in listed)
        assert len(set(listed)) == len(listed)


@pytest.mark.parametrize("text,canonical", [
    ("g3-h4", "g3-h4"),
    ("G3-H4", "g3-h4"),
    ("g3xh4", "g3-h4"),
    ("  g3 -  h4 ", "g3-h4"),
    ("e3-e5", "e3xe5"),
    ("E3 X E5", "e3xe5"),
    ("d1-d2", "d1xd2"),
])
def test_lenient_input_is_canonicalised(text, canonical):
    state = GAME.start(2, {}, "x")
    assert GAME.canonical(state, 0, text) == canonical
    assert GAME.apply(state, 0, text).board == GAME.apply(state, 0, canonical).board


def test_lenient_control_and_resurrection_input():
    control = position({"d4": "O", "a1": "M", "h1": "P", "e5": "p", "a8": "m"})
    for text in ("~E5-E6", "~e5xe6", " ~ e5 - e6 "):
        assert GAME.canonical(control, 0, text) == "~e5-e6"
    resurrect = position(RESURRECT)
    for text in ("D4XD6=o@B4", "d4-d6=O@b4", "d4x d6 = o @ b4"):
        assert GAME.canonical(resurrect, 0, text) == "d4xd6=O@b4"
        assert pieces(GAME.apply(resurrect, 0, text))["b4"] == "O"


@pytest.mark.parametrize("text", [
    "", "   ", "hello", "d2", "d2-", "d2-d9", "i2-i3", "d2-d4-d6", "d4xd6=K@b4", "d1xd5=O",
    "~~e5-e6", "resign",
])
def test_malformed_text_raises_illegal_move(text):
    state = GAME.start(2, {}, "x")
    with pytest.raises(engine.IllegalMove) as caught:
        GAME.apply(state, 0, text)
    assert isinstance(caught.value, ValueError)
    assert len(str(caught.value)) > 10


@pytest.mark.parametrize("move", [None, 42, ("d2", "d4")])
def test_non_text_move_raises_illegal_move(move):
    with pytest.raises(engine.IllegalMove):
        GAME.apply(GAME.start(2, {}, "x"), 0, move)


@pytest.mark.parametrize("text,words", [
    ("a5-a6", "no piece"),            # empty square
    ("c5-c4", "opponent"),            # Light's Pawn moved without ~
    ("d1-d5", "cannot go"),           # a Master blocked by its own Officer
    ("c3-d3", "cannot go"),           # onto an own piece
    ("~c5-c4", "zone of control"),    # not in any zone
    ("~d3-d5", "yours"),              # control of an own piece
])
def test_illegal_moves_raise_with_a_readable_message(text, words):
    state = GAME.start(2, {}, "x")
    assert text not in moves(state)
    with pytest.raises(engine.IllegalMove, match=words):
        GAME.apply(state, 0, text)


def test_moving_out_of_turn_raises():
    state = GAME.start(2, {}, "x")
    with pytest.raises(engine.IllegalMove, match="turn"):
        GAME.apply(state, 1, "b6-a5")
    state = play(state, "g3-h4")
    with pytest.raises(engine.IllegalMove, match="turn"):
        GAME.apply(state, 0, "h4-h5")
    assert GAME.legal_moves(state, 0) == []


def test_apply_leaves_the_given_state_unchanged():
    state = GAME.start(2, {}, "x")
    board, ply, to_move, seen = state.board, state.ply, state.to_move, dict(state.seen)
    before_last = state.before_last
    after = GAME.apply(state, 0, "e3xe5")
    assert after is not state
    assert (state.board, state.ply, state.to_move, dict(state.seen), state.before_last) == \
        (board, ply, to_move, seen, before_last)
    assert pieces(state) == IMPERIAL
    with pytest.raises(engine.IllegalMove):
        GAME.apply(state, 0, "e3-e6")
    assert state.board == board and dict(state.seen) == seen


# -- options and players ----------------------------------------------------------------------

def test_unknown_option_raises_value_error():
    with pytest.raises(ValueError, match="colour"):
        GAME.start(2, {"colour": "red"}, "x")


@pytest.mark.parametrize("options", [
    {"setup": "chess960"}, {"setup": 1}, {"repetition_draw": "maybe"}, {"repetition_draw": 0},
])
def test_bad_option_values_raise_value_error(options):
    with pytest.raises(ValueError):
        GAME.start(2, options, "x")


@pytest.mark.parametrize("players", [0, 1, 3, 4, True, "2", None])
def test_wrong_player_counts_raise_value_error(players):
    with pytest.raises(ValueError):
        GAME.start(players, {}, "x")


def test_option_values_from_a_form_are_accepted():
    assert pieces(GAME.start(2, {"setup": "Crown"}, "x")) == CROWN
    state = GAME.start(2, {"repetition_draw": "false"}, "x")
    assert state.options["repetition_draw"] is False


def test_options_are_not_a_mapping_raises_value_error():
    with pytest.raises(ValueError):
        GAME.start(2, ["setup"], "x")


# -- view -------------------------------------------------------------------------------------

def test_view_of_the_start_position():
    state = GAME.start(2, {}, "x")
    view = GAME.view(state, 0)
    assert len(view["board"]) == 26
    assert view["board"]["d1"] == {"owner": 0, "piece": "M"}
    assert view["board"]["b6"] == {"owner": 1, "piece": "P"}
    assert view["off_board"] == [{"M": 0, "O": 0, "P": 0}, {"M": 0, "O": 0, "P": 0}]
    assert view["can_control"] == [True, True]
    assert view["to_move"] == [0]
    assert GAME.view(state, 1) == view == GAME.view(state, None)  # no hidden information
    json.dumps(view)


def test_view_counts_pieces_off_the_board_and_control_ability():
    state = play(GAME.start(2, {}, "x"), "e3xe5", "b6-a5", "d1xd2")
    view = GAME.view(state, None)
    assert view["off_board"] == [{"M": 0, "O": 1, "P": 0}, {"M": 0, "O": 0, "P": 1}]
    assert view["to_move"] == [1]
    assert GAME.view(position({"d4": "M", "h1": "O", "h8": "m", "a8": "p"}), None)[
        "can_control"] == [False, False]


# -- perft, playouts, replay ------------------------------------------------------------------

def test_perft_imperial():
    state = GAME.start(2, {"setup": "imperial"}, "x")
    assert [perft(GAME, state, depth) for depth in (1, 2, 3)] == [40, 1607, 69940]


def test_perft_crown():
    state = GAME.start(2, {"setup": "crown"}, "x")
    assert [perft(GAME, state, depth) for depth in (1, 2, 3)] == [39, 1521, 62404]


def _playout(setup: str, seed: int):
    state = GAME.start(2, {"setup": setup}, f"seed {seed}")
    rng = random.Random(f"{setup}-{seed}")
    played = []
    while state.outcome is None:
        assert len(played) < 3000
        seat = state.to_move[0]
        assert GAME.legal_moves(state, 1 - seat) == []
        legal = GAME.legal_moves(state, seat)
        assert legal, "a running game always offers a legal move"
        move = rng.choice(legal)
        assert move in legal
        state = GAME.apply(state, seat, move)
        played.append((seat, move))
        assert state.ply == len(played)
    return state, played


@pytest.mark.parametrize("setup", ["imperial", "crown"])
@pytest.mark.parametrize("seed", range(4))
def test_random_playout_ends_with_an_outcome(setup, seed):
    state, played = _playout(setup, seed)
    outcome = state.outcome
    assert state.to_move == () and played
    board = pieces(state)
    if outcome.draw:
        assert outcome.winners == ()
    else:
        (winner,) = outcome.winners
        assert lost(board, 1 - winner) and not lost(board, winner)
    replayed = GAME.replay(2, {"setup": setup}, f"seed {seed}", played)
    assert (replayed.board, replayed.ply, replayed.to_move, replayed.outcome) == \
        (state.board, state.ply, state.to_move, state.outcome)


def test_replay_of_a_partial_game_equals_the_live_state():
    moves_played = [(0, "e3xe5"), (1, "b6-a5"), (0, "d1xd2"), (1, "c7-b7")]
    live = GAME.start(2, {"setup": "imperial"}, "abc")
    for seat, text in moves_played:
        live = GAME.apply(live, seat, text)
    replayed = GAME.replay(2, {}, "abc", moves_played)
    assert (replayed.board, replayed.ply, replayed.to_move, replayed.outcome) == \
        (live.board, live.ply, live.to_move, live.outcome)
    assert pieces(replayed) == pieces(live)


def test_moving_an_enemy_piece_without_tilde_hints_at_control_only_when_it_is_controlled():
    state = position({"d1": "M", "d2": "O", "a2": "P", "d3": "p", "h8": "m", "h7": "o"})
    with pytest.raises(engine.IllegalMove, match=r"write ~d3-d4"):
        GAME.apply(state, 0, "d3-d4")  # d3 is two steps from the Master on d1
    far = position({"d1": "M", "d2": "O", "a2": "P", "d6": "p", "h8": "m", "h7": "o"})
    with pytest.raises(engine.IllegalMove) as caught:
        GAME.apply(far, 0, "d6-d5")
    assert "opponent's" in str(caught.value) and "~" not in str(caught.value)


# -- the board drawing (pbem/boards/mastery.py) ------------------------------------------------

def drawn_square(svg: str, name: str) -> str:
    """The markup of one square: its link or group."""
    match = re.search(rf'<(a|g) [^>]*data-cell="{name}".*?</\1>', svg, re.S)
    assert match, name
    return match.group(0)


def test_the_drawing_names_each_square_and_turns_the_board_for_light():
    from pbem.boards import mastery as board

    # Dark has an Officer off the board, Light a Pawn; Dark's Master stands on d2
    state = play(GAME.start(2, {}, "x"), "e3xe5", "b6-a5", "d1xd2")
    marks = dict(selected=("d2", "e4"), targets={"d2": '/play/t?path=d2&m=<"1">'},
                 last={"d1", "d2"})
    dark = str(board.render(GAME.view(state, 0), seat=0, **marks))
    light = str(board.render(GAME.view(state, 1), seat=1, **marks))
    # a clickable square is a link named by its title, the link escaped
    assert drawn_square(dark, "d2").startswith(
        '<a href="/play/t?path=d2&amp;m=&lt;&#34;1&#34;&gt;" class="cell" data-cell="d2">'
        "<title>d2: Dark Master (selected)</title>")
    assert 'class="square dark last selected"' in drawn_square(dark, "d2")
    # a square holding a piece, or selected, is an image named as its title; others are not
    assert drawn_square(dark, "e4").startswith(
        '<g class="cell" data-cell="e4" role="img" aria-label="e4 (selected)">')
    assert drawn_square(dark, "c6").startswith(
        '<g class="cell" data-cell="c6" role="img" aria-label="c6: Light Pawn">'
        "<title>c6: Light Pawn</title>")
    assert drawn_square(dark, "d1").startswith('<g class="cell" data-cell="d1"><title>d1</title>')
    assert 'class="square light last"' in drawn_square(dark, "d1")
    # Dark sees a1 at the bottom left and its own pieces off the board below; Light the
    # other way round
    for svg, a1, h8, trays in ((dark, (22, 433), (414, 41), ("1", "0")),
                               (light, (414, 41), (22, 433), ("0", "1"))):
        assert f'<rect x="{a1[0]}" y="{a1[1]}" ' in drawn_square(svg, "a1")
        assert f'<rect x="{h8[0]}" y="{h8[1]}" ' in drawn_square(svg, "h8")
        assert re.findall(r'class="off-board" data-owner="(\d)"', svg) == list(trays)
    assert 'aria-label="Dark, off the board: 1 Officer"' in dark
    assert 'aria-label="Light, off the board: 1 Pawn"' in dark


def test_the_drawing_counts_each_kind_off_the_board_beside_its_icon():
    from pbem.boards import mastery as board

    svg = str(board.render(GAME.view(position({"d1": "M", "c8": "m", "c7": "o"}), 0), seat=0))
    dark = re.search(r'<g class="off-board" data-owner="0".*?\n  </g>', svg, re.S).group(0)
    assert 'aria-label="Dark, off the board: 2 Masters, 4 Officers, 6 Pawns"' in dark
    icons = re.findall(r'data-piece="(\w)"><circle cx="(\d+)"', dark)
    assert icons == [("M", "187"), ("O", "243"), ("P", "299")]
    assert re.findall(r"×(\d+)", dark) == ["2", "4", "6"]
    light = re.search(r'<g class="off-board" data-owner="1".*?\n  </g>', svg, re.S).group(0)
    assert 'aria-label="Light, off the board: 2 Masters, 3 Officers, 6 Pawns"' in light
    start = GAME.view(GAME.start(2, {}, "x"), None)
    assert svg.count(">none</text>") == 0
    assert str(board.render(start, seat=None)).count(">none</text>") == 2
