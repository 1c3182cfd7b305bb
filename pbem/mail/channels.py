"""Which channel tells a seat what: for each topic (its turn, offers, chat, a deadline near,
the end of the game), push notifications to its devices (``push``), email, both or
neither. The choice is the seat's (``seats.channels``, set on the play link's notification
settings); a topic it never set is as its player chose for all their games
(``players.channels``, on the signed-in dashboard), else both.

Email still answers to the seat's choice of emails as well (``preferences.PREFERENCES``: every
turn, a daily digest, none), and push goes only to the devices that subscribed, so "both"
is what a seat gets by default. A deadline warning with both goes to push first and by
email too if the seat has still not moved some hours later (``notify``).
"""
from __future__ import annotations

import json
from typing import Any, NamedTuple

import sqlite_utils
from flask_babel import lazy_gettext

from .. import events, players

TOPICS = {"turn": lazy_gettext("Your turn (and reminders)"),
          "offers": lazy_gettext("Offers: a draw, a resignation, a rematch"),
          "chat": lazy_gettext("Chat messages"),
          "deadline": lazy_gettext("Your time running out"),
          "end": lazy_gettext("The end of the game")}
CHOICES = {"both": lazy_gettext("notification and email"),
           "push": lazy_gettext("notification only"),
           "email": lazy_gettext("email only"), "none": lazy_gettext("neither")}
DEFAULT = "both"
# The kinds of message (``notify.SUBJECTS``) each topic covers, the players' own events'
# as their kinds say (``events.Tells.topic``); others (the start, answers to emailed moves,
# ...) always go by email alone.
TOPIC_OF = {"turn": "turn", "reminder": "turn", "deadline": "deadline", "end": "end",
            "expired": "end",
            **{kind.tells.email: kind.tells.topic for kind in events.KINDS.values()
               if kind.tells and kind.tells.topic}}


class Wanted(NamedTuple):
    email: bool
    push: bool


def of_player(db: sqlite_utils.Database, player_id: int) -> dict[str, str]:
    """The player's choice for every topic: the default of their seats."""
    chosen = _stored(db, "players", "id = ?", [player_id])
    return {topic: chosen.get(topic, DEFAULT) for topic in TOPICS}


def of_seat(db: sqlite_utils.Database, game_id: str, seat: int) -> dict[str, str]:
    """The seat's choice for every topic."""
    owners = players.owners(db, game_id, seat)
    defaults = of_player(db, owners[0].id) if owners else dict.fromkeys(TOPICS, DEFAULT)
    return defaults | _stored(db, "seats", "game_id = ? AND seat = ?", [game_id, seat])


def set_seat(db: sqlite_utils.Database, game_id: str, seat: int,
             choices: dict[str, str]) -> None:
    """Set the seat's topics of ``choices`` (the others keep theirs, or their default)."""
    _store(db, "seats", "game_id = ? AND seat = ?", [game_id, seat], choices)


def set_player(db: sqlite_utils.Database, player_id: int, choices: dict[str, str]) -> None:
    """Set the player's topics of ``choices``: for their seats that did not choose."""
    _store(db, "players", "id = ?", [player_id], choices)


def _stored(db: sqlite_utils.Database, table: str, where: str,
            params: list[Any]) -> dict[str, str]:
    row = db.execute(f"SELECT channels FROM {table} WHERE {where}", params).fetchone()
    return json.loads(row[0]) if row and row[0] else {}


def _store(db: sqlite_utils.Database, table: str, where: str, params: list[Any],
           choices: dict[str, str]) -> None:
    unknown = {topic: choice for topic, choice in choices.items()
               if topic not in TOPICS or choice not in CHOICES}
    if unknown:
        raise ValueError(f"unknown channel choices {unknown!r}")
    db.execute(f"UPDATE {table} SET channels = ? WHERE {where}",
               [json.dumps(_stored(db, table, where, params) | choices), *params])


def wanted(db: sqlite_utils.Database, game_id: str, seat: int, kind: str) -> Wanted:
    """Whether a message of ``kind`` to ``seat`` goes by email, and by push."""
    topic = TOPIC_OF.get(kind)
    if topic is None:
        return Wanted(email=True, push=False)
    choice = of_seat(db, game_id, seat)[topic]
    return Wanted(email=choice in ("email", "both"), push=choice in ("push", "both"))
