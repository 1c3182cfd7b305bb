"""What an operator watches, read from the database so that every process and machine
sees the same: the background jobs' runs (which the job process records as each ends), the
games and moves, and the deliveries of the outbox by outcome (counted by triggers as they
are written: migration 0018). ``pbem/web/console.py`` serves them as ``/healthz``,
``/metrics`` and the operators' console."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlite_utils

from .links import redact
from .store import utc
from .store.db import write

# A job is late once it has not ended a run for two of its intervals and this long: a run
# of the outbox's posts may take minutes, and the job process may be restarting.
LATE_GRACE = timedelta(minutes=5)


@dataclass(frozen=True)
class JobRuns:
    """One background job's runs so far."""
    job: str
    every_seconds: float
    runs: int
    failures: int
    seconds: float                  # all its runs together
    last_started_at: datetime
    last_ended_at: datetime
    last_seconds: float
    last_error: str | None

    def late(self, now: datetime) -> bool:
        return now - self.last_ended_at > timedelta(seconds=2 * self.every_seconds) + LATE_GRACE


def record_run(db: sqlite_utils.Database, job: str, every_seconds: float, started: datetime,
               seconds: float, error: BaseException | None = None) -> None:
    """Note that ``job`` (run every ``every_seconds``) ran from ``started`` for ``seconds``,
    and raised ``error`` if it did."""
    ended = utc.iso(started + timedelta(seconds=seconds))
    failed = error is not None
    # an exception's words may quote a URL or an address: no secret link reaches the console
    said = redact(f"{type(error).__name__}: {error}")[:500] if failed else None
    with write(db):
        db.execute(
            "INSERT INTO job_runs (job, every_seconds, runs, failures, seconds, "
            "last_started_at, last_ended_at, last_seconds, last_error) "
            "VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?) ON CONFLICT (job) DO UPDATE SET "
            "every_seconds = excluded.every_seconds, runs = job_runs.runs + 1, "
            "failures = job_runs.failures + excluded.failures, "
            "seconds = job_runs.seconds + excluded.seconds, "
            "last_started_at = excluded.last_started_at, last_ended_at = excluded.last_ended_at, "
            "last_seconds = excluded.last_seconds, "
            "last_error = COALESCE(excluded.last_error, job_runs.last_error)",
            [job, every_seconds, int(failed), seconds, utc.iso(started), ended, seconds, said])


def job_runs(db: sqlite_utils.Database) -> list[JobRuns]:
    return [JobRuns(row["job"], row["every_seconds"], row["runs"], row["failures"],
                    row["seconds"], utc.parse(row["last_started_at"]),
                    utc.parse(row["last_ended_at"]), row["last_seconds"], row["last_error"])
            for row in db.execute("SELECT * FROM job_runs ORDER BY job")]


@dataclass(frozen=True)
class Jobs:
    """The job process as a monitor sees it: when it last ended a run of any job, and
    whether it is late (it never ran, or one of its jobs is overdue)."""
    last_run: datetime | None
    late: bool

    @classmethod
    def of(cls, runs: list[JobRuns], now: datetime) -> Jobs:
        return cls(max((run.last_ended_at for run in runs), default=None),
                   not runs or any(run.late(now) for run in runs))


@dataclass(frozen=True)
class Counts:
    """The site's games and moves, and the outbox's delivery attempts by channel and
    outcome (sent, deferred: to be tried again, failed: given up)."""
    games: dict[str, int]           # by status: waiting, active, finished
    moves: int
    deliveries: dict[tuple[str, str], int]


def counts(db: sqlite_utils.Database) -> Counts:
    games, moves = {}, 0
    for status, number, moved in db.execute(
            "SELECT status, count(*), COALESCE(sum(moves), 0) FROM games GROUP BY status"):
        games[status], moves = number, moves + moved
    return Counts(games, moves, {(channel, outcome): count for channel, outcome, count in
                                 db.execute("SELECT channel, outcome, count "
                                            "FROM delivery_counts ORDER BY channel, outcome")})
