"""Absolute addresses in the answers to requests (the API's, the page that shows a new
game's links): emails build theirs from PUBLIC_URL alone (``links.email_url``)."""
from __future__ import annotations

from typing import Any

from flask import current_app, request, url_for


def external_url(endpoint: str, **values: Any) -> str:
    """An absolute URL for the answer to a request: PUBLIC_URL when configured, else the
    request's own address, whose host Flask has checked against TRUSTED_HOSTS. Never for
    emails: see ``links.email_url``."""
    base = current_app.config["PUBLIC_URL"] or request.host_url
    path = url_for(endpoint, **values)
    root = request.script_root  # the configured PUBLIC_URL already says where the app lives
    return base.rstrip("/") + (path[len(root):] if root and path.startswith(root) else path)
