"""Rate limits per client address (Flask-Limiter) on every endpoint that sends mail or
creates games, so the server cannot be used to flood a mailbox.

Only requests that succeed count: a refused request sends nothing. The limits are
settings (``RATE_LIMIT_*``, in Flask-Limiter's notation such as "10 per minute; 60 per
hour"); ``RATELIMIT_STORAGE_URI`` says where the counts live (default: each process's
memory, so with N worker processes a client may reach N times a limit; a ``redis://`` or
``memcached://`` URI shares them). Behind a reverse proxy, set ``PROXIES`` so that the
client's address is the one the proxy saw.
"""
from __future__ import annotations

from typing import Callable

from flask import Flask, current_app
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

limiter = Limiter(key_func=get_remote_address)

DEFAULTS = {
    "RATE_LIMIT_CREATE": "10 per minute; 60 per hour; 200 per day",  # new games, joins
    "RATE_LIMIT_HOME": "3 per minute; 10 per hour; 30 per day",      # "Your games" emails
    "RATE_LIMIT_ACTIONS": "60 per minute; 1000 per hour",  # moves, offers: mail opponents
}


def _setting(name: str) -> Callable[[], str]:
    return lambda: current_app.config[name]


def _succeeded(response) -> bool:
    return response.status_code < 400


def _limit(setting: str, what: str):
    return limiter.shared_limit(
        _setting(setting), scope=setting.lower(), methods=["POST", "PUT"],
        deduct_when=_succeeded,
        error_message=f"Too many {what} from your address. Please wait a while and try again.")


creating = _limit("RATE_LIMIT_CREATE", "new games")
asking_home = _limit("RATE_LIMIT_HOME", "requests for your games")
acting = _limit("RATE_LIMIT_ACTIONS", "actions")


def init_app(app: Flask) -> None:
    limiter.init_app(app)
