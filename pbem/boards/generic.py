"""The board of a game that has no board module here (a plugin's game): its view drawn as
it is, or the game's own drawing if it brings one (``Game.drawing``).

A view is JSON, drawn the same way for the page and, as plain text, for emails: a dict as
its names and values; a list of rows of plain values (a grid) as a table whose columns are
numbered from 1; any other list as its values in a line, or in a list when they are not
plain; a plain value as text. Moves are made with one button per legal move (when there
are at most ``BUTTONS``), or typed.
"""
from __future__ import annotations

import json
from typing import AbstractSet, Any, Mapping, Sequence

import engine
from flask_babel import gettext
from markupsafe import Markup, escape

from .builder import SEPARATOR, Build

BUTTONS = 40  # legal moves offered as buttons at most; with more, the move is typed
DEPTH = 6     # levels of a view drawn as such; deeper values are written as JSON
PLAIN = (str, int, float, bool, type(None))


class Board:
    """The drawing and move builder of ``game`` (the interface of ``pbem.boards``)."""

    def __init__(self, game: engine.Game):
        self.game = game

    def render(self, view: Mapping[str, Any], *, seat: int | None,
               selected: tuple[str, ...] = (), targets: Mapping[str, str] | None = None,
               last: AbstractSet[str] = frozenset()) -> Markup:
        own = self.game.drawing(view, seat)
        if own is not None:  # the game's own SVG, drawn from the view alone
            return Markup(own)
        # the title is the msgid of its Russian (a game's own, or a plugin's as it is)
        label = escape(gettext("%(game)s: the position", game=gettext(self.game.title)))
        return Markup(f'<div class="board generic" role="group" aria-label="{label}">'
                      f'{_html(view, 0)}</div>')

    def text(self, view: Mapping[str, Any], seat: int | None) -> str:
        return "\n".join(_lines(view, 0))

    def build(self, game: engine.Game, state: engine.State, seat: int | None,
              path: tuple[str, ...], legal: Sequence[str] | None = None) -> Build:
        """A button per legal move, then one to confirm the move chosen."""
        if legal is None:
            legal = game.legal_moves(state, seat) if seat is not None else []
        chosen = SEPARATOR.join(path)
        if chosen in legal:
            return Build(path=path, complete=chosen, summary=chosen)
        if len(legal) > BUTTONS:
            return Build(path=(), hint=gettext(
                "Type your move below: the list under it holds every legal move."))
        return Build(path=(), choices=tuple(legal),
                     hint=gettext("Choose your move, then confirm it."))

    @staticmethod
    def click_path(move: str) -> tuple[str, ...]:
        return tuple(move.split(SEPARATOR))

    @staticmethod
    def is_cell(token: str) -> bool:
        return False

    @staticmethod
    def choice_label(token: str) -> str:
        return token

    @staticmethod
    def move_cells(move: str) -> set[str]:
        return set()


def _name(key: Any) -> str:
    """A view's name as people read it: "to_move" → "To move"."""
    words = str(key).replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    return "—" if value is None else str(value)


def _grid(value: Any) -> bool:
    """Whether ``value`` is a list of rows of plain values."""
    return isinstance(value, list) and bool(value) and all(
        isinstance(row, list) and row and all(isinstance(cell, PLAIN) for cell in row)
        for row in value)


def _html(value: Any, depth: int, name: str = "") -> str:
    if depth > DEPTH:
        return f"<code>{escape(json.dumps(value))}</code>"
    if isinstance(value, dict):
        if not value:
            return "<p>—</p>"
        items = "".join(f"<div><dt>{escape(_name(key))}</dt>"
                        f"<dd>{_html(item, depth + 1, _name(key))}</dd></div>"
                        for key, item in value.items())
        return f'<dl class="view">{items}</dl>'
    if _grid(value):
        width = max(map(len, value))
        head = "".join(f'<th scope="col">{number}</th>' for number in range(1, width + 1))
        rows = "".join("<tr>" + "".join(f"<td>{escape(_plain(cell) if cell is not None else '')}"
                                        "</td>" for cell in row)
                       + "<td></td>" * (width - len(row)) + "</tr>" for row in value)
        label = f' aria-label="{escape(name)}"' if name else ""
        return (f'<table class="grid"{label}><thead><tr>{head}</tr></thead>'
                f"<tbody>{rows}</tbody></table>")
    if isinstance(value, list):
        if all(isinstance(item, PLAIN) for item in value):
            return escape(", ".join(map(_plain, value)) or gettext("none"))
        return "<ol>" + "".join(f"<li>{_html(item, depth + 1)}</li>" for item in value) + "</ol>"
    return str(escape(_plain(value)))


def _lines(value: Any, depth: int) -> list[str]:
    """``value`` as lines of plain text, indented by its depth."""
    indent = "  " * depth
    if depth > DEPTH:
        return [indent + json.dumps(value)]
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            inner = _lines(item, depth + 1)
            if len(inner) == 1 and not _grid(item):
                lines.append(f"{indent}{_name(key)}: {inner[0].strip()}")
            else:
                lines += [f"{indent}{_name(key)}:", *inner]
        return lines or [indent + "—"]
    if _grid(value):
        rows = [[_plain(cell) if cell not in (None, "") else "." for cell in row]
                for row in value]
        width = max(map(len, rows))
        size = max(len(str(width)), *(len(cell) for row in rows for cell in row))
        head = " ".join(f"{number:>{size}}" for number in range(1, width + 1))
        return [indent + head] + [indent + " ".join(f"{cell:>{size}}" for cell in row)
                                  for row in rows]
    if isinstance(value, list):
        if all(isinstance(item, PLAIN) for item in value):
            return [indent + (", ".join(map(_plain, value)) or gettext("none"))]
        return [line for item in value for line in _lines(item, depth)]
    return [indent + _plain(value)]
