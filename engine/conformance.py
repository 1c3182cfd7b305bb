"""The checks every game must pass , for any object with the engine's
interface (part 1, and part 3's ``resample`` where it has hidden information).

From a shell, for a game the engine has (one of its own or an installed plugin)::

    python -m engine.conformance four-in-a-row

prints each check and exits non-zero, naming the checks that failed. In a test::

    from engine.conformance import assert_conforms
    assert_conforms(GAME)  # an AssertionError naming what failed

The checks play a few random games, seeded so that a failure comes back on every run, each
for a bounded number of plies, and look at a sample of their positions:

- ``description``: id, title, player counts and default options of the right types, and a
  game that starts for every player count, with seats to move;
- ``determinism``: the same arguments to ``start`` and the same moves give the same game:
  the same views, legal moves, seats to move and outcomes all along;
- ``unchanged``: ``apply`` leaves the state it is given as it was;
- ``listed moves``: every move ``legal_moves`` lists is accepted (one more ply), a seat not
  to move has none, and a finished game has no seat to move;
- ``malformed``: text that is not a move, a value that is not text, a move out of turn and
  a move after the end are refused with ``IllegalMove``, whose message says why;
- ``replay``: ``replay`` gives what the moves applied one by one give;
- ``views``: every view, of each seat and of a spectator, is a dict that JSON can write,
  and every outcome has winners among the seats, a draw flag and a reason;
- ``resample``: a resample looks to its seat as the state does (the same view, legal moves,
  ply, seats to move and outcome), is the same for the same random generator, leaves the
  state as it was, and is the state itself in a game without hidden information;
- ``indistinguishable`` (hidden information only): twins, two states that a seat cannot
  tell apart (games of other seeds dealt alike for it, played on by the same moves; and a
  state and its resample), give that seat the same resamples, whatever their hidden parts:
  what a computer player decides from, so it cannot play differently in them.
"""
from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

from .core import IllegalMove
from .plugins import hides

CHECKS = ("description", "determinism", "unchanged", "listed moves", "malformed", "replay",
          "views", "resample", "indistinguishable")
TWIN_STEP = 4  # plies between the twins by chance that are checked
MALFORMED = ("", "   ", "\x00", "?! not a move !?", "x" * 300)


@dataclass(frozen=True)
class Bounds:
    """How much the checks play: ``games`` random games per player count, each for at most
    ``plies`` plies, looking closely at ``positions`` positions of each (spread along it)
    and trying up to ``moves`` of the legal moves of each seat there; ``twin_seeds`` games
    are searched for twins by chance."""
    games: int = 2
    plies: int = 80
    positions: int = 8
    moves: int = 6
    twin_seeds: int = 24  # seeds of the games searched for twins by chance (hidden information)
    seed: str = "conformance"


@dataclass(frozen=True)
class Failure:
    check: str
    detail: str

    def __str__(self) -> str:
        return f"{self.check}: {self.detail}"


@dataclass
class Line:
    """One seeded random game: its arguments, moves and every position."""
    players: int
    seed: str
    moves: list[tuple[int, str]] = field(default_factory=list)
    states: list[Any] = field(default_factory=list)

    def where(self, ply: int) -> str:
        return f"({self.players} players, seed {self.seed!r}, ply {ply})"

    def sampled(self, count: int) -> list[tuple[int, Any]]:
        """``count`` of its positions, spread from the first to the last."""
        last = len(self.states) - 1
        plies = sorted({round(i * last / max(count - 1, 1)) for i in range(count)})
        return [(ply, self.states[ply]) for ply in plies]


class CheckFailed(Exception):
    """Raised inside a check: what it found wrong; ``check``, the check it belongs to where
    that is not the one running (the random games are played before the checks)."""

    def __init__(self, detail: str, check: str | None = None):
        super().__init__(detail)
        self.check = check


def seen(game: Any, state: Any, players: int) -> tuple[Any, ...]:
    """All that anyone may learn of ``state`` (of a game of ``players``) through the
    interface: its ply, seats to move and outcome, every seat's view and legal moves, and a
    spectator's view."""
    seats = range(players)
    outcome = state.outcome
    return (state.ply, tuple(state.to_move),
            None if outcome is None else (tuple(outcome.winners), outcome.draw, outcome.reason),
            [game.view(state, seat) for seat in (*seats, None)],
            [game.legal_moves(state, seat) for seat in seats])


def seen_by(game: Any, state: Any, seat: int) -> tuple[Any, ...]:
    """What ``seat`` may learn of ``state``: its view, legal moves, ply, seats to move and
    outcome."""
    outcome = state.outcome
    return (game.view(state, seat), game.legal_moves(state, seat), state.ply,
            tuple(state.to_move),
            None if outcome is None else (tuple(outcome.winners), outcome.draw, outcome.reason))


def play(game: Any, players: int, seed: str, plies: int) -> Line:
    """A random game of ``game`` (its moves drawn from ``seed`` too), for ``plies`` plies at
    most."""
    line, rng = Line(players, seed), random.Random(seed)
    state = game.start(players=players, options={}, seed=seed)
    line.states.append(state)
    while state.outcome is None and len(line.moves) < plies:
        if not state.to_move:
            raise CheckFailed(f"no seat is to move in a game that is not over "
                              f"{line.where(state.ply)}", "listed moves")
        seat = rng.choice(sorted(state.to_move))
        legal = game.legal_moves(state, seat)
        if not legal:
            raise CheckFailed(f"seat {seat} is to move but has no legal move "
                              f"{line.where(state.ply)}", "listed moves")
        move = rng.choice(legal)
        try:
            state = game.apply(state, seat, move)
        except IllegalMove as error:
            raise CheckFailed(f"the listed move {move!r} of seat {seat} was refused "
                              f"{line.where(state.ply)}: {error}", "listed moves") from None
        line.moves.append((seat, move))
        line.states.append(state)
    return line


def results(game: Any, bounds: Bounds = Bounds()) -> list[tuple[str, Failure | None]]:
    """Each check that applies to ``game``, in the order of ``CHECKS``, with its failure
    (None: passed). A game whose random games cannot be played is checked no further."""
    try:
        lines = _described(game, bounds)
    except Exception as error:  # noqa: BLE001 -- any error is the game's, reported as such
        name = getattr(error, "check", None) or "description"
        return [(name, Failure(name, _said(error)))]
    found: list[tuple[str, Failure | None]] = [("description", None)]
    for name, run in _checks(game, lines, bounds):
        try:
            run()
        except Exception as error:  # noqa: BLE001
            found.append((name, Failure(name, _said(error))))
        else:
            found.append((name, None))
    return found


def check(game: Any, bounds: Bounds = Bounds()) -> list[Failure]:
    """Every check of ``game``; the failures, none if it conforms."""
    return [failure for _name, failure in results(game, bounds) if failure is not None]


def assert_conforms(game: Any, bounds: Bounds = Bounds()) -> None:
    """``check``, for a test: an ``AssertionError`` naming every failed check."""
    failures = check(game, bounds)
    assert not failures, "does not conform:\n" + "\n".join(map(str, failures))


def _said(error: BaseException) -> str:
    return str(error) if isinstance(error, CheckFailed) else f"{type(error).__name__}: {error}"


def _described(game: Any, bounds: Bounds) -> list[Line]:
    """Check ``description``, then play the random games the other checks look at."""
    for name, kind in (("id", str), ("title", str), ("default_options", dict)):
        if not isinstance(getattr(game, name, None), kind):
            raise CheckFailed(f"{name} is not a {kind.__name__}: {getattr(game, name, None)!r}")
    counts = game.player_counts
    if not isinstance(counts, tuple) or not counts \
            or not all(type(n) is int and n > 0 for n in counts):
        raise CheckFailed(f"player_counts is not a tuple of numbers of players: {counts!r}")
    json.dumps(game.default_options)
    lines = [play(game, players, f"{bounds.seed}-{players}-{number}", bounds.plies)
             for players in counts for number in range(bounds.games)]
    for line in lines:
        first = line.states[0]
        if first.ply != 0 or first.outcome is not None or not first.to_move:
            raise CheckFailed(f"a new game is not at ply 0 with a seat to move "
                              f"{line.where(0)}")
    return lines


PositionCheck = Callable[[Any, Line, int, Any, Bounds], None]


def _checks(game: Any, lines: list[Line], bounds: Bounds
            ) -> Iterator[tuple[str, Callable[[], None]]]:
    """Each check that applies to ``game``, by name, ready to run on ``lines``."""
    def at_sampled(run: PositionCheck) -> Callable[[], None]:
        def checked() -> None:
            for line in lines:
                for ply, state in line.sampled(bounds.positions):
                    run(game, line, ply, state, bounds)
        return checked

    def at_every(run: PositionCheck) -> Callable[[], None]:
        def checked() -> None:
            for line in lines:
                for ply, state in enumerate(line.states):
                    run(game, line, ply, state, bounds)
        return checked

    yield "determinism", lambda: _determinism(game, lines, bounds)
    yield "unchanged", at_sampled(_unchanged)
    yield "listed moves", at_sampled(_listed)
    yield "malformed", at_sampled(_malformed)
    yield "replay", lambda: _replay(game, lines)
    yield "views", at_every(_views)
    if callable(getattr(game, "resample", None)) or hides(game):
        yield "resample", at_sampled(_resample)
    if hides(game):
        yield "indistinguishable", lambda: _indistinguishable(game, lines, bounds)


def _determinism(game: Any, lines: list[Line], bounds: Bounds) -> None:
    """Each game played again from its seed: the same legal moves all along (its moves are
    drawn from them), and the same positions where the other checks look closely."""
    for line in lines:
        again = play(game, line.players, line.seed, bounds.plies)
        if again.moves != line.moves:
            ply = next((p for p, (a, b) in enumerate(zip(again.moves, line.moves)) if a != b),
                       min(len(again.moves), len(line.moves)))
            raise CheckFailed(f"the same seed and moves gave other legal moves or another "
                              f"end {line.where(ply)}")
        for ply, state in line.sampled(bounds.positions):
            if seen(game, state, line.players) != seen(game, again.states[ply], line.players):
                raise CheckFailed(f"the same seed and moves gave another position "
                                  f"{line.where(ply)}")


def _sample_moves(game: Any, state: Any, seat: int, count: int, seed: str) -> list[str]:
    legal = game.legal_moves(state, seat)
    return legal if len(legal) <= count else random.Random(seed).sample(legal, count)


def _unchanged(game: Any, line: Line, ply: int, state: Any, bounds: Bounds) -> None:
    before = seen(game, state, line.players)
    try:
        copied = copy.deepcopy(state)
        compared = copied == state
    except Exception:  # noqa: BLE001 -- a state that cannot be copied or compared
        compared = False
    for seat in sorted(state.to_move):
        for move in _sample_moves(game, state, seat, bounds.moves, f"{line.seed}-{ply}"):
            game.apply(state, seat, move)
            if seen(game, state, line.players) != before or (compared and copied != state):
                raise CheckFailed(f"apply(state, {seat}, {move!r}) changed the state it was "
                                  f"given {line.where(ply)}")


def _listed(game: Any, line: Line, ply: int, state: Any, bounds: Bounds) -> None:
    if state.outcome is not None and tuple(state.to_move):
        raise CheckFailed(f"a finished game has seats to move {line.where(ply)}")
    for seat in range(line.players):
        if seat not in state.to_move and game.legal_moves(state, seat):
            raise CheckFailed(f"seat {seat} is not to move but has legal moves "
                              f"{line.where(ply)}")
    for seat in sorted(state.to_move):
        for move in _sample_moves(game, state, seat, bounds.moves, f"{line.seed}-{ply}"):
            try:
                after = game.apply(state, seat, move)
            except IllegalMove as error:
                raise CheckFailed(f"the listed move {move!r} of seat {seat} was refused "
                                  f"{line.where(ply)}: {error}") from None
            if after.ply != state.ply + 1:
                raise CheckFailed(f"after {move!r} the ply is {after.ply}, not "
                                  f"{state.ply + 1} {line.where(ply)}")


def _refused(game: Any, state: Any, seat: int, move: Any, what: str) -> None:
    try:
        game.apply(state, seat, move)
    except IllegalMove as error:
        if not str(error).strip():
            raise CheckFailed(f"{what} was refused with an IllegalMove that says nothing") \
                from None
        return
    except Exception as error:  # noqa: BLE001
        raise CheckFailed(f"{what} raised {type(error).__name__}, not IllegalMove: "
                          f"{error}") from None
    raise CheckFailed(f"{what} was accepted")


def _malformed(game: Any, line: Line, ply: int, state: Any, bounds: Bounds) -> None:
    where = line.where(ply)
    if state.outcome is not None:  # the last move, once more: well formed, but too late
        seat, move = line.moves[-1]
        _refused(game, state, seat, move, f"a move after the end ({move!r}) {where}")
        return
    seat = min(state.to_move)
    legal = set(game.legal_moves(state, seat))
    for text in MALFORMED:
        if text not in legal:
            _refused(game, state, seat, text, f"the move {text[:20]!r} {where}")
    _refused(game, state, seat, None, f"a move that is not text (None) {where}")
    waiting = [other for other in range(line.players) if other not in state.to_move]
    if waiting and legal:
        move = sorted(legal)[0]
        _refused(game, state, waiting[0], move,
                 f"{move!r} played by seat {waiting[0]}, out of turn, {where}")


def _replay(game: Any, lines: list[Line]) -> None:
    for line in lines:
        for length in sorted({len(line.moves) // 2, len(line.moves)}):
            replayed = game.replay(line.players, {}, line.seed, list(line.moves[:length]))
            if seen(game, replayed, line.players) != seen(game, line.states[length],
                                                          line.players):
                raise CheckFailed(f"replay of the first {length} moves differs from applying "
                                  f"them {line.where(length)}")


def _views(game: Any, line: Line, ply: int, state: Any, bounds: Bounds) -> None:
    for seat in (*range(line.players), None):
        view = game.view(state, seat)
        if not isinstance(view, dict):
            raise CheckFailed(f"the view of seat {seat} is a {type(view).__name__}, not a "
                              f"dict {line.where(ply)}")
        try:
            json.dumps(view, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise CheckFailed(f"the view of seat {seat} is not JSON: {error} "
                              f"{line.where(ply)}") from None
    if not all(type(s) is int and 0 <= s < line.players for s in state.to_move):
        raise CheckFailed(f"to_move {state.to_move!r} is not a tuple of seats "
                          f"{line.where(ply)}")
    outcome = state.outcome
    if outcome is not None and not (
            all(type(s) is int and 0 <= s < line.players for s in outcome.winners)
            and isinstance(outcome.draw, bool) and isinstance(outcome.reason, str)):
        raise CheckFailed(f"the outcome {outcome!r} has no winners among the seats, draw "
                          f"flag and reason {line.where(ply)}")


def _resample(game: Any, line: Line, ply: int, state: Any, bounds: Bounds) -> None:
    before = seen(game, state, line.players)
    for seat in range(line.players):
        world = game.resample(state, seat, random.Random(ply))
        if seen_by(game, world, seat) != seen_by(game, state, seat):
            raise CheckFailed(f"a resample for seat {seat} looks different to it "
                              f"{line.where(ply)}")
        again = game.resample(state, seat, random.Random(ply))
        if seen(game, again, line.players) != seen(game, world, line.players):
            raise CheckFailed(f"two resamples for seat {seat} with the same random "
                              f"generator differ {line.where(ply)}")
        if not hides(game) and world is not state:
            raise CheckFailed(f"a game without hidden information resampled another state "
                              f"than its own {line.where(ply)}")
    if seen(game, state, line.players) != before:
        raise CheckFailed(f"resample changed the state it was given {line.where(ply)}")


def _indistinguishable(game: Any, lines: list[Line], bounds: Bounds) -> None:
    """Twins, two states that a seat cannot tell apart, give it the same resamples. Twins
    by chance: games of other seeds that look the same to the seat (its hand dealt alike,
    the rest otherwise), played on by moves legal in both for as long as they look the
    same to it; and twins by resample, at the positions the other checks look at."""
    for players in game.player_counts:
        for seat in range(players):
            for one, other, where in _chance_twins(game, players, seat, bounds):
                _same_resamples(game, one, other, seat, players, where)
    for line in lines:
        for ply, state in line.sampled(bounds.positions):
            for seat in range(line.players):
                twin = game.resample(state, seat, random.Random(f"twin-{ply}"))
                _same_resamples(game, state, twin, seat, line.players, line.where(ply))


def _same_resamples(game: Any, one: Any, other: Any, seat: int, players: int,
                    where: str) -> None:
    for k in range(2):
        if seen(game, game.resample(one, seat, random.Random(k)), players) \
                != seen(game, game.resample(other, seat, random.Random(k)), players):
            raise CheckFailed(f"two states that seat {seat} cannot tell apart gave it "
                              f"different resamples, which depend on what it cannot see "
                              f"{where}")


def _chance_twins(game: Any, players: int, seat: int, bounds: Bounds
                  ) -> Iterator[tuple[Any, Any, str]]:
    """Up to ``bounds.positions`` pairs of positions, of two games of different seeds, that
    ``seat`` cannot tell apart (with where they are): from the first two pairs of games,
    among ``bounds.twin_seeds``, that start alike for it, every ``TWIN_STEP``-th ply of the
    first ``bounds.plies // 2``."""
    looks: dict[str, str] = {}  # how a start looks to the seat -> the seed that starts so
    pairs, found = 0, 0
    for number in range(bounds.twin_seeds):
        seed = f"{bounds.seed}-twins-{players}-{number}"
        state = game.start(players=players, options={}, seed=seed)
        look = json.dumps(seen_by(game, state, seat), sort_keys=True, default=repr)
        first = looks.setdefault(look, seed)
        if first == seed:
            continue
        rng, pair = random.Random(seed), [game.start(players=players, options={}, seed=s)
                                          for s in (first, seed)]
        for ply in range(bounds.plies // 2):
            if seen_by(game, pair[0], seat) != seen_by(game, pair[1], seat):
                break
            if ply % TWIN_STEP == 0:
                yield pair[0], pair[1], f"(seeds {first!r} and {seed!r}, ply {ply})"
                found += 1
                if found == bounds.positions:
                    return
            if pair[0].outcome is not None:
                break
            mover = rng.choice(sorted(pair[0].to_move))
            shared = set(game.legal_moves(pair[1], mover))
            moves = [m for m in game.legal_moves(pair[0], mover) if m in shared]
            if not moves:
                break
            move = rng.choice(moves)
            pair = [game.apply(state, mover, move) for state in pair]
        pairs += 1
        if pairs == 2:
            return


def main(argv: Sequence[str] | None = None) -> int:
    from . import GAMES, plugins  # the package, once it is loaded

    parser = argparse.ArgumentParser(
        prog="python -m engine.conformance",
        description="Run the checks every game must pass.")
    parser.add_argument("game", help="the id of a game the engine has: "
                        + ", ".join(sorted(GAMES)))
    parser.add_argument("--games", type=int, default=Bounds.games,
                        help="random games per player count (default %(default)s)")
    parser.add_argument("--plies", type=int, default=Bounds.plies,
                        help="plies of each game at most (default %(default)s)")
    parser.add_argument("--seed", default=Bounds.seed, help="the random games' seed")
    arguments = parser.parse_args(argv)
    game = GAMES.get(arguments.game)
    if game is None:
        why = plugins.FAILED.get(arguments.game)
        print(f"load: FAILED: the plugin {arguments.game!r} was not loaded: {why}" if why
              else f"load: FAILED: no game is called {arguments.game!r} (the games: "
              f"{', '.join(sorted(GAMES))})", file=sys.stderr)
        return 1
    written = getattr(game, "plugin", game)  # a plugin's checked as its author wrote it
    ran = results(written, Bounds(games=arguments.games, plies=arguments.plies,
                                  seed=arguments.seed))
    for name, failure in ran:
        print(f"{name}: FAILED: {failure.detail}" if failure else f"{name}: ok")
    failed = [name for name, failure in ran if failure]
    if failed:
        print(f"{game.id} does not conform: {', '.join(failed)} failed.", file=sys.stderr)
        return 1
    print(f"{game.id} conforms.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
