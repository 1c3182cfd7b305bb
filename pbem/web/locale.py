"""The language a page is drawn in, chosen by its request, and the templates' words.

A page is in the language its visitor chose with the switch every page has (a link to the
same page with ``?lang=ru``, which sets the ``lang`` cookie for the pages after it), else
the best of ``Accept-Language``, else English (``languages.DEFAULT``). The JSON API's
refusals follow Accept-Language too (``refusal``).
"""
from __future__ import annotations

from typing import Any

from flask import Flask, Response, current_app, has_request_context, jsonify, request
from flask_babel import Babel
from jinja2 import pass_context

from ..languages import COOKIE, DEFAULT, LANGUAGES, current, known, moment, translated


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


def refusal(status: int | None, message: Any) -> tuple[Response, int | None]:
    """A refusal as JSON, ``{"error": message}`` in the reader's language (English without
    an Accept-Language), with its status: every JSON answer's."""
    return jsonify(error=str(translated(message))), status


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
