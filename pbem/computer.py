"""The seats the server plays: computer players, and stand-ins for people on vacation.

A computer player is a seat created as ``{"bot": level}`` (``seats.bot``, a level of
``engine.bots.LEVELS``). It is named "Computer (level)" and has neither a link nor an email
address, so nothing is ever sent to it. A person may also let the computer play for their
seat while they are on vacation (``seats.stand_in``, ticked on the notification settings
page): then it plays that seat's moves at ``STAND_IN_LEVEL`` while a vacation runs, and
answers nothing for them (nor moves while a draw offer waits for their answer).

Moves are computed here, by the background jobs (``scheduler.play_bots``) and the
``play-bots`` command, never in a web request: a search takes up to seconds. A person
waiting for the computer comes first: games between computers, which anyone may start
through the API and nobody waits for, are paced and get only the time left (``play_due``),
and a client may have only a few running (``check_running``). A move goes through
``commands.submit`` like a person's, with the ply it was computed at, so a second
runner that computed the same turn finds it recorded (or is refused as stale); it is
logged, timed and told like any move. Where several job runners share a PostgreSQL
database, each turn is claimed first (an advisory lock, ``db.claimed``), so only one of
them spends the seconds of the search. Its seed is derived from the game's secret seed and
the ply, so the computer's moves in a game are repeatable, and the seed itself is never
shown.

A computer player never offers a draw and never resigns, so it never resigns a won game.
It judges an offer by how its position looks (``outlook``: its own evaluation, averaged
over positions its seat cannot tell from the real one): it accepts a draw when it is
behind, and a partner's proposal that their team resign only when the position looks
lost; otherwise it declines, or plays on.
"""
from __future__ import annotations

import hashlib
import hmac
import logging
import math
import random
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

import engine
import sqlite_utils
from engine import bots

from . import clocks, commands, due, matches
from .events import Command, KindName, Move
from .store import utc
from .store.db import claimed, hold_name, write
from .matches import Match

log = logging.getLogger(__name__)

STAND_IN_LEVEL = "medium"
LEVEL_NAMES = {"easy": engine.Text("easy"), "medium": engine.Text("medium"),
               "hard": engine.Text("hard")}  # ``bots.LEVELS`` as players read them
WORLDS = 8              # positions drawn to judge an offer
ACCEPT_DRAW_BELOW = 0.4     # an outlook below this accepts a draw (0.5: an even game)
ACCEPT_RESIGN_BELOW = 0.1   # ... and a partner's proposal that the team resign


@dataclass(frozen=True)
class Turn:
    """A seat the server may have to play for: a computer player to move or with an offer
    to answer, or a person who lets the computer stand in while on vacation."""
    game_id: str
    seat: int
    level: str
    stand_in: bool
    kind: str  # of its ``due`` row: a person waits for it (due.COMPUTER), or nobody does


def due_turns(db: sqlite_utils.Database, now: datetime) -> list[Turn]:
    """The seats the server may have to act for now in games with a person, who waits for
    it, the longest waiting first (found by their ``due`` rows, pbem/due.py)."""
    return _turns(db, due.COMPUTER, now)


def paced_turns(db: sqlite_utils.Database, now: datetime, pace: float) -> list[Turn]:
    """The same in games between computers, each at most one turn every ``pace`` seconds."""
    return _turns(db, due.BETWEEN_COMPUTERS, now - timedelta(seconds=pace))


def _turns(db: sqlite_utils.Database, kind: str, until: datetime) -> list[Turn]:
    return [Turn(row["game_id"], row["seat"], row["level"] or STAND_IN_LEVEL,
                 row["level"] is None, kind) for row in due.computer_turns(db, kind, until)]


def play_due(db: sqlite_utils.Database, most: int, now: datetime | None = None,
             pace: float = 0, seconds: float = math.inf) -> int:
    """Play the moves (and answers to offers) that are due, up to ``most`` in all. People
    come first, always: every turn a person waits for, one per seat in each round, and
    again while the computer is to move after its own move (several computers in a game).
    Games between computers get what is left of ``seconds``, each at most one move every
    ``pace`` seconds, the longest waiting first, and give way as soon as a person waits
    again. Returns how many were recorded."""
    ends = time.monotonic() + seconds
    played, done = 0, set()  # done: the seats with nothing (more) to do in this run

    def left(turns: list[Turn]) -> list[Turn]:
        return [turn for turn in turns if (turn.game_id, turn.seat) not in done]

    def people_wait() -> list[Turn]:
        return left(due_turns(db, now or utc.now()))

    while played < most:
        turns = people_wait()
        if not turns and time.monotonic() < ends:
            turns = left(paced_turns(db, now or utc.now(), pace))
        if not turns:
            break
        for turn in turns[:most - played]:
            if turn.kind == due.BETWEEN_COMPUTERS and (time.monotonic() >= ends
                                                       or people_wait()):
                break
            # another job runner's turn (PostgreSQL: several machines) is left to it
            with claimed(db, f"computer:{turn.game_id}:{turn.seat}") as mine:
                if mine and play(db, turn, now):
                    played += 1
                else:
                    done.add((turn.game_id, turn.seat))
    return played


def play(db: sqlite_utils.Database, turn: Turn, now: datetime | None = None) -> bool:
    """Act once for ``turn``'s seat, as the game stands: answer an offer open to a computer
    player, or move. False if there was nothing to do (then its ``due`` row is dropped: the
    game's next event writes it again), or the action was refused (another runner played
    this turn first: stale; the clock ran out meanwhile)."""
    now = now or utc.now()
    match = matches.load(db, turn.game_id)
    kind = action(match, turn, now)
    if kind is None:
        with write(db):  # as of this transaction: an event may have come in meanwhile
            if action(matches.load(db, turn.game_id), turn, now) is None:
                due.done(db, turn.game_id, turn.seat, turn.kind)
        return False
    seat, move = turn.seat, None
    if kind == "move":
        try:
            move = Move(bots.choose(match.game, match.current, seat, level=turn.level,
                                    seed=seed(match)))
        except Exception:  # an error of the game's own code (a plugin's): the others go on
            log.exception("The computer could not choose a move in game %s", match.id)
            return False
    try:
        submitted = commands.submit(db, match.id, seat, Command.of(kind, move), match.ply,
                                    now=now)
    except matches.ActionError:
        return False
    return not submitted.already_recorded


def action(match: Match | None, turn: Turn, now: datetime) -> KindName | None:
    """What the server does for ``turn``'s seat now (an event kind), or None: nothing."""
    if match is None or match.finished or clocks.ran_out(match, now):
        return None
    seat = turn.seat
    if turn.stand_in:
        # a move would decline a draw offer: that waits for the player
        if seat not in match.to_move or not on_vacation(match, seat, now) \
                or match.draw_offer_open_to(seat):
            return None
        return "move"
    if match.draw_offer_open_to(seat):
        return "draw_accept" if outlook(match, seat) < ACCEPT_DRAW_BELOW else "draw_decline"
    if match.resign_offer_open_to(seat):
        return "resign_accept" if outlook(match, seat) < ACCEPT_RESIGN_BELOW \
            else "resign_decline"
    return "move" if seat in match.to_move else None


def seed(match: Match) -> str:
    """The seed of the computer's choice at the game's current ply: from the game's secret
    seed, which it does not reveal."""
    return hashlib.sha256(f"{match.seed}\0computer\0{match.ply}".encode()).hexdigest()


def outlook(match: Match, seat: int) -> float:
    """How good the position looks to ``seat``'s side, from 0 (lost) to 1 (won): the bot's
    evaluation averaged over positions drawn among those the seat cannot tell apart (it
    reads nothing hidden from ``seat``)."""
    game, heuristics = match.game, bots.heuristics_of(match.game)
    rng = random.Random(f"{seed(match)}\0outlook")
    worlds = [game.resample(match.current, seat, rng) for _ in range(WORLDS)]
    return sum(heuristics.evaluate(world, seat) for world in worlds) / WORLDS


def on_vacation(match: Match, seat: int, now: datetime) -> bool:
    seat_clocks = clocks.of_match(match, now)
    return seat_clocks is not None and seat_clocks[seat].vacation_until is not None


# -- games between computers, per client ---------------------------------------------------

RETRY_SECONDS = 60  # when a client at COMPUTER_GAMES_RUNNING is told to ask again


class TooManyRunning(matches.ActionError):
    """A client has COMPUTER_GAMES_RUNNING games between computers running already."""

    status = 429


def client_key(address: str, secret: str) -> str:
    """How a game between computers remembers the client that started it: its address
    hashed with the server's secret key, not the address."""
    return hmac.new(secret.encode(), address.encode(), hashlib.sha256).hexdigest()


def check_running(db: sqlite_utils.Database, client: str, most: int) -> None:
    """Inside the write transaction that starts a game between computers for ``client``:
    refuse it if the client has ``most`` running already."""
    hold_name(db, f"client:{client}")  # PostgreSQL's writers go on side by side: one waits
    running = db.execute("SELECT count(*) FROM games WHERE client = ? AND status = 'active'",
                         [client]).fetchone()[0]
    if running >= most:
        raise TooManyRunning("You have %(count)s games between computers running, the most "
                             "this server runs for one address (%(most)s). Please wait for "
                             "one to end.", {"Retry-After": str(RETRY_SECONDS)},
                             count=running, most=most)


def stands_in(db: sqlite_utils.Database, game_id: str, seat: int) -> bool:
    """Whether the computer plays ``seat``'s moves while its player is on vacation."""
    return any(row["stand_in"] for row in db.query(
        "SELECT stand_in FROM seats WHERE game_id = ? AND seat = ?", [game_id, seat]))


def set_stand_in(db: sqlite_utils.Database, game_id: str, seat: int, on: bool) -> None:
    db.execute("UPDATE seats SET stand_in = ? WHERE game_id = ? AND seat = ? AND bot IS NULL",
               [int(on), game_id, seat])
