"""The languages of the site and its emails: English and Russian (Flask-Babel).

A page is in the language its visitor chose (``pbem/web/locale.py``). An email is in its seat's
language (``seats.language``), whatever page or job sends it: ``in_language``. What the
engines and the core say to players (refusals, illegal moves, results) is ``engine.Text``,
English until ``translated`` where it is shown: every template prints it so, and the JSON
API's errors follow the request's Accept-Language. The
catalogs are ``pbem/translations/<lang>/LC_MESSAGES/messages.po``, compiled to the
``messages.mo`` beside them (docs/operations.md: updating the catalogs).
"""
from __future__ import annotations

from contextlib import contextmanager
from datetime import date, datetime, timezone
from typing import Iterable, Iterator

from babel.dates import format_date, format_skeleton, get_month_names
from babel.lists import format_list
from flask_babel import force_locale, get_locale

# What the engines say to players, in the reader's language (the boards say it too)
from .boards.words import translated as translated

LANGUAGES = {"en": "English", "ru": "Русский"}  # each named in itself, for the switch
DEFAULT = "en"
COOKIE = "lang"


def known(language: object) -> str | None:
    """``language`` if the site speaks it, else None."""
    return language if isinstance(language, str) and language in LANGUAGES else None


def current() -> str:
    """The language in force now: the page's, or the one an email is being written in."""
    locale = get_locale()
    return locale.language if locale is not None else DEFAULT


@contextmanager
def in_language(language: str | None) -> Iterator[None]:
    """Write what is rendered inside (an email, its subject) in ``language``."""
    with force_locale(known(language) or DEFAULT):
        yield


def moment(at: datetime | str) -> str:
    """A time in UTC as the language writes it: "Thu 26 Nov 2026, 14:05 UTC",
    "26 нояб. 2026 г., 14:05 UTC", without the weekday, which reads wrong after the
    prepositions it follows ("до", "с") (``at``: a datetime, or ISO text as stored)."""
    if isinstance(at, str):
        at = datetime.fromisoformat(at)
    at = at.astimezone(timezone.utc) if at.tzinfo else at.replace(tzinfo=timezone.utc)
    locale = get_locale()
    if locale is None or locale.language == DEFAULT:  # the form the site always had
        return at.strftime("%a %d %b %Y, %H:%M UTC")
    return (f"{format_skeleton('yMMMd', at, tzinfo=timezone.utc, locale=locale)}, "
            f"{format_skeleton('Hm', at, tzinfo=timezone.utc, locale=locale)} UTC")


def day(on: date) -> str:
    """A day as the language writes it: "2026-11-26", "26 ноября 2026 г."."""
    locale = get_locale()
    if locale is None or locale.language == DEFAULT:  # the form the site always had
        return on.isoformat()
    return format_date(on, format="long", locale=locale)


def listing(items: Iterable[str]) -> str:
    """Words in a list as the language in force writes it: "Ann and Bob", "Ann и Bob"."""
    return format_list(list(map(translated, items)), locale=get_locale() or DEFAULT)


def short_months() -> dict[int, str]:
    """The months' short names in the language in force: "Jan", "янв."."""
    return dict(get_month_names("abbreviated", locale=get_locale() or DEFAULT))
