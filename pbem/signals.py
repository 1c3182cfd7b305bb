"""What happens to games, as blinker signals (Flask's own mechanism).

``matches`` sends them inside the write transaction that records the change, and imports
nothing that tells anyone: the code that does (emails in ``notify``) subscribes. A receiver
queues its messages with the ``db`` it is given (the signal's sender), so they commit or
roll back with the change itself.
"""
from blinker import Namespace

_signals = Namespace()

games_created = _signals.signal("games-created")
"""Games were stored, one or thousands at once (a tournament's round). Keywords: ``games``
(each a ``creation.Created``: the new match and its links' secrets) and ``announce``
(False: their players are told otherwise, as a tournament's are, and get no start email;
nor have the games links yet, so their tokens are None)."""

event_recorded = _signals.signal("event-recorded")
"""An event was appended to a game's log. Keywords: ``before`` and ``after`` (the match
without and with it), ``event`` (the ``matches.Event``) and ``latest`` (the match after
every event of the same action: a move and the conditional replies it set off)."""

round_started = _signals.signal("round-started")
"""A tournament's round began (a round robin's only one holds all its games). Keywords:
``tournament`` (a ``tournaments.Tournament``) and ``games`` (its new games' rows: game_id,
first_id, second_id; a bye's game_id None)."""

tournament_finished = _signals.signal("tournament-finished")
"""A tournament ended (or was cancelled). Keyword: ``tournament``, as it ended."""
