"""Magnetic Field (Магнитное поле): two-pole figures that attract and repel on a 10×10 field
that the players build up with special tiles; first to 15 points, or leave the opponent with
no figure on the field at the end of their own turn. Rules: shared/rules/magnetic-field.md.

The field is two 100-character strings indexed by ``10 * (rank - 1) + file``: ``tiles``
("." or a tile code) and ``figures`` ("." or the direction of the figure's N pole, upper case
for seat 0 and lower case for seat 1): cheap to copy, compare and hash.

Hidden information. A tile hand is a string of tile codes in the order ``CXKD``, kept twice:
``hands`` is what each holder really has, ``public_hands`` the part that everyone knows (the
drafted tiles not yet placed); the rest of the hand is hidden, and only its size is public.
Placing a tile whose code is in the public part takes it from the public part, otherwise from
the hidden part. Tiles of one code are interchangeable, so this is exact, and the public part
changes only with public events (picks and placements), never with which of two same-code tiles
was "really" played: the opponent's view is a function of public events alone. The deck (and,
during the draft, the shuffle that will order it) lives only in the state, never in a view; the
seed itself is not kept.
"""
from __future__ import annotations

import dataclasses
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterator, NamedTuple

from .core import Game, IllegalMove, Option, Outcome, State, Text, chance

FILES = "abcdefghij"
SIZE = 10
CELLS = SIZE * SIZE
EMPTY = "."

DIRECTIONS = "nesw"  # n = toward rank 10, e = toward file j
STEPS = {"n": (0, 1), "e": (1, 0), "s": (0, -1), "w": (-1, 0)}
OPPOSITE = {"n": "s", "s": "n", "e": "w", "w": "e"}
DIRECTION_NAMES = {"n": Text("north"), "e": Text("east"), "s": Text("south"), "w": Text("west")}

TILE_ORDER = "CXKD"
TILE_NAMES = {"C": Text("Control"), "X": Text("Capture"), "K": Text("Knockout"),
              "D": Text("Domination")}
CONTROL_TILES = "C" * 4  # face down in the deck from the start
DRAFT_POOL = "X" + "K" * 16 + "D" * 15  # face up for the draft, in TILE_ORDER
PICKS = 4  # Blue, Red, Blue, Red
FIGURES_EACH = 5
TARGET = 15
PASS_LIMIT = 6  # Ruling: six passes in a row end the game
REACH = 2  # a pole acts on the nearest figure at most this many cells away
MAX_SLIDE = 3
COLOURS = (Text("Blue"), Text("Red"))

# Points, in the order the rules list them.
KNOCKOUT_POINTS = 2
KNOCKOUT_TILE_BONUS = 3
CAPTURE_POINTS = 2
CONTROL_POINTS = 1
DOMINATION_POINTS = 1


def cell_name(index: int) -> str:
    return FILES[index % SIZE] + str(index // SIZE + 1)


CELL_NAMES = tuple(cell_name(i) for i in range(CELLS))
CELL_INDEX = {name: i for i, name in enumerate(CELL_NAMES)}
CENTRE = tuple(CELL_INDEX[name] for name in ("e5", "f5", "e6", "f6"))


def _ray(index: int, direction: str) -> tuple[int, ...]:
    file, rank = index % SIZE, index // SIZE
    df, dr = STEPS[direction]
    cells: list[int] = []
    while True:
        file, rank = file + df, rank + dr
        if not (0 <= file < SIZE and 0 <= rank < SIZE):
            return tuple(cells)
        cells.append(SIZE * rank + file)


RAYS = [{d: _ray(i, d) for d in DIRECTIONS} for i in range(CELLS)]
EDGE_NEIGHBOURS = [tuple(ray[0] for ray in RAYS[i].values() if ray) for i in range(CELLS)]
AROUND = [tuple(SIZE * (i // SIZE + dr) + i % SIZE + df
                for df in (-1, 0, 1) for dr in (-1, 0, 1)
                if (df or dr) and 0 <= i % SIZE + df < SIZE and 0 <= i // SIZE + dr < SIZE)
          for i in range(CELLS)]

# Move texts, built once: legal_moves lists tens of thousands of them.
TILE_TEXT = {code: tuple(f"{code}@{name}" for name in CELL_NAMES) for code in TILE_ORDER}
ENTER_TEXT = tuple({d: f"+{name}:{d}" for d in DIRECTIONS} for name in CELL_NAMES)


def figure_char(seat: int, facing: str) -> str:
    return facing.upper() if seat == 0 else facing


def owner(figure: str) -> int:
    return 0 if figure.isupper() else 1


def figures_of(figures: str, seat: int) -> int:
    """How many of ``seat``'s figures stand on ``figures`` (a field)."""
    return sum(1 for f in figures if f != EMPTY and owner(f) == seat)


def _sorted_codes(codes: str) -> str:
    return "".join(sorted(codes, key=TILE_ORDER.index))


def _set(text: str, index: int, char: str) -> str:
    return text[:index] + char + text[index + 1:]


def _pair(pair: tuple, seat: int, value: Any) -> tuple:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


# -- moves ---------------------------------------------------------------------------------


class Pick(NamedTuple):
    """A draft pick."""
    code: str

    def __str__(self) -> str:
        return f"pick {self.code}"


class Placement(NamedTuple):
    code: str
    cell: int

    def __str__(self) -> str:
        return TILE_TEXT[self.code][self.cell]


class Action(NamedTuple):
    """The turn's figure action: enter (from hand), rotate, or move."""
    kind: str  # "enter" | "rotate" | "move"
    origin: int  # the cell entered, or the figure's cell
    facing: str = ""  # enter and rotate: the direction of the N pole afterwards
    target: int = -1  # move: where the figure ends

    @property
    def actor(self) -> int:
        """The cell of the figure that acted, once the action is done."""
        return self.target if self.kind == "move" else self.origin

    def __str__(self) -> str:
        name = CELL_NAMES[self.origin]
        if self.kind == "enter":
            return f"+{name}:{self.facing}"
        if self.kind == "rotate":
            return f"{name}:{self.facing}"
        return f"{name}-{CELL_NAMES[self.target]}"


class Turn(NamedTuple):
    placements: tuple[Placement, ...] = ()
    action: Action | None = None

    @property
    def is_pass(self) -> bool:
        return not self.placements and self.action is None

    def __str__(self) -> str:
        parts = [str(p) for p in self.placements]
        if self.action is not None:
            parts.append(str(self.action))
        return " ".join(parts) or "pass"


# -- the magnetic reaction and scoring -------------------------------------------------------


class Event(NamedTuple):
    """What the reaction did to one figure B.

    kind: "repel" (B pushed from origin to target), "blocked" (the push into target, which
    holds a figure, did nothing), "knockout" (pushed off the field from origin), or "stick"
    (B slid from origin to target, next to the acting figure on ``actor``; both went to hand).
    """
    kind: str
    owner: int
    origin: int
    target: int  # -1 for a knockout
    pole: str  # the acting figure's side that caused it: "N" or "S"
    actor: int


class Points(NamedTuple):
    reason: str  # "knockout", "knockout tile", "capture", "control", "domination"
    cell: int
    points: int


def react(figures: str, actor: int) -> tuple[str, tuple[Event, ...]]:
    """The magnetic reaction after the figure on ``actor`` acted: the field after it and what
    happened, N side first. Figures that stick are removed (they go back to hand)."""
    squares = list(figures)
    north = squares[actor].lower()
    events: list[Event] = []
    for pole, direction in (("N", north), ("S", OPPOSITE[north])):
        ray = RAYS[actor][direction]
        near = next((k for k, cell in enumerate(ray[:REACH]) if squares[cell] != EMPTY), None)
        if near is None:
            continue
        cell = ray[near]
        other = squares[cell]
        if other.lower() == OPPOSITE[direction]:
            facing_pole = "N"  # B's N pole points back at A
        elif other.lower() == direction:
            facing_pole = "S"
        else:
            continue  # B's axis crosses the line: it does not react
        who = owner(other)
        if facing_pole == pole:  # same poles repel
            if near + 1 >= len(ray):
                squares[cell] = EMPTY
                events.append(Event("knockout", who, cell, -1, pole, actor))
            elif squares[ray[near + 1]] != EMPTY:
                events.append(Event("blocked", who, cell, ray[near + 1], pole, actor))
            else:
                squares[ray[near + 1]], squares[cell] = other, EMPTY
                events.append(Event("repel", who, cell, ray[near + 1], pole, actor))
        else:  # opposite poles attract: B slides next to A, they stick, both go to hand
            squares[cell] = squares[actor] = EMPTY
            events.append(Event("stick", who, cell, ray[0], pole, actor))
            break  # A has left the field: its other side is not resolved
    return "".join(squares), tuple(events)


def score(figures: str, tiles: str, seat: int, events: tuple[Event, ...]) -> tuple[Points, ...]:
    """The points ``seat`` (the player whose turn it is) scores, in the order of the rules,
    given the field after the reaction and the reaction's events."""
    points = []
    for event in events:
        if event.kind == "knockout" and event.owner != seat:
            points.append(Points("knockout", event.origin, KNOCKOUT_POINTS))
            if tiles[event.origin] == "K":
                points.append(Points("knockout tile", event.origin, KNOCKOUT_TILE_BONUS))
    for event in events:
        if event.kind == "stick" and event.owner != seat:
            on_capture = [c for c in (event.actor, event.target) if tiles[c] == "X"]
            if on_capture:
                points.append(Points("capture", on_capture[0], CAPTURE_POINTS))
    mine = str.isupper if seat == 0 else str.islower  # owner(figure) == seat
    theirs = str.islower if seat == 0 else str.isupper  # "." is neither
    for cell in _cells_holding(tiles, "C"):
        if mine(figures[cell]):
            points.append(Points("control", cell, CONTROL_POINTS))
    for cell in _cells_holding(tiles, "D"):
        if mine(figures[cell]) and not any(theirs(figures[n]) for n in AROUND[cell]):
            points.append(Points("domination", cell, DOMINATION_POINTS))
    return tuple(points)


def _cells_holding(text: str, char: str) -> Iterator[int]:
    """The indices of ``char`` in ``text``, in order (quicker than looking at every cell)."""
    cell = text.find(char)
    while cell >= 0:
        yield cell
        cell = text.find(char, cell + 1)


def placement_cells(tiles: str, figures: str) -> list[int]:
    """The cells where the next tile may go: no tile, no figure, and on the centre four for
    the first tile of the game, else sharing an edge with a placed tile."""
    if tiles.count(EMPTY) == CELLS:
        return [c for c in CENTRE if figures[c] == EMPTY]
    return [c for c in range(CELLS) if tiles[c] == EMPTY and figures[c] == EMPTY
            and any(tiles[n] != EMPTY for n in EDGE_NEIGHBOURS[c])]


def figure_actions(figures: str, seat: int, in_hand: int) -> Iterator[Action]:
    """Every figure action ``seat`` may take (tiles never change these)."""
    if in_hand:
        for cell in range(CELLS):
            if figures[cell] == EMPTY:
                for d in DIRECTIONS:
                    yield Action("enter", cell, d)
    for cell, figure in enumerate(figures):
        if figure == EMPTY or owner(figure) != seat:
            continue
        for d in DIRECTIONS:
            if d != figure.lower():
                yield Action("rotate", cell, d)
        for d in DIRECTIONS:
            for target in RAYS[cell][d][:MAX_SLIDE]:
                if figures[target] != EMPTY:
                    break
                yield Action("move", cell, target=target)


def _action_texts(figures: str, seat: int, in_hand: int) -> list[str]:
    texts: list[str] = []
    if in_hand:
        for cell in range(CELLS):
            if figures[cell] == EMPTY:
                texts.extend(ENTER_TEXT[cell].values())
    texts.extend(str(a) for a in figure_actions(figures, seat, 0))
    return texts


class Effects(NamedTuple):
    """A turn's result up to (not including) the draw: everything in it is known to the
    mover before the turn, since neither the reaction nor the scoring depend on hidden tiles."""
    seat: int  # the player whose turn it is
    turn: Turn
    tiles: str
    figures: str
    events: tuple[Event, ...]
    points: tuple[Points, ...]
    scores: tuple[int, int]
    in_hand: tuple[int, int]
    knocked_out: tuple[int, int]
    entered: tuple[bool, bool]
    passes: int


class TurnRecord(NamedTuple):
    """The last move, as everyone may see it."""
    seat: int
    move: str
    events: tuple[Event, ...] = ()
    points: tuple[Points, ...] = ()


@dataclass(frozen=True, kw_only=True)
class MagneticFieldState(State):
    blue: int  # the seat that plays Blue and moves first
    drafting: bool
    pool: str  # the face-up tiles not yet picked (during the draft)
    tiles: str
    figures: str
    in_hand: tuple[int, int]  # figures in each player's hand
    knocked_out: tuple[int, int]  # figures out of the game for good
    scores: tuple[int, int]
    entered: tuple[bool, bool]  # has each player ever entered a figure? (ring-out)
    passes: int  # passes in a row
    public_hands: tuple[str, str]  # the tiles in each hand that everyone knows
    last: TurnRecord | None = None
    # Secret from every player: the real hands, the deck order, and (until the draft ends)
    # the shuffle that orders the deck. Never in a view, an error message or a repr.
    hands: tuple[str, str] = field(repr=False)
    deck: str = field(repr=False)
    shuffle: tuple[int, ...] = field(repr=False, default=())

    @property
    def red(self) -> int:
        return 1 - self.blue

    def colour(self, seat: int) -> str:
        return COLOURS[0] if seat == self.blue else COLOURS[1]

    def on_field(self, seat: int) -> int:
        return figures_of(self.figures, seat)


# -- parsing ---------------------------------------------------------------------------------

_CELL = r"([a-z]+\d+)"
_TILE_RE = re.compile(rf"([a-z]+)@{_CELL}")
_ENTER_RE = re.compile(rf"\+{_CELL}:?([a-z]+)")
_ROTATE_RE = re.compile(rf"{_CELL}:([a-z]+)")
_MOVE_RE = re.compile(rf"{_CELL}-{_CELL}")
_PICK_RE = re.compile(r"(?:pick )?([a-z]+)")
TILE_WORDS = {**{c.lower(): c for c in TILE_ORDER}, **{n.lower(): c for c, n in TILE_NAMES.items()}}
DIRECTION_WORDS: dict[str, str] = {**{d: d for d in DIRECTIONS},
                                  **{n: d for d, n in DIRECTION_NAMES.items()}}
TURN_HELP = Text("Write a turn as tile placements first (K@e5), then at most one figure "
                 "action: enter +e4:n, rotate e4:w or move e4-e7; or write pass. "
                 "Example: K@e5 D@e6 +e4:n.")


def _normalise(text: str) -> str:
    text = text.lower().replace(",", " ").replace(";", " ")
    text = re.sub("[\u2013\u2014\u2212]", "-", text)
    text = re.sub(r"\s*([@:\-])\s*", r"\1", text)
    text = re.sub(r"\+\s+", "+", text)
    return " ".join(text.split())


def _cell(name: str, token: str) -> int:
    index = CELL_INDEX.get(name)
    if index is None:
        raise IllegalMove("%(token)s: '%(cell)s' is not a cell of the field "
                          "(files a to j, ranks 1 to 10, like e5).", token=token, cell=name)
    return index


def _direction(word: str, token: str) -> str:
    d = DIRECTION_WORDS.get(word)
    if d is None:
        raise IllegalMove("%(token)s: '%(word)s' is not a direction; "
                          "use n, e, s or w (where the N pole points).", token=token, word=word)
    return d


def _tile_code(word: str, token: str) -> str:
    code = TILE_WORDS.get(word)
    if code is None:
        raise IllegalMove("%(token)s: '%(word)s' is not a tile. The tiles are %(tiles)s.",
                          token=token, word=word.upper(), tiles=_tile_list("".join(TILE_NAMES)))
    return code


def _tile_list(codes: str) -> tuple[Text, ...] | Text:
    """Tiles by letter and name, "K (Knockout), D (Domination)", for a message's field."""
    return tuple(Text("%(code)s (%(name)s)", code=c, name=TILE_NAMES[c]) for c in codes) \
        if codes else Text("none")


class MagneticField(Game[MagneticFieldState]):
    id = "magnetic-field"
    hidden_information = True  # hands and the deck
    title = "Magnetic Field"
    state_type = MagneticFieldState
    lists_every_move = False  # turns placing two or more tiles are legal but not listed
    player_counts = (2,)
    options = (
        Option("colours", "random", ("random", "seat0-blue", "seat0-red"), Text("Colours"),
               Text("Who plays Blue (and moves first): drawn at random, or fixed."),
               {"random": Text("drawn at random"),
                "seat0-blue": (Text("You play Blue"), Text("You play Red")),
                "seat0-red": (Text("You play Red"), Text("You play Blue"))}),
    )

    # -- start -----------------------------------------------------------------------------

    def initial_state(self, players: int, options: dict[str, Any],
                      seed: str) -> MagneticFieldState:
        if options["colours"] == "random":
            blue = chance(seed, "colours").randrange(2)
        else:
            blue = 0 if options["colours"] == "seat0-blue" else 1
        # The deck is shuffled once the draft is over; which tiles it will hold depends on the
        # picks, so keep the order to apply to them, not the seed.
        shuffle = list(range(len(DRAFT_POOL) + len(CONTROL_TILES) - PICKS))
        chance(seed, "deck").shuffle(shuffle)
        return MagneticFieldState(
            players=players, options=options, to_move=(blue,), blue=blue, drafting=True,
            pool=DRAFT_POOL, tiles=EMPTY * CELLS, figures=EMPTY * CELLS,
            in_hand=(FIGURES_EACH, FIGURES_EACH), knocked_out=(0, 0), scores=(0, 0),
            entered=(False, False), passes=0, public_hands=("", ""), hands=("", ""),
            deck=CONTROL_TILES, shuffle=tuple(shuffle))

    # -- moves -----------------------------------------------------------------------------

    def generate_moves(self, state: MagneticFieldState, seat: int) -> list[str]:
        """Every pick; or every turn with at most one tile (turns placing more tiles are
        legal too, but too many to list). Depends only on the field and ``seat``'s own hand."""
        if state.drafting:
            return [str(Pick(code)) for code in TILE_ORDER if code in state.pool]
        codes = [c for c in TILE_ORDER if c in state.hands[seat]]
        cells = placement_cells(state.tiles, state.figures)
        tiles = [TILE_TEXT[code][cell] for code in codes for cell in cells]
        actions = _action_texts(state.figures, seat, state.in_hand[seat])
        return ["pass", *tiles, *actions, *[t + " " + a for t in tiles for a in actions]]

    def play(self, state: MagneticFieldState, seat: int, text: str) -> MagneticFieldState:
        if state.drafting:
            return self._pick(state, seat, self.parse_pick(state, text))
        return self.carry_out(state, seat, self.parse_turn(state, seat, text))

    def carry_out(self, state: MagneticFieldState, seat: int,
                  turn: Turn) -> MagneticFieldState:
        """Play ``turn``, already checked to be legal for ``seat``, and draw."""
        effects = self.effects(state, seat, turn)
        hands, public = state.hands, state.public_hands
        hand, known = hands[seat], public[seat]
        for placement in effects.turn.placements:
            hand = hand.replace(placement.code, "", 1)
            known = known.replace(placement.code, "", 1)  # from the public part if it is there
        deck = state.deck
        outcome = self.judge(state, effects)
        if deck and not (outcome and max(effects.scores) >= TARGET):
            # Draw (private to the holder), unless the game ended at once on points.
            hand, deck = _sorted_codes(hand + deck[0]), deck[1:]
        return dataclasses.replace(
            state, ply=state.ply + 1, to_move=() if outcome else (1 - seat,), outcome=outcome,
            tiles=effects.tiles, figures=effects.figures, in_hand=effects.in_hand,
            knocked_out=effects.knocked_out, scores=effects.scores, entered=effects.entered,
            passes=effects.passes, hands=_pair(hands, seat, hand),
            public_hands=_pair(public, seat, known), deck=deck,
            last=TurnRecord(seat, str(effects.turn), effects.events, effects.points))

    def _pick(self, state: MagneticFieldState, seat: int, pick: Pick) -> MagneticFieldState:
        hand = _sorted_codes(state.hands[seat] + pick.code)
        pool = state.pool.replace(pick.code, "", 1)
        changes: dict[str, Any] = {"pool": pool}
        if len(DRAFT_POOL) - len(pool) == PICKS:
            # The unpicked tiles join the Control tiles and are shuffled into the deck.
            ordered = _sorted_codes(pool + state.deck)
            changes = dict(drafting=False, pool="", shuffle=(),
                           deck="".join(ordered[i] for i in state.shuffle))
        return dataclasses.replace(
            state, ply=state.ply + 1, to_move=(1 - seat,),
            hands=_pair(state.hands, seat, hand),
            public_hands=_pair(state.public_hands, seat, hand),
            last=TurnRecord(seat, str(pick)), **changes)

    def parse_pick(self, state: MagneticFieldState, text: str) -> Pick:
        words = _normalise(text)
        match = _PICK_RE.fullmatch(words)
        if not match or match[1] not in TILE_WORDS:
            raise IllegalMove(
                "'%(text)s' is not a draft pick. The game starts with the draft: pick one "
                "face-up tile at a time, written like pick K (K, D or X).", text=text)
        code = TILE_WORDS[match[1]]
        if code == "C":
            raise IllegalMove("Control tiles go face down into the deck; they cannot be picked.")
        if code not in state.pool:
            left = "".join(c for c in TILE_ORDER if c in state.pool)
            raise IllegalMove("No %(tile)s tile is left to pick; the face-up tiles left are: "
                              "%(left)s.", tile=TILE_NAMES[code], left=_tile_list(left))
        return Pick(code)

    def parse(self, state: MagneticFieldState, seat: int, text: str) -> Turn | Pick:
        """The legal pick (in the draft) or turn that ``text`` names."""
        if state.drafting:
            return self.parse_pick(state, text)
        return self.parse_turn(state, seat, text)

    def parse_turn(self, state: MagneticFieldState, seat: int, text: str) -> Turn:
        """The legal turn that ``text`` names, its tiles placed in the order written.

        Input is lenient: any case, spaces around @ : - +, commas between parts, whole words
        for tiles and directions (knockout@e5, +e4:north)."""
        words = _normalise(text)
        if words == "pass":
            return Turn()
        if words.startswith("pick"):
            raise IllegalMove("The draft is over. %(help)s", help=TURN_HELP)
        tiles, figures, hand = state.tiles, state.figures, state.hands[seat]
        placements: list[Placement] = []
        action: Action | None = None
        for token in words.split():
            if token == "pass":
                raise IllegalMove("'pass' means doing nothing this turn; it cannot be combined "
                                  "with tile placements or a figure action.")
            if match := _TILE_RE.fullmatch(token):
                if len(match[1]) == 1:
                    token = match[1].upper() + "@" + match[2]
                if action is not None:
                    raise IllegalMove("%(token)s: tiles are placed before the figure action; "
                                      "write the tile placements first.", token=token)
                code, cell = _tile_code(match[1], token), _cell(match[2], token)
                if code not in hand and placements:
                    raise IllegalMove("%(token)s: you have no %(tile)s tile left in hand (yours "
                                      "left: %(hand)s).", token=token, tile=TILE_NAMES[code],
                                      hand=_tile_list(hand))
                if code not in hand:
                    raise IllegalMove("%(token)s: you have no %(tile)s tile in hand (yours: "
                                      "%(hand)s).", token=token, tile=TILE_NAMES[code],
                                      hand=_tile_list(hand))
                self._check_placement(tiles, figures, cell, token)
                hand = hand.replace(code, "", 1)
                tiles = _set(tiles, cell, code)
                placements.append(Placement(code, cell))
                continue
            if action is not None:
                raise IllegalMove("%(token)s: only one figure action (enter, rotate or move) "
                                  "is allowed per turn.", token=token)
            if match := _ENTER_RE.fullmatch(token):
                action = self._enter(state, seat, _cell(match[1], token),
                                     _direction(match[2], token), token)
            elif match := _MOVE_RE.fullmatch(token):
                action = self._move(figures, seat, _cell(match[1], token),
                                    _cell(match[2], token), token)
            elif match := _ROTATE_RE.fullmatch(token):
                action = self._rotate(figures, seat, _cell(match[1], token),
                                      _direction(match[2], token), token)
            else:
                raise IllegalMove("'%(token)s' is not part of a Magnetic Field turn. %(help)s",
                                  token=token, help=TURN_HELP)
        return Turn(tuple(placements), action)

    @staticmethod
    def _check_placement(tiles: str, figures: str, cell: int, token: str) -> None:
        name = CELL_NAMES[cell]
        if tiles[cell] != EMPTY:
            raise IllegalMove("%(token)s: %(cell)s already has a tile.", token=token, cell=name)
        if figures[cell] != EMPTY:
            raise IllegalMove("%(token)s: %(cell)s has a figure on it; tiles go on cells with "
                              "no tile and no figure.", token=token, cell=name)
        if tiles.count(EMPTY) == CELLS:
            if cell not in CENTRE:
                raise IllegalMove("%(token)s: the first tile of the game goes on e5, f5, e6 or "
                                  "f6.", token=token)
        elif not any(tiles[n] != EMPTY for n in EDGE_NEIGHBOURS[cell]):
            raise IllegalMove("%(token)s: a tile must share an edge with a tile already on the "
                              "field (tiles are placed one by one, in the order written).",
                              token=token)

    @staticmethod
    def _enter(state: MagneticFieldState, seat: int, cell: int, facing: str,
               token: str) -> Action:
        if state.in_hand[seat] == 0:
            raise IllegalMove("%(token)s: you have no figure in hand to enter.", token=token)
        if state.figures[cell] != EMPTY:
            raise IllegalMove("%(token)s: %(cell)s already has a figure; a figure enters on a "
                              "cell with no figure.", token=token, cell=CELL_NAMES[cell])
        return Action("enter", cell, facing)

    @staticmethod
    def _own_figure(figures: str, seat: int, cell: int, token: str) -> str:
        figure = figures[cell]
        if figure == EMPTY:
            if ":" in token:
                raise IllegalMove("%(token)s: there is no figure on %(cell)s. To enter a figure "
                                  "there, write +%(token)s.", token=token, cell=CELL_NAMES[cell])
            raise IllegalMove("%(token)s: there is no figure on %(cell)s.", token=token,
                              cell=CELL_NAMES[cell])
        if owner(figure) != seat:
            raise IllegalMove("%(token)s: the figure on %(cell)s is your opponent's.",
                              token=token, cell=CELL_NAMES[cell])
        return figure

    def _rotate(self, figures: str, seat: int, cell: int, facing: str, token: str) -> Action:
        figure = self._own_figure(figures, seat, cell, token)
        if figure.lower() == facing:
            raise IllegalMove("%(token)s: the figure on %(cell)s already faces %(direction)s; a "
                              "rotation must turn it to a different direction.", token=token,
                              cell=CELL_NAMES[cell], direction=DIRECTION_NAMES[facing])
        return Action("rotate", cell, facing)

    def _move(self, figures: str, seat: int, origin: int, target: int, token: str) -> Action:
        self._own_figure(figures, seat, origin, token)
        if origin == target:
            raise IllegalMove("%(token)s: a move must take the figure to another cell.",
                              token=token)
        path = next((RAYS[origin][d][:RAYS[origin][d].index(target) + 1]
                     for d in DIRECTIONS if target in RAYS[origin][d]), None)
        if path is None:
            raise IllegalMove("%(token)s: a figure moves in a straight line along its file or "
                              "rank; %(target)s is not in line with %(origin)s.", token=token,
                              target=CELL_NAMES[target], origin=CELL_NAMES[origin])
        if len(path) > MAX_SLIDE:
            raise IllegalMove("%(token)s: a figure moves 1 to %(most)s cells, not %(cells)s.",
                              token=token, most=MAX_SLIDE, cells=len(path))
        blocker = next((c for c in path if figures[c] != EMPTY), None)
        if blocker == target:
            raise IllegalMove("%(token)s: a figure stands on %(cell)s; figures move across "
                              "empty cells only and never jump.", token=token,
                              cell=CELL_NAMES[blocker])
        if blocker is not None:
            raise IllegalMove("%(token)s: a figure blocks the way at %(cell)s; figures move "
                              "across empty cells only and never jump.", token=token,
                              cell=CELL_NAMES[blocker])
        return Action("move", origin, target=target)

    # -- resolving a turn ------------------------------------------------------------------

    def effects(self, state: MagneticFieldState, seat: int, turn: Turn) -> Effects:
        """What ``turn`` (already checked) does before the draw: tiles, action, reaction and
        scoring. Reads only the field, the counts and ``seat``'s own hand."""
        tiles, figures = state.tiles, state.figures
        for placement in turn.placements:
            tiles = _set(tiles, placement.cell, placement.code)
        in_hand, entered = list(state.in_hand), list(state.entered)
        knocked_out = list(state.knocked_out)
        events: tuple[Event, ...] = ()
        action = turn.action
        if action is not None:
            if action.kind == "enter":
                figures = _set(figures, action.origin, figure_char(seat, action.facing))
                in_hand[seat] -= 1
                entered[seat] = True
            elif action.kind == "rotate":
                figures = _set(figures, action.origin, figure_char(seat, action.facing))
            else:
                figure = figures[action.origin]
                figures = _set(_set(figures, action.origin, EMPTY), action.target, figure)
            figures, events = react(figures, action.actor)
            for event in events:
                if event.kind == "knockout":
                    knocked_out[event.owner] += 1
                elif event.kind == "stick":
                    in_hand[event.owner] += 1
                    in_hand[seat] += 1
        points = score(figures, tiles, seat, events)
        scores = _pair(state.scores, seat, state.scores[seat] + sum(p.points for p in points))
        return Effects(seat, turn, tiles, figures, events, points, scores,
                       (in_hand[0], in_hand[1]), (knocked_out[0], knocked_out[1]),
                       (entered[0], entered[1]),
                       state.passes + 1 if turn.is_pass else 0)

    def judge(self, state: MagneticFieldState, effects: Effects) -> Outcome | None:
        """The outcome after a turn, if the game ends: 15 points (at once), then ring-out of
        the mover and six passes (at the end of the turn). The draw cannot change any of them.

        Ring-out is judged at the end of the player's own turn only: one whose last figure
        was knocked out or stuck in the opponent's turn has a turn to bring one back. The
        scores settle a ring-out only when both players have entered a figure and neither has
        one on the field; a player who empties their own field before the opponent has ever
        entered loses (else Blue could stick its second figure to its first and draw 0-0)."""
        scores = effects.scores
        reached = [s for s in (0, 1) if scores[s] >= TARGET]
        if len(reached) == 2:
            return Outcome((), True, Text("both players reached %(points)s points",
                                          points=TARGET))
        if reached:
            return Outcome((reached[0],), False, Text("%(side)s reached %(points)s points",
                                                      side=state.colour(reached[0]),
                                                      points=TARGET))
        mover, other = effects.seat, 1 - effects.seat
        if effects.entered[mover] and not figures_of(effects.figures, mover):
            if not effects.entered[other]:
                return Outcome((other,), False, Text(
                    "%(side)s has no figure on the field, and %(other)s has not entered one "
                    "yet", side=state.colour(mover), other=state.colour(other)))
            if not figures_of(effects.figures, other):
                return self._on_points(state, scores,
                                       Text("neither player has a figure on the field"))
            return Outcome((other,), False, Text("%(side)s has no figure on the field",
                                                 side=state.colour(mover)))
        if effects.passes >= PASS_LIMIT:
            return self._on_points(state, scores, Text("%(passes)s passes in a row",
                                                       passes=PASS_LIMIT))
        return None

    @staticmethod
    def _on_points(state: MagneticFieldState, scores: tuple[int, int], why: Text) -> Outcome:
        if scores[0] == scores[1]:
            return Outcome((), True, Text("%(why)s; the scores are equal", why=why))
        leader = 0 if scores[0] > scores[1] else 1
        return Outcome((leader,), False, Text("%(why)s; %(side)s has more points", why=why,
                                              side=state.colour(leader)))

    # -- what a seat may know --------------------------------------------------------------

    def sample_hidden(self, state: MagneticFieldState, seat: int,
                      rng: random.Random) -> MagneticFieldState:
        """``state`` with what ``seat`` has not seen drawn from ``rng``: during the draft, the
        shuffle that will order the deck; after it, the opponent's hidden tiles and the
        deck's order, dealt uniformly from the tiles ``seat`` has not seen (the 36 tiles
        less those on the field, in its own hand and in the opponent's public part).

        Built from public fields and ``seat``'s own hand only: the opponent's hand, the deck
        and the shuffle, the only secret fields, are all rewritten from the draw."""
        if state.drafting:
            shuffle = list(range(len(state.shuffle)))
            rng.shuffle(shuffle)
            return dataclasses.replace(state, shuffle=tuple(shuffle))
        enemy = 1 - seat
        unseen = Counter(CONTROL_TILES + DRAFT_POOL)
        unseen.subtract(t for t in state.tiles if t != EMPTY)
        unseen.subtract(state.hands[seat] + state.public_hands[enemy])
        tiles = list(_sorted_codes("".join(unseen.elements())))
        rng.shuffle(tiles)
        hidden = len(state.hands[enemy]) - len(state.public_hands[enemy])  # a public count
        hand = _sorted_codes(state.public_hands[enemy] + "".join(tiles[:hidden]))
        return dataclasses.replace(state, hands=_pair(state.hands, enemy, hand),
                                   deck="".join(tiles[hidden:]))

    def side_name(self, state: MagneticFieldState, seat: int) -> str:
        return state.colour(seat)

    # -- what players see --------------------------------------------------------------------

    def observe(self, state: MagneticFieldState, seat: int | None) -> dict[str, Any]:
        """The field, scores and counts (public), each hand's public tiles and hidden count,
        and ``seat``'s own tiles. Never the deck's order or any other hidden tile."""
        hands = []
        for s in (0, 1):
            hand = {"size": len(state.hands[s]), "public": list(state.public_hands[s]),
                    "hidden": len(state.hands[s]) - len(state.public_hands[s])}
            if s == seat:
                hand["tiles"] = list(state.hands[s])
            hands.append(hand)
        return {
            "phase": "over" if state.outcome else "draft" if state.drafting else "play",
            "you": seat,
            "colours": [state.colour(s).lower() for s in (0, 1)],
            "to_move": list(state.to_move),
            "scores": list(state.scores),
            "target": TARGET,
            "tiles": {CELL_NAMES[i]: t for i, t in enumerate(state.tiles) if t != EMPTY},
            "figures": {CELL_NAMES[i]: _figure_json(state, f)
                        for i, f in enumerate(state.figures) if f != EMPTY},
            "figures_in_hand": list(state.in_hand),
            "figures_on_field": [state.on_field(s) for s in (0, 1)],
            "knocked_out": list(state.knocked_out),
            "entered": list(state.entered),
            "hands": hands,
            "deck_size": len(state.deck),
            "draft_pool": {c: state.pool.count(c) for c in TILE_ORDER if c in state.pool},
            "passes_in_a_row": state.passes,
            "last_move": _record_json(state.last),
        }

    # -- helpers for a turn builder (pure, from the mover's knowledge only) -----------------

    def turn_options(self, state: MagneticFieldState, seat: int,
                     placed: str = "") -> dict[str, Any]:
        """What ``seat`` may still do in this turn after writing the tile placements
        ``placed`` (e.g. "K@e5"): tiles left in hand, cells for the next tile, and each figure
        action. The figure actions do not depend on the tiles."""
        self.check_mover(state, seat)
        if state.drafting:
            raise IllegalMove("The draft comes first: pick a tile, like pick K.")
        turn = self.parse_turn(state, seat, placed) if placed.strip() else Turn()
        if turn.action is not None:
            raise IllegalMove("Give only the tile placements made so far.")
        hand, tiles = state.hands[seat], state.tiles
        for placement in turn.placements:
            hand = hand.replace(placement.code, "", 1)
            tiles = _set(tiles, placement.cell, placement.code)
        rotate: dict[str, list[str]] = {}
        move: dict[str, list[str]] = {}
        for action in figure_actions(state.figures, seat, 0):
            if action.kind == "rotate":
                rotate.setdefault(CELL_NAMES[action.origin], []).append(action.facing)
            else:
                move.setdefault(CELL_NAMES[action.origin], []).append(CELL_NAMES[action.target])
        return {
            "tiles_in_hand": list(hand),
            "tile_cells": [CELL_NAMES[c] for c in placement_cells(tiles, state.figures)]
            if hand else [],
            "enter_cells": [CELL_NAMES[c] for c in range(CELLS) if state.figures[c] == EMPTY]
            if state.in_hand[seat] else [],
            "rotate": rotate,
            "move": move,
        }

    def preview(self, state: MagneticFieldState, seat: int, move: str) -> dict[str, Any]:
        """The result of ``move`` for the seat to move, up to the draw (which depends on the
        hidden deck): the field after it, the reaction, the points and, if the turn ends the
        game, how. Raises IllegalMove as ``apply`` would."""
        self.check_mover(state, seat)
        if state.drafting:
            raise IllegalMove("There is nothing to preview in the draft.")
        effects = self.effects(state, seat, self.parse_turn(state, seat, " ".join(move.split())))
        outcome = self.judge(state, effects)
        return {
            "move": str(effects.turn),
            "tiles": {CELL_NAMES[i]: t for i, t in enumerate(effects.tiles) if t != EMPTY},
            "figures": {CELL_NAMES[i]: _figure_json(state, f)
                        for i, f in enumerate(effects.figures) if f != EMPTY},
            "events": [_event_json(e) for e in effects.events],
            "points": [_points_json(p) for p in effects.points],
            "gained": effects.scores[seat] - state.scores[seat],
            "scores": list(effects.scores),
            "figures_in_hand": list(effects.in_hand),
            "figures_on_field": [figures_of(effects.figures, s) for s in (0, 1)],
            "knocked_out": list(effects.knocked_out),
            "outcome": outcome.to_json() if outcome else None,
        }


def _figure_json(state: MagneticFieldState, figure: str) -> dict[str, Any]:
    seat = owner(figure)
    return {"owner": seat, "colour": state.colour(seat).lower(), "facing": figure.lower()}


def _event_json(event: Event) -> dict[str, Any]:
    data = {"kind": event.kind, "owner": event.owner, "from": CELL_NAMES[event.origin],
            "pole": event.pole, "actor": CELL_NAMES[event.actor]}
    if event.target >= 0:
        data["to"] = CELL_NAMES[event.target]
    return data


def _points_json(points: Points) -> dict[str, Any]:
    return {"reason": points.reason, "cell": CELL_NAMES[points.cell], "points": points.points}


def _record_json(record: TurnRecord | None) -> dict[str, Any] | None:
    if record is None:
        return None
    return {"seat": record.seat, "move": record.move,
            "events": [_event_json(e) for e in record.events],
            "points": [_points_json(p) for p in record.points],
            "gained": sum(p.points for p in record.points)}


GAME = MagneticField()
