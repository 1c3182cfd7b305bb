"""Building a move by clicks, the same way for every game.

Each game's board module spells a move as a *click path*: the cells and choices a player
clicks to make it (Mastery's ``d1xd5=O@b4`` is ``d1, d5, O, b4``). Given the legal moves
and the clicks made so far, ``build`` says what may be clicked next and whether the clicks
already name a complete move. The page carries the clicks in its URL, so the builder works
as plain links without JavaScript; with it, the page only swaps in the next state.

A game whose legal moves cannot all be listed (Magnetic Field leaves out turns that place
several tiles) gives its board module a ``build(game, state, seat, path) -> Build`` of its
own, which works from what the seat may know; ``for_board`` picks it when there is one.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Iterable, Mapping, Sequence

from markupsafe import Markup

SEPARATOR = "."


@dataclass(frozen=True)
class Build:
    path: tuple[str, ...]                 # the clicks so far (a prefix of some legal move)
    cells: tuple[str, ...] = ()           # board cells that may be clicked next
    choices: tuple[str, ...] = ()         # other tokens that may come next (buttons)
    complete: str | None = None           # the move the clicks name, if they name one
    # Optional, for boards that build moves themselves (see ``for_board``):
    hint: str | None = None               # what may be clicked next, in words
    summary: str | None = None            # the clicks so far, in words
    note: Any = None                      # markup shown before the confirm button (a preview)
    overlay: Mapping[str, Any] | None = None  # changes to the drawn view (tiles placed so far)
    # Whether the page lists the legal moves: not where the list says nothing of what may be
    # played (a Magnet setup, of which it holds one arrangement)
    lists_moves: bool = True

    def extend(self, token: str) -> str:
        return SEPARATOR.join(self.path + (token,))


def parse_path(text: str | None) -> tuple[str, ...]:
    return tuple(token for token in (text or "").split(SEPARATOR) if token)[:32]


def build(moves: Iterable[str], click_path: Callable[[str], Sequence[str]],
          is_cell: Callable[[str], bool], path: tuple[str, ...]) -> Build:
    """What may follow ``path``; an unknown path (a stale page) starts over."""
    paths = {move: tuple(click_path(move)) for move in moves}
    if path and not any(p[:len(path)] == path for p in paths.values()):
        path = ()
    following: dict[str, None] = {}
    complete = None
    for move, clicks in paths.items():
        if clicks[:len(path)] != path:
            continue
        if len(clicks) == len(path):
            complete = move
        else:
            following.setdefault(clicks[len(path)])
    return Build(path=path, cells=tuple(t for t in following if is_cell(t)),
                 choices=tuple(t for t in following if not is_cell(t)),
                 complete=complete)


def for_board(board: ModuleType, game: Any, state: Any, seat: int | None, legal: Sequence[str],
              path: tuple[str, ...]) -> Build:
    """The builder of a game page: the board module's own ``build`` if it has one (only for
    the seat to move), else ``build`` over the legal moves."""
    own = getattr(board, "build", None)
    if own is None:
        return build(legal, board.click_path, board.is_cell, path)
    return own(game, state, seat, path, legal) if legal else Build(path=())


def drawn(board: Any, view: Mapping[str, Any], seat: int | None, build: Build,
          link: Callable[[str], str], last: set[str]
          ) -> tuple[Markup, tuple[tuple[str, str], ...]]:
    """What every page with a board to click on draws: the SVG of ``view`` with the move
    being built on it (the builder's overlay drawn, the cells clicked so far selected, each
    next click a link ``link(token)``, the last move's cells marked), and the buttons of
    the next choices, (label, link) each."""
    svg = board.render({**view, **(build.overlay or {})}, seat=seat,
                       selected=tuple(t for t in build.path if board.is_cell(t)),
                       targets={t: link(t) for t in build.cells + build.choices}, last=last)
    return svg, tuple((board.choice_label(c), link(c)) for c in build.choices)
