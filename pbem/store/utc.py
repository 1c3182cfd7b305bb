"""The time: the app's one ``now``, and how a time is written to the database.

Every "now" the app needs comes from ``now()``, called through this module
(``utc.now()``), so a test that freezes time patches this one function. Times are stored
as ISO 8601 text in UTC to the second ("2026-11-26T14:11:24+00:00"), which sorts as the
times do; ``parse`` reads them back, also those written without a zone.
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import overload


def now() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(timezone.utc)


@overload
def iso(at: datetime) -> str: ...
@overload
def iso(at: None) -> None: ...
def iso(at: datetime | None) -> str | None:
    """``at`` as the database stores times (None: none, as a JSON answer shows it)."""
    return at.astimezone(timezone.utc).isoformat(timespec="seconds") if at else None


def parse(text: str) -> datetime:
    """A stored time, aware (one written without a zone is UTC)."""
    at = datetime.fromisoformat(text)
    return at if at.tzinfo else at.replace(tzinfo=timezone.utc)
