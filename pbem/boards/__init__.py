"""Board drawings: one module per game, each providing

- ``render(view, *, seat, selected, targets, last) -> Markup``: the position as inline SVG,
  drawn only from ``view`` (what the viewer may know); ``targets`` maps clickable cells to
  the links that click them;
- ``click_path(move) -> tuple[str, ...]``: the clicks that make a move (see ``builder``);
- ``is_cell(token) -> bool`` and ``choice_label(token) -> str``: board clicks versus buttons;
- ``move_cells(move) -> set[str]``: the cells a move touched, to mark the last move.
"""
from types import ModuleType

from . import mastery

BOARDS: dict[str, ModuleType] = {"mastery": mastery}


def board_for(game_id: str) -> ModuleType:
    return BOARDS[game_id]
