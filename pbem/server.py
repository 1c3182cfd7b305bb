"""The running server as the core sees it: its settings and the paths of its pages.

The core (the game log, the services over it, the stores) knows no web framework: what it
needs of the application (a setting such as ``CHAT_PER_HOUR``, the path of the page an
email links to) it asks of the ``Server`` that ``bind`` was given, which ``create_app``
binds to the running Flask application (whichever one is current in the thread: a request's,
a job's, a command's). Paths are built from the application's URL map (werkzeug's) with no
request: an email's links begin with PUBLIC_URL, never with a request's address.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from werkzeug.routing import Map


class Server(Protocol):
    """What the core reads of the application: a Flask app is one."""

    @property
    def config(self) -> Mapping[str, Any]: ...

    @property
    def url_map(self) -> Map: ...


class Unbound(RuntimeError):
    """The core was asked for a setting before any application was bound."""


def _unbound() -> Server:
    raise Unbound("No application is bound (pbem.server.bind): create_app binds it.")


_current: Callable[[], Server] = _unbound


def bind(current: Callable[[], Server]) -> None:
    """Read settings and paths from ``current()``, the application running now."""
    global _current
    _current = current


def setting(name: str) -> Any:
    """The value of the setting ``name`` (e.g. ``"CHAT_PER_HOUR"``)."""
    return _current().config[name]


def path(endpoint: str, **values: Any) -> str:
    """The path of ``endpoint``'s page with ``values`` (e.g. ``("play.page", role="play",
    token=...)`` -> ``/play/<token>``), as the application's routes spell it, the rest
    of ``values`` in its query string."""
    return _current().url_map.bind("localhost").build(endpoint, values)
