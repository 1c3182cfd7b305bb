"""The positions of a game in memory and in the snapshots table (pbem/positions.py), and the
per-process cache of matches, sized in bytes."""
from __future__ import annotations

import os
import pickle
import random

import pytest

import engine
from pbem import commands, creation, matches, positions
from pbem.events import Command, Move
from pbem.store.db import connect
from pbem.matches import CACHE, MatchCache


def played(client, new_game, plies: int, seed: int = 1):
    """A Mastery game with ``plies`` random moves played through the API; (its id, its
    moves as (seat, move))."""
    game = new_game("mastery", options={"repetition_draw": False})
    rng, moves = random.Random(seed), []
    for ply in range(plies):
        state = client.get(game.apis[ply % 2]).json
        assert state["outcome"] is None
        move = rng.choice(state["legal_moves"])
        assert client.post(f"{game.apis[ply % 2]}/moves",
                           json={"move": move, "ply": ply}).status_code == 200
        moves.append((ply % 2, move))
    return game.id, moves


def replayed(match, moves) -> list[engine.State]:
    state = match.game.start(2, match.options, match.seed)
    states = [state]
    for seat, move in moves:
        state = match.game.apply(state, seat, move)
        states.append(state)
    return states


class CountedApply:
    """Counts the moves the engine applies (the game object is shared by every match)."""

    def __init__(self, monkeypatch):
        self.count = 0
        game = engine.get("mastery")
        apply = game.apply

        def counted(*args):
            self.count += 1
            return apply(*args)

        monkeypatch.setattr(game, "apply", counted)


def test_every_position_of_a_game_is_there_though_few_are_kept(app, client, new_game):
    game_id, moves = played(client, new_game, 2 * positions.EVERY + 5)
    db = connect(app.config["DATABASE"])
    match = matches.load(db, game_id)
    expected = replayed(match, moves)
    assert list(match.states) == expected
    assert [match.states[p] for p in range(len(expected))] == expected
    assert match.states[3:40] == expected[3:40] and match.states[-1] == expected[-1]
    assert [match.states.to_move(p) for p in range(len(expected))] == \
        [tuple(state.to_move) for state in expected]
    # memory: the kept positions, not all of them
    every = sum(len(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)) for state in expected)
    assert match.states.nbytes < every / 4


def test_a_process_without_the_game_replays_from_its_snapshot(app, client, new_game,
                                                                 monkeypatch):
    game_id, moves = played(client, new_game, 2 * positions.EVERY + 3)
    db = connect(app.config["DATABASE"])
    warm = matches.load(db, game_id)
    (row,) = db.query("SELECT ply, engine FROM snapshots WHERE game_id = ?", [game_id])
    assert row == {"ply": 2 * positions.EVERY, "engine": positions.ENGINE}
    CACHE.clear()
    applied = CountedApply(monkeypatch)
    cold = matches.load(db, game_id)
    assert applied.count == 3  # the moves since the snapshot, not the whole game
    assert cold.current == warm.current and cold.states == warm.states
    assert cold.states[5] == replayed(cold, moves)[5]  # replayed from the start when asked

    # a snapshot of other rules (the engine's code changed) is not used: the log decides
    db.execute("UPDATE snapshots SET engine = 'other'")
    CACHE.clear()
    applied.count = 0
    assert matches.load(db, game_id).current == warm.current
    assert applied.count == len(moves)


def test_a_move_is_played_once_and_its_game_is_the_one_its_log_replays_to(
        app, client, new_game, monkeypatch):
    """The check plays a move for its spelling and its position, which the game keeps: the
    engine applies it once. A move spelled otherwise than the engine writes it is played
    again as the log spells it, as a replay would play it."""
    game = new_game("mastery")
    applied = CountedApply(monkeypatch)
    first = client.get(game.apis[0]).json["legal_moves"][0]
    assert client.post(f"{game.apis[0]}/moves", json={"move": first, "ply": 0}).status_code == 200
    assert applied.count == 1
    second = client.get(game.apis[1]).json["legal_moves"][0]
    assert client.post(f"{game.apis[1]}/moves",
                       json={"move": second.upper(), "ply": 1}).status_code == 200
    assert applied.count == 3
    db = connect(app.config["DATABASE"])
    kept = matches.load(db, game.id)
    assert [event.move for event in kept.moves] == [first, second]
    CACHE.clear()
    assert matches.load(db, game.id).states == kept.states


class Exploit:
    def __reduce__(self):
        return os.system, ("echo unpickled > /dev/null",)


def test_a_snapshot_can_hold_nothing_but_the_engines_own_classes(app, client, new_game):
    game_id, _moves = played(client, new_game, positions.EVERY)
    db = connect(app.config["DATABASE"])
    db.execute("UPDATE snapshots SET state = ?", [pickle.dumps(Exploit())])
    with pytest.raises(pickle.UnpicklingError, match="posix.system is not part of a game"):
        positions.restore(db, game_id)


def test_the_cache_holds_matches_up_to_a_size_in_bytes(app, client, new_game):
    short = [played(client, new_game, 2, seed)[0] for seed in range(3)]
    long_id, _moves = played(client, new_game, 3 * positions.EVERY)
    db = connect(app.config["DATABASE"])
    loaded = {game_id: matches.load(db, game_id) for game_id in [*short, long_id]}
    cache = MatchCache(max_bytes=sum(loaded[game_id].nbytes for game_id in short))
    for game_id in short:
        cache.put(loaded[game_id])
    assert all(game_id in cache for game_id in short)
    cache.put(loaded[long_id])  # larger than the three together: they make room for it
    assert [game_id in cache for game_id in short] == [False, False, False]
    assert long_id in cache and cache.nbytes == loaded[long_id].nbytes
    cache.put(loaded[short[0]])
    assert long_id not in cache and cache.nbytes <= cache.max_bytes


@pytest.mark.parametrize("game, players, options", [
    ("mastery", 2, {}), ("magnet", 2, {"random_setup": True}), ("the-right-moves", 4, {}),
    ("magnetic-field", 2, {})])
def test_every_games_snapshot_restores_its_position(app, game, players, options):
    """Hidden hands, decks and setups too come back from a snapshot as they were."""
    from pbem.web.database import get_db

    rng = random.Random(7)
    with app.test_request_context():
        db = get_db()
        # a fixed seed: with a fresh one, random moves sometimes end a Magnet game early
        match = creation.create(db, game, [{"name": f"P{n}", "email": f"p{n}@example.org"}
                                          for n in range(players)], options, seed="7").match
        while match.ply < positions.EVERY + 2 and not match.finished:
            seat = match.current.to_move[0]
            move = rng.choice(match.game.legal_moves(match.current, seat))
            match = commands.submit(db, match.id, seat, Command.of("move", Move(move)),
                                    match.ply).match
    assert match.ply == positions.EVERY + 2
    db = connect(app.config["DATABASE"])
    assert positions.restore(db, match.id).state == match.states[positions.EVERY]
    CACHE.clear()
    cold = matches.load(db, match.id)
    assert cold.current == match.current and cold.states == match.states


def test_the_cache_size_is_a_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_INSTANCE", str(tmp_path / "instance"))
    from pbem import create_app

    create_app({"DATABASE": str(tmp_path / "db.sqlite"), "MATCH_CACHE_MB": 8})
    assert CACHE.max_bytes == 8 * 2**20
