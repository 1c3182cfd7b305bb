"""Board drawings: one module per game, each providing

- ``render(view, *, seat, selected, targets, last) -> Markup``: the position as inline SVG,
  drawn only from ``view`` (what the viewer may know); ``targets`` maps clickable cells to
  the links that click them (and the builder's other choices, which a board may also draw);
- ``click_path(move) -> tuple[str, ...]``: the clicks that make a move (see ``builder``);
- ``is_cell(token) -> bool`` and ``choice_label(token) -> str``: board clicks versus buttons;
- ``move_cells(move) -> set[str]``: the cells a move touched, to mark the last move;
- ``text(view, seat) -> str``: the position as plain text for emails, from ``view`` only;
- optionally ``build(game, state, seat, path, legal=None) -> builder.Build``: the board's own
  move builder, for games whose legal moves cannot all be listed, or whose clicks depend on
  the other legal moves (see ``builder.for_board``); ``legal``: the seat's legal moves, when
  the caller has them already (generated once per page);
- optionally ``move_hint(game, state, seat, moves) -> str``: what an email says of a long
  list of legal moves (``moves``), in place of a sample of it (see ``notify.legal_hint``);
- optionally ``FRAMED = True``: ``render`` wraps what may pan on a phone in its own
  ``.board-frame`` (else the page wraps the whole drawing in one).

``cells.cell`` draws one cell of a board: a link, or a group named for screen readers. A
game without a module here (a plugin's) has ``generic.Board``, which draws its view.
"""
from types import ModuleType
from typing import Any

import engine

from . import generic, magnet, magnetic_field, mastery, the_right_moves

BOARDS: dict[str, ModuleType] = {"mastery": mastery, "the-right-moves": the_right_moves,
                                 "magnetic-field": magnetic_field, "magnet": magnet}


def board_for(game_id: str) -> Any:
    """The drawing of a game: its module, or the generic board of its view (a module's
    interface, above)."""
    board = BOARDS.get(game_id)
    return board if board is not None else generic.Board(engine.get(game_id))
