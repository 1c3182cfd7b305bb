"""How a two-player game's games end from a chosen opening: games between two players (a
level of ``engine.bots``, "random" or "tactical") on fixed sides, which side won and why.

Mastery's bots draw no chance (nothing is hidden and they play no random moves), so two
equal levels would play one game over and over: each game starts after ``--random-plies``
random moves. Magnet's ``--opening``: "rule" (the rulebook: Red's first turn moves one
piece), "full" (Red's first turn a full turn) or "pass" (Red passes it: Blue moves first, a
full turn, which by the board's half-turn symmetry is the mirror image of "full").

    .venv/bin/python benchmarks/openings.py magnet easy easy --games 20 --opening full
    .venv/bin/python benchmarks/openings.py mastery easy easy --games 10 --random-plies 4
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bots import player
from engine.magnet import public_board


def start(game: engine.Game, number: int, opening: str, random_plies: int) -> engine.State:
    options = {"random_setup": True} if game.id == "magnet" else {}
    state = game.start(2, options, f"g-{number}")
    if opening == "full":
        state = dataclasses.replace(state, turn=1)
    elif opening == "pass":
        state = dataclasses.replace(state, turn=1, to_move=(1,),
                                    seen={(public_board(state.board), 1): 1})
    rng = random.Random(number)
    for _ in range(random_plies):
        seat = state.to_move[0]
        state = game.apply(state, seat, rng.choice(game.legal_moves(state, seat)))
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game", choices=["mastery", "magnet"])
    parser.add_argument("first", help="the first seat's player: a level, random or tactical")
    parser.add_argument("second", help="the second seat's player")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--max-plies", type=int, default=400)
    parser.add_argument("--random-plies", type=int, default=0)
    parser.add_argument("--opening", choices=["rule", "full", "pass"], default="rule",
                        help="Magnet's first turn (see above)")
    options = parser.parse_args()
    if options.opening != "rule" and options.game != "magnet":
        parser.error("--opening is Magnet's")
    game = engine.get(options.game)
    movers = (player(options.first), player(options.second))
    names = game.seat_names[2]
    endings, plies = collections.Counter[tuple[str, str]](), list[int]()
    for number in range(options.games):
        state = start(game, number, options.opening, options.random_plies)
        rng = random.Random(number)
        while state.outcome is None and state.ply < options.max_plies:
            seat = state.to_move[0]
            move = movers[seat](game, state, seat, rng, f"{number}-{state.ply}")
            state = game.apply(state, seat, move)
        outcome = state.outcome
        if outcome is None:
            endings["no result", f"{options.max_plies} plies"] += 1
        else:
            winner = "draw" if outcome.draw else f"{names[outcome.winners[0]]} won"
            endings[winner, outcome.reason] += 1
        plies.append(state.ply)
    print(f"{options.game}: {names[0]} {options.first}, {names[1]} {options.second}, "
          f"{options.games} games, median {statistics.median(plies):.0f} plies")
    for (result, reason), count in sorted(endings.items(), key=lambda e: -e[1]):
        print(f"{count:>5}  {result}: {reason}")


if __name__ == "__main__":
    main()
