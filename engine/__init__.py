"""Pure rules of the games the server plays: no web, no database.

``engine.GAMES`` maps each game id to its ``Game``; see ``engine.core`` for the interface.
Beside the games of this package, it holds those of installed distributions that declare
them as ``pbem.games`` entry points (``engine.plugins``).
"""
from .core import (Game, IllegalMove, InvalidGameSetup, Option, Outcome, State, Text,
                   TextError, UnknownGame, chance, perft, random_playout, random_positions)
from . import magnet, magnetic_field, mastery, plugins, the_right_moves

GAMES: dict[str, Game] = {game.id: game for game in (
    mastery.GAME, magnet.GAME, the_right_moves.GAME, magnetic_field.GAME)}


def get(game_id: str) -> Game:
    try:
        return GAMES[game_id]
    except (KeyError, TypeError):
        raise UnknownGame(Text("There is no game called %(name)s.",
                               name=repr(game_id))) from None


__all__ = ["GAMES", "Game", "IllegalMove", "InvalidGameSetup", "Option", "Outcome", "State",
           "Text", "TextError", "UnknownGame", "chance", "get", "load_plugins", "perft",
           "random_playout", "random_positions"]


def load_plugins() -> dict[str, Game]:
    """Add to ``GAMES`` the games of the installed plugins it does not hold yet (see
    ``engine.plugins``), and return them: done once, as the engine is imported; again only
    where a distribution was installed since (the tests)."""
    found = plugins.load(GAMES)
    GAMES.update(found)
    return found


# Last: a plugin's module, imported now, may import any of the names above.
load_plugins()
