"""Background jobs (APScheduler): delivering queued mail (the emails, and beside them, in a
job of their own, the webhook posts and push messages), game clocks (timeouts and
deadline warnings), "Your move" emails held back while a player was there, reminders, the
daily digests, the games nobody joined in time, the computer players' moves, tournaments'
start times and round deadlines, the games of a large tournament's start or next round,
and pruning the players' events older than ``EVENTS_KEPT_DAYS``.

Every job reads what to do from the database, so a restart loses nothing. However many
web worker processes start, one scheduler runs: the first to take an exclusive lock on a
file in the instance folder (on PostgreSQL, where several machines share the database: an
advisory lock of the database, held by the scheduler's own connection); the others skip it.
Other job runners (``send-mail``, ``play-bots``) may run beside it: due emails and the
computer's turns are claimed, so none is sent or played twice.
"""
from __future__ import annotations

import contextlib
import fcntl
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from email.utils import parseaddr
from pathlib import Path
from typing import IO, Callable, Iterator

import sqlite_utils
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.blocking import BlockingScheduler
from flask import Flask

from .. import commands, computer, monitoring, player_events, tournaments
from ..mail import bounces, outbox, push, reminders, webhooks
from ..store import utc
from ..store.db import connect, is_url, try_lock

log = logging.getLogger(__name__)


@contextlib.contextmanager
def _job_database(app: Flask) -> Iterator[sqlite_utils.Database]:
    """A job's own connection, in an application context: its emails render templates
    and read the settings."""
    db = connect(app.config["DATABASE"])
    try:
        with app.app_context():
            yield db
    finally:
        db.close()


def send_emails(app: Flask) -> tuple[int, int]:
    """The emails that are due, to the configured mail server (``outbox.deliver_due``)."""
    return _delivered(app, "mail", lambda db: outbox.deliver_due(
        db, outbox.transport_from_config(app.config), app.config["MAIL_FROM"],
        app.config["PUBLIC_URL"], return_paths=bounces.ReturnPaths.of(app.config)))


def send_posts(app: Flask) -> tuple[int, int]:
    """The webhook posts and push messages that are due (``outbox.post_due``): a lane of
    its own, which no email waits for."""
    posters: dict[str, outbox.Poster] = {
        "webhook": webhooks.Poster(app.config["WEBHOOK_ALLOW_PRIVATE"]),
        "push": push.Sender(app.config["VAPID_PRIVATE_KEY"],
                            f"mailto:{parseaddr(app.config['MAIL_FROM'])[1]}",
                            app.config["PUSH_ALLOW_PRIVATE"])}
    return _delivered(app, "posts", lambda db: outbox.post_due(
        db, posters, app.config["PUBLIC_URL"]))


def deliver_mail(app: Flask) -> tuple[int, int]:
    """Everything the outbox holds that is due (``send-mail``): both lanes at once, each
    in its own thread and connection, as the job process runs them."""
    if not app.config["PUBLIC_URL"]:
        return _delivered(app, "mail", lambda db: (0, 0))  # which says why, once
    with ThreadPoolExecutor(1) as lane:
        posted = lane.submit(send_posts, app)
        emailed = send_emails(app)
        return emailed[0] + posted.result()[0], emailed[1] + posted.result()[1]


def _delivered(app: Flask, what: str,
               deliver: Callable[[sqlite_utils.Database], tuple[int, int]]) -> tuple[int, int]:
    """Run one lane of the outbox in its own connection, and log what it sent."""
    if not app.config["PUBLIC_URL"]:
        log.error("No mail is sent: %s", outbox.PUBLIC_URL_MISSING)
        return 0, 0
    with _job_database(app) as db:
        sent, failed = deliver(db)
    if sent or failed:
        log.info("%s: %d sent, %d failed", what, sent, failed)
    return sent, failed


def check_clocks(app: Flask, now: datetime | None = None) -> tuple[int, int]:
    """End the games whose to-move player ran out of time (``commands.record_timeouts``) and
    warn those whose deadline is near (``reminders.send_deadline_warnings``); ``now`` lets
    tests run it at a later time. Returns (timeouts, warnings)."""
    now = now or utc.now()
    with _job_database(app) as db:
        timeouts = commands.record_timeouts(db, now)
        warnings = reminders.send_deadline_warnings(db, now)
    if timeouts or warnings:
        log.info("clocks: %d timeouts, %d warnings", timeouts, warnings)
    return timeouts, warnings


NOTIFY_INTERVAL_SECONDS = 300  # how often reminders and the day's digests are looked for
TURN_INTERVAL_SECONDS = 60  # how often held-back "Your move" emails are looked at
PRUNE_INTERVAL_SECONDS = 3600  # how often the players' old events are pruned


def _queued(app: Flask, what: str, queue: Callable[[sqlite_utils.Database], int]) -> int:
    """Run one job that queues emails, in its own connection, and log how many it queued."""
    with _job_database(app) as db:
        queued = queue(db)
    if queued:
        log.info("%s: %d queued", what, queued)
    return queued


def send_reminders(app: Flask, now: datetime | None = None) -> int:
    """Remind the players whose turn began more than REMINDER_HOURS ago, once per turn
    (``reminders.send_reminders``); ``now`` lets tests run it at a later time."""
    return _queued(app, "reminders", lambda db: reminders.send_reminders(
        db, now or utc.now(), app.config["REMINDER_HOURS"]))


def send_turn_emails(app: Flask, now: datetime | None = None) -> int:
    """The "Your move" emails held back while their players were there, once they have
    been away AWAY_MINUTES (``reminders.send_turn_emails``)."""
    return _queued(app, "turn emails",
                   lambda db: reminders.send_turn_emails(db, now or utc.now()))


def send_expiry_notices(app: Flask, now: datetime | None = None) -> int:
    """Tell the players of the games nobody joined in time (``reminders.send_expiry_notices``)."""
    return _queued(app, "expiry notices",
                   lambda db: reminders.send_expiry_notices(db, now or utc.now()))


def send_digests(app: Flask, now: datetime | None = None) -> int:
    """From DIGEST_HOUR (UTC) on, once a day, the digests (``reminders.send_digests``)."""
    return _queued(app, "digests", lambda db: reminders.send_digests(
        db, now or utc.now(), app.config["DIGEST_HOUR"]))


def play_bots(app: Flask, now: datetime | None = None) -> int:
    """Play the computer's moves that are due (``computer.play_due``: people first, games
    between computers paced and in the time left); ``now`` lets tests run it at another
    time. Returns how many moves and answers were recorded."""
    with _job_database(app) as db:
        played = computer.play_due(db, app.config["BOT_MOVES_PER_RUN"], now,
                                   pace=app.config["BOT_PACE_SECONDS"],
                                   seconds=app.config["BOT_BETWEEN_COMPUTERS_SECONDS"])
    if played:
        log.info("computer players: %d moves", played)
    return played


def run_tournaments(app: Flask, now: datetime | None = None) -> tuple[int, int]:
    """Start the tournaments whose start time has come and adjudicate the games of rounds
    past their deadline (``tournaments.start_due``, ``adjudicate_due``); ``now`` lets tests
    run it at a later time. Returns (tournaments started or cancelled, games ended)."""
    now = now or utc.now()
    with _job_database(app) as db:
        started = tournaments.start_due(db, now)
        ended = tournaments.adjudicate_due(db, now)
    if started or ended:
        log.info("tournaments: %d started or cancelled, %d games adjudicated", started, ended)
    return started, ended


def make_tournament_games(app: Flask) -> int:
    """Make the tournaments' games left to the job process: a large field's start or next
    round (``tournaments.make_due``). Returns how many tournaments moved on."""
    with _job_database(app) as db:
        made = tournaments.make_due(db)
    if made:
        log.info("tournaments: the games of %d made", made)
    return made


def prune_player_events(app: Flask, now: datetime | None = None) -> int:
    """Delete the players' events older than EVENTS_KEPT_DAYS (``player_events.prune``);
    ``now`` lets tests run it at a later time. Returns how many went."""
    kept = timedelta(days=float(app.config["EVENTS_KEPT_DAYS"]))
    with _job_database(app) as db:
        pruned = player_events.prune(db, (now or utc.now()) - kept)
    if pruned:
        log.info("players' events: %d pruned", pruned)
    return pruned


def _lock(app: Flask) -> IO | sqlite_utils.Database | None:
    """The scheduler lock, or None if another process holds it."""
    if is_url(app.config["DATABASE"]):
        db = connect(app.config["DATABASE"])
        if try_lock(db, "scheduler"):
            return db  # the lock lasts as long as this connection
        db.close()
        return None
    handle = open(Path(app.instance_path) / "scheduler.lock", "w")  # noqa: SIM115 - held till exit
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    return handle


def _scheduler(kind, app: Flask):
    """A scheduler of ``kind`` with the jobs added, or None if another process has one."""
    lock = _lock(app)
    if lock is None:
        return None
    scheduler = kind(timezone="UTC")
    scheduler.lock_handle = lock  # held for the life of the scheduler
    intervals = {send_emails: app.config["MAIL_INTERVAL_SECONDS"],
                 send_posts: app.config["MAIL_INTERVAL_SECONDS"],
                 check_clocks: app.config["CLOCK_INTERVAL_SECONDS"],
                 send_turn_emails: TURN_INTERVAL_SECONDS,
                 send_reminders: NOTIFY_INTERVAL_SECONDS, send_digests: NOTIFY_INTERVAL_SECONDS,
                 send_expiry_notices: NOTIFY_INTERVAL_SECONDS,
                 play_bots: app.config["BOT_INTERVAL_SECONDS"],
                 run_tournaments: NOTIFY_INTERVAL_SECONDS,
                 make_tournament_games: app.config["TOURNAMENT_INTERVAL_SECONDS"],
                 prune_player_events: PRUNE_INTERVAL_SECONDS}
    for job, seconds in intervals.items():
        name = job.__name__.replace("_", "-")
        scheduler.add_job(recorded, "interval", args=[job, app, name, seconds], id=name,
                          name=name, seconds=seconds, max_instances=1, coalesce=True,
                          next_run_time=utc.now())
    return scheduler


def recorded(job: Callable[[Flask], object], app: Flask, name: str, every: float) -> None:
    """Run ``job`` as the scheduler does every ``every`` seconds, and note the run in the
    database (``monitoring.record_run``): /healthz and /metrics, in any web process, read
    when each job last ran, for how long, and whether it failed."""
    started, clock = utc.now(), time.monotonic()
    failure: Exception | None = None
    try:
        job(app)
    except Exception as error:  # noqa: BLE001 - noted, then raised for the scheduler to log
        failure = error
    db = connect(app.config["DATABASE"])
    try:
        monitoring.record_run(db, name, every, started, time.monotonic() - clock, failure)
    finally:
        db.close()
    if failure is not None:
        raise failure


def start_background(app: Flask) -> BackgroundScheduler | None:
    """Run the jobs in this process's background, unless another process already does."""
    scheduler = _scheduler(BackgroundScheduler, app)
    if scheduler is not None:
        scheduler.start()
    return scheduler


def run_forever(app: Flask) -> None:
    scheduler = _scheduler(BlockingScheduler, app)
    if scheduler is None:
        raise RuntimeError("Another process is already running the scheduler.")
    scheduler.start()
