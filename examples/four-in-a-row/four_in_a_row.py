"""Four in a Row, a game for the play-by-email server, as a plugin (docs/writing-a-game.md).

Two players take turns dropping a disc into one of the columns of an upright grid; it
falls to the lowest empty cell of that column. The first to have four of their discs in a
line, across, up or diagonally, wins; a full grid is a draw.

The server needs only ``GAME``, named by the entry point in ``pyproject.toml``: an object
with the engine's interface (CONTRACT.md part 1). Everything here beyond that interface
(``seat_names``, ``options``, ``rules``) is optional.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

from engine import IllegalMove, Option, Outcome

DISCS = ("Y", "R")  # seat 0 plays Yellow and moves first, seat 1 Red
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))  # across, up, and the two diagonals

RULES = """\
Two players, Yellow and Red, take turns; Yellow moves first. On your turn, drop one of your
discs into a column that is not full: it falls to the lowest empty cell of that column.

The first player with four of their discs in a line, across, up or diagonally, wins. If
the grid fills up with no such line, the game is drawn.

A move is the number of a column, counted from 1 at the left: "4" drops a disc into the
fourth column. The grid has 7 columns and 6 rows unless the game was created with others.
"""


@dataclass(frozen=True)
class State:
    """A position. States are never changed: ``apply`` returns a new one."""
    players: int
    options: Mapping[str, Any]
    columns: tuple[str, ...]  # each column's discs from the bottom up, e.g. "YRY"
    ply: int = 0              # moves played so far
    to_move: tuple[int, ...] = (0,)  # the seats that may move now; () once the game is over
    outcome: Outcome | None = None


class FourInARow:
    id = "four-in-a-row"
    title = "Four in a Row"
    player_counts = (2,)
    seat_names = {2: ("Yellow", "Red")}
    options = (Option("columns", 7, (6, 7, 8, 9), "Columns"),
               Option("rows", 6, (5, 6, 7), "Rows"))
    rules = RULES

    @property
    def default_options(self) -> dict[str, Any]:
        return {option.name: option.default for option in self.options}

    def start(self, players: int = 2, options: Mapping[str, Any] | None = None,
              seed: str = "") -> State:
        # Nothing in this game is left to chance, so the seed changes nothing.
        if players not in self.player_counts:
            raise ValueError(f"Four in a Row is played by 2 players, not {players!r}.")
        chosen = {**self.default_options, **(options or {})}
        for name, value in chosen.items():
            option = next((o for o in self.options if o.name == name), None)
            if option is None:
                raise ValueError(f"Four in a Row has no option {name!r} (its options: "
                                 "columns, rows).")
            if value not in option.choices or isinstance(value, bool):
                raise ValueError(f"The option {name!r} must be one of "
                                 f"{', '.join(map(str, option.choices))}.")
        return State(players, chosen, ("",) * chosen["columns"])

    def legal_moves(self, state: State, seat: int) -> list[str]:
        if seat not in state.to_move:
            return []
        return [str(number) for number, column in enumerate(state.columns, start=1)
                if len(column) < state.options["rows"]]

    def apply(self, state: State, seat: int, move: str) -> State:
        if state.outcome is not None:
            raise IllegalMove("The game is over.")
        if seat not in state.to_move:
            raise IllegalMove("It is not your turn.")
        if not isinstance(move, str) or not move.strip().isdigit():
            raise IllegalMove(f"A move is the number of a column, from 1 to "
                              f"{len(state.columns)}: {str(move)[:20]!r} is not.")
        number = int(move)
        if not 1 <= number <= len(state.columns):
            raise IllegalMove(f"There is no column {number}: the columns are numbered 1 to "
                              f"{len(state.columns)}.")
        if len(state.columns[number - 1]) == state.options["rows"]:
            raise IllegalMove(f"Column {number} is full.")
        columns = list(state.columns)
        columns[number - 1] += DISCS[seat]
        after = replace(state, columns=tuple(columns), ply=state.ply + 1,
                        to_move=(1 - seat,))
        outcome = self._judge(after, number - 1, seat)
        return replace(after, to_move=(), outcome=outcome) if outcome else after

    def _judge(self, state: State, column: int, seat: int) -> Outcome | None:
        """The outcome after ``seat``'s disc fell into ``column``, if the game is over."""
        row = len(state.columns[column]) - 1
        for dx, dy in DIRECTIONS:
            line = 1 + sum(self._run(state, column, row, dx * way, dy * way, DISCS[seat])
                           for way in (1, -1))
            if line >= 4:
                return Outcome((seat,), False, f"{self.seat_names[2][seat]} has four in a row")
        if all(len(c) == state.options["rows"] for c in state.columns):
            return Outcome((), True, "the grid is full")
        return None

    @staticmethod
    def _run(state: State, column: int, row: int, dx: int, dy: int, disc: str) -> int:
        """How many of ``disc`` follow (column, row) in the direction (dx, dy)."""
        count = 0
        while True:
            column, row = column + dx, row + dy
            if not 0 <= column < len(state.columns) or not 0 <= row < len(state.columns[column]) \
                    or state.columns[column][row] != disc:
                return count
            count += 1

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        # Nothing is hidden: every seat and every spectator sees the whole grid. The server
        # draws a list of rows as a table whose columns are numbered from 1, as moves are.
        rows = range(state.options["rows"] - 1, -1, -1)  # the top row first
        return {
            "grid": [[column[row] if row < len(column) else "" for column in state.columns]
                     for row in rows],
            "discs": {"Y": "Yellow", "R": "Red"},
        }

    def replay(self, players: int, options: Mapping[str, Any] | None, seed: str,
               moves: Iterable[tuple[int, str]]) -> State:
        state = self.start(players=players, options=options, seed=seed)
        for seat, move in moves:
            state = self.apply(state, seat, move)
        return state


GAME = FourInARow()
