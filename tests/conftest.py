"""Shared fixtures, in flaskr's manner: ``app`` (a fresh SQLite file per test), ``client``,
``runner``; plus ``new_game`` to create a game through the JSON API and ``live_server``
for tests that need a real HTTP server (browsers, SMTP round trips)."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest
from werkzeug.serving import make_server

from pbem import create_app
from pbem.matches import CACHE


@pytest.fixture
def app(tmp_path):
    CACHE.clear()  # every test starts from its own database
    app = create_app({
        "TESTING": True,
        "DATABASE": str(tmp_path / "pbem.sqlite"),
        "MAIL_FOLDER": str(tmp_path / "mail"),
        "SECRET_KEY": "test",
    })
    yield app
    CACHE.clear()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


def path_of(url: str) -> str:
    """The path (and query) of an absolute URL from an API answer, for the test client."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


@dataclass
class NewGame:
    id: str
    urls: list[str]   # each seat's play page path
    apis: list[str]   # each seat's API base path
    watch: str        # the spectator page path


@pytest.fixture
def new_game(client):
    """Create a game through the API: ``new_game("mastery", players=2, options={})``."""

    def create(game: str = "mastery", players: int = 2, options: dict | None = None) -> NewGame:
        body = {"game": game, "options": options or {},
                "players": [{"name": f"Player {i + 1}", "email": f"p{i + 1}@example.org"}
                            for i in range(players)]}
        response = client.post("/api/games", json=body)
        assert response.status_code == 201, response.json
        seats = response.json["seats"]
        return NewGame(response.json["id"], [path_of(s["url"]) for s in seats],
                       [path_of(s["api"]) for s in seats], path_of(response.json["spectator"]))

    return create


@pytest.fixture
def live_server(app):
    """The app on a real HTTP server on loopback; yields its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join()
