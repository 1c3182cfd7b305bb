"""The diagrams of the rules pages: positions the engine reaches by replaying moves from the
start of a game, drawn by the game's own board code (``pbem/boards``), so that a rules page
can never show a position or a move the rules do not allow.

A diagram is a line of play (``moves``, each by the seat to move) and, usually, the example
move it illustrates, played from there: it is drawn twice, before (the cells the move names
selected) and after (the same cells marked as the last move, with whatever the board draws
of a last move from the view). The rules templates place the diagrams by name and write the
captions, in the page's language: ``{% call figure(diagram("capture")) %}...{% endcall %}``.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import engine
from markupsafe import Markup

from .. import languages, results
from ..boards import board_for


@dataclass(frozen=True)
class Diagram:
    moves: tuple[str, ...] = ()        # played from the start, each by the seat to move
    example: str | None = None         # the move shown, played after ``moves``
    viewer: int | None = None          # whose view is drawn; None: a spectator's
    options: dict[str, Any] = field(default_factory=dict)
    players: int = 2
    seed: str = "rules"                # decides the chance events (Magnetic Field's deal)

    def positions(self, game: engine.Game) -> tuple[engine.State, engine.State | None]:
        """The position before the example move, and after it (None without one)."""
        state = game.start(self.players, self.options, self.seed)
        for move in self.moves:
            state = game.apply(state, state.to_move[0], move)
        after = game.apply(state, state.to_move[0], self.example) if self.example else None
        return state, after


# Magnet: Red's arrangement decides whether the piece Blue captures on j6 is a trap.
_MAGNET_BLUE = "setup b1=K c1=T2 d1=T3 e1=2 g1=2 h1=2 i1=3 j1=3 k2=3 k3=4 k4=4 k5=4"
_MAGNET_RED = "setup a2=K a3=T2 a4=T3 a5=2 b7=2 c8=2 d9=3 e10=3 g10=3 h9=4 i8=4 j7=4"
_MAGNET_RED_TRAP = "setup a2=K a3=2 a4=T3 a5=2 b7=2 c8=3 d9=3 e10=3 g10=4 h9=4 i8=4 j7=T2"
_MF_DRAFT = ("pick K", "pick D", "pick D", "pick K")
_MF_FIRST = "K@e5 D@e6 +e4:n"
_TRM_PROMOTION = ("3o-2o", "3c-2c", "2o-2a", "3l-3m")

DIAGRAMS: dict[str, dict[str, Diagram]] = {
    "mastery": {
        "imperial": Diagram(),
        "crown": Diagram(options={"setup": "crown"}),
        "move": Diagram(example="d3-e4"),
        "capture": Diagram(("d3-e4",), "d6xd4"),
        "devour": Diagram(example="d1xd2"),
        "control": Diagram(("d4-d5",), "~d5-b3"),
        "resurrection": Diagram(("d3-e4", "d6xd4"), "d2xd4=P@d3"),
    },
    "the-right-moves": {
        "board": Diagram(),
        "step": Diagram(example="3g-2g"),
        "jump": Diagram(("3h-3i",), "3jx3h"),
        "chain": Diagram(("3n-3m", "3k-2k"), "3mx3kx3i"),
        "promotion": Diagram(_TRM_PROMOTION, "2a-1a"),
        "skip": Diagram(_TRM_PROMOTION + ("2a-1a", "4d-4e"), "1a-3i"),
    },
    "magnet": {
        "board": Diagram(),
        "setup": Diagram((_MAGNET_RED, _MAGNET_BLUE), viewer=0),
        "opening": Diagram((_MAGNET_RED, _MAGNET_BLUE), "j3:j7", viewer=0),
        "capture": Diagram((_MAGNET_RED, _MAGNET_BLUE, "j3:j7"), "g9:g1+,k5+", viewer=1),
        "trap": Diagram((_MAGNET_RED_TRAP, _MAGNET_BLUE, "j3:j7"), "g9:g1+,k5+", viewer=1),
    },
    "magnetic-field": {
        "draft": Diagram(),
        "first-turn": Diagram(_MF_DRAFT, _MF_FIRST),
        "attract": Diagram(_MF_DRAFT + (_MF_FIRST,), "+e2:n"),
        "repel": Diagram(_MF_DRAFT + (_MF_FIRST,), "+e2:s"),
        "knockout": Diagram(_MF_DRAFT + (_MF_FIRST, "+e10:n"), "+e8:s"),
        # Red pulls Blue's only figure off the field, keeping one of its own: Blue enters again
        "bring-back": Diagram(_MF_DRAFT + (_MF_FIRST, "+h8:w", "pass", "+e2:n"), "+e6:n"),
        # Before Red has entered (it only placed a tile), Blue sticks its second figure to
        # its first: Blue loses
        "own-field": Diagram(_MF_DRAFT + (_MF_FIRST, "K@f5"), "+e2:n"),
    },
}


@dataclass(frozen=True)
class Drawn:
    """A diagram as a page shows it."""

    before: Markup
    after: Markup | None       # None: a position without an example move
    example: str | None        # the example move, as the game records it
    result: engine.Text | None = None  # how the example move ends the game, if it does


def draw(game_id: str, name: str) -> Drawn:
    """Diagram ``name`` of the game, drawn (the SVG of each position, as the board code draws
    it for the diagram's viewer)."""
    diagram = DIAGRAMS[game_id][name]
    game, board = engine.get(game_id), board_for(game_id)
    before, after = diagram.positions(game)

    def svg(state: engine.State, **marks: Any) -> Markup:
        return board.render(game.view(state, diagram.viewer), seat=diagram.viewer, **marks)

    if after is None or diagram.example is None:  # (no example move, no position after it)
        return Drawn(svg(before), None, None)
    marked = board.move_cells(diagram.example)
    # as the game records it (Magnet drops a promotion a trap cancelled)
    recorded = game.canonical(before, before.to_move[0], diagram.example)
    # a move that ends the game says how, as a game's page does (the sides named)
    result = None if after.outcome is None else results.result(
        game, diagram.players, before, [game.side_name(before, seat)
                                        for seat in range(diagram.players)], after.outcome)
    return Drawn(svg(before, selected=tuple(sorted(marked))), svg(after, last=marked), recorded,
                 result)


def drawn(game_id: str, name: str) -> Drawn:
    """``draw`` in the language in force, once per process and language: the rules and the
    board code do not change while it runs, but the boards' words are the reader's."""
    return _drawn_in(game_id, name, languages.current())


@functools.cache
def _drawn_in(game_id: str, name: str, language: str) -> Drawn:
    return draw(game_id, name)  # ``language`` is in force: it keys the cache
