"""What the project's gunicorn settings (``gunicorn.conf.py``) run: the checks and the
one-time set-up before the workers fork, and a logger that keeps secrets out of gunicorn's
access and error logs."""
from __future__ import annotations

import sys

from gunicorn.glogging import Logger

from . import create_app
from .mail import outbox, signing
from .store.db import upgrade
from .links import redact_logger


def prepare() -> None:
    """In gunicorn's master process, before any worker starts: refuse to serve without
    PUBLIC_URL (emails need it; one clear line) or with DKIM settings that cannot sign,
    and apply the database's missing migrations once, so that the workers find its schema
    whole."""
    app = create_app()
    if not app.config["PUBLIC_URL"]:
        sys.exit(f"Not starting: {outbox.PUBLIC_URL_MISSING}")
    try:
        signing.signer_from_config(app.config)
    except signing.BadSettings as error:
        sys.exit(f"Not starting: {error}")
    upgrade(app.config["DATABASE"])


class RedactingLogger(Logger):
    """gunicorn's logger, with secret links in request lines (and anywhere else in a log
    line) replaced by ``[secret]``."""

    def setup(self, cfg) -> None:
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            redact_logger(log)
