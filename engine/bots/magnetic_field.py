"""What the Magnetic Field bot knows: points now and the points each turn will keep bringing
(figures on Control tiles, dominated Domination tiles), figures on the field; in the tree, the
moves a one-turn look ranks best: figure actions, Control and Domination tiles placed where
the acting figure lands, and such tiles placed next to a figure for later."""
from __future__ import annotations

import functools
import random
from typing import Hashable

from .. import magnetic_field as rules
from ..magnetic_field import (CELL_INDEX, EDGE_NEIGHBOURS, EMPTY, RAYS, REACH, TARGET,
                              Action, Effects, MagneticFieldState, Placement, Turn, figure_actions,
                              owner, placement_cells, score)
from .search import Heuristics, squash

GAME = rules.GAME
SCORING_TILES = "CD"  # the tiles that bring points each turn to a figure standing on them
# The most points a turn can bring beyond what the figures standing on tiles bring: two
# knockouts from Knockout tiles (one on each side of the acting figure), or a capture, and a
# figure arriving on a scoring tile.
MOST_GAINED = 2 * (2 + 3) + 1
WINNING = 100.0  # added to the worth of a turn that wins (it comes first), taken from one
# that loses (last)
PASSING = 0.1


@functools.lru_cache(maxsize=65536)
def _turn(text: str) -> Turn:
    """The turn that a move text written by ``Turn.__str__`` names."""
    if text == "pass":
        return Turn()
    placements, action = [], None
    for token in text.split():
        if "@" in token:
            code, cell = token.split("@")
            placements.append(Placement(code, CELL_INDEX[cell]))
        elif token.startswith("+"):
            cell, facing = token[1:].split(":")
            action = Action("enter", CELL_INDEX[cell], facing)
        elif ":" in token:
            cell, facing = token.split(":")
            action = Action("rotate", CELL_INDEX[cell], facing)
        else:
            origin, target = token.split("-")
            action = Action("move", CELL_INDEX[origin], target=CELL_INDEX[target])
    return Turn(tuple(placements), action)


def _income(figures: str, tiles: str, seat: int) -> int:
    """The points ``seat`` would score for standing still: Control and Domination tiles."""
    return sum(p.points for p in score(figures, tiles, seat, ()))


def _landing(action: Action | None) -> int:
    """Where the acting figure arrives, if it arrives on a new cell."""
    if action is None or action.kind == "rotate":
        return -1
    return action.origin if action.kind == "enter" else action.target


class MagneticFieldHeuristics(Heuristics[MagneticFieldState]):
    game: rules.MagneticField
    rollout_plies = 2
    # The turns the tree considers, best first: with 12 the strongest level was no stronger
    # than the middle one (docs/benchmarks.md); among 20 its simulations find the better.
    width = 20
    cost = 3.0

    def moves(self, state: MagneticFieldState, seat: int) -> list[str]:
        """Best first by what the turn brings at once, with the figure's new position."""
        if state.drafting:
            return self.game.legal_moves(state, seat)
        ranked = [(-worth, n, turn)
                  for n, (worth, turn, _) in enumerate(self._turns(state, seat))]
        ranked.sort(key=lambda entry: entry[:2])
        return [str(turn) for _, _, turn in ranked]

    def _turns(self, state: MagneticFieldState,
               seat: int) -> list[tuple[float, Turn, Effects | None]]:
        """Pass, every figure action, and the Control and Domination tiles in hand placed
        where an action lands or next to one of the seat's figures: each with its worth and
        its effects (None where they are plainly those of a pass, but for the figure)."""
        hand, figures = state.hands[seat], state.figures
        codes = [c for c in SCORING_TILES if c in hand]
        cells = set(placement_cells(state.tiles, figures)) if codes else set()
        still = self.game.effects(state, seat, Turn())
        stay = self._worth(state, seat, Turn(), still)  # what standing still brings
        # A pass ranks first of the turns that bring nothing: a figure entering is a
        # figure the opponent may stick or knock out. But a player with no figure on the
        # field loses at the end of a turn that brings none back (ring-out).
        found: list[tuple[float, Turn, Effects | None]] = [
            (stay + PASSING + self._verdict(state, seat, still), Turn(), still)]
        # A figure entering where it reaches no figure and finds no tile changes nothing
        # but its own place: no need to work out its effects.
        near = {c for f, cell in enumerate(figures) if cell != EMPTY
                for ray in RAYS[f].values() for c in ray[:REACH]}
        for action in figure_actions(figures, seat, state.in_hand[seat]):
            turn = Turn((), action)
            landing = _landing(action)
            if action.kind == "enter" and landing not in near and state.tiles[landing] == EMPTY:
                found.append((stay + 0.01 * _centrality(landing), turn, None))
            else:
                found.append(self._judged(state, seat, turn))
            if landing in cells:
                for code in codes:
                    found.append(self._judged(state, seat, Turn((Placement(code, landing),),
                                                                action)))
        mine = {n for c, f in enumerate(figures)
                if f != EMPTY and owner(f) == seat for n in EDGE_NEIGHBOURS[c]}
        for cell in sorted(cells & mine):
            for code in codes:  # a tile for later: worth a little less than a point now
                found.append((stay + 0.6, Turn((Placement(code, cell),)), None))
        return found

    def _judged(self, state: MagneticFieldState, seat: int,
                turn: Turn) -> tuple[float, Turn, Effects]:
        """``turn`` with its worth (points now, less figures lost; a winning turn above all,
        a losing one below all) and its effects."""
        effects = self.game.effects(state, seat, turn)
        return (self._worth(state, seat, turn, effects) + self._verdict(state, seat, effects),
                turn, effects)

    @staticmethod
    def _worth(state: MagneticFieldState, seat: int, turn: Turn, effects: Effects) -> float:
        """Points now, less figures lost, and a little for a figure arriving near the centre."""
        gained = effects.scores[seat] - state.scores[seat]
        lost = effects.knocked_out[seat] - state.knocked_out[seat]
        return gained - 3.0 * lost + 0.01 * _centrality(_landing(turn.action))

    def _verdict(self, state: MagneticFieldState, seat: int, effects: Effects) -> float:
        """WINNING for a turn that wins, minus WINNING for one that loses, else 0."""
        outcome = self.game.judge(state, effects)
        if outcome is None or outcome.draw:
            return 0.0
        return WINNING if seat in outcome.winners else -WINNING

    def key(self, state: MagneticFieldState, seat: int) -> Hashable:
        if state.drafting:
            return state.pool, seat
        return (state.tiles, state.figures, seat, state.in_hand[seat] > 0, state.scores[seat],
                state.knocked_out[seat], tuple(c in state.hands[seat] for c in SCORING_TILES))

    def apply(self, state: MagneticFieldState, seat: int, move: str) -> MagneticFieldState:
        if state.drafting:
            return self.game.apply(state, seat, move)
        return self.game.carry_out(state, seat, _turn(move))

    def rollout_step(self, state: MagneticFieldState, seat: int,
                     rng: random.Random) -> MagneticFieldState:
        if state.drafting:
            return self.game.apply(state, seat, rng.choice(self.game.legal_moves(state, seat)))
        actions = list(figure_actions(state.figures, seat, state.in_hand[seat]))
        action = rng.choice(actions) if actions else None
        return self.game.carry_out(state, seat, Turn((), action))

    def evaluate(self, state: MagneticFieldState, seat: int) -> float:
        total = 0.0
        for side, sign in ((seat, 1.0), (1 - seat, -1.0)):
            total += sign * (state.scores[side]
                             + 1.5 * _income(state.figures, state.tiles, side)
                             + 0.3 * state.on_field(side) - 2.0 * state.knocked_out[side]
                             + 0.3 * sum(1 for t in state.hands[side] if t in SCORING_TILES))
        return squash(total, 4.0)

    def threat(self, state: MagneticFieldState, seat: int) -> bool:
        """Whether ``seat`` can reach 15 points this turn (by a figure action, with a tile
        where it lands), or end it with no figure on the field on either side and more points
        (ring-out is judged at the end of the mover's own turn: leaving the opponent without
        a figure does not win yet). The points settle an empty field only once the opponent
        has entered a figure: before that, emptying one's own field loses, so an opponent
        that stays off the field is safe from it."""
        if state.drafting:
            return False
        enemy = 1 - seat
        most = state.scores[seat] + _income(state.figures, state.tiles, seat) + MOST_GAINED
        # An action takes at most three figures off the field: the acting one, and one on
        # each of its sides.
        ring_out = (state.entered[enemy] and state.on_field(seat) + state.on_field(enemy) <= 3
                    and most > state.scores[enemy])
        if not ring_out and most < TARGET:
            return False
        for _, _, effects in self._turns(state, seat):
            outcome = effects and self.game.judge(state, effects)
            if outcome and seat in outcome.winners:
                return True
        return False


def _centrality(cell: int) -> float:
    """Closeness to the centre, where the tiles begin: 0 at a corner, 8 in the middle."""
    if cell < 0:
        return 0.0
    file, rank = cell % 10, cell // 10
    return 9.0 - abs(file - 4.5) - abs(rank - 4.5)


HEURISTICS = MagneticFieldHeuristics(GAME)
