"""Magnetic Field: every rule and Ruling of shared/rules/magnetic-field.md, the notation, and
the hidden information (views must not depend on what a seat may not know)."""
import dataclasses
import json
import random
from collections import Counter

import pytest

from engine.core import IllegalMove, InvalidGameSetup, chance, perft, random_playout
from engine.magnetic_field import (CELL_INDEX, CELLS, EMPTY, GAME, Placement, Turn,
                                   placement_cells)

BLUE_FIRST = {"colours": "seat0-blue"}


# -- helpers ---------------------------------------------------------------------------------

def drafted(seed="t", picks=("K", "K", "D", "D"), colours="seat0-blue"):
    """A game just after the draft (picks in order Blue, Red, Blue, Red)."""
    state = GAME.start(2, {"colours": colours}, seed)
    for pick in picks:
        state = GAME.apply(state, state.to_move[0], f"pick {pick}")
    return state


def board(cells):
    squares = [EMPTY] * CELLS
    for name, char in cells.items():
        squares[CELL_INDEX[name]] = char
    return "".join(squares)


def position(figures=None, tiles=None, hands=("", ""), in_hand=(5, 5), entered=(True, True),
             scores=(0, 0), deck="", passes=0, to_move=0, knocked_out=(0, 0)):
    """A play position, seat 0 = Blue. ``figures``: cell -> N-pole direction, upper case for
    seat 0 (Blue), lower case for seat 1 (Red). Hands are all public here."""
    figures = figures or {}
    return dataclasses.replace(
        drafted(), figures=board(figures), tiles=board(tiles or {}), hands=hands,
        public_hands=hands, in_hand=in_hand, entered=entered, scores=scores, deck=deck,
        passes=passes, to_move=(to_move,), knocked_out=knocked_out)


def fig(state, name):
    return state.figures[CELL_INDEX[name]]


def figures_of(state):
    return {name: state.figures[i] for name, i in CELL_INDEX.items() if state.figures[i] != EMPTY}


def reasons(state):
    return [(p.reason, p.points) for p in state.last.points]


def illegal(state, move, seat=None):
    with pytest.raises(IllegalMove) as error:
        GAME.apply(state, state.to_move[0] if seat is None else seat, move)
    return str(error.value)


# -- setup and options -----------------------------------------------------------------------

def test_metadata_and_options():
    assert GAME.id == "magnetic-field" and GAME.title == "Magnetic Field"
    assert GAME.player_counts == (2,)
    assert GAME.default_options == {"colours": "random"}


def test_bad_setups_are_rejected_readably():
    with pytest.raises(InvalidGameSetup, match="2 players"):
        GAME.start(3, {}, "s")
    with pytest.raises(InvalidGameSetup, match="Unknown option"):
        GAME.start(2, {"colors": "random"}, "s")
    with pytest.raises(InvalidGameSetup, match="seat0-blue"):
        GAME.start(2, {"colours": "green"}, "s")
    assert GAME.start(2, {"colours": "SEAT0-RED"}, "s").blue == 1


def test_colour_draw_comes_from_the_seed_and_blue_moves_first():
    seats = {GAME.start(2, {}, f"seed-{i}").blue for i in range(40)}
    assert seats == {0, 1}
    for i in range(10):
        state = GAME.start(2, {}, f"seed-{i}")
        assert state.blue == GAME.start(2, {}, f"seed-{i}").blue
        assert state.blue == chance(f"seed-{i}", "colours").randrange(2)
        assert state.to_move == (state.blue,)
    assert GAME.start(2, BLUE_FIRST, "x").to_move == (0,)
    red_first = GAME.start(2, {"colours": "seat0-red"}, "x")
    assert red_first.to_move == (1,)
    assert GAME.view(red_first, None)["colours"] == ["red", "blue"]


# -- the draft ------------------------------------------------------------------------------

def test_draft_order_is_blue_red_blue_red_and_picks_are_public():
    state = GAME.start(2, {"colours": "seat0-red"}, "d")
    movers = []
    for pick in ("X", "K", "D", "D"):
        movers.append(state.to_move[0])
        state = GAME.apply(state, state.to_move[0], f"pick {pick}")
    assert movers == [1, 0, 1, 0]
    assert not state.drafting and state.to_move == (1,)  # Blue starts the play
    assert state.hands == ("KD", "XD") and state.public_hands == state.hands
    spectator = GAME.view(state, None)
    assert [h["public"] for h in spectator["hands"]] == [["K", "D"], ["X", "D"]]
    assert [h["hidden"] for h in spectator["hands"]] == [0, 0]


def test_draft_pool_and_pick_rules():
    state = GAME.start(2, BLUE_FIRST, "d")
    assert GAME.legal_moves(state, 0) == ["pick X", "pick K", "pick D"]
    assert GAME.view(state, None)["draft_pool"] == {"X": 1, "K": 16, "D": 15}
    assert "cannot be picked" in illegal(state, "pick C")
    assert "draft" in illegal(state, "K@e5")
    state = GAME.apply(state, 0, "pick X")
    assert "No Capture tile is left" in illegal(state, "pick X")
    assert GAME.legal_moves(state, 1) == ["pick K", "pick D"]
    # lenient input
    assert GAME.apply(state, 1, "  Pick   knockout ").hands[1] == "K"
    assert GAME.apply(state, 1, "d").hands[1] == "D"


def test_deck_composition_after_the_draft():
    state = drafted(picks=("X", "K", "D", "K"))
    assert len(state.deck) == 32
    assert Counter(state.deck)["C"] == 4
    everything = Counter(state.deck) + Counter(state.hands[0] + state.hands[1])
    assert everything == Counter({"C": 4, "X": 1, "K": 16, "D": 15})
    view = GAME.view(state, None)
    assert view["deck_size"] == 32 and view["phase"] == "play"


def test_same_seed_same_deck_and_replay_equality():
    picks = ["pick K", "pick D", "pick D", "pick X"]
    moves = list(zip([0, 1, 0, 1], picks)) + [(0, "K@e5 +e4:n"), (1, "pass"), (0, "e4-e2")]
    a = GAME.replay(2, BLUE_FIRST, "same", moves)
    b = GAME.replay(2, BLUE_FIRST, "same", moves)
    assert a == b and a.deck == b.deck and a.hands == b.hands
    other = GAME.replay(2, BLUE_FIRST, "different", moves[:4])
    assert other.deck != drafted("same", ("K", "D", "D", "X")).deck
    # The deck shuffle and the colour draw are separate streams: fixing colours keeps the deck.
    assert drafted("s", colours="seat0-blue").deck == drafted("s", colours="seat0-red").deck


# -- tile placement -------------------------------------------------------------------------

@pytest.mark.parametrize("cell", ["e5", "f5", "e6", "f6"])
def test_first_tile_goes_on_the_centre_four(cell):
    state = GAME.apply(drafted(), 0, f"K@{cell}")
    assert state.tiles[CELL_INDEX[cell]] == "K"


def test_first_tile_elsewhere_is_illegal():
    message = illegal(drafted(), "K@d5")
    assert "first tile" in message and "e5, f5, e6 or f6" in message


def test_later_tiles_must_share_an_edge():
    state = position(tiles={"e5": "D"}, hands=("KKD", ""))
    for cell in ("e4", "e6", "d5", "f5"):
        GAME.apply(state, 0, f"K@{cell}")
    for cell in ("d4", "f6", "e7", "a1"):
        assert "share an edge" in illegal(state, f"K@{cell}")
    assert sorted(placement_cells(state.tiles, state.figures)) == sorted(
        CELL_INDEX[c] for c in ("e4", "e6", "d5", "f5"))


def test_several_tiles_in_one_turn_are_placed_in_order():
    state = drafted()  # Blue holds D, K
    after = GAME.apply(state, 0, "K@e5 D@e4")
    assert after.tiles[CELL_INDEX["e4"]] == "D" and after.hands[0].count("K") <= 1
    assert "K@e5 D@e4" not in GAME.legal_moves(state, 0)  # may be left out, but is legal
    assert "first tile" in illegal(state, "D@e4 K@e5")
    chain = position(tiles={"e5": "D"}, hands=("KKD", ""))
    assert GAME.apply(chain, 0, "K@e4 K@e3 D@e2").tiles[CELL_INDEX["e2"]] == "D"


def test_tile_cell_must_have_no_tile_and_no_figure():
    state = position(figures={"e4": "N"}, tiles={"e5": "D"}, hands=("K", ""))
    assert "already has a tile" in illegal(state, "K@e5")
    assert "has a figure" in illegal(state, "K@e4")


def test_tile_must_be_in_hand():
    message = illegal(drafted(), "X@e5")
    assert "no Capture tile" in message and "K (Knockout)" in message


def test_placing_a_tile_spends_it_and_tiles_do_not_block_figures():
    state = position(figures={"e3": "E"}, tiles={"e5": "D"}, hands=("K", ""))
    after = GAME.apply(state, 0, "K@e4 e3-e6")  # slides across both tiles
    assert after.hands[0] == "" and fig(after, "e6") == "E"
    assert fig(GAME.apply(state, 0, "K@e4 +e4:s"), "e4") == "S"  # enter onto the new tile


# -- figure actions ----------------------------------------------------------------------------

def test_enter_uses_a_figure_from_hand():
    state = position(in_hand=(1, 5), entered=(False, False))
    after = GAME.apply(state, 0, "+c3:w")
    assert fig(after, "c3") == "W" and after.in_hand == (0, 5) and after.entered == (True, False)
    assert "no figure in hand" in illegal(dataclasses.replace(after, to_move=(0,)), "+d3:n")
    assert "already has a figure" in illegal(position(figures={"c3": "s"}), "+c3:n")


def test_rotate_needs_an_own_figure_and_a_new_direction():
    state = position(figures={"c3": "N", "h8": "s"})
    assert fig(GAME.apply(state, 0, "c3:e"), "c3") == "E"
    assert "already faces north" in illegal(state, "c3:n")
    assert "your opponent's" in illegal(state, "h8:n")
    message = illegal(state, "d4:n")
    assert "no figure on d4" in message and "+d4:n" in message


def test_move_slides_1_to_3_cells_straight_without_jumping():
    state = position(figures={"c3": "W", "c5": "s", "f3": "n"})
    for target in ("d3", "e3", "c4", "c2", "c1", "b3", "a3"):
        assert fig(GAME.apply(state, 0, f"c3-{target}"), target) == "W"  # keeps orientation
    assert "1 to 3 cells" in illegal(position(figures={"c3": "W"}), "c3-g3")
    assert "straight line" in illegal(state, "c3-d4")
    assert "blocks the way at c5" in illegal(state, "c3-c6")
    assert "stands on f3" in illegal(state, "c3-f3")
    assert "your opponent's" in illegal(state, "c5-c6")


def test_legal_figure_actions_are_listed():
    state = position(figures={"a1": "N", "j10": "s"}, in_hand=(0, 0))
    assert sorted(GAME.legal_moves(state, 0)) == sorted(
        ["pass", "a1:e", "a1:s", "a1:w", "a1-a2", "a1-a3", "a1-a4", "a1-b1", "a1-c1", "a1-d1"])


# -- the magnetic reaction -----------------------------------------------------------------------

def test_same_poles_repel_one_cell():
    state = position(figures={"e5": "s"})  # Red's N pole points down at e4
    after = GAME.apply(state, 0, "+e4:n")  # Blue's N pole points up: N meets N
    assert figures_of(after) == {"e4": "N", "e6": "s"}
    assert [e.kind for e in after.last.events] == ["repel"]
    far = GAME.apply(position(figures={"e6": "s"}), 0, "+e4:n")  # 2 cells away
    assert figures_of(far) == {"e4": "N", "e7": "s"}


def test_south_poles_repel_too():
    after = GAME.apply(position(figures={"e3": "s"}), 0, "+e4:n")  # A's S side faces B's S
    assert figures_of(after) == {"e4": "N", "e2": "s"}


def test_repel_into_an_occupied_cell_does_nothing():
    state = position(figures={"e5": "s", "e6": "w"})
    after = GAME.apply(state, 0, "+e4:n")
    assert figures_of(after) == {"e4": "N", "e5": "s", "e6": "w"}
    assert [e.kind for e in after.last.events] == ["blocked"]


def test_push_off_the_field_knocks_out_for_good():
    state = position(figures={"e10": "s", "a1": "w"}, in_hand=(5, 3))
    after = GAME.apply(state, 0, "+e9:n")
    assert "e10" not in figures_of(after)
    assert after.knocked_out == (0, 1) and after.in_hand == (4, 3)
    assert reasons(after) == [("knockout", 2)] and after.scores == (2, 0)


def test_knockout_from_a_knockout_tile_scores_five():
    state = position(figures={"e10": "s", "a1": "w"}, tiles={"e10": "K"})
    after = GAME.apply(state, 0, "+e9:n")
    assert reasons(after) == [("knockout", 2), ("knockout tile", 3)] and after.scores == (5, 0)


def test_knocking_out_your_own_figure_scores_nothing():
    state = position(figures={"e10": "S", "a1": "w"}, tiles={"e10": "K"}, in_hand=(4, 4))
    after = GAME.apply(state, 0, "+e9:n")
    assert after.knocked_out == (1, 0) and after.scores == (0, 0)


def test_opposite_poles_attract_stick_and_both_go_to_hand():
    state = position(figures={"e6": "n", "a1": "w", "j10": "E"}, in_hand=(4, 3))
    after = GAME.apply(state, 0, "+e4:n")  # Red's S pole faces Blue's N pole
    assert figures_of(after) == {"a1": "w", "j10": "E"}
    assert after.in_hand == (4, 4)  # Blue: 4 - 1 entered + 1 back; Red: 3 + 1 back
    event, = after.last.events
    assert (event.kind, event.origin, event.target) == ("stick", CELL_INDEX["e6"], CELL_INDEX["e5"])
    assert after.scores == (0, 0)
    # figures sent back by attraction may enter again
    again = GAME.apply(dataclasses.replace(after, to_move=(0,)), 0, "+c3:n")
    assert fig(again, "c3") == "N"


def test_capture_tile_attraction_scores_two():
    base = dict(figures={"e6": "n", "a1": "w", "j10": "E"})
    assert reasons(GAME.apply(position(tiles={"e4": "X"}, **base), 0, "+e4:n")) == [("capture", 2)]
    assert reasons(GAME.apply(position(tiles={"e5": "X"}, **base), 0, "+e4:n")) == [("capture", 2)]
    # Interpretation: only the cells where the two stick count, not the cell B slid from.
    assert reasons(GAME.apply(position(tiles={"e6": "X"}, **base), 0, "+e4:n")) == []
    # Attracting your own figure onto the Capture tile scores nothing.
    own = position(figures={"e6": "N", "a1": "w", "j10": "E"}, tiles={"e4": "X"})
    assert reasons(GAME.apply(own, 0, "+e4:n")) == []


def test_north_side_is_resolved_first():
    # N side: Red at e6 facing s (N-N) is repelled; S side: Red at e4 facing n attracts (N-S).
    state = position(figures={"e6": "s", "e4": "n", "a1": "w", "j10": "E"})
    after = GAME.apply(state, 0, "+e5:n")
    assert [(e.kind, e.pole) for e in after.last.events] == [("repel", "N"), ("stick", "S")]
    assert figures_of(after) == {"e7": "s", "a1": "w", "j10": "E"}


def test_a_leaving_the_field_stops_its_other_side():
    # N side attracts (A leaves), so the S side's repel of e4 never happens.
    state = position(figures={"e6": "n", "e4": "s", "a1": "w", "j10": "E"})
    after = GAME.apply(state, 0, "+e5:n")
    assert [e.kind for e in after.last.events] == ["stick"]
    assert figures_of(after) == {"e4": "s", "a1": "w", "j10": "E"}


def test_only_the_nearest_figure_within_two_cells_on_the_axis_reacts():
    crossing = GAME.apply(position(figures={"e5": "e", "e6": "s"}), 0, "+e4:n")
    assert figures_of(crossing) == {"e4": "N", "e5": "e", "e6": "s"}  # nearest crosses the line
    too_far = GAME.apply(position(figures={"e7": "s"}), 0, "+e4:n")
    assert figures_of(too_far) == {"e4": "N", "e7": "s"}
    side = GAME.apply(position(figures={"f4": "w"}), 0, "+e4:n")  # not in a pole's direction
    assert figures_of(side) == {"e4": "N", "f4": "w"}


def test_no_chain_reactions():
    # B is pushed from e6 to e7, right next to C's repelling pole: C does not move.
    state = position(figures={"e6": "s", "e8": "n"})
    after = GAME.apply(state, 0, "+e4:n")
    assert figures_of(after) == {"e4": "N", "e7": "s", "e8": "n"}


def test_rotate_and_move_trigger_the_reaction():
    rotated = GAME.apply(position(figures={"e4": "E", "e5": "s"}), 0, "e4:n")
    assert figures_of(rotated) == {"e4": "N", "e6": "s"}
    moved = GAME.apply(position(figures={"e1": "N", "e5": "s"}), 0, "e1-e4")
    assert figures_of(moved) == {"e4": "N", "e6": "s"}


# -- scoring ------------------------------------------------------------------------------------

def test_control_tile_scores_one_each_turn_even_on_a_pass():
    state = position(figures={"c3": "N", "h3": "E", "h8": "n"}, tiles={"c3": "C", "h3": "C", "h8": "C"})
    after = GAME.apply(state, 0, "pass")
    assert reasons(after) == [("control", 1), ("control", 1)] and after.scores == (2, 0)


def test_domination_scores_and_is_blocked_by_an_adjacent_enemy():
    alone = position(figures={"c3": "N", "d4": "E", "h8": "n"}, tiles={"c3": "D"})
    assert reasons(GAME.apply(alone, 0, "pass")) == [("domination", 1)]  # own neighbour is fine
    for enemy in ("d4", "b2", "c4", "d3"):  # the 8 cells around, diagonals included
        blocked = position(figures={"c3": "N", enemy: "e"}, tiles={"c3": "D"})
        assert reasons(GAME.apply(blocked, 0, "pass")) == []
    opponent = position(figures={"c3": "n", "h8": "N"}, tiles={"c3": "D"})
    assert reasons(GAME.apply(opponent, 0, "pass")) == []  # only the mover scores


def test_points_come_in_the_order_of_the_rules():
    state = position(figures={"e10": "s", "c3": "N", "h3": "N"},
                     tiles={"e10": "K", "c3": "D", "h3": "C"})
    after = GAME.apply(state, 0, "+e9:n")
    assert reasons(after) == [("knockout", 2), ("knockout tile", 3), ("control", 1),
                              ("domination", 1)]
    assert after.scores == (7, 0)
    view = GAME.view(after, None)["last_move"]
    assert view["gained"] == 7 and view["points"][0] == {"reason": "knockout", "cell": "e10", "points": 2}


# -- drawing --------------------------------------------------------------------------------------

def test_the_mover_draws_one_tile_after_the_turn():
    state = drafted()
    after = GAME.apply(state, 0, "K@e5")
    assert after.deck == state.deck[1:]
    assert Counter(after.hands[0]) == Counter("D" + state.deck[0])
    assert after.public_hands[0] == "D"  # the drawn tile is private
    passed = GAME.apply(after, 1, "pass")  # a pass draws too
    assert len(passed.hands[1]) == 3 and passed.deck == state.deck[2:]


def test_no_draw_from_an_empty_deck():
    state = position(figures={"a1": "N", "j10": "s"}, hands=("K", ""), deck="")
    assert GAME.apply(state, 0, "pass").hands[0] == "K"


# -- the end of the game ---------------------------------------------------------------------------

def test_fifteen_points_win_at_once():
    state = position(figures={"c3": "N", "h8": "n"}, tiles={"c3": "C"}, scores=(14, 3), deck="KD")
    after = GAME.apply(state, 0, "pass")
    assert after.outcome.winners == (0,) and not after.outcome.draw
    assert after.outcome.reason == "Blue reached 15 points"
    assert after.to_move == () and after.deck == "KD"  # at once: no draw
    assert GAME.legal_moves(after, 1) == [] and "over" in illegal(after, "pass", seat=1)


def test_both_at_fifteen_is_a_draw():
    # Only the mover scores, so this cannot arise in play; the rule is still applied.
    state = position(figures={"c3": "N", "h8": "n"}, tiles={"c3": "C"}, scores=(14, 15))
    after = GAME.apply(state, 0, "pass")
    assert after.outcome.draw and after.outcome.winners == ()


def test_no_ring_out_for_a_player_who_has_never_entered():
    state = GAME.apply(drafted(), 0, "K@e5")
    assert state.outcome is None and state.entered == (False, False)  # Blue has no figure
    state = GAME.apply(state, 1, "+c3:n")
    assert state.outcome is None and state.entered == (False, True)
    state = GAME.apply(state, 0, "pass")
    assert state.outcome is None  # Blue has never entered


def test_ring_out_is_judged_at_the_end_of_the_players_own_turn():
    state = position(figures={"e10": "s", "a1": "W"}, in_hand=(4, 4), scores=(0, 14))
    after = GAME.apply(state, 0, "+e9:n")  # knocks out Red's only figure on the field
    assert after.on_field(1) == 0 and after.outcome is None and after.to_move == (1,)
    # Red does not bring a figure back: Red loses at the end of its turn, whatever the score
    for move in ("pass", "K@e4"):
        with_tile = dataclasses.replace(after, tiles=board({"e5": "D"}), hands=("", "K"),
                                        public_hands=("", "K"))
        lost = GAME.apply(with_tile, 1, move)
        assert lost.outcome.winners == (0,) and not lost.outcome.draw
        assert lost.outcome.reason == "Red has no figure on the field"
    # Red brings one back: the game goes on
    back = GAME.apply(after, 1, "+c5:n")
    assert back.outcome is None and back.to_move == (0,) and back.on_field(1) == 1


def test_a_figure_stuck_at_once_by_one_from_the_opponents_hand_can_come_back():
    # The reason for the Ruling: Red enters its first figure, Blue sticks it at once with a
    # figure from hand (both go back). Red is not out: it enters again, and may do so again.
    state = position(figures={"a1": "W"}, in_hand=(4, 5), entered=(True, False), to_move=1)
    state = GAME.apply(state, 1, "+e7:s")
    state = GAME.apply(state, 0, "+e5:s")  # S faces Red's N: Red's figure pulled to e6, stuck
    assert figures_of(state) == {"a1": "W"} and state.in_hand == (4, 5)
    assert state.outcome is None and state.to_move == (1,)
    state = GAME.apply(state, 1, "+h8:e")
    assert state.outcome is None and figures_of(state) == {"a1": "W", "h8": "e"}


def test_ring_out_when_no_figure_is_left_to_bring_back():
    state = position(figures={"e10": "s", "a1": "W"}, in_hand=(4, 0), knocked_out=(0, 4))
    after = GAME.apply(state, 0, "+e9:n")  # Red's last figure is knocked out
    assert after.outcome is None and after.in_hand[1] == 0 and after.knocked_out[1] == 5
    assert GAME.legal_moves(after, 1) == ["pass"]
    assert GAME.apply(after, 1, "pass").outcome.winners == (0,)


def test_ring_out_of_the_mover():
    state = position(figures={"e6": "s", "e8": "S", "a1": "w"}, in_hand=(4, 3), scores=(0, 9))
    after = GAME.apply(state, 0, "e8-e7")  # Blue's only figure sticks to Red's: both to hand
    assert figures_of(after) == {"a1": "w"}
    assert after.outcome.winners == (1,) and "Blue has no figure" in after.outcome.reason


def test_ring_out_neither_has_a_figure_higher_score_wins():
    state = position(figures={"e6": "n"}, in_hand=(5, 4), scores=(3, 1))
    after = GAME.apply(state, 0, "+e4:n")
    assert after.outcome.winners == (0,) and "neither player" in after.outcome.reason
    lower = GAME.apply(position(figures={"e6": "n"}, in_hand=(5, 4), scores=(1, 3)), 0, "+e4:n")
    assert lower.outcome.winners == (1,)


def test_ring_out_neither_has_a_figure_equal_scores_draw():
    state = position(figures={"e6": "n"}, in_hand=(5, 4), scores=(2, 2))
    after = GAME.apply(state, 0, "+e4:n")
    assert after.outcome.draw and after.outcome.winners == ()
    assert after.outcome.reason == ("neither player has a figure on the field; the scores are "
                                    "equal")


# The amended Ruling: the scores settle a ring-out only if the opponent has also entered a
# figure at least once; a player who empties their own field before that loses.

def test_blue_sticking_its_second_figure_to_its_first_before_red_enters_loses():
    # The exploit the amendment closes, from the start of play: Blue enters, Red stays out,
    # Blue enters a second figure whose S pole faces its first one's N: both stick and go
    # back to hand. Neither player has a figure on the field and the scores are 0-0, but Red
    # has never entered one: not a draw, Blue loses.
    state = GAME.apply(drafted(), 0, "K@e5 +e5:n")
    state = GAME.apply(state, 1, "pass")
    assert state.entered == (True, False) and state.outcome is None
    after = GAME.apply(state, 0, "+e7:n")
    assert [e.kind for e in after.last.events] == ["stick"] and figures_of(after) == {}
    assert after.scores == (0, 0) and after.in_hand == (5, 5)
    assert not after.outcome.draw and after.outcome.winners == (1,)
    assert after.outcome.reason == ("Blue has no figure on the field, and Red has not entered "
                                    "one yet")
    assert after.to_move == ()


@pytest.mark.parametrize("scores", [(0, 0), (3, 0), (14, 0)])
def test_emptying_your_own_field_before_the_opponent_enters_loses_whatever_the_score(scores):
    # Ahead or level, it is the same: the scores do not count (the unamended rule gave Blue
    # a draw at 0-0 and a win when ahead)
    alone = position(figures={"e5": "N"}, in_hand=(4, 5), entered=(True, False), scores=scores)
    after = GAME.apply(alone, 0, "+e7:n")
    assert figures_of(after) == {} and after.outcome.winners == (1,)
    assert not after.outcome.draw and "Red has not entered one yet" in after.outcome.reason
    # The preview, which a player sees before confirming, says the same
    assert GAME.preview(alone, 0, "+e7:n")["outcome"] == after.outcome.to_json()


def test_the_amended_ruling_holds_for_red_too():
    # Blue has only placed tiles; Red entered, and empties its own field: Red loses
    red = position(figures={"c3": "e"}, in_hand=(5, 4), entered=(False, True), to_move=1,
                   scores=(0, 2))
    after = GAME.apply(red, 1, "+e3:e")  # its S pole faces c3's N: pulled to d3, stuck
    assert figures_of(after) == {} and after.outcome.winners == (0,)
    assert after.outcome.reason == ("Red has no figure on the field, and Blue has not entered "
                                    "one yet")


def test_once_the_opponent_has_entered_the_scores_settle_an_empty_field():
    # Red entered once and its figure is back in hand (stuck): now both players have entered,
    # so Blue sticking its own two figures together leaves neither a figure, on points.
    for scores, winners, draw in (((0, 0), (), True), ((2, 1), (0,), False),
                                  ((1, 2), (1,), False)):
        state = position(figures={"e5": "N"}, in_hand=(4, 5), entered=(True, True),
                         scores=scores)
        after = GAME.apply(state, 0, "+e7:n")
        assert figures_of(after) == {}
        assert after.outcome.draw == draw and after.outcome.winners == winners
        assert after.outcome.reason.startswith("neither player has a figure on the field")


def test_a_player_who_has_not_entered_may_stay_off_the_field():
    # The amendment changes nothing for the player who has never entered: Red may keep
    # passing while Blue has figures on the field (ring-out needs an entered figure)
    state = position(figures={"e5": "N"}, in_hand=(4, 5), entered=(True, False), to_move=1)
    for _ in range(2):
        state = GAME.apply(state, state.to_move[0], "pass")
        assert state.outcome is None
    assert GAME.apply(state, 1, "pass").outcome is None and state.entered == (True, False)


def test_six_passes_in_a_row_end_the_game():
    state = position(figures={"a1": "N", "j10": "s"}, scores=(4, 6), deck="K" * 10)
    for i in range(5):
        state = GAME.apply(state, state.to_move[0], "pass")
        assert state.outcome is None and state.passes == i + 1
    state = GAME.apply(state, state.to_move[0], "pass")
    assert state.outcome.winners == (1,) and "6 passes" in state.outcome.reason
    equal = GAME.apply(position(figures={"a1": "N", "j10": "s"}, scores=(5, 5), passes=5), 0, "pass")
    assert equal.outcome.draw


def test_any_other_turn_resets_the_pass_count():
    state = position(figures={"a1": "N", "j10": "s"}, tiles={"e5": "D"}, hands=("K", ""), passes=5)
    assert GAME.apply(state, 0, "a1:e").passes == 0
    assert GAME.apply(state, 0, "K@e4").passes == 0


def test_resignation_is_a_server_action():
    state = drafted()
    outcome = GAME.resignation(state, 0)
    assert outcome.winners == (1,) and outcome.reason == "Blue resigned"
    over = GAME.conclude(state, outcome)
    assert over.to_move == () and GAME.view(over, 1)["phase"] == "over"


# -- notation --------------------------------------------------------------------------------------

def test_notation_round_trip_and_lenient_input():
    state = drafted()
    canonical = GAME.apply(state, 0, "K@e5 D@e6 +e4:n")
    assert canonical.last.move == "K@e5 D@e6 +e4:n"
    for text in ("k@E5 d@e6 +e4:N", " K @ e5 ,  D @ e6  + e4 : north", "knockout@e5 domination@e6 +e4n"):
        again = GAME.apply(state, 0, text)
        assert again == canonical
    assert str(Turn()) == "pass" and GAME.apply(state, 0, " PASS ").last.move == "pass"
    assert str(Turn((Placement("K", CELL_INDEX["e5"]),))) == "K@e5"
    moved = GAME.apply(position(figures={"e4": "N"}), 0, "E4 – E7")
    assert moved.last.move == "e4-e7"
    assert GAME.apply(position(figures={"e4": "N"}), 0, "e4 : West").last.move == "e4:w"


@pytest.mark.parametrize("text, words", [
    ("hello", "not part of a Magnetic Field turn"),
    ("K@z9", "not a cell"),
    ("K@e11", "not a cell"),
    ("Q@e5", "not a tile"),
    ("+e4:q", "not a direction"),
    ("+e4:n e5:s", "only one figure action"),
    ("+e4:n K@e5", "tiles are placed before the figure action"),
    ("pass K@e5", "cannot be combined"),
    ("pick K", "draft is over"),
    ("e4-e4", "no figure on e4"),
])
def test_malformed_input_raises_readable_illegal_move(text, words):
    message = illegal(drafted(), text)
    assert words in message
    assert isinstance(IllegalMove(message), ValueError)


def test_non_text_and_empty_moves():
    with pytest.raises(IllegalMove, match="text"):
        GAME.apply(drafted(), 0, 42)
    with pytest.raises(IllegalMove, match="empty"):
        GAME.apply(drafted(), 0, "   ")
    with pytest.raises(IllegalMove, match="not your turn"):
        GAME.apply(drafted(), 1, "pass")


def test_move_to_the_same_cell_is_illegal():
    assert "another cell" in illegal(position(figures={"e4": "N"}), "e4-e4")


# -- move generation ----------------------------------------------------------------------------------

def test_perft_of_the_draft():
    start = GAME.start(2, BLUE_FIRST, "p")
    # sequences of picks from {X, K, D} with at most one X
    assert [perft(GAME, start, d) for d in (1, 2, 3, 4)] == [3, 8, 20, 48]


def test_perft_depth_one_at_the_start_of_play():
    # (no tile | each distinct code x 4 centre cells) x (no action | 100 cells x 4 directions)
    assert perft(GAME, drafted(picks=("K", "D", "D", "D")), 1) == (1 + 2 * 4) * 401
    assert perft(GAME, drafted(picks=("K", "D", "K", "D")), 1) == (1 + 1 * 4) * 401


def test_perft_depth_two_from_small_positions():
    state = position(figures={"a1": "N", "j10": "s"}, in_hand=(0, 0))
    assert perft(GAME, state, 1) == 10 and perft(GAME, state, 2) == 100
    with_tile = position(figures={"a1": "N", "j10": "s"}, tiles={"e5": "D"}, hands=("K", ""),
                         in_hand=(0, 0))
    assert perft(GAME, with_tile, 1) == 50 and perft(GAME, with_tile, 2) == 500


def test_every_listed_move_is_legal():
    state = GAME.apply(GAME.apply(drafted(), 0, "K@e5 +e4:n"), 1, "+e7:s")
    moves = GAME.legal_moves(state, 0)
    assert len(moves) == len(set(moves)) and moves[0] == "pass"
    for move in random.Random(3).sample(moves, 300):
        GAME.apply(state, 0, move)


def _check_invariants(state):
    for seat in (0, 1):
        assert state.on_field(seat) + state.in_hand[seat] + state.knocked_out[seat] == 5
        assert not Counter(state.public_hands[seat]) - Counter(state.hands[seat])
    if not state.drafting:
        placed = "".join(t for t in state.tiles if t != EMPTY)
        assert Counter(placed + state.deck + state.hands[0] + state.hands[1]) == \
            Counter({"C": 4, "X": 1, "K": 16, "D": 15})


@pytest.mark.parametrize("seed", range(4))
def test_seeded_random_playouts_reach_the_end(seed):
    start = GAME.start(2, {}, f"playout-{seed}")
    rng = random.Random(seed)
    state, moves = random_playout(GAME, start, rng, max_plies=2000)
    assert state.outcome is not None and state.to_move == ()
    assert GAME.replay(2, {}, f"playout-{seed}", moves) == state
    replayed = start
    for seat, move in moves:
        replayed = GAME.apply(replayed, seat, move)
        _check_invariants(replayed)
        json.dumps(GAME.view(replayed, seat))


# -- hidden information ----------------------------------------------------------------------------------

def _blue_view(state):
    return json.dumps(GAME.view(state, 0), sort_keys=True)


def _spectator_view(state):
    return json.dumps(GAME.view(state, None), sort_keys=True)


def _seed_pair(picks, blue_draws, accept):
    """Two seeds whose decks agree on Blue's first ``blue_draws`` draws (deck positions 0, 2,
    4, ...) and satisfy ``accept(deck_a, deck_b)`` (they differ in Red's draws)."""
    seen = {}
    for i in range(3000):
        deck = drafted(f"pair-{i}", picks).deck
        key = deck[0:2 * blue_draws:2]
        for other in seen.get(key, []):
            if accept(drafted(other, picks).deck, deck):
                return drafted(other, picks), drafted(f"pair-{i}", picks)
        seen.setdefault(key, []).append(f"pair-{i}")
    raise AssertionError("no seed pair found")


def test_placing_a_drafted_or_a_drawn_tile_of_the_same_code_looks_the_same():
    # Red drafted K and D. In game A Red's first draw is a K, in game B a D. Red then plays
    # K and D: Blue (and spectators) must not be able to tell the games apart.
    picks = ("K", "K", "D", "D")
    a, b = _seed_pair(picks, 3, lambda x, y: x[1] == "K" and y[1] == "D")
    script = [(0, "K@e5"), (1, "K@e6"), (0, "D@e4"), (1, "D@e7"), (0, "pass"), (1, "+a1:n")]
    for seat, move in script:
        a, b = GAME.apply(a, seat, move), GAME.apply(b, seat, move)
        assert _blue_view(a) == _blue_view(b)
        assert _spectator_view(a) == _spectator_view(b)
    assert a.hands[1] != b.hands[1]  # they really differ
    assert GAME.view(a, 1)["hands"][1]["tiles"] != GAME.view(b, 1)["hands"][1]["tiles"]
    assert GAME.view(a, 0)["hands"][1] == {"size": 3, "public": [], "hidden": 3}


def test_views_depend_only_on_what_the_seat_knows():
    # Two games differing only in the seed's deck order, Blue's draws equal, Red's not.
    picks = ("X", "K", "D", "K")
    a, b = _seed_pair(picks, 5, lambda x, y: x[1:10:2] != y[1:10:2])
    rng = random.Random(7)
    red_views_differ = False
    for ply in range(10):  # Blue's first 5 draws are equal: Blue's knowledge stays equal
        seat = a.to_move[0]
        if seat == 0:
            moves = GAME.legal_moves(a, 0)
            assert moves == GAME.legal_moves(b, 0)
            for bad in ("X@a1", "C@e5", "D@j10", "+e4:n +e5:n", "j10:n"):
                assert _message(a, bad) == _message(b, bad)
        else:
            both = set(GAME.legal_moves(b, 1))
            moves = [m for m in GAME.legal_moves(a, 1) if m in both]
        move = rng.choice(moves)
        if seat == 0 and ply < 9:
            assert GAME.preview(a, 0, move) == GAME.preview(b, 0, move)
        a, b = GAME.apply(a, seat, move), GAME.apply(b, seat, move)
        assert _blue_view(a) == _blue_view(b)
        assert _spectator_view(a) == _spectator_view(b)
        red_views_differ |= GAME.view(a, 1) != GAME.view(b, 1)
        if a.outcome:
            break
    assert red_views_differ


def _message(state, move):
    try:
        GAME.apply(state, 0, move)
    except IllegalMove as error:
        return str(error)
    return None


def test_views_show_own_tiles_only_and_never_the_seed_or_deck():
    state = GAME.apply(drafted("top-secret-seed"), 0, "K@e5")
    blue, red, spectator = GAME.view(state, 0), GAME.view(state, 1), GAME.view(state, None)
    assert blue["hands"][0]["tiles"] == list(state.hands[0])
    assert "tiles" not in blue["hands"][1] and "tiles" not in red["hands"][0]
    assert all("tiles" not in hand for hand in spectator["hands"])
    assert [h["size"] for h in spectator["hands"]] == [2, 2] and spectator["deck_size"] == 31
    assert spectator["hands"][0] == {"size": 2, "public": ["D"], "hidden": 1}
    for view in (blue, red, spectator):
        text = json.dumps(view)
        assert "top-secret-seed" not in text and state.deck not in text
        assert "deck" not in {k for k in view if k != "deck_size"}
    assert " deck=" not in repr(state) and " hands=" not in repr(state) \
        and "shuffle" not in repr(state) and state.deck not in repr(state)
    assert "top-secret-seed" not in repr(GAME.start(2, {}, "top-secret-seed"))


def test_illegal_move_messages_do_not_reveal_the_opponents_tiles():
    state = drafted()
    for move in ("X@e5", "C@e5", "pick K"):
        assert "Red" not in _message(state, move) and "opponent" not in _message(state, move)


# -- helpers for a turn builder ------------------------------------------------------------------------

def test_preview_matches_the_turn_and_stops_before_the_draw():
    state = position(figures={"e10": "s", "c3": "N"}, tiles={"e10": "K", "c3": "C"},
                     hands=("D", ""), deck="XK")
    preview = GAME.preview(state, 0, "D@c4 +e9:n")
    after = GAME.apply(state, 0, "D@c4 +e9:n")
    assert preview["move"] == after.last.move
    assert preview["scores"] == list(after.scores) == [6, 0] and preview["gained"] == 6
    assert preview["figures"] == GAME.view(after, 0)["figures"]
    assert preview["tiles"] == GAME.view(after, 0)["tiles"]
    for count in ("figures_in_hand", "figures_on_field", "knocked_out"):
        assert preview[count] == GAME.view(after, 0)[count], count
    assert [e["kind"] for e in preview["events"]] == ["knockout"]
    assert preview["figures_on_field"] == [2, 0]
    assert preview["outcome"] is None  # Red has its turn to bring a figure back
    assert "hands" not in preview and "deck" not in json.dumps(preview)
    red = GAME.preview(after, 1, "pass")  # and loses if it does not
    assert red["outcome"] == {"winners": [0], "draw": False,
                              "reason": "Red has no figure on the field"}
    assert GAME.preview(after, 1, "+a5:n")["outcome"] is None
    with pytest.raises(IllegalMove):
        GAME.preview(state, 1, "pass")
    with pytest.raises(IllegalMove, match="one figure action"):
        GAME.preview(state, 0, "+a1:n +a2:n")


def test_turn_options_for_a_builder():
    state = position(figures={"a1": "N"}, tiles={"e5": "D"}, hands=("KD", ""), in_hand=(0, 5))
    options = GAME.turn_options(state, 0)
    assert options["tiles_in_hand"] == ["K", "D"]
    assert sorted(options["tile_cells"]) == ["d5", "e4", "e6", "f5"]
    assert options["enter_cells"] == []
    assert options["rotate"] == {"a1": ["e", "s", "w"]}
    assert options["move"] == {"a1": ["a2", "a3", "a4", "b1", "c1", "d1"]}
    after_one = GAME.turn_options(state, 0, "K@e4")
    assert after_one["tiles_in_hand"] == ["D"] and "e3" in after_one["tile_cells"]
    with pytest.raises(IllegalMove):
        GAME.turn_options(state, 1)
