"""``game.resample``: a state the seat cannot tell from the real one, its hidden parts drawn
among all that agree with what the seat has seen, and made from what the seat knows only."""
from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter

import pytest

import engine
from engine import magnet as M
from engine import magnetic_field as MF

RED, BLUE = 0, 1


def positions(game, players: int, games: int, options=None, seed: str = "rs"):
    """Every position of a few seeded random games (Magnet: from the first setup)."""
    rng = random.Random(seed)
    for number in range(games):
        state = game.start(players, options or {}, f"{seed}-{number}")
        while state.outcome is None:
            yield state
            seat = rng.choice(state.to_move)
            moves = game.legal_moves(state, seat)
            if game.id == "magnet" and state.setting_up:
                kinds = list(M.SET)
                rng.shuffle(kinds)
                moves = [game.setup_text(seat, kinds)]
            state = game.apply(state, seat, rng.choice(moves))
        yield state


def seen_the_same(game, a, b, seat: int) -> bool:
    return (game.view(a, seat) == game.view(b, seat)
            and game.legal_moves(a, seat) == game.legal_moves(b, seat)
            and (a.ply, a.to_move, a.outcome) == (b.ply, b.to_move, b.outcome))


@pytest.mark.parametrize("game_id, players", [("mastery", 2), ("the-right-moves", 2),
                                              ("the-right-moves", 4)])
def test_without_hidden_information_the_state_itself(game_id, players):
    game = engine.get(game_id)
    for state in itertools.islice(positions(game, players, 1), 0, 200, 20):
        for seat in range(players):
            assert game.resample(state, seat, random.Random(1)) is state


@pytest.mark.parametrize("game_id", ["magnet", "magnetic-field"])
def test_a_resample_looks_the_same_to_the_seat_and_can_be_played_on(game_id):
    game, rng = engine.get(game_id), random.Random(2)
    checked = differs = 0
    for state in positions(game, 2, 2):
        for seat in (RED, BLUE):
            world = game.resample(state, seat, rng)
            assert seen_the_same(game, world, state, seat)
            differs += world != state
            if seat in world.to_move and not (game_id == "magnet" and world.setting_up):
                # Play goes on in the world (what it shows next may differ: a capture
                # reveals a value, a draw a tile).
                move = rng.choice(game.legal_moves(world, seat))
                assert game.apply(world, seat, move).ply == state.ply + 1
            checked += 1
    assert checked > 100 and differs > checked // 4


def test_resample_wants_a_random_generator_and_a_seat():
    game = engine.get("magnet")
    state = game.start(2, {"random_setup": True}, "x")
    with pytest.raises(ValueError, match="random"):
        game.resample(state, RED, 7)
    with pytest.raises(ValueError, match="seat"):
        game.resample(state, 2, random.Random())


# -- indistinguishability: twins that differ only in what the seat cannot see ------------------

def magnet_twins(seed: int):
    """Positions of two Magnet games whose Blue arrangements differ by a swap of two values,
    played with the same turns for as long as nothing reveals the difference."""
    rng = random.Random(seed)
    red, blue = list(M.SET), list(M.SET)
    rng.shuffle(red)
    rng.shuffle(blue)
    i, j = blue.index(M.KING), blue.index(M.P4)
    other = list(blue)
    other[i], other[j] = other[j], other[i]
    games = [M.GAME.start(2, {}, "twins") for _ in range(2)]
    games = [M.GAME.apply(g, BLUE, M.GAME.setup_text(BLUE, kinds))
             for g, kinds in zip(games, (blue, other))]
    yield games
    games = [M.GAME.apply(g, RED, M.GAME.setup_text(RED, red)) for g in games]
    while games[0].outcome is None and games[0].turn < 40:
        yield games
        seat = games[0].to_move[0]
        shared = set(M.GAME.legal_moves(games[1], seat))
        moves = [m for m in M.GAME.legal_moves(games[0], seat) if m in shared]
        for move in rng.sample(moves, len(moves)):
            after = [M.GAME.apply(g, seat, move) for g in games]
            if after[0].captured == after[1].captured and after[0].outcome == after[1].outcome:
                games = after
                break
        else:
            return


@pytest.mark.parametrize("seed", range(3))
def test_magnet_twins_give_red_the_same_resample(seed):
    count = 0
    for a, b in magnet_twins(seed):
        assert a != b
        for k in range(2):
            assert M.GAME.resample(a, RED, random.Random(k)) == \
                M.GAME.resample(b, RED, random.Random(k))
        count += 1
    assert count > 10


def test_magnetic_field_twins_give_the_seat_the_same_resample():
    game, rng = MF.GAME, random.Random(4)
    for state in positions(game, 2, 2):
        if state.outcome is not None:
            continue
        seat = rng.choice((0, 1))
        enemy = 1 - seat
        if state.drafting:
            shuffle = list(state.shuffle)
            rng.shuffle(shuffle)
            twin = dataclasses.replace(state, shuffle=tuple(shuffle))
        else:  # the opponent's hidden tiles and the deck, dealt otherwise
            hidden = Counter(state.hands[enemy])
            hidden.subtract(state.public_hands[enemy])
            unseen = list(hidden.elements()) + list(state.deck)
            rng.shuffle(unseen)
            count = sum(hidden.values())
            twin = dataclasses.replace(
                state, deck="".join(unseen[count:]), hands=MF._pair(
                    state.hands, enemy, MF._sorted_codes(state.public_hands[enemy]
                                                         + "".join(unseen[:count]))))
        assert seen_the_same(game, twin, state, seat)
        assert game.resample(twin, seat, random.Random(9)) == \
            game.resample(state, seat, random.Random(9))


# -- sampling: every consistent assignment, each about as often --------------------------------

PIECES = {"b7": (RED, M.KING, 1), "f3": (RED, M.P4, 2),
          "j3": (BLUE, M.P3, 1), "k5": (BLUE, M.KING, 1), "h2": (BLUE, M.T2, 2)}


def magnet_position(pieces=PIECES, cleared=(), to_move=RED) -> M.MagnetState:
    """Blue has lost eight pieces to captures (values public), one more to a trap at rank 1
    (value hidden), and has three left (with ``PIECES``: two of rank 1, one of rank 2).
    Blue's four unseen values are K, T2, 2 and 3."""
    board = [0] * 91
    for name, (owner, kind, rank) in pieces.items():
        board[M.INDEX[name]] = M._piece(owner, kind, rank)
    captured = tuple((BLUE, kind, 0, 0) for kind in (M.T3, M.P2, M.P2, M.P3, M.P3,
                                                   M.P4, M.P4, M.P4))
    homes = tuple(v if x else -1 for v, x in enumerate(board))
    return M.MagnetState(
        players=2, options={"random_setup": False}, board=tuple(board),
        arrangements=(M.SET, M.SET), turn=9, to_move=(to_move,), captured=captured,
        destroyed=((BLUE, M.P2, 1, M.INDEX["c3"], 5),), homes=homes,
        cleared=frozenset(M.INDEX[name] for name in cleared),
        seen={(M.public_board(tuple(board)), to_move): 1})


def blue_values(state: M.MagnetState) -> tuple:
    on_board = tuple((M.NAMES[v], (x >> 3) & 7) for v, x in enumerate(state.board)
                     if x and x >> 6 == BLUE)
    return on_board + tuple(kind for owner, kind, *_ in state.destroyed if owner == BLUE)


def consistent(state: M.MagnetState) -> set:
    """Every assignment of Blue's unseen values that agrees with what Red knows, by brute
    force over the orders of the unseen values."""
    slots = [(M.NAMES[v], x & 7, M.INDEX[M.NAMES[v]] not in state.cleared)
             for v, x in enumerate(state.board) if x and x >> 6 == BLUE]
    found = set()
    for kinds in itertools.permutations((M.KING, M.T2, M.P2, M.P3)):
        *on_board, trapped = kinds
        if trapped == M.KING:
            continue
        if all(M.VALUE[kind] >= rank and (may_be_king or kind != M.KING)
               for (_, rank, may_be_king), kind in zip(slots, on_board)):
            found.add(tuple((name, kind) for (name, _, _), kind in zip(slots, on_board))
                      + (trapped,))
    return found


@pytest.mark.parametrize("cleared", [(), ("j3",)])
def test_magnet_draws_every_consistent_assignment_evenly(cleared):
    state = magnet_position(cleared=cleared)
    expected = consistent(state)
    # The king is one of the rank-1 pieces on the board (j3 only if it is not cleared); the
    # other three values go anywhere.
    assert len(expected) == (12 if not cleared else 6)
    rng = random.Random(5)
    draws = Counter(blue_values(M.GAME.resample(state, RED, rng)) for _ in range(2400))
    assert set(draws) == expected
    share = 2400 / len(expected)
    assert all(0.75 * share < n < 1.25 * share for n in draws.values()), draws


def test_magnet_resample_keeps_what_red_knows_and_fills_the_rest():
    state = magnet_position()
    world = M.GAME.resample(state, RED, random.Random(3))
    assert world.board[M.INDEX["h2"]] & 7 == 2 and M.public_board(world.board) == \
        M.public_board(state.board)
    assert Counter(world.arrangements[BLUE]) == Counter(M.SET)
    assert world.arrangements[RED] == state.arrangements[RED]
    assert world.captured == state.captured and world.cleared == state.cleared


def test_magnet_a_piece_that_held_the_centre_is_known_not_to_be_the_king():
    # Blue's rank-1 piece on f5 moves onto f6; Red leaves it there; Blue does not win at the
    # start of its turn, so it is not the king: Red's resamples never make it one again.
    pieces = {**PIECES, "f5": PIECES["j3"]}
    del pieces["j3"]
    state = magnet_position(pieces, to_move=BLUE)
    state = M.GAME.apply(state, BLUE, M.legal_turns(state, BLUE, "f6")[0])
    assert M.NAMES.index("f6") == M.CENTRE and state.board[M.CENTRE] >> 6 == BLUE
    for move in M.GAME.legal_moves(state, RED):
        after = M.GAME.apply(state, RED, move)
        if after.outcome is None and after.board[M.CENTRE] and after.board[M.CENTRE] >> 6 == BLUE:
            break
    assert after.cleared == {M.INDEX["f5"]} and after.homes[M.CENTRE] == M.INDEX["f5"]
    rng = random.Random(1)
    assert all((M.GAME.resample(after, RED, rng).board[M.CENTRE] >> 3) & 7 != M.KING
               for _ in range(100))
    assert any((M.GAME.resample(state, RED, rng).board[M.CENTRE] >> 3) & 7 == M.KING
               for _ in range(100))  # before, it might have been


def test_magnet_during_setup_the_unseen_arrangement_is_any():
    state = M.GAME.apply(M.GAME.start(2, {}, "s"), BLUE, M.GAME.setup_text(BLUE, M.SET))
    rng = random.Random(0)
    seen = {M.GAME.resample(state, RED, rng).arrangements[BLUE] for _ in range(200)}
    assert len(seen) > 150 and all(Counter(a) == Counter(M.SET) for a in seen)
    assert M.GAME.resample(state, BLUE, rng) is state  # Blue sees all there is


def test_magnetic_field_deals_every_order_of_the_unseen_tiles_evenly():
    # Seat 0 holds "DD"; seat 1 holds a public K and one hidden tile; the deck holds two.
    # The three unseen tiles are what the field and the hands leave of the 36: C, K and X.
    tiles = ["."] * MF.CELLS
    rest = Counter(MF.CONTROL_TILES + MF.DRAFT_POOL) - Counter("DD" + "K" + "CKX")
    for cell, code in enumerate(sorted(rest.elements())):
        tiles[cell] = code
    base = MF.GAME.start(2, {"colours": "seat0-blue"}, "deal")
    state = dataclasses.replace(
        base, drafting=False, pool="", shuffle=(), tiles="".join(tiles), to_move=(0,),
        hands=("DD", "XK"), public_hands=("DD", "K"), deck="CK")
    rng = random.Random(6)
    draws = Counter()
    for _ in range(1200):
        world = MF.GAME.resample(state, 0, rng)
        draws[world.hands[1], world.deck] += 1
    expected = {("KK", "CX"), ("KK", "XC"), ("CK", "KX"), ("CK", "XK"), ("XK", "CK"),
                ("XK", "KC")}
    assert set(draws) == expected
    assert all(150 < n < 250 for n in draws.values()), draws
