"""What a request may be refused with: one tree of refusals under ``ActionError``.

Each refusal carries what its answer needs: its HTTP ``status``, the ``headers`` its answer
carries besides (a ``Retry-After``), and its message for people, an ``engine.Text`` of an
English template and its fields, translated where it is shown (``languages.translated``):
so a refusal is raised with its English words and fields, never with words translated
already. The web's blueprints turn a refusal into their answer in one place each
(``web.refusals``: JSON for the API, the page of the form for forms); mail and the jobs
read ``message`` for what they write.

The modules that refuse with a kind of their own keep its name (``conditional.BadLines``,
``mail.webhooks.BadWebhook``...): the tree is here.
"""
from __future__ import annotations

from typing import Any

import engine


class ActionError(Exception):
    """A request the server refuses; ``status`` is the HTTP status it maps to, ``headers``
    what its answer carries besides (a Retry-After). Its ``message`` is an ``engine.Text``
    of ``message`` and ``fields``: English as a str, and in the reader's language where a
    page, an email or the API shows it (``languages.translated``)."""

    status = 400
    # the game as the refusal found it (``commands.submit`` sets it): nothing was written,
    # so whoever shows the refusal beside the game need not load it again
    match: Any = None

    def __init__(self, message: str, /, headers: dict[str, str] | None = None, **fields: Any):
        self.message = engine.Text(message, **fields)
        super().__init__(self.message)
        self.headers = headers or {}

    @property
    def text(self) -> engine.Text:
        """The message (as ``engine.TextError`` names it)."""
        return self.message


class InvalidRequest(ActionError):
    """A request that is malformed: a field missing or of the wrong type."""

    status = 400


class StalePosition(ActionError):
    """A request made from a position that is no longer the game's."""

    status = 409


class Refused(ActionError):
    """Illegal moves, moves out of turn, and actions the game's situation does not allow."""

    status = 422


class SeatTaken(ActionError):
    """A join link used for a seat someone already took (or a game withdrawn meanwhile)."""

    status = 409


class BadLines(Refused):
    """Conditional lines that cannot be stored; the message tells a player why."""


class AnalysisRefused(Refused):
    """A line that cannot be explored: hidden information in a running game, a ply the game
    never reached."""


class BadWebhook(InvalidRequest):
    """A URL the server will not post to; the message tells a player why."""


class BadSubscription(InvalidRequest):
    """A push subscription the server will not push to; the message says why."""


class TooManyDevices(ActionError):
    """A seat or player whose news already goes to the most devices there may be."""

    status = 409


class BadRecord(Refused):
    """An uploaded game record this server cannot replay; the message says why."""


class Unreadable(InvalidRequest):
    """An email too large, too deep or too malformed to read: refused for good (its
    message, for the log, is English only)."""
