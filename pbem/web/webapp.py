"""The site as an app a phone installs: its web app manifest, its service worker (which
shows push notifications, ``pbem/mail/push.py``, and an offline page when the network is
gone) and that page.

The service worker is served from the site's root, so that its scope covers every page.
"""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify, render_template, send_from_directory, \
    url_for
from flask_babel import gettext

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
