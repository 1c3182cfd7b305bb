"""Game clocks: time controls counted in days, derived from a game's event log.

A game's time control is a server setting fixed at creation (the JSON column
``games.clock``), not an engine option::

    {"mode": "none"}
    {"mode": "per_move", "days": 3, ...}
    {"mode": "fischer", "initial_days": 7, "increment_days": 1, "max_days": 14, ...}

with, for both clocked modes, ``"weekends": "count" | "pause"`` (pause: Saturday and Sunday,
UTC, do not count), ``"on_timeout": "loss" | "draw"`` and ``"vacation_days": N`` (each
player's allowance per calendar year, UTC).

Everything above the last section is pure: the clocks are computed from the settings, the
game's events (their ``created_at`` timestamps), who was to move after each of them, and a
``now``. Nothing is stored but the log, so a restart loses nothing:

- A seat's clock runs from the event that puts it to move (or the game's start: its
  creation, or the join that took its last open seat) until its own move. ``per_move``:
  each move must come within ``days`` of its turn's start.
  ``fischer``: a bank of ``initial_days``; the time a move took is taken from the bank and
  ``increment_days`` added after it, never above ``max_days``.
- With the weekend pause, time between Saturday 00:00 and Monday 00:00 UTC is not counted.
- A ``vacation`` event (the ``move`` column holds the number of days) pauses that player's
  clock for that many days from its declaration (or from the end of a vacation already
  running). The days count against the allowance of the declaration's year.
- A ``timeout`` event, recorded by the scheduler's job (the last section) once a to-move
  seat's deadline has passed, ends the game as a loss for that seat's team or as a draw.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Iterable, Literal, Mapping, Sequence

from engine import Outcome, Text, TextError
from flask_babel import gettext, ngettext

from . import languages

from .store import utc

DAY = 86400.0
MODES = ("none", "per_move", "fischer")
WEEKENDS = ("count", "pause")
ON_TIMEOUT = ("loss", "draw")
# The settings each mode takes: name -> (smallest, largest, default or None if required).
FIELDS: dict[str, dict[str, tuple[int, int, int | None]]] = {
    "none": {},
    "per_move": {"days": (1, 60, None)},
    "fischer": {"initial_days": (1, 365, None), "increment_days": (0, 60, None),
                "max_days": (1, 365, None)},
}
VACATION = (0, 365, 0)
NO_CLOCK = {"mode": "none"}
# A 0 a.m. Monday: weeks (for the weekend pause) are counted from it.
MONDAY = datetime(1970, 1, 5, tzinfo=timezone.utc)
WEEK = 7 * DAY
WORKWEEK = 5 * DAY


# -- settings ------------------------------------------------------------------------------

def settings(raw: Any) -> dict[str, Any]:
    """The normalised time control of a creation request; ``None`` means no clock.
    Raises ``TextError`` (a ValueError) with a message for the person who sent ``raw``."""
    if raw is None:
        return dict(NO_CLOCK)
    if not isinstance(raw, Mapping):
        raise TextError("'clock' must be an object such as {\"mode\": \"per_move\", \"days\": 3}.")
    mode = raw.get("mode", "none")
    if mode not in MODES:
        raise TextError("The clock's 'mode' must be one of: %(modes)s.", modes=tuple(MODES))
    if mode == "none":
        extra = sorted(set(raw) - {"mode"})
        if extra:
            raise TextError("A game without a clock takes no '%(name)s'.", name=extra[0])
        return dict(NO_CLOCK)
    fields = FIELDS[mode]
    allowed = {"mode", "weekends", "on_timeout", "vacation_days", *fields}
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise TextError("Unknown clock setting '%(name)s' for mode %(mode)s (its settings: "
                        "%(names)s).", name=unknown[0], mode=mode,
                        names=tuple(sorted(allowed - {"mode"})))
    result: dict[str, Any] = {"mode": mode}
    for name, limits in {**fields, "vacation_days": VACATION}.items():
        result[name] = _whole(raw, name, *limits)
    if mode == "fischer" and result["max_days"] < result["initial_days"]:
        raise TextError("The clock's 'max_days' must be at least its 'initial_days'.")
    for name, choices in (("weekends", WEEKENDS), ("on_timeout", ON_TIMEOUT)):
        value = raw.get(name, choices[0])
        if value not in choices:
            raise TextError("The clock's '%(name)s' must be one of: %(choices)s.", name=name,
                            choices=tuple(choices))
        result[name] = value
    return result


def _whole(raw: Mapping[str, Any], name: str, low: int, high: int, default: int | None) -> int:
    value = raw.get(name, default)
    if value is None:
        raise TextError("The clock needs '%(name)s' (a whole number of days).", name=name)
    if isinstance(value, str) and value.strip().isdecimal():  # int() reads every such text
        value = int(value)  # from a form
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise TextError("The clock's '%(name)s' must be a whole number of days from %(low)s "
                        "to %(high)s.", name=name, low=low, high=high)
    return value


def from_form(form: Mapping[str, str]) -> dict[str, Any] | None:
    """The raw settings of the new-game form's fields ``clock-<name>``: only those of the
    chosen mode, since the form shows them all."""
    mode = form.get("clock-mode", "none")
    if mode == "none":
        return None
    if mode not in MODES:
        return {"mode": mode}  # refused, with the list of modes
    names = [*FIELDS[mode], "vacation_days", "weekends", "on_timeout"]
    return {"mode": mode, **{name: form[f"clock-{name}"] for name in names
                             if form.get(f"clock-{name}", "").strip()}}


def stored(text: str | None) -> dict[str, Any] | None:
    """The settings of a ``games.clock`` value; None for a game without a clock."""
    clock = json.loads(text) if text else None
    return clock if clock and clock.get("mode", "none") != "none" else None


def describe(clock: Mapping[str, Any] | None) -> str:
    """The time control in words, for pages."""
    if not clock:
        return gettext("no time limit")
    if clock["mode"] == "per_move":
        text = gettext("%(days)s per move", days=_days(clock["days"]))
    else:
        text = gettext("%(initial)s, plus %(increment)s per move, at most %(most)s",
                       initial=_days(clock["initial_days"]),
                       increment=_days(clock["increment_days"]), most=_days(clock["max_days"]))
    if clock["weekends"] == "pause":
        text += gettext(", weekends not counted")
    text += gettext("; running out of time loses") if clock["on_timeout"] == "loss" \
        else gettext("; running out of time draws")
    if clock["vacation_days"]:
        text += gettext("; %(days)s of vacation per player per year",
                        days=_days(clock["vacation_days"]))
    return text


def _days(n: int) -> str:
    return ngettext("%(num)d day", "%(num)d days", n)


# -- time arithmetic -----------------------------------------------------------------------

def _weekday_seconds(at: datetime) -> float:
    """Seconds of Monday-to-Friday time (UTC) between ``MONDAY`` and ``at``."""
    weeks, rest = divmod((at - MONDAY).total_seconds(), WEEK)
    return weeks * WORKWEEK + min(rest, WORKWEEK)


def _after_weekday_seconds(value: float) -> datetime:
    """The earliest moment at which ``_weekday_seconds`` reaches ``value``."""
    weeks, rest = divmod(value, WORKWEEK)
    if rest == 0 and weeks:
        weeks, rest = weeks - 1, WORKWEEK  # Saturday 0:00 rather than Monday 0:00
    return MONDAY + timedelta(seconds=weeks * WEEK + rest)


@dataclass(frozen=True)
class Counter:
    """How a seat's time counts: without weekends if they pause, and never on vacation."""

    pause_weekends: bool
    vacations: tuple[tuple[datetime, datetime], ...] = ()  # sorted, not overlapping

    def _plain(self, start: datetime, end: datetime) -> float:
        if end <= start:
            return 0.0
        if self.pause_weekends:
            return _weekday_seconds(end) - _weekday_seconds(start)
        return (end - start).total_seconds()

    def counted(self, start: datetime, end: datetime) -> float:
        """The seconds between ``start`` and ``end`` that count against a clock."""
        total, at = 0.0, start
        for off, back in self.vacations:
            if back <= at:
                continue
            if off >= end:
                break
            total += self._plain(at, min(off, end))
            at = max(at, back)
            if at >= end:
                return total
        return total + self._plain(at, end)

    def advance(self, start: datetime, seconds: float) -> datetime:
        """The earliest moment by which ``seconds`` of counted time have passed since
        ``start``: a deadline."""
        at, need = start, max(seconds, 0.0)
        for off, back in self.vacations:
            if back <= at:
                continue
            if off > at:
                end = self._plain_advance(at, need)
                if end <= off:
                    return end
                need -= self._plain(at, off)
            at = back
        return self._plain_advance(at, need)

    def _plain_advance(self, start: datetime, seconds: float) -> datetime:
        if self.pause_weekends:
            return _after_weekday_seconds(_weekday_seconds(start) + seconds)
        return start + timedelta(seconds=seconds)

    def pausing(self, at: datetime) -> bool:
        """Whether time does not count at ``at`` (a weekend day or a vacation)."""
        if self.pause_weekends and at.weekday() >= 5:
            return True
        return self.on_vacation(at) is not None

    def on_vacation(self, at: datetime) -> datetime | None:
        """The end of the vacation running at ``at``, if any."""
        return next((back for off, back in self.vacations if off <= at < back), None)


# -- the clocks of a game ------------------------------------------------------------------

# What an event does to its seat's clock (each kind says: ``events.Kind.clock``): a move
# ends the seat's turn (its time used is taken, or its turn's time given back), a timeout
# runs it out, a vacation pauses it for its days.
Effect = Literal["turn_ends", "runs_out", "pauses"]


@dataclass(frozen=True)
class Step:
    """One event of a game's log, with who is to move after it (() once the game is over)."""

    seq: int
    at: datetime
    seat: int | None
    effect: Effect | None  # None: the event does nothing to a clock of its own
    days: int  # of a vacation (0 for other kinds)
    to_move: tuple[int, ...]


@dataclass(frozen=True)
class SeatClock:
    seat: int
    remaining: float            # seconds left (now, if running; else when it stopped)
    deadline: datetime | None   # when the time runs out, for a seat to move
    running: bool               # the seat is to move, so its time is being used
    paused: bool                # ... but does not count right now (weekend, vacation)
    vacation_until: datetime | None
    vacation_days_left: int     # of this calendar year's allowance
    turn_seq: int | None        # the event that started the running turn (0: the start)
    turn_start: datetime | None

    @property
    def expired(self) -> bool:
        return self.running and self.remaining <= 0

    @property
    def left_text(self) -> str:
        return duration_text(self.remaining)

    @property
    def deadline_text(self) -> str:
        return time_text(self.deadline) if self.deadline else ""

    @property
    def vacation_text(self) -> str:
        return time_text(self.vacation_until) if self.vacation_until else ""

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "remaining_seconds": int(self.remaining),
                "deadline": utc.iso(self.deadline), "running": self.running,
                "paused": self.paused, "on_vacation": self.vacation_until is not None,
                "vacation_until": utc.iso(self.vacation_until),
                "vacation_days_left": self.vacation_days_left}


def time_text(at: datetime) -> str:
    return languages.moment(at)


def duration_text(seconds: float) -> str:
    """"2 days 4 hours", "5 hours 10 minutes", "40 minutes"."""
    minutes = int(max(seconds, 0) // 60)
    if minutes <= 0:
        return gettext("no time") if seconds <= 0 else gettext("less than a minute")
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    hours_text = ngettext("%(num)d hour", "%(num)d hours", hours)
    if days:
        return _days(days) + (f" {hours_text}" if hours else "")
    minutes_text = ngettext("%(num)d minute", "%(num)d minutes", minutes)
    if hours:
        return hours_text + (f" {minutes_text}" if minutes else "")
    return minutes_text


def vacations(steps: Iterable[Step], players: int) -> list[list[tuple[datetime, datetime]]]:
    """Each seat's vacations as (start, end) intervals, in order and not overlapping."""
    result: list[list[tuple[datetime, datetime]]] = [[] for _ in range(players)]
    for step in steps:
        if step.effect == "pauses" and step.seat is not None:
            taken = result[step.seat]
            off = max(step.at, taken[-1][1]) if taken else step.at
            taken.append((off, off + timedelta(days=step.days)))
    return result


def vacation_days_used(steps: Iterable[Step], seat: int, year: int) -> int:
    return sum(step.days for step in steps if step.effect == "pauses"
               and step.seat == seat and step.at.astimezone(timezone.utc).year == year)


def compute(clock: Mapping[str, Any] | None, players: int, start: datetime,
            start_to_move: Sequence[int], steps: Sequence[Step],
            now: datetime) -> tuple[SeatClock, ...] | None:
    """Every seat's clock at ``now``; None for a game without a clock."""
    if not clock:
        return None
    fischer = clock["mode"] == "fischer"
    full = (clock["initial_days"] if fischer else clock["days"]) * DAY
    counters = [Counter(clock["weekends"] == "pause", tuple(v))
                for v in vacations(steps, players)]
    bank = [full] * players        # each seat's time when its turn began (or it stopped)
    since: list[datetime | None] = [None] * players
    turn: list[int | None] = [None] * players
    for seat in start_to_move:
        since[seat], turn[seat] = start, 0

    def stop(seat: int, at: datetime) -> float:
        used = counters[seat].counted(since[seat], at) if since[seat] else 0.0
        since[seat] = turn[seat] = None
        return used

    for step in steps:
        if step.effect == "turn_ends" and step.seat is not None \
                and since[step.seat] is not None:
            used = stop(step.seat, step.at)
            if fischer:
                bank[step.seat] = min(max(bank[step.seat] - used, 0.0)
                                      + clock["increment_days"] * DAY, clock["max_days"] * DAY)
            else:
                bank[step.seat] = full
        elif step.effect == "runs_out" and step.seat is not None:
            stop(step.seat, step.at)
            bank[step.seat] = 0.0
        for seat in range(players):
            if since[seat] is not None and seat not in step.to_move:
                bank[seat] = max(bank[seat] - stop(seat, step.at), 0.0)  # the game ended
            elif since[seat] is None and seat in step.to_move:
                since[seat], turn[seat] = step.at, step.seq

    allowance, year = clock["vacation_days"], now.astimezone(timezone.utc).year
    result = []
    for seat in range(players):
        counter, began = counters[seat], since[seat]
        running = began is not None
        remaining = bank[seat] - (counter.counted(began, now) if running else 0.0)
        result.append(SeatClock(
            seat=seat, remaining=max(remaining, 0.0),
            deadline=counter.advance(began, bank[seat]) if running else None,
            running=running, paused=running and counter.pausing(now),
            vacation_until=counter.on_vacation(now),
            vacation_days_left=max(allowance - vacation_days_used(steps, seat, year), 0),
            turn_seq=turn[seat], turn_start=began))
    return tuple(result)


# -- the clocks of a Match (duck-typed: matches.Match) ---------------------------------------

def steps_of(match: Any) -> list[Step]:
    """The match's events with who was to move after each (nobody before the game starts:
    a game with open seats starts when the last one is taken, nor once an event ended
    it), each event's kind saying what it does (``events.Kind``: its ``clock`` and
    ``ends``)."""
    started = match.started_seq
    steps = []
    to_move = match.states.to_move(0) if started == 0 else ()
    for event in match.events:
        kind = event.meaning
        if event.seq in match.turns:  # a move, or a takeback
            to_move = match.turns[event.seq][1]
        elif kind.ends is not None:
            to_move = ()
        elif event.seq == started:
            to_move = match.states.to_move(0)
        steps.append(Step(event.seq, utc.parse(event.created_at), event.seat, kind.clock,
                          getattr(event.payload, "days", 0), to_move))
    return steps


def of_match(match: Any, now: datetime | None = None) -> tuple[SeatClock, ...] | None:
    if not match.clock:
        return None
    return compute(match.clock, match.players, utc.parse(match.created_at),
                   match.states[0].to_move if match.started_seq == 0 else (),
                   steps_of(match), now or utc.now())


def to_json(match: Any, now: datetime | None = None) -> list[dict[str, Any]] | None:
    seats = of_match(match, now)
    return None if seats is None else [seat.to_json() for seat in seats]


def ran_out(match: Any, now: datetime) -> SeatClock | None:
    """The to-move seat whose deadline passed first, if any (the game is then lost or
    drawn on time, whatever anyone does)."""
    if not match.clock or match.finished:
        return None
    late = [c for c in of_match(match, now) or () if c.expired]
    return min(late, key=lambda c: (c.deadline, c.seat)) if late else None


def timeout_outcome(game: Any, state: Any, seat: int, clock: Mapping[str, Any] | None) -> Outcome:
    reason = Text("%(side)s ran out of time", side=game.side_name(state, seat))
    if clock and clock.get("on_timeout") == "draw":
        return Outcome((), True, reason)
    team = game.team_of(state.players, seat)
    return Outcome(tuple(s for s in range(state.players) if s not in team), False, reason)


def check_vacation(match: Any, seat: int, days: Any, now: datetime) -> int:
    """The number of days of a vacation ``seat`` may declare now; ``TextError`` if not."""
    allowance = match.clock["vacation_days"] if match.clock else 0
    if not allowance:
        raise TextError("This game has no vacation days.")
    try:
        days = int(days)
    except (TypeError, ValueError):
        raise TextError("A vacation is a whole number of days.") from None
    if days < 1:
        raise TextError("A vacation is at least one day.")
    year = now.astimezone(timezone.utc).year
    left = allowance - vacation_days_used(steps_of(match), seat, year)
    if days > left:
        raise TextError("You have %(left)s of vacation left in %(year)s (of %(days)s a year).",
                        left=_days(max(left, 0)), year=year, days=_days(allowance))
    return days


def warning_due(clock: SeatClock, now: datetime) -> bool:
    """Whether a to-move seat should be told its time is running out: less than a day
    before its deadline, or less than half its turn's time for turns shorter than two days
    (so a one-day turn is not warned the moment it begins)."""
    if not clock.running or clock.expired or clock.deadline is None:
        return False
    return now > warning_at(clock)


def warning_at(clock: SeatClock) -> datetime:
    """The moment after which a running seat's deadline warning is due (``warning_due``)."""
    return clock.deadline - min(timedelta(days=1), (clock.deadline - clock.turn_start) / 2)


# The hours before its deadline at which a seat may choose to be reminded, instead of the
# one warning (``warning_at``): each once per turn, where it falls after the turn began.
DEADLINE_REMINDERS = (48, 24, 12, 8, 3, 1)


def first_reminder_at(clock: SeatClock) -> datetime:
    """The earliest moment a running seat may be reminded of its deadline, whatever it
    chose: its one warning, or the first of ``DEADLINE_REMINDERS`` in this turn."""
    earliest = clock.deadline - timedelta(hours=max(DEADLINE_REMINDERS))
    return min(warning_at(clock), max(earliest, clock.turn_start))
