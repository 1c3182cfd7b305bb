"""The site as an app a phone installs: its web app manifest, its service worker (which
shows push notifications, ``pbem/mail/push.py``, and an offline page when the network is
gone) and that page; and the static files as browsers keep them.

The service worker is served from the site's root, so that its scope covers every page.
"""
from __future__ import annotations

import hashlib
import os

from flask import Blueprint, Response, current_app, jsonify, render_template, request, \
    send_from_directory, url_for
from flask_babel import gettext
from werkzeug.security import safe_join

from .. import languages
from ..mail import push

bp = Blueprint("webapp", __name__)
# a play page's "Notify me on this device" switch answers the service worker with its tag
bp.add_app_template_global(push.tag, "push_tag")


@bp.get("/sw.js")
def service_worker():
    # not cached (every page's answer says no-store): an update reaches browsers at once
    return send_from_directory(current_app.static_folder or "", "sw.js",
                               mimetype="text/javascript")


@bp.get("/manifest.webmanifest")
def manifest():
    """The manifest in the page's language: pages link it with theirs (``?lang=``), since a
    browser fetches it without cookies."""
    icons = [{"src": url_for("static", filename=f"icon-{size}.png"), "type": "image/png",
              "sizes": f"{size}x{size}", "purpose": "any maskable"} for size in (192, 512)]
    shortcuts = [{"name": gettext("My games"), "url": url_for("mygames.my_games")},
                 {"name": gettext("New game"), "url": url_for("site.choose_game")},
                 {"name": gettext("Lobby"), "url": url_for("lobby.lobby")}]
    response = jsonify({
        "name": gettext("Correspondence games"), "short_name": gettext("Games"),
        "description": gettext("Abstract board games by correspondence: your turn comes by "
                               "notification or email."),
        "lang": languages.current(), "dir": "ltr",
        "start_url": url_for("mygames.my_games"), "scope": "/", "display": "standalone",
        "background_color": "#fffdf6", "theme_color": "#2b2f36", "icons": icons,
        "shortcuts": shortcuts})
    response.mimetype = "application/manifest+json"
    return response


@bp.get("/offline")
def offline():
    """What the service worker shows for a page it cannot fetch (kept in its cache)."""
    return render_template("offline.html")


# -- static files: an address per version ------------------------------------------------
# A page links /static/style.css?v=<digest of the file>, which a browser keeps for a year
# without asking again; a changed file is a new address. Before, each page view asked again
# for the stylesheet, the script and the icon (three 304 answers per page).

YEAR = 365 * 86400
_digests: dict[str, tuple[int, int, str]] = {}  # path: its mtime and size, and digest


def static_digest(filename: str) -> str | None:
    """The digest of a static file as it is now (None: there is no such file)."""
    path = safe_join(current_app.static_folder or "", filename)
    if path is None:  # a name that would leave the folder
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None
    kept = _digests.get(path)
    if kept is None or kept[:2] != (stat.st_mtime_ns, stat.st_size):
        with open(path, "rb") as handle:
            digest = hashlib.sha256(handle.read()).hexdigest()[:16]
        kept = _digests[path] = (stat.st_mtime_ns, stat.st_size, digest)
    return kept[2]


@bp.app_url_defaults
def _versioned(endpoint: str, values: dict) -> None:
    if endpoint == "static" and "v" not in values:
        values["v"] = static_digest(values["filename"])


@bp.after_app_request
def _kept_a_year_if_versioned(response: Response) -> Response:
    """A static file asked for by its current version may be kept unasked; by another
    address (none, an old one), it is checked again each time, as before."""
    if request.endpoint == "static" and response.status_code in (200, 304) and \
            request.args.get("v") == static_digest((request.view_args or {})["filename"]):
        response.cache_control.no_cache = None  # Flask's default for a file: ask again
        response.cache_control.public = True
        response.cache_control.max_age = YEAR
        response.cache_control.immutable = True
    return response
