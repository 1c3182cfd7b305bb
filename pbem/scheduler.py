"""Background jobs (APScheduler): delivering queued mail.

Every job reads what to do from the database, so a restart loses nothing. However many
web worker processes start, one scheduler runs: the first to take an exclusive lock on a
file in the instance folder; the others skip it.
"""
from __future__ import annotations

import fcntl
import logging
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.blocking import BlockingScheduler
from flask import Flask

from . import mail
from .db import connect

log = logging.getLogger(__name__)


def deliver_mail(app: Flask) -> tuple[int, int]:
    db = connect(app.config["DATABASE"])
    try:
        sent, failed = mail.deliver_due(db, mail.transport_from_config(app.config),
                                        app.config["MAIL_FROM"])
    finally:
        db.close()
    if sent or failed:
        log.info("mail: %d sent, %d failed", sent, failed)
    return sent, failed


def _lock(app: Flask) -> IO | None:
    """The scheduler lock, or None if another process holds it."""
    handle = open(Path(app.instance_path) / "scheduler.lock", "w")
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
    scheduler.add_job(deliver_mail, "interval", args=[app], id="deliver-mail",
                      seconds=app.config["MAIL_INTERVAL_SECONDS"], max_instances=1,
                      coalesce=True, next_run_time=datetime.now(timezone.utc))
    return scheduler


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
