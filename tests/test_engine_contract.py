"""The engine's interface (``engine.core.Game``), checked the same way for every game."""
from __future__ import annotations

import dataclasses
import json
import random

import pytest

import engine

GAMES = list(engine.GAMES.values())
ids = [game.id for game in GAMES]


def test_there_is_one_game_per_rules_file():
    assert set(engine.GAMES) >= {"mastery", "the-right-moves", "magnetic-field"}


def test_unknown_game_is_a_key_error_with_a_readable_message():
    with pytest.raises(engine.UnknownGame) as caught:
        engine.get("chess")
    assert isinstance(caught.value, KeyError)
    assert "chess" in str(caught.value) and not str(caught.value).startswith("'")


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_description(game):
    assert game.id and game.title
    assert isinstance(game.player_counts, tuple) and all(isinstance(n, int) for n in game.player_counts)
    assert json.dumps(game.default_options)  # plain JSON values
    assert engine.get(game.id) is game


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_start_is_determined_by_its_arguments(game):
    players = game.player_counts[-1]
    first = game.start(players=players, options={}, seed="same")
    again = game.start(players=players, options={}, seed="same")
    assert first == again
    assert first.ply == 0 and first.outcome is None and first.to_move
    assert all(0 <= seat < players for seat in first.to_move)


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_bad_setups_raise_value_errors_with_messages(game):
    with pytest.raises(ValueError, match="option"):
        game.start(players=game.player_counts[0], options={"no_such_option": 1}, seed="s")
    with pytest.raises(ValueError, match="players"):
        game.start(players=3, options={}, seed="s")
    with pytest.raises(ValueError):
        game.start(players="two", options={}, seed="s")
    for option in game.options:
        with pytest.raises(ValueError, match=option.name):
            game.start(players=game.player_counts[0], options={option.name: "nonsense!"}, seed="s")


@pytest.mark.parametrize("game", GAMES, ids=ids)
@pytest.mark.parametrize("text", ["", "   ", "nonsense", "zz9-zz10", "x" * 500, "\x00", "é-ü"])
def test_malformed_moves_raise_illegal_move(game, text):
    state = game.start(players=game.player_counts[0], options={}, seed="s")
    with pytest.raises(engine.IllegalMove) as caught:
        game.apply(state, state.to_move[0], text)
    assert isinstance(caught.value, ValueError) and str(caught.value)


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_non_text_moves_and_moves_out_of_turn_are_illegal(game):
    state = game.start(players=game.player_counts[0], options={}, seed="s")
    seat = state.to_move[0]
    with pytest.raises(engine.IllegalMove):
        game.apply(state, seat, None)
    waiting = [s for s in range(state.players) if s not in state.to_move]
    move = game.legal_moves(state, seat)[0]
    for other in waiting:
        assert game.legal_moves(state, other) == []
        with pytest.raises(engine.IllegalMove, match="turn"):
            game.apply(state, other, move)


@pytest.mark.parametrize("game", GAMES, ids=ids)
@pytest.mark.parametrize("seed", range(3))
def test_random_playouts_end_and_replay_to_the_same_state(game, seed):
    for players in game.player_counts:
        start = game.start(players=players, options={}, seed=f"playout-{seed}")
        end, moves = engine.random_playout(game, start, random.Random(seed), max_plies=3000)
        assert end.outcome is not None, "a random game must end"
        assert end.ply == len(moves) and end.to_move == ()
        assert all(0 <= s < players for s in end.outcome.winners)
        assert end.outcome.draw == (not end.outcome.winners)
        assert game.replay(players, {}, f"playout-{seed}", moves) == end
        json.dumps(game.view(end, None))
        json.dumps(end.outcome.to_json())


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_apply_leaves_the_given_state_unchanged(game):
    state = game.start(players=game.player_counts[0], options={}, seed="s")
    before = dataclasses.replace(state)
    seat = state.to_move[0]
    after = game.apply(state, seat, game.legal_moves(state, seat)[0])
    assert state == before and after != state and after.ply == 1


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_views_are_json_for_every_seat_and_spectators(game):
    state = game.start(players=game.player_counts[0], options={}, seed="s")
    for seat in [None, *range(state.players)]:
        assert json.loads(json.dumps(game.view(state, seat))) == game.view(state, seat)


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_every_listed_move_is_accepted_and_already_canonical(game):
    state, _ = engine.random_playout(game, game.start(players=game.player_counts[0], options={},
                                                      seed="c"), random.Random(5), max_plies=12)
    for seat in state.to_move:
        legal = game.legal_moves(state, seat)
        for move in legal[:300]:
            record, after = game.played(state, seat, move)
            assert record == game.canonical(state, seat, move)
            assert after == game.apply(state, seat, move)
            # A record may leave out what did not happen (Magnet: the promotion of a piece a
            # trap destroyed): then it is another listed move with the same result.
            assert record == move or record in legal and \
                game.apply(state, seat, record) == game.apply(state, seat, move)


ODD = [None, True, False, 0.0, 1.0, -1, 99, "0", "", b"0", [0], (0,), {0: 0}, object()]


def refused(call, *args) -> str:
    """The message of the ValueError subclass that ``call(*args)`` must raise."""
    with pytest.raises((engine.IllegalMove, engine.InvalidGameSetup)) as caught:
        call(*args)
    assert str(caught.value) and "Traceback" not in str(caught.value)
    return str(caught.value)


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_arguments_of_the_wrong_type_raise_value_errors_with_messages(game):
    players = game.player_counts[0]
    state = game.start(players, {}, "odd")
    seat = state.to_move[0]
    move = game.legal_moves(state, seat)[0]
    other_game = next(g for g in GAMES if g is not game)
    for odd in [None, True, 2.0, "2", [2], object()]:
        assert repr(odd)[:20] in refused(game.start, odd, {}, "s")
    assert "1" in refused(game.start, players, {1: 2, "x": 3}, "s")
    for odd in [[], "options", 1, [("x", 1)], {None: 1}, {(1,): 1}, {b"x": 1}]:
        refused(game.start, players, odd, "s")
    for option in game.options:
        for odd in [None, [], {}, 1.5, object()]:
            assert option.name in refused(game.start, players, {option.name: odd}, "s")
    for odd in [None, True, False, 1.0, float(seat), -1, players, "0", [0], object()]:
        assert "seat" in refused(game.legal_moves, state, odd)
        refused(game.apply, state, odd, move)
        refused(game.canonical, state, odd, move)
        refused(game.replay, players, {}, "s", [(odd, move)])
        if odd is not None:  # None is the spectator
            refused(game.view, state, odd)
    for odd in [None, "state", {}, other_game.start(other_game.player_counts[0], {}, "s")]:
        refused(game.legal_moves, odd, seat)
        refused(game.apply, odd, seat, move)
        refused(game.canonical, odd, seat, move)
        refused(game.view, odd, seat)
        refused(game.view, odd, None)
    for odd in [None, 1, 1.0, b"move", [move], (move,), object()]:
        refused(game.apply, state, seat, odd)
        refused(game.canonical, state, seat, odd)
        refused(game.replay, players, {}, "s", [(seat, odd)])
    for odd in [None, 1, move, (seat, move), [(seat,)], [(seat, move, 1)], [seat, move]]:
        refused(game.replay, players, {}, "s", odd)


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_a_move_for_a_seat_the_game_lacks_is_an_illegal_move(game):
    """Bad input to ``apply`` raises IllegalMove, whatever is bad."""
    for players in game.player_counts:
        state = game.start(players, {}, "seats")
        move = game.legal_moves(state, state.to_move[0])[0]
        for seat in [-1, players, 99, None, True, "0", 0.0]:
            with pytest.raises(engine.IllegalMove, match="not a seat of this game"):
                game.apply(state, seat, move)
        other = next(g for g in GAMES if g is not game)
        with pytest.raises(engine.IllegalMove, match="not a state of"):
            game.apply(other.start(other.player_counts[0], {}, "s"), 0, move)


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_entry_points_fuzzed_with_odd_arguments_answer_or_raise_value_errors(game):
    """Any mix of good and odd arguments gives a result or an IllegalMove/InvalidGameSetup
    with a message: never a TypeError, AttributeError, IndexError or KeyError."""
    rng = random.Random(f"odd-{game.id}")
    players = game.player_counts[-1]
    state, _ = engine.random_playout(game, game.start(players, {}, "fuzz"), rng, max_plies=6)
    seat = state.to_move[0]
    good = {"players": players, "options": {}, "seed": "s", "state": state, "seat": seat,
            "move": game.legal_moves(state, seat)[0]}
    good["moves"] = [(seat, good["move"])]
    calls = {game.start: ("players", "options", "seed"),
             game.legal_moves: ("state", "seat"), game.apply: ("state", "seat", "move"),
             game.view: ("state", "seat"), game.canonical: ("state", "seat", "move"),
             game.replay: ("players", "options", "seed", "moves")}
    for _ in range(400):
        call, names = rng.choice(list(calls.items()))
        args = [good[name] if rng.random() < 0.6 else rng.choice(ODD) for name in names]
        try:
            call(*args)
        except (engine.IllegalMove, engine.InvalidGameSetup) as error:
            assert str(error)


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_resignation_makes_the_other_team_win(game):
    players = game.player_counts[-1]
    state = game.start(players=players, options={}, seed="s")
    outcome = game.resignation(state, 0)
    team = game.team_of(players, 0)
    assert set(outcome.winners) == set(range(players)) - set(team)
    assert not outcome.draw and "resigned" in outcome.reason
    ended = game.conclude(state, outcome)
    assert ended.outcome == outcome and ended.to_move == ()
    assert game.legal_moves(ended, 1) == []
    with pytest.raises(engine.IllegalMove, match="over"):
        game.apply(ended, 1, "anything")


def mutations(move: str, rng: random.Random) -> list[str]:
    """Near misses of a legal move: characters dropped, doubled, swapped or replaced."""
    alphabet = "abcdefghijkmnopqrsxz0123456789-:+=@,~ .KTPOMDXCnesw"
    out = []
    for _ in range(6):
        chars = list(move)
        i = rng.randrange(len(chars))
        operation = rng.randrange(4)
        if operation == 0:
            del chars[i]
        elif operation == 1:
            chars.insert(i, chars[i])
        elif operation == 2 and len(chars) > 1:
            j = rng.randrange(len(chars))
            chars[i], chars[j] = chars[j], chars[i]
        else:
            chars[i] = rng.choice(alphabet)
        out.append("".join(chars))
    return out


@pytest.mark.parametrize("game", GAMES, ids=ids)
def test_near_miss_moves_are_either_legal_or_illegal_move_errors(game):
    """A seeded fuzz: text close to legal moves never raises anything but IllegalMove, and
    whatever apply accepts, canonical spells as a listed move (for complete move lists)."""
    rng = random.Random(f"fuzz-{game.id}")
    state = game.start(players=game.player_counts[-1], options={}, seed="fuzz")
    for _ in range(25):
        if state.outcome is not None:
            break
        seat = rng.choice(state.to_move)
        legal = game.legal_moves(state, seat)
        for text in mutations(rng.choice(legal), rng):
            try:
                game.apply(state, seat, text)
            except engine.IllegalMove as error:
                assert str(error)
                continue
            if game.lists_every_move:
                assert game.canonical(state, seat, text) in legal, text
        state = game.apply(state, seat, rng.choice(legal))
