"""Secret setups committed: a game with hidden information publishes from its start the
SHA-256 of its seed, and reveals the seed once the game is over.

The seed (128 random bits, ``creation.new_game``) decides every chance event of a game
(``engine.core.chance``: Magnet's random setup, Magnetic Field's colours and the order of
its deck), and the players' own choices (a Magnet setup, a draft pick) are moves of its log.
So the seed and the moves make the whole game: anyone holding the commitment from the
start can check, once the seed is revealed, that ``sha256(seed) == commitment`` (the
hidden setup was fixed before the first move, and the server could not change it later)
and replay the game with ``engine.get(game).replay(players, options, seed, moves)``.
Before the end the commitment is all that is shown: 128 bits cannot be searched for it.
"""
from __future__ import annotations

import hashlib
from typing import Any

from .matches import Match


def commitment(seed: str) -> str:
    """The SHA-256 of ``seed`` (its UTF-8), in hex."""
    return hashlib.sha256(seed.encode()).hexdigest()


def published(match: Match) -> dict[str, Any]:
    """What a game answer says of the seed: for a game with hidden information, the
    commitment, and the seed itself once the game is over; nothing for other games (their
    chance events, if any, hide nothing from the players)."""
    if not match.game.hidden_information:
        return {}
    return {"commitment": commitment(match.seed),
            **({"seed": match.seed} if match.finished else {})}
