"""Games from other distributions: the objects their ``pbem.games`` entry points name.

A distribution declares its game in its ``pyproject.toml``::

    [project.entry-points."pbem.games"]
    four-in-a-row = "four_in_a_row:GAME"

The object needs only the engine interface every game has (``id``, ``title``,
``player_counts``, ``default_options``, ``start``, ``legal_moves``, ``apply``, ``view``,
``replay``) and, where it has hidden information, part 3's ``resample``. ``load`` finds every
such object and wraps it in a ``PluginGame``: the ``Game`` the server plays, which answers
what a server asks beyond part 1 (option forms, seat names, server endings, what others see
of a move, rules text, a drawing) from what the plugin brings, else generically. A plugin
that fails to load is logged and left out; the others and the built-in games go on.

What a plugin may bring beyond part 1 (docs/writing-a-game.md):

- ``options``: ``engine.Option`` objects, one per default option, for the new-game form;
- ``seat_names``: ``{players: (name, ...)}``, e.g. ``{2: ("Yellow", "Red")}``;
- ``rules``: the rules as plain text, or ``{language: text}``;
- ``draw(view, seat) -> str``: the board of a view as SVG markup;
- ``public_move(seat, move, viewer, state) -> str``: a move as ``viewer`` may see it;
- ``hidden_information`` (default: whether it has ``resample``), ``lists_every_move``
  (default true), ``tournaments`` (default true).
"""
from __future__ import annotations

import dataclasses
import json
import logging
import random
import re
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Collection, Mapping

from .core import Game, IllegalMove, InvalidGameSetup, Option, Outcome, State, Text, TextError

GROUP = "pbem.games"
INTERFACE = ("id", "title", "player_counts", "default_options", "start", "legal_moves",
             "apply", "view", "replay")
GAME_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # it names pages: /new/<id>, /rules/<id>
# What others see of a move in a game with hidden information that does not say
# (``public_move``): nothing, until the game is over, as the safe default.
HIDDEN_MOVE = "?"

log = logging.getLogger(__name__)
FAILED: dict[str, str] = {}  # entry point name -> why its game was not loaded
LOADED: dict[str, str] = {}  # game id -> the distribution that brought it, "name version"


class PluginError(ValueError):
    """An entry point's object is not a game the server can play."""


@dataclass(frozen=True, kw_only=True)
class PluginState(State):
    """A plugin's state, ``inner``, with what the server reads of every state (the base
    class's fields, copied from it) and the server's own endings (``Game.conclude``: a
    resignation, an agreed draw, a timeout), which the plugin knows nothing of."""

    game: str
    inner: Any


class OpenOption(Option):
    """An option a plugin names only by its default: the form offers the default (a yes/no
    both values), and a value it does not list goes to the plugin's own ``start`` to
    judge."""

    def coerce(self, value: Any) -> Any:
        try:
            return super().coerce(value)
        except InvalidGameSetup:
            return value


class PluginGame(Game[PluginState]):
    """A plugin's game as the server plays it: part 1 through the plugin, the rest through
    what it brings or the generic answers of ``Game``. Each plugin gets a subclass of its
    own (``adapt``), whose class attributes describe it."""

    state_type = PluginState
    # A plugin's states are its own classes, made by code the engine's digest does not
    # cover: the server replays them from the log rather than keep them pickled.
    stored_positions = False

    def __init__(self, plugin: Any, distribution: str = ""):
        self.plugin = plugin
        self.distribution = distribution  # "name version", for what caches drawn pages

    # -- part 1, through the plugin ------------------------------------------------------

    def initial_state(self, players: int, options: dict[str, Any], seed: str) -> PluginState:
        try:
            inner = self.plugin.start(players=players, options=options, seed=seed)
        except TextError:
            raise
        except ValueError as error:  # the contract's errors, as the engine's own
            raise InvalidGameSetup(str(error)) from None
        return self._following(PluginState(players=players, options=options, game=self.id,
                                           inner=None), inner)

    def generate_moves(self, state: PluginState, seat: int) -> list[str]:
        return list(self.plugin.legal_moves(state.inner, seat))

    def play(self, state: PluginState, seat: int, move: str) -> PluginState:
        try:
            inner = self.plugin.apply(state.inner, seat, move)
        except IllegalMove:
            raise
        except ValueError as error:
            raise IllegalMove(str(error)) from None
        return self._following(state, inner)

    def observe(self, state: PluginState, seat: int | None) -> dict[str, Any]:
        return self.plugin.view(state.inner, seat)

    def sample_hidden(self, state: PluginState, seat: int, rng: random.Random) -> PluginState:
        resample = getattr(self.plugin, "resample", None)
        inner = state.inner if resample is None else resample(state.inner, seat, rng)
        return state if inner is state.inner else dataclasses.replace(state, inner=inner)

    def _following(self, state: PluginState, inner: Any) -> PluginState:
        """``state`` holding the plugin's ``inner``, what every state tells read from it."""
        outcome = inner.outcome
        if outcome is not None and not isinstance(outcome, Outcome):
            outcome = Outcome(tuple(outcome.winners), bool(outcome.draw), str(outcome.reason))
        return dataclasses.replace(state, inner=inner, ply=int(inner.ply),
                                   to_move=tuple(inner.to_move), outcome=outcome)

    def check_seat(self, state: PluginState, seat: int | None, *, spectator: bool = False,
                   error: type[TextError] = InvalidGameSetup) -> None:
        if isinstance(state, PluginState) and state.game != self.id:
            raise error("That is not a state of %(game)s but of %(other)s.", game=self.title,
                        other=repr(state.game))
        super().check_seat(state, seat, spectator=spectator, error=error)

    # -- beyond part 1: what the plugin brings, else the generic answer ---------------------

    def public_move(self, seat: int, move: str, viewer: int | None,
                    current: PluginState) -> str:
        own = getattr(self.plugin, "public_move", None)
        if own is not None:
            return str(own(seat, move, viewer, current.inner))
        if self.hidden_information and viewer != seat and current.outcome is None:
            return HIDDEN_MOVE
        return move

    def rules_text(self, language: str) -> tuple[str, str] | None:
        rules = getattr(self.plugin, "rules", None)
        if isinstance(rules, str):
            rules = {"en": rules}
        if not isinstance(rules, Mapping):
            return None
        written = language if rules.get(language) else "en"
        text = rules.get(written)
        return (written, text) if isinstance(text, str) and text.strip() else None

    def drawing(self, view: Mapping[str, Any], seat: int | None) -> str | None:
        draw = getattr(self.plugin, "draw", None)
        return None if draw is None else str(draw(view, seat))


def adapt(plugin: Any, distribution: str = "") -> PluginGame:
    """``plugin`` as the ``Game`` the server plays; ``PluginError`` if it lacks part 1's
    interface or describes itself in a way the server cannot use."""
    missing = [name for name in INTERFACE if not hasattr(plugin, name)]
    if missing:
        raise PluginError(f"it has no {', '.join(missing)} (the engine interface every game has)")
    game_id = plugin.id
    if not isinstance(game_id, str) or not GAME_ID.fullmatch(game_id) or len(game_id) > 40:
        raise PluginError(f"its id {game_id!r} is not 1 to 40 of a-z, 0-9 and inner dashes")
    counts = tuple(plugin.player_counts)
    if not counts or not all(type(n) is int and n >= 1 for n in counts):
        raise PluginError(f"its player_counts {counts!r} are not whole numbers of players")
    defaults = dict(plugin.default_options)
    try:
        json.dumps(defaults)
    except (TypeError, ValueError):
        raise PluginError("its default_options are not JSON values") from None
    described = {
        "id": game_id, "title": str(plugin.title), "player_counts": counts,
        "options": _options(plugin, defaults),
        "seat_names": dict(getattr(plugin, "seat_names", None) or {}),
        "hidden_information": hides(plugin),
        "lists_every_move": bool(getattr(plugin, "lists_every_move", True)),
        "tournaments": bool(getattr(plugin, "tournaments", True)),
    }
    return type(f"{type(plugin).__name__}Game", (PluginGame,), described)(plugin, distribution)


def hides(game: Any) -> bool:
    """Whether a seat of ``game`` (any object with part 1's interface) may not know all of a
    position: what it says, else whether it has part 3's ``resample``."""
    return bool(getattr(game, "hidden_information", callable(getattr(game, "resample", None))))


def _options(plugin: Any, defaults: dict[str, Any]) -> tuple[Option, ...]:
    declared = getattr(plugin, "options", None)
    if declared is None:
        return tuple(OpenOption(name, default, (True, False) if isinstance(default, bool)
                                else (default,), Text(name.replace("_", " ").capitalize()))
                     for name, default in defaults.items())
    options = tuple(declared)
    if not all(isinstance(o, Option) for o in options) \
            or {o.name: o.default for o in options} != defaults:
        raise PluginError("its options are not engine.Option objects, one for each of its "
                          "default_options with the same default")
    return options


def load(taken: Collection[str]) -> dict[str, Game]:
    """The games that installed distributions declare in ``GROUP``, by id, leaving out
    ``taken`` ids. One that fails (its import, its object, an id already taken) is logged
    with its reason, kept in ``FAILED``, and left out."""
    found: dict[str, Game] = {}
    for entry in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        dist = entry.dist
        try:
            game = adapt(entry.load(), f"{dist.name} {dist.version}" if dist else "")
            if game.id in taken or game.id in found:
                raise PluginError(f"another game has its id {game.id!r}")
        # A plugin's failure, whatever it is, must not stop the server nor the other games.
        except Exception as error:
            FAILED[entry.name] = f"{type(error).__name__}: {error}"
            log.error("The game plugin %r (%s) was not loaded: %s", entry.name, entry.value,
                      FAILED[entry.name], exc_info=not isinstance(error, PluginError))
            continue
        FAILED.pop(entry.name, None)
        LOADED[game.id] = game.distribution
        found[game.id] = game
    return found
