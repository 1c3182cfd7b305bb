"""The languages of the site and its emails: English and Russian (Flask-Babel).

A page is in the language its visitor chose with the switch every page has (a link to the
same page with ``?lang=ru``, which sets the ``lang`` cookie for the pages after it), else
the best of ``Accept-Language``, else English. An email is in its seat's
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
from typing import Any, Iterable, Iterator

from babel.dates import format_date, format_skeleton, get_month_names
from babel.lists import format_list
from flask import Flask, Response, current_app, has_request_context, jsonify, request
from flask_babel import Babel, force_locale, get_locale
from jinja2 import pass_context

# What the engines say to players, in the reader's language (the boards say it too)
from .boards.words import translated as translated

LANGUAGES = {"en": "English", "ru": "Русский"}  # each named in itself, for the switch
DEFAULT = "en"
COOKIE = "lang"


def known(language: object) -> str | None:
    """``language`` if the site speaks it, else None."""
    return language if isinstance(language, str) and language in LANGUAGES else None


def chosen() -> str:
    """The language of the page being drawn (Flask-Babel's locale selector)."""
    if not has_request_context():
        return DEFAULT
    return known(request.args.get(COOKIE)) or known(request.cookies.get(COOKIE)) \
        or request.accept_languages.best_match(list(LANGUAGES)) or DEFAULT


def _remember_choice(response: Response) -> Response:
    """The switch's choice holds for the visitor's next pages (a year, this site alone);
    every answer says its language."""
    picked = known(request.args.get(COOKIE))
    if picked and picked != request.cookies.get(COOKIE):
        response.set_cookie(COOKIE, picked, max_age=365 * 86400, httponly=True, samesite="Lax",
                            secure=bool(current_app.config["SESSION_COOKIE_SECURE"]))
    response.vary.update(("Accept-Language", "Cookie"))
    response.headers["Content-Language"] = current()  # the service worker reads it (sw.js)
    return response


def current() -> str:
    """The language in force now: the page's, or the one an email is being written in."""
    locale = get_locale()
    return locale.language if locale is not None else DEFAULT


@contextmanager
def in_language(language: str | None) -> Iterator[None]:
    """Write what is rendered inside (an email, its subject) in ``language``."""
    with force_locale(known(language) or DEFAULT):
        yield


def refusal(status: int | None, message: Any) -> tuple[Response, int | None]:
    """A refusal as JSON, ``{"error": message}`` in the reader's language (English without
    an Accept-Language), with its status: every JSON answer's."""
    return jsonify(error=translated(message)), status


def moment(at: datetime | str) -> str:
    """A time in UTC as the language writes it: "Thu 26 Nov 2026, 14:05 UTC",
    "чт, 26 нояб. 2026 г., 14:05 UTC" (``at``: a datetime, or ISO text as stored)."""
    if isinstance(at, str):
        at = datetime.fromisoformat(at)
    at = at.astimezone(timezone.utc) if at.tzinfo else at.replace(tzinfo=timezone.utc)
    locale = get_locale()
    if locale is None or locale.language == DEFAULT:  # the form the site always had
        return at.strftime("%a %d %b %Y, %H:%M UTC")
    return (f"{format_skeleton('yMMMEd', at, tzinfo=timezone.utc, locale=locale)}, "
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


def _translating_fields(template_gettext: Any) -> Any:
    """A template's ``_``, ``gettext`` or ``ngettext`` (Flask-Babel's), the ``engine.Text``
    among its fields translated too: ``_("you play %(side)s", side=...)`` names the side
    in the page's language."""
    @pass_context
    def translating(context: Any, *strings: Any, **fields: Any) -> str:
        return template_gettext(context, *strings, **{
            name: translated(value) for name, value in fields.items()})
    return translating


def init_app(app: Flask) -> None:
    Babel(app, locale_selector=chosen)
    for name in ("_", "gettext", "ngettext"):
        app.jinja_env.globals[name] = _translating_fields(app.jinja_env.globals[name])
    app.after_request(_remember_choice)
    app.jinja_env.finalize = translated  # what a template prints: an engine.Text translated
    app.jinja_env.filters["translated"] = translated  # in a {% trans %} block, or before a join
    app.jinja_env.filters["moment"] = moment
    app.jinja_env.globals["languages"] = LANGUAGES
    app.jinja_env.globals["current_language"] = current
