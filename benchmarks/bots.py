"""The bots' speed and strength: ``./dev bench bots``.

Speed: for every game, simulations per second and the seconds each level takes per move, on
positions taken from random games. Strength: for every game (The Right Moves with 2 and with
4 players), matches of the weakest level against uniform random moves, of each level against
the level below, and of the middle level against the tactical baseline (``bots.tactical``:
wins at once when it can, avoids moves that let the opponent win at once). Each match
alternates the sides; a game that reaches ``--max-plies`` counts as a draw. Results are the
first player's wins, draws and losses, its score (a draw counts half) and the score's 95%
Wilson interval; then how many games the side that moved first won (a game can favour it
more than any difference of levels shows).

Balance: for every game, matches of a level against itself (the middle level unless
``--level`` says otherwise), and the same figures for the side that moves first: how much
the game itself favours it, between equal players.

    ./dev bench bots                      # everything, 10 games per match
    ./dev bench bots --games 40 --jobs 2  # more games, on two processes
    ./dev bench bots --speed              # speed only
    ./dev bench bots --game magnet --match easy-random
    ./dev bench bots --balance --level easy --game magnetic-field --games 20
"""
from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine import bots
from engine.bots.alphabeta import AlphaBeta
from engine.bots.search import Search

LEVELS = list(bots.LEVELS)
VARIANTS = [("mastery", 2), ("the-right-moves", 2), ("the-right-moves", 4), ("magnet", 2),
            ("magnetic-field", 2)]


def matches() -> list[tuple[str, str, str]]:
    """(name, first player, second player) for every match the benchmark plays."""
    found = [(f"{LEVELS[0]}-random", LEVELS[0], "random")]
    found += [(f"{upper}-{lower}", upper, lower) for lower, upper in zip(LEVELS, LEVELS[1:])]
    middle = LEVELS[len(LEVELS) // 2]
    found.append((f"{middle}-tactical", middle, "tactical"))
    return found


def player(name: str) -> Callable:
    """A function (game, state, seat, rng, seed) -> move for a level, "random" or "tactical"."""
    if name == "random":
        return lambda game, state, seat, rng, seed: rng.choice(game.legal_moves(state, seat))
    if name == "tactical":
        return lambda game, state, seat, rng, seed: bots.tactical(game, state, seat, rng)
    return lambda game, state, seat, rng, seed: bots.choose(game, state, seat, level=name,
                                                            seed=seed)


def play_game(args: tuple) -> tuple[float, float]:
    """One game: the results (1 won, 0.5 drawn, 0 lost) of the first player and of the side
    that moved first."""
    game_id, players, first, second, number, max_plies, most_seconds = args
    bots.MOST_SECONDS = most_seconds
    game = engine.get(game_id)
    # Magnet's setup is played (by the bots' secret arrangements); Magnetic Field's colours
    # are fixed, so that sides alternate as the seats do (Blue moves first).
    fixed: dict[str, dict[str, Any]] = {"magnet": {"random_setup": False},
                                        "magnetic-field": {"colours": "seat0-blue"}}
    options = fixed.get(game_id, {})
    state = game.start(players, options, f"bench-{number}")
    opener = game.team_of(players, state.to_move[0])
    # Even games: the first player takes seat 0 (and 2); odd games: seat 1 (and 3).
    first_seats = {seat for seat in range(players) if seat % 2 == number % 2}
    rng = random.Random(number)
    movers = {seat: player(first if seat in first_seats else second) for seat in range(players)}
    while state.outcome is None and state.ply < max_plies:
        seat = state.to_move[0]
        move = movers[seat](game, state, seat, rng, f"{number}-{state.ply}")
        state = game.apply(state, seat, move)
    if state.outcome is None or state.outcome.draw:
        return 0.5, 0.5
    winners = set(state.outcome.winners)
    return (1.0 if winners & first_seats else 0.0), (1.0 if winners & set(opener) else 0.0)


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``score`` out of ``n``."""
    if n == 0:
        return 0.0, 1.0
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


HEADER = (f"{'game':<22} {'match':<18} {'W':>4} {'D':>4} {'L':>4} {'score':>6}  95% interval"
          f"  {'s/game':>7}")


def tally(results: list[float]) -> str:
    """Wins, draws and losses in ``results`` (1, 0.5, 0), the score (a draw counts half) and
    its 95% Wilson interval, as the tables print them."""
    games = len(results)
    won, drawn = results.count(1.0), results.count(0.5)
    score = (won + drawn / 2) / games
    low, high = wilson(score, games)
    return (f"{won:>4} {drawn:>4} {games - won - drawn:>4} {score:>6.0%}  "
            f"{low:4.0%} to {high:4.0%}")


def played(pool, jobs: int, game_id: str, players: int, first: str, second: str,
           games: int, max_plies: int) -> tuple[list[tuple[float, float]], float]:
    """The results of ``games`` games (see ``play_game``) played on ``pool`` (of ``jobs``
    processes), and the seconds of work a game took."""
    start = time.perf_counter()
    results = list(pool.map(play_game, [
        (game_id, players, first, second, n, max_plies, bots.MOST_SECONDS) for n in range(games)]))
    return results, (time.perf_counter() - start) * jobs / games


def label(game_id: str, players: int) -> str:
    return f"{game_id} ({players}p)" if game_id == "the-right-moves" else game_id


def strength(variants, names, games: int, jobs: int, max_plies: int,
             ratings: bool = False) -> None:
    print(f"Strength: {games} games per match, sides alternating, draw at {max_plies} plies")
    print(HEADER + "  opener won")
    fitted: dict[str, dict[str, int]] = {}
    with ProcessPoolExecutor(jobs) as pool:
        for game_id, players in variants:
            scores: dict[tuple[str, str], list[float]] = {}
            for name, first, second in matches():
                if names and name not in names:
                    continue
                results, seconds = played(pool, jobs, game_id, players, first, second, games,
                                          max_plies)
                scores[first, second] = [first for first, _ in results]
                openers = sum(1 for _, opener in results if opener == 1.0)
                print(f"{label(game_id, players):<22} {name:<18} "
                      f"{tally(scores[first, second])}  {seconds:7.1f}"
                      f"  {openers:>10}", flush=True)
            if players == 2:  # ratings are of two-player games
                fitted[game_id] = {level: round(rating) for level, rating in
                                   fit_ratings(scores).items() if level in LEVELS}
    if ratings:
        print("The levels' ratings these games give (pbem/ratings.py, COMPUTER_RATINGS):")
        print(fitted)


PRIOR_DRAWS = 1  # draws added to each pair's games: no finite rating fits 10 wins of 10
ANCHOR = ("medium", 1500.0)  # the level whose rating is fixed: a new player's


def fit_ratings(scores: dict[tuple[str, str], list[float]]) -> dict[str, float]:
    """The Elo ratings that make the games' ``scores`` (the first player's results against
    the second's, by pair) most likely (Bradley-Terry's maximum likelihood, by Hunter's
    minorisation-maximisation), with ``PRIOR_DRAWS`` draws added to each pair, ``ANCHOR``'s
    level fixed. Players without a path of games to the anchor are left out."""
    won: dict[tuple[str, str], float] = {}
    for (first, second), results in scores.items():
        won[first, second] = won.get((first, second), 0.0) + sum(results) + PRIOR_DRAWS / 2
        won[second, first] = won.get((second, first), 0.0) + len(results) - sum(results) \
            + PRIOR_DRAWS / 2
    names = sorted({name for pair in won for name in pair})
    anchor, anchored = ANCHOR
    if anchor not in names:
        return {}
    strength = {name: 1.0 for name in names}
    for _ in range(2000):
        for name in names:
            wins = sum(won.get((name, other), 0.0) for other in names)
            games = sum((won.get((name, other), 0.0) + won.get((other, name), 0.0))
                        / (strength[name] + strength[other]) for other in names if other != name)
            strength[name] = wins / games if games else strength[name]
    scale = strength[anchor]
    return {name: anchored + 400 * math.log10(value / scale) for name, value in strength.items()}


def balance(variants, levels, games: int, jobs: int, max_plies: int) -> None:
    print(f"Balance: {games} games of each level against itself, draw at {max_plies} plies; "
          "wins, draws and losses of the side that moves first")
    print(HEADER)
    with ProcessPoolExecutor(jobs) as pool:
        for game_id, players in variants:
            for level in levels:
                results, seconds = played(pool, jobs, game_id, players, level, level, games,
                                          max_plies)
                print(f"{label(game_id, players):<22} {level + '-' + level:<18} "
                      f"{tally([opener for _, opener in results])}  {seconds:7.1f}",
                      flush=True)


def speed(variants, count: int) -> None:
    print(f"Speed: CPU seconds per move on {count} positions from random games "
          "(mean / slowest), and simulations (alpha-beta: nodes) per second at the weakest "
          "level")
    print(f"{'game':<22} {'sims/s':>7}  " + "  ".join(f"{level:>13}" for level in LEVELS))
    for game_id, players in variants:
        game = engine.get(game_id)
        states = engine.random_positions(
            game, players, count, "speed", {"random_setup": True} if game_id == "magnet" else {},
            plies=(4, 40))
        heuristics = bots.HEURISTICS[game_id]
        sims = seconds = 0.0
        for n, state in enumerate(states):
            seat = state.to_move[0]
            start = time.process_time()
            if heuristics.tree is not None:  # alpha-beta: nodes, not simulations
                tree = AlphaBeta(heuristics.tree, state, nodes=bots.NODES[LEVELS[0]],
                                 contempt=bots.CONTEMPT, noise=0.0, rng=random.Random(n),
                                 repetition=True)
                tree.run()
                runs = bots.NODES[LEVELS[0]] - max(0, tree.nodes_left)
            else:
                search = Search(heuristics, state, seat, random.Random(n),
                                heuristics.root_moves(state, seat))
                runs = max(1, round(bots.LEVELS[LEVELS[0]] / heuristics.cost))
                search.run(runs)
            seconds += time.process_time() - start
            sims += runs
        cells = []
        for level in LEVELS:
            times = []
            for n, state in enumerate(states):
                start = time.process_time()
                bots.choose(game, state, state.to_move[0], level=level, seed=n)
                times.append(time.process_time() - start)
            cells.append(f"{statistics.mean(times):5.2f} / {max(times):5.2f}")
        print(f"{label(game_id, players):<22} {sims / seconds:7.0f}  "
              + "  ".join(f"{c:>13}" for c in cells), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(prog="./dev bench bots", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games per match (default 10)")
    parser.add_argument("--jobs", type=int, default=1, help="processes playing games at once")
    parser.add_argument("--max-plies", type=int, default=400,
                        help="a game this long counts as a draw (default 400)")
    parser.add_argument("--positions", type=int, default=8,
                        help="positions per game for the speed figures (default 8)")
    parser.add_argument("--game", action="append", choices=sorted(engine.GAMES),
                        help="only this game (may be repeated)")
    parser.add_argument("--match", action="append", choices=[m[0] for m in matches()],
                        help="only this match (may be repeated)")
    parser.add_argument("--level", action="append", choices=LEVELS,
                        help="the level playing itself for the balance figures (may be "
                             f"repeated; default {LEVELS[len(LEVELS) // 2]})")
    parser.add_argument("--speed", action="store_true", help="only the speed figures")
    parser.add_argument("--strength", action="store_true", help="only the strength figures")
    parser.add_argument("--balance", action="store_true", help="only the balance figures")
    parser.add_argument("--ratings", action="store_true",
                        help="after the strength figures, the levels' ratings they give, "
                             "as pbem/ratings.py keeps them")
    parser.add_argument("--seconds", type=float, default=None,
                        help="the most seconds of the clock a move of the alpha-beta levels "
                             "may take (the server's safeguard, bots.MOST_SECONDS; default: "
                             "none, so that a loaded machine plays the levels as on an idle "
                             "one, by their nodes)")
    options = parser.parse_args()
    bots.MOST_SECONDS = options.seconds  # (the processes playing games are told it too)
    variants = [v for v in VARIANTS if not options.game or v[0] in options.game]
    only = options.speed or options.strength or options.balance
    if options.speed or not only:
        speed(variants, options.positions)
    if options.strength or not only:
        strength(variants, options.match, options.games, options.jobs, options.max_plies,
                 options.ratings)
    if options.balance or not only:
        balance(variants, options.level or [LEVELS[len(LEVELS) // 2]], options.games,
                options.jobs, options.max_plies)


if __name__ == "__main__":
    main()
