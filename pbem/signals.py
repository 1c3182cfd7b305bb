"""What happens to games, as blinker signals (Flask's own mechanism).

``matches`` sends them inside the write transaction that records the change, and imports
nothing that tells anyone: the code that does (emails in ``notify``) subscribes. A receiver
queues its messages with the ``db`` it is given (the signal's sender), so they commit or
roll back with the change itself.
"""
from blinker import Namespace

_signals = Namespace()

game_created = _signals.signal("game-created")
"""A game was stored. Keywords: ``match`` (the new ``matches.Match``) and
``spectator_token`` (its read-only link's secret)."""

event_recorded = _signals.signal("event-recorded")
"""An event was appended to a game's log. Keywords: ``before`` and ``after`` (the match
without and with it), ``event`` (the ``matches.Event``) and ``latest`` (the match after
every event of the same action: a move and the conditional replies it set off)."""
