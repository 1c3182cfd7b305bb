"""Pure rules of the games the server plays: no web, no database.

``engine.GAMES`` maps each game id to its ``Game``; see ``engine.core`` for the interface.
"""
from .core import (Game, IllegalMove, InvalidGameSetup, Option, Outcome, State, Text,
                   TextError, UnknownGame, chance, perft, random_playout, random_positions)
from . import magnet, magnetic_field, mastery, the_right_moves

GAMES: dict[str, Game] = {game.id: game for game in (
    mastery.GAME, magnet.GAME, the_right_moves.GAME, magnetic_field.GAME)}


def get(game_id: str) -> Game:
    try:
        return GAMES[game_id]
    except (KeyError, TypeError):
        raise UnknownGame(Text("There is no game called %(name)s.",
                               name=repr(game_id))) from None


__all__ = ["GAMES", "Game", "IllegalMove", "InvalidGameSetup", "Option", "Outcome", "State",
           "Text", "TextError", "UnknownGame", "chance", "get", "perft", "random_playout",
           "random_positions"]
