"""Shared fixtures, in flaskr's manner: ``app`` (a fresh SQLite file per test), ``client``,
``runner``; plus ``new_game`` to create a game through the JSON API, ``live_server`` for
tests that need a real HTTP server (browsers), and ``smtp``, a real SMTP server on loopback."""
from __future__ import annotations

import email
import email.policy
import socket
import threading
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest
from aiosmtpd.controller import Controller
from werkzeug.serving import make_server

from pbem import create_app
from pbem.matches import CACHE


@pytest.fixture
def app(tmp_path, monkeypatch):
    CACHE.clear()  # every test starts from its own database
    monkeypatch.setenv("PBEM_INSTANCE", str(tmp_path / "instance"))  # its own lock and key
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


# -- a real SMTP server -------------------------------------------------------------------

class Recorder:
    """An aiosmtpd handler that keeps what it receives, or refuses while told to."""

    def __init__(self) -> None:
        self.received: list[tuple[str, list[str], email.message.EmailMessage]] = []
        self.refuse_rcpt: str | None = None   # e.g. "550 5.1.1 No such user"
        self.refuse_data: str | None = None   # e.g. "451 4.3.0 Try again later"
        self.port = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.refuse_rcpt:
            return self.refuse_rcpt
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.refuse_data:
            return self.refuse_data
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        self.received.append((envelope.mail_from, list(envelope.rcpt_tos), message))
        return "250 Message accepted for delivery"

    @property
    def messages(self) -> list[email.message.EmailMessage]:
        return [message for _, _, message in self.received]


def free_port() -> int:
    """A loopback port nobody listens on (connections to it are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def smtp():
    handler = Recorder()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port(),
                            server_hostname="smtp.test")
    controller.start()
    handler.port = controller.port
    yield handler
    controller.stop()
