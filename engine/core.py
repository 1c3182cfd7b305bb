"""The interface every game implements, and the pieces the games share.

A game is a stateless object (one instance per game id) whose methods take and return
immutable states, in the manner of OpenSpiel: ``start`` builds the first state from the
player count, options and a seed; ``apply`` returns a new state; ``view`` is what one seat
(or a spectator, ``None``) may know. Moves cross this boundary only as text in the game's
notation; inside, each game parses them into its own move objects.
"""
from __future__ import annotations

import dataclasses
import hashlib
import random
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Iterable, Mapping, TypeVar


class Text(str):
    """Words for players, in English: ``template`` with its ``%(name)s`` fields filled in.

    It is the English ``str`` to everything that reads it; a server that speaks other
    languages looks ``template`` up in its catalog (it is the msgid) and fills in the
    fields, themselves translated where they are ``Text`` (a tuple of them is listed with
    commas). The engine's words for players (``IllegalMove`` reasons, ``Outcome`` reasons,
    the names of pieces and tiles) are all ``Text``, so the server needs no Flask here.
    """

    template: str
    fields: Mapping[str, Any]

    def __new__(cls, template: str, /, **fields: Any) -> Text:
        if isinstance(template, Text) and not fields:
            return template
        text = super().__new__(cls, template % {name: listed(value) for name, value
                                                in fields.items()} if fields else template)
        text.template, text.fields = str(template), fields
        return text


def listed(value: Any) -> Any:
    """A field's value as it is written: a tuple lists its items with commas."""
    return ", ".join(map(str, value)) if isinstance(value, tuple) else value


class TextError(ValueError):
    """An error whose message is for players: ``text``, the ``Text`` of ``message`` and
    ``fields`` (``str()`` gives its English)."""

    def __init__(self, message: str, /, **fields: Any):
        super().__init__(Text(message, **fields))

    @property
    def text(self) -> Text:
        return self.args[0]


class IllegalMove(TextError):
    """Text that is not a move, or a move the rules forbid."""


class InvalidGameSetup(TextError):
    """Arguments that describe no game of this kind: unknown options, bad option values, an
    unsupported number of players, a seat the game does not have, a state of another game."""


class UnknownGame(KeyError):
    """No game has this id."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown game"


@dataclass(frozen=True)
class Outcome:
    winners: tuple[int, ...]
    draw: bool
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "draw": self.draw, "reason": self.reason}


@dataclass(frozen=True, kw_only=True)
class State:
    """What every game's state holds; each game subclasses it with its own frozen fields.

    States are never mutated: ``apply`` builds a new one (``dataclasses.replace``), so a
    server may cache any state and hand it to several requests at once.
    """

    players: int
    options: Mapping[str, Any]
    ply: int = 0
    to_move: tuple[int, ...] = ()
    outcome: Outcome | None = None


StateT = TypeVar("StateT", bound=State)  # a game's own State subclass


@dataclass(frozen=True)
class Option:
    """One game option: its default, the values it may take, and words for a form (``Text``,
    which a server translates)."""

    name: str
    default: Any
    choices: tuple[Any, ...]
    label: str
    help: str = ""
    # Words for choices whose value is a code ("seat0-blue"); the others read as themselves.
    # Words that differ by who reads them (a seat's colour) are a tuple, one per seat.
    choice_words: Mapping[Any, str | tuple[str, ...]] = field(default_factory=dict, hash=False)

    def choice_label(self, choice: Any, reader: int = 0) -> str:
        """``choice`` as a person reads it: the player of seat ``reader`` (the form that
        creates a game is read by seat 0, a join page by the seat it offers)."""
        if isinstance(choice, bool):
            return Text("yes") if choice else Text("no")
        words = self.choice_words.get(choice, str(choice))
        return words[reader] if isinstance(words, tuple) else words

    def coerce(self, value: Any) -> Any:
        """The option value meant by ``value``, which may also be its text form (from a form)."""
        for choice in self.choices:
            if value == choice and type(value) is type(choice):
                return choice
            if isinstance(value, str) and value.strip().lower() == str(choice).lower():
                return choice
        allowed = ", ".join(_option_text(c) for c in self.choices)
        raise InvalidGameSetup("Option '%(name)s' must be one of: %(allowed)s.",
                               name=self.name, allowed=allowed)


def _option_text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def chance(seed: str, *purpose: object) -> random.Random:
    """A random generator derived from the game's seed and what it is for.

    Separate purposes ("deck", "colours", ...) draw from separate streams, so adding a new
    chance event to a game never changes the outcome of the existing ones.
    """
    material = "\x1f".join([str(seed), *map(str, purpose)]).encode()
    return random.Random(int.from_bytes(hashlib.sha256(material).digest(), "big"))


class Game(Generic[StateT]):
    """Base class of every game. Subclasses set the class attributes and implement the
    methods marked "game-specific"; the public methods here check what is common to all."""

    id: ClassVar[str]
    title: ClassVar[str]
    state_type: ClassVar[type[State]] = State  # the game's own State subclass
    player_counts: ClassVar[tuple[int, ...]] = (2,)
    options: ClassVar[tuple[Option, ...]] = ()
    # Seat names by player count, e.g. {2: (Text("Dark"), Text("Light"))}: words for players.
    seat_names: ClassVar[Mapping[int, tuple[str, ...]]] = {}
    # Whether legal_moves lists every legal move (Magnetic Field leaves out the turns that
    # place several tiles: too many to list, yet legal).
    lists_every_move: ClassVar[bool] = True
    # Whether a seat may not know everything about a position (hands, values, setups).
    hidden_information: ClassVar[bool] = False
    # Whether tournaments may be played of it (they also need 2 in player_counts).
    tournaments: ClassVar[bool] = True
    # Whether a server may keep its states pickled (snapshots, uploaded records' positions):
    # states made of the engine's own classes by the code ``pbem.positions`` digests.
    stored_positions: ClassVar[bool] = True

    # -- description -------------------------------------------------------------------

    @property
    def default_options(self) -> dict[str, Any]:
        return {option.name: option.default for option in self.options}

    def seat_name(self, players: int, seat: int) -> str:
        """A seat's name before the game exists (on the form that creates it)."""
        names = self.seat_names.get(players)
        return names[seat] if names else Text("Player %(number)s", number=seat + 1)

    def side_name(self, state: StateT, seat: int) -> str:
        """The side ``seat`` plays in the game of ``state`` ("Dark"), for players to read.
        Games that deal sides by chance (Magnetic Field's colours) override this."""
        return self.seat_name(state.players, seat)

    def teams(self, players: int) -> tuple[tuple[int, ...], ...]:
        """The seats that win and lose together. Default: every seat is its own team."""
        return tuple((seat,) for seat in range(players))

    def team_of(self, players: int, seat: int) -> tuple[int, ...]:
        return next(team for team in self.teams(players) if seat in team)

    def team_name(self, players: int, seat: int) -> str | None:
        """The name of ``seat``'s team, for games whose teams have several seats."""
        return None

    # -- the contract ------------------------------------------------------------------
    #
    # Every public method checks the types of its arguments first, so that whatever a caller
    # passes, the answer is a result or a ValueError subclass with a message for players,
    # never a TypeError from deep inside a game.

    def start(self, players: int = 2, options: Mapping[str, Any] | None = None,
              seed: str = "") -> StateT:
        if isinstance(players, bool) or not isinstance(players, int) \
                or players not in self.player_counts:
            *some, last = map(str, self.player_counts)  # "2 or 4", in the reader's words
            counts = Text("%(some)s or %(last)s", some=", ".join(some), last=last) if some \
                else last
            raise InvalidGameSetup("%(game)s is played by %(counts)s players, not %(players)s.",
                                   game=self.title, counts=counts, players=repr(players))
        return self.initial_state(players, self.resolve_options(options), str(seed))

    def resolve_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """The full option dict: defaults filled in, values checked. Unknown names are errors."""
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise InvalidGameSetup("Options must be a mapping of option names to values.")
        known = {option.name: option for option in self.options}
        unknown = [name for name in options if name not in known]  # names of any type
        if unknown:
            names = ", ".join(known) or "none"
            raise InvalidGameSetup("Unknown option %(option)s for %(game)s (its options: "
                                   "%(names)s).", option=repr(unknown[0]), game=self.title,
                                   names=names)
        return {name: option.coerce(options[name]) if name in options else option.default
                for name, option in known.items()}

    def legal_moves(self, state: StateT, seat: int) -> list[str]:
        self.check_seat(state, seat)
        if state.outcome is not None or seat not in state.to_move:
            return []
        return self.generate_moves(state, seat)

    def apply(self, state: StateT, seat: int, move: str) -> StateT:
        self.check_mover(state, seat)
        if not isinstance(move, str):
            raise IllegalMove("A move must be written as text in the game's notation.")
        text = " ".join(move.split())
        if not text:
            raise IllegalMove("The move is empty.")
        return self.play(state, seat, text)

    def view(self, state: StateT, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (a spectator if None) may know of ``state``, as JSON-ready data."""
        self.check_seat(state, seat, spectator=True)
        return self.observe(state, seat)

    def replay(self, players: int, options: Mapping[str, Any] | None, seed: str,
               moves: Iterable[tuple[int, str]]) -> StateT:
        state = self.start(players, options, seed)
        if isinstance(moves, (str, bytes)) or not isinstance(moves, Iterable):
            raise IllegalMove("The moves must be a list of (seat, move) pairs.")
        for number, entry in enumerate(moves, start=1):
            if not isinstance(entry, (tuple, list)) or len(entry) != 2:
                raise IllegalMove("Move %(number)s is not a (seat, move) pair: %(entry)s.",
                              number=number, entry=repr(entry)[:80])
            state = self.apply(state, *entry)
        return state

    def resample(self, state: StateT, seat: int, rng: random.Random) -> StateT:
        """A state that ``seat`` cannot tell from ``state`` (the same view, legal moves, ply,
        seats to move and outcome for ``seat``), its hidden parts drawn from ``rng`` among
        all that agree with what ``seat`` has seen. It depends only on what ``seat`` knows
        and on ``rng``: what a computer player samples its worlds from."""
        self.check_seat(state, seat)
        if not isinstance(rng, random.Random):
            raise InvalidGameSetup("resample needs a random.Random to draw from.")
        return self.sample_hidden(state, seat, rng)

    # -- argument checks, shared by the contract and the games' own helpers ----------------

    def check_seat(self, state: StateT, seat: int | None, *, spectator: bool = False,
                   error: type[TextError] = InvalidGameSetup) -> None:
        """Raise ``error`` unless ``state`` is this game's and ``seat`` one of its seats (or
        None, if ``spectator`` may be asked for)."""
        if not isinstance(state, self.state_type):
            raise error("That is not a state of %(game)s but %(type)s.", game=self.title,
                        type=repr(type(state).__name__))
        if spectator and seat is None:
            return
        if isinstance(seat, bool) or not isinstance(seat, int) \
                or not 0 <= seat < state.players:
            if spectator:
                raise error("%(seat)s is not a seat of this game: its seats are numbered 0 to "
                            "%(last)s, or None for a spectator.", seat=repr(seat)[:40],
                            last=state.players - 1)
            raise error("%(seat)s is not a seat of this game: its seats are numbered 0 to "
                        "%(last)s.", seat=repr(seat)[:40], last=state.players - 1)

    def check_mover(self, state: StateT, seat: int) -> None:
        """Raise ``IllegalMove`` unless ``seat`` may move now: for what ``check_seat``
        refuses (the contract: bad input to ``apply`` is an IllegalMove), once the game is
        over, or out of turn."""
        self.check_seat(state, seat, error=IllegalMove)
        if state.outcome is not None:
            raise IllegalMove("The game is over.")
        if seat not in state.to_move:
            raise IllegalMove("It is not your turn.")

    # -- beyond the contract: what a server needs ------------------------------------------

    def public_move(self, seat: int, move: str, viewer: int | None, current: StateT) -> str:
        """The text of ``seat``'s move as ``viewer`` may see it in the move list.

        Moves are public in most games; a game with secret moves (Magnet's setup) overrides
        this. ``current`` is the game's latest state: once it is over, all may be shown.
        """
        return move

    def review_view(self, state: StateT, seat: int | None, final: StateT) -> dict[str, Any]:
        """``view`` of an earlier ``state`` of a game whose latest state is ``final``, for
        its history pages. By default the same as ``view``; a game whose secrets become
        public at the end (Magnet's values) shows them here once ``final`` is over."""
        return self.view(state, seat)

    def canonical(self, state: StateT, seat: int, move: str) -> str:
        """``move`` spelled as the game writes it, which is what logs store. Raises
        ``IllegalMove`` as ``apply`` would."""
        return self.played(state, seat, move)[0]

    def played(self, state: StateT, seat: int, move: str) -> tuple[str, StateT]:
        """``move`` played once for both what a server needs of it: its ``canonical``
        spelling and the state after it (``apply``'s, which is the canonical spelling's
        whenever the two spellings are the same). Raises ``IllegalMove`` as ``apply``
        would."""
        after = self.apply(state, seat, move)
        return self.notation(state, seat, " ".join(move.split()), after), after

    def conclude(self, state: StateT, outcome: Outcome) -> StateT:
        """End the game by a server action (resignation, agreed draw, timeout)."""
        return dataclasses.replace(state, to_move=(), outcome=outcome)

    def rules_text(self, language: str) -> tuple[str, str] | None:
        """The rules as plain text (paragraphs between blank lines), in ``language`` or else
        English, with the language it is in, for a game whose rules page the server does
        not have; None: no text."""
        return None

    def drawing(self, view: Mapping[str, Any], seat: int | None) -> str | None:
        """The board of ``view`` as SVG markup, for a game the server has no drawing of
        (a plugin that brings its own); None: the server draws the view generically."""
        return None

    def resignation(self, state: StateT, seat: int) -> Outcome:
        """``seat``'s side gives up; in a team game the whole team does ("Red resigned")."""
        team = self.team_of(state.players, seat)
        winners = tuple(s for s in range(state.players) if s not in team)
        side = self.team_name(state.players, seat) or self.side_name(state, seat)
        return Outcome(winners, False, Text("%(side)s resigned", side=side))

    # -- game-specific -------------------------------------------------------------------

    def initial_state(self, players: int, options: dict[str, Any], seed: str) -> StateT:
        raise NotImplementedError

    def generate_moves(self, state: StateT, seat: int) -> list[str]:
        """Every legal move of ``seat``, who is to move in an unfinished game."""
        raise NotImplementedError

    def play(self, state: StateT, seat: int, move: str) -> StateT:
        """Apply ``move`` (whitespace already normalised) for ``seat``, who may move now."""
        raise NotImplementedError

    def observe(self, state: StateT, seat: int | None) -> dict[str, Any]:
        """``view`` of a valid seat (None: a spectator)."""
        raise NotImplementedError

    def sample_hidden(self, state: StateT, seat: int, rng: random.Random) -> StateT:
        """``resample`` of a valid seat. Games without hidden information: ``state`` itself."""
        return state

    def notation(self, state: StateT, seat: int, text: str, after: StateT) -> str:
        """The canonical text of the legal move ``text`` of ``seat``, which took ``state`` to
        ``after``. By default the move ``parse`` finds; a game whose record leaves out what
        did not happen (Magnet's promotions of pieces a trap destroyed) overrides this."""
        return str(self.parse(state, seat, text))

    def parse(self, state: StateT, seat: int, text: str) -> Any:
        """The game's own object for the legal move ``text`` names; its ``str()`` is the move
        in canonical notation. Games with lenient input return a move object; by default
        the (whitespace-normalised) text is already canonical."""
        return text


def perft(game: Game, state: State, depth: int) -> int:
    """The number of move sequences of length ``depth``: a check on move generation.

    Where several seats may move (Magnet's setup), a move of any of them counts as one ply.
    """
    if depth == 0 or state.outcome is not None:
        return 1
    return sum(perft(game, game.apply(state, seat, move), depth - 1) if depth > 1 else 1
               for seat in state.to_move for move in game.legal_moves(state, seat))


def random_playout(game: Game, state: State, rng: random.Random,
                   max_plies: int = 10_000) -> tuple[State, list[tuple[int, str]]]:
    """Play random legal moves until the game ends (or ``max_plies``); return the end state
    and the moves played. Used by tests and benchmarks."""
    moves: list[tuple[int, str]] = []
    while state.outcome is None and len(moves) < max_plies:
        seat = rng.choice(state.to_move)
        move = rng.choice(game.legal_moves(state, seat))
        state = game.apply(state, seat, move)
        moves.append((seat, move))
    return state, moves


def random_positions(game: Game, players: int, count: int, seed: str,
                     options: Mapping[str, Any] | None = None,
                     plies: tuple[int, int] = (2, 50)) -> list[State]:
    """``count`` positions of games still running, each reached by random legal moves (a
    number of them drawn between ``plies``), all determined by ``seed``. Used by tests and
    benchmarks."""
    rng, found = random.Random(seed), list[State]()
    while len(found) < count:
        state = game.start(players, options, f"{seed}-{len(found)}")
        state, _ = random_playout(game, state, rng, rng.randrange(*plies))
        if state.outcome is None:
            found.append(state)
    return found
