"""The computer players (``engine.bots``): legal, deterministic, blind to what their seat
cannot see, and better than random. The strength figures proper come from ``./dev bench
bots``."""
from __future__ import annotations

import dataclasses
import random

import pytest

import engine
from engine import bots
from engine import magnet as M
from engine import magnetic_field as MF
from engine.bots.alphabeta import AlphaBeta
from test_magnetic_field import position as field_position

VARIANTS = [("mastery", 2), ("the-right-moves", 2), ("the-right-moves", 4), ("magnet", 2),
            ("magnetic-field", 2)]
WEAKEST = next(iter(bots.LEVELS))


def random_positions(game_id: str, players: int, count: int, seed: str = "bots"):
    options = {"random_setup": True} if game_id == "magnet" else {}
    return engine.random_positions(engine.get(game_id), players, count, seed, options)


def test_levels_weakest_first_with_growing_work():
    assert len(bots.LEVELS) >= 3
    work = list(bots.LEVELS.values())
    assert work == sorted(work) and len(set(work)) == len(work)


@pytest.mark.parametrize("game_id, players", VARIANTS)
def test_moves_are_legal_and_the_same_for_the_same_arguments(game_id, players):
    game = engine.get(game_id)
    for n, state in enumerate(random_positions(game_id, players, 3)):
        seat = state.to_move[0]
        move = bots.choose(game, state, seat, level=WEAKEST, seed=n)
        after = game.apply(state, seat, move)  # legal, or this raises
        if game.lists_every_move:
            assert move in game.legal_moves(state, seat)
        assert bots.choose(game, state, seat, level=WEAKEST, seed=n) == move
        assert game.canonical(state, seat, move) and after.ply == state.ply + 1


def test_magnet_setup_is_a_secret_arrangement_drawn_from_the_seed():
    game = engine.get("magnet")
    state = game.start(2, {}, "setup")
    setups = {bots.choose(game, state, seat, level=WEAKEST, seed=s)
              for seat in (0, 1) for s in range(6)}
    assert len(setups) == 12  # not always the listed one
    for seat in (0, 1):
        move = bots.choose(game, state, seat, level=WEAKEST, seed=1)
        assert move.startswith("setup") and game.apply(state, seat, move).arrangements[seat]
    # Once Red has set up, Blue's bot sets up without looking at Red's arrangement.
    reds = [game.apply(state, 0, game.setup_text(0, kinds))
            for kinds in (M.SET, M.SET[::-1])]
    assert bots.choose(game, reds[0], 1, level=WEAKEST, seed=1) == \
        bots.choose(game, reds[1], 1, level=WEAKEST, seed=1)


def test_magnetic_field_draft_and_play():
    game = engine.get("magnetic-field")
    state = game.start(2, {"colours": "seat0-blue"}, "draft")
    for _ in range(8):
        seat = state.to_move[0]
        state = game.apply(state, seat, bots.choose(game, state, seat, level=WEAKEST, seed=3))
    assert not state.drafting and state.ply == 8


def test_bad_arguments_are_refused():
    game = engine.get("mastery")
    state = game.start(2, {}, "x")
    with pytest.raises(ValueError, match="level"):
        bots.choose(game, state, 0, level="grandmaster", seed=1)
    with pytest.raises(engine.IllegalMove, match="turn"):
        bots.choose(game, state, 1, level=WEAKEST, seed=1)


# -- the bot sees only what its seat sees ----------------------------------------------------

def test_magnet_same_move_whatever_the_opponents_values():
    game, rng, checked = M.GAME, random.Random(2), 0
    for state in random_positions("magnet", 2, 6, seed="blind"):
        seat = state.to_move[0]
        twin = game.resample(state, seat, rng)  # the opponent's values dealt otherwise
        if twin == state:
            continue
        assert bots.choose(game, twin, seat, level=WEAKEST, seed=4) == \
            bots.choose(game, state, seat, level=WEAKEST, seed=4)
        checked += 1
    assert checked >= 4


def test_magnetic_field_same_move_whatever_the_opponents_tiles_and_the_deck():
    game, checked = MF.GAME, 0
    for state in random_positions("magnetic-field", 2, 8, seed="blind"):
        seat = state.to_move[0]
        enemy = 1 - seat
        hidden = state.hands[enemy].replace(state.public_hands[enemy], "", 1)
        if state.drafting or not hidden or not state.deck:
            continue
        # Swap one of the opponent's hidden tiles with the last tile of the deck.
        swap = hidden[0]
        hand = MF._sorted_codes(state.hands[enemy].replace(swap, "", 1) + state.deck[-1])
        twin = dataclasses.replace(state, deck=state.deck[:-1] + swap,
                                   hands=MF._pair(state.hands, enemy, hand))
        assert game.view(twin, seat) == game.view(state, seat)
        assert bots.choose(game, twin, seat, level=WEAKEST, seed=4) == \
            bots.choose(game, state, seat, level=WEAKEST, seed=4)
        checked += 1
    assert checked >= 2


# -- play ------------------------------------------------------------------------------------

def test_four_bots_play_the_right_moves_in_two_teams():
    game = engine.get("the-right-moves")
    state = game.start(4, {}, "teams")
    for _ in range(12):
        seat = state.to_move[0]
        move = bots.choose(game, state, seat, level=WEAKEST, seed=seat)
        assert move in game.legal_moves(state, seat)
        state = game.apply(state, seat, move)
    assert state.ply == 12 and state.outcome is None


def mastery_position(pieces: dict[str, str], seat: int = 0) -> engine.mastery.MasteryState:
    """Dark (upper case) to move, or ``seat``, with the pieces on the squares given."""
    board = ["."] * 64
    for square, piece in pieces.items():
        board[engine.mastery.square_index(square)] = piece
    board = "".join(board)
    return engine.mastery.MasteryState(players=2, options={"setup": "imperial",
                                                           "repetition_draw": True},
                                       to_move=(seat,), board=board, seen={(board, seat): 1})


def test_a_winning_move_is_played_at_once():
    # Light's last Master stands where Dark's Master can take it.
    state = mastery_position({"a1": "M", "b2": "O", "b3": "P", "a4": "m", "h8": "o", "h7": "p"})
    game = engine.get("mastery")
    for seed in range(3):
        move = bots.choose(game, state, 0, level=WEAKEST, seed=seed)
        assert move.startswith("a1xa4") and game.apply(state, 0, move).outcome.winners == (0,)


def test_an_immediate_loss_is_parried():
    # Dark's last Officer or Pawn, the Pawn on d4, stands where Light's Officer on d6 can
    # take it: Dark must get it away.
    game = engine.get("mastery")
    state = mastery_position({"a1": "M", "h1": "M", "d4": "P", "a8": "m", "h8": "m",
                              "d6": "o", "h6": "p"})
    assert game.apply(state, 0, "a1-a2") and game.apply(
        game.apply(state, 0, "a1-a2"), 1, "d6xd4").outcome.winners == (1,)
    for seed in range(3):
        after = game.apply(state, 0, bots.choose(game, state, 0, level=WEAKEST, seed=seed))
        assert not any(game.apply(after, 1, reply).outcome
                       for reply in game.legal_moves(after, 1))


def wins_by_force(game: engine.Game, state: engine.State, seat: int, move: str) -> bool:
    """Whether ``move`` of ``seat`` wins at once, or leaves the opponent only replies after
    which ``seat`` has a move that wins at once."""
    after = game.apply(state, seat, move)
    if after.outcome is not None:
        return after.outcome.winners == (seat,)
    return all(
        (reply := game.apply(after, 1 - seat, answer)).outcome is None and any(
            (end := game.apply(reply, seat, last)).outcome and end.outcome.winners == (seat,)
            for last in game.legal_moves(reply, seat))
        for answer in game.legal_moves(after, 1 - seat))


def test_the_search_finds_a_win_in_two_moves_at_every_level():
    # Dark moves Light's Pawn on d3 by control (its Master on c2 holds it) to a3 or b3, next
    # to its Officer; whatever Light does, Dark then takes Light's last Master or last Pawn.
    # Nothing wins at once.
    game = engine.get("mastery")
    state = mastery_position({"c2": "M", "a6": "M", "b2": "O", "g6": "P", "e6": "m",
                              "d3": "p"})
    assert not any(game.apply(state, 0, move).outcome for move in game.legal_moves(state, 0))
    for seed, level in enumerate(bots.LEVELS):
        move, rating = bots.assess(game, state, 0, level=level, seed=seed)
        assert wins_by_force(game, state, 0, move) and rating == 1.0


def test_the_search_spends_its_nodes_alike_every_time():
    # The budget counts nodes, not seconds: a cut-short search gives the same move again.
    game = engine.get("mastery")
    state = game.start(2, {}, "nodes")
    tree = bots.HEURISTICS["mastery"].tree
    chosen = set()
    for _ in range(2):
        search = AlphaBeta(tree, state, nodes=400, contempt=1.0, noise=0.0,
                           rng=random.Random(1), repetition=True)
        chosen.add((str(search.run()), search.depth, search.value))
    assert len(chosen) == 1 and next(iter(chosen))[1] >= 1


def test_a_search_out_of_time_answers_the_best_move_it_found():
    # (what a web request's assessment does on a loaded machine: seconds=0 stops the search
    # at its first look at the clock)
    game = engine.get("mastery")
    state = game.start(2, {}, "clock")
    move, rating = bots.assess(game, state, 0, level="hard", seed=1, seconds=0.0)
    assert move in game.legal_moves(state, 0) and 0 < rating < 1


def test_equal_levels_below_the_strongest_vary_their_games_by_the_seed():
    # (The strongest level's noise is too small to change its first move.)
    game = engine.get("mastery")
    state = game.start(2, {}, "vary")
    for level in list(bots.LEVELS)[:-1]:
        assert len({bots.choose(game, state, 0, level=level, seed=s) for s in range(6)}) > 1


# Two pawns stepping back and forth, Light's on f3 and f2, Dark's on d3 and d2: after these
# moves from the position below, the position with them on f2 and d2 and Light to move has
# occurred twice, and the one with them on f3 and d3 too (Light to move).
SHUFFLE = ["f3-f2", "d3-d2", "f2-f3", "d2-d3", "f3-f2", "d3-d2"]


def pawns_shuffling(pieces: dict[str, str]) -> engine.mastery.MasteryState:
    game = engine.get("mastery")
    state = mastery_position({**pieces, "d3": "P", "f3": "p"}, seat=1)
    for move in SHUFFLE:
        state = game.apply(state, state.to_move[0], move)
    return state


def draws_at_once(game: engine.Game, state: engine.State) -> bool:
    seat = state.to_move[0]
    return any((after := game.apply(state, seat, move)).outcome and after.outcome.draw
               for move in game.legal_moves(state, seat))


def test_a_bot_ahead_does_not_let_the_opponent_repeat_the_position():
    # Light (a Master, an Officer and a Pawn ahead: the end of a game between two easy
    # computers) is to move; f2-f3 would let Dark's d2-d3 make the position with the pawns
    # on f3 and d3 occur a third time, a draw the search did not look at.
    game = engine.get("mastery")
    state = pawns_shuffling({"c6": "M", "g7": "M", "b8": "m", "f8": "m", "d7": "m", "e7": "o"})
    assert draws_at_once(game, game.apply(state, 1, "f2-f3"))
    for seed in range(3):
        after = game.apply(state, 1, bots.choose(game, state, 1, level=WEAKEST, seed=seed))
        assert after.outcome is None and not draws_at_once(game, after)


def test_a_bot_behind_repeats_the_position():
    # The same with an Officer on a8 instead of Light's third Master (Light is two Officers
    # ahead), one more move played: Dark's d2-d3 makes the position occur a third time, a
    # draw that Dark, behind, takes at every level, whatever its noise.
    game = engine.get("mastery")
    state = game.apply(pawns_shuffling({"c6": "M", "g7": "M", "f8": "m", "d7": "m", "e7": "o",
                                        "a8": "o"}), 1, "f2-f3")
    assert bots.HEURISTICS["mastery"].evaluate(state, 0) < bots.DRAW
    for seed, level in zip(range(3), bots.LEVELS):
        move = bots.choose(game, state, 0, level=level, seed=seed)
        assert move == "d2-d3" and game.apply(state, 0, move).outcome.draw


def test_magnetic_field_ring_out_threats_are_judged_at_the_end_of_the_movers_turn():
    threat = bots.HEURISTICS["magnetic-field"].threat
    # Knocking out Red's last figure on the field wins nothing yet: Red may bring one back.
    last = field_position(figures={"e10": "s", "a1": "W"}, in_hand=(4, 4))
    assert MF.GAME.apply(last, 0, "+e9:n").outcome is None
    assert not threat(last, 0)
    # Sticking it with Blue's only figure leaves neither a figure, and Blue is ahead: a win.
    ahead = field_position(figures={"e6": "n"}, in_hand=(5, 4), scores=(3, 1))
    assert MF.GAME.apply(ahead, 0, "+e4:n").outcome.winners == (0,)
    assert threat(ahead, 0)
    assert not threat(dataclasses.replace(ahead, scores=(1, 3)), 0)


def test_magnetic_field_bots_do_not_empty_their_own_field_before_the_opponent_enters():
    # Blue is ahead and Red has never entered: sticking a second figure to Blue's only one
    # would leave neither a figure on the field, which loses (the amended Ruling), not a
    # win on points. The bot neither sees it as a threat nor plays it.
    heuristics = bots.HEURISTICS["magnetic-field"]
    state = field_position(figures={"e5": "N"}, in_hand=(4, 5), entered=(True, False),
                           scores=(3, 0), deck="KK")
    sticking = "+e7:n"
    assert MF.GAME.apply(state, 0, sticking).outcome.winners == (1,)
    assert not heuristics.threat(state, 0)
    moves = heuristics.moves(state, 0)
    losing = [m for m in moves if MF.GAME.apply(state, 0, m).outcome is not None]
    assert sticking in losing and moves[-len(losing):] == losing  # ranked below all others
    for level in bots.LEVELS:
        move = bots.choose(MF.GAME, state, 0, level=level, seed=1)
        assert MF.GAME.apply(state, 0, move).outcome is None, (level, move)


def test_magnetic_field_bots_stay_off_the_field_when_entering_would_give_the_game_away():
    # Red has never entered and Blue is ahead with one figure on e5. Staying off the field,
    # Red is safe: Blue cannot empty its own field for the points. Entering on e8 (S pole
    # south) would let Blue slide to e6 and stick the two: neither a figure, both entered,
    # Blue wins on points. The bot knows which is which.
    heuristics = bots.HEURISTICS["magnetic-field"]
    state = field_position(figures={"e5": "N"}, in_hand=(4, 5), entered=(True, False),
                           scores=(3, 0), deck="KK", to_move=1)
    assert not heuristics.threat(MF.GAME.apply(state, 1, "pass"), 0)
    entered = MF.GAME.apply(state, 1, "+e8:n")
    assert heuristics.threat(entered, 0)
    assert MF.GAME.apply(entered, 0, "e5-e6").outcome.winners == (0,)
    for seed in range(2):
        move = bots.choose(MF.GAME, state, 1, level=WEAKEST, seed=seed)
        after = MF.GAME.apply(state, 1, move)
        assert after.outcome is None and not heuristics.threat(after, 0), move


def test_magnetic_field_a_player_without_a_figure_on_the_field_brings_one_back():
    # Blue's last figure was pulled off in Red's turn: a pass loses now, and comes last of
    # the turns the search looks at (not first, as a pass that brings nothing otherwise does)
    state = field_position(figures={"h8": "w"}, in_hand=(5, 4), deck="KK")
    moves = bots.HEURISTICS["magnetic-field"].moves(state, 0)
    assert moves[0] != "pass" and moves[-1] == "pass"
    for seed in range(2):
        move = bots.choose(MF.GAME, state, 0, level=WEAKEST, seed=seed)
        assert move.startswith("+") and MF.GAME.apply(state, 0, move).outcome is None


@pytest.mark.parametrize("game_id, players", VARIANTS)
def test_the_weakest_level_beats_random_moves(game_id, players):
    game = engine.get(game_id)
    options = {"random_setup": True} if game_id == "magnet" else {}
    state = game.start(players, options, "smoke")
    rng = random.Random(1)
    bot_seats = {1, 3}  # the second side: it does not move first
    while state.outcome is None and state.ply < 300:
        seat = state.to_move[0]
        if seat in bot_seats:
            move = bots.choose(game, state, seat, level=WEAKEST, seed=state.ply)
        else:
            move = rng.choice(game.legal_moves(state, seat))
        state = game.apply(state, seat, move)
    assert state.outcome is not None and set(state.outcome.winners) & bot_seats, state.outcome


def magnet_positions_with_a_possible_king_on_the_centre(count: int):
    """Positions from random games without promotions where the side to move can capture,
    without letting its own king be taken, an opponent's piece on f6 that may be its king
    (rank 1, not yet seen to hold the centre), and cannot win at once."""
    game, found = engine.get("magnet"), []
    threat = bots.HEURISTICS["magnet"].threat
    for number in range(100):
        state = game.start(2, {"random_setup": True}, f"centre-{number}")
        rng = random.Random(number)
        while state.outcome is None and len(found) < count:
            seat = state.to_move[0]
            legal = game.legal_moves(state, seat)
            if (_enemy_on_centre(state, seat) and state.board[M.CENTRE] & 7 == 1
                    and M._homes(state)[M.CENTRE] not in state.cleared):
                afters = [game.apply(state, seat, move) for move in legal]
                if not any(after.outcome for after in afters) and any(
                        not _enemy_on_centre(after, seat) and not threat(after, 1 - seat)
                        for after in afters):
                    found.append(state)
                    break
            state = game.apply(state, seat, rng.choice([m for m in legal if "+" not in m]))
        if len(found) == count:
            return found
    raise AssertionError("too few positions")


def test_magnet_a_piece_that_may_be_the_king_is_not_left_on_the_centre():
    # Left there, it wins at the start of its owner's turn if it is the king: the bot takes
    # it, whatever the world it drew.
    game = engine.get("magnet")
    for n, state in enumerate(magnet_positions_with_a_possible_king_on_the_centre(4)):
        seat = state.to_move[0]
        after = game.apply(state, seat, bots.choose(game, state, seat, level=WEAKEST, seed=n))
        assert not _enemy_on_centre(after, seat)


def _enemy_on_centre(state: M.MagnetState, seat: int) -> bool:
    piece = state.board[M.CENTRE]
    return bool(piece) and piece >> 6 != seat
