"""How the app's packages and modules depend on one another.

``pbem`` keeps its core flat and in view (the game log ``matches`` and what it builds on,
and the services over it: ``computer``, ``lobby``, ``talk``...); around it stand packages
that each do one thing: ``store`` (databases and caches), ``boards`` (drawing), ``mail``
(everything that sends or reads messages), ``web`` (the ways in over HTTP) and ``jobs``
(the job process). Each may import only the packages below it; the core never imports what
sends, so it hears nothing back: ``mail.notify`` subscribes to ``pbem.signals`` instead."""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from pbem import commands, signals
from pbem.events import Command, Move

PACKAGE = Path(__file__).resolve().parent.parent / "pbem"
SUB_PACKAGES = ("store", "boards", "mail", "web", "jobs")
APP = {"", "cli", "production"}  # create_app and the operator's commands: they wire it all
# What each part may import besides itself and ``engine``.
ALLOWED = {
    "store": set(),
    "boards": set(),
    "core": {"store", "boards"},
    "mail": {"core", "store", "boards"},
    "web": {"core", "store", "boards", "mail"},
    "jobs": {"core", "store", "mail"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


@functools.cache
def imports() -> dict[str, set[str]]:
    """module -> the pbem modules it imports anywhere (at the top or inside a function),
    named from the package, e.g. ``mail.notify``; ``""`` is ``pbem/__init__.py``."""
    graph = {}
    for module, path in MODULES.items():
        base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                origin = ".".join(base[:len(base) - node.level + 1]
                                  + ([node.module] if node.module else []))
            elif (node.module or "").startswith("pbem"):
                origin = node.module.removeprefix("pbem").lstrip(".")
            else:
                continue
            for alias in node.names:
                imported = f"{origin}.{alias.name}".strip(".")
                found.add(imported if imported in MODULES else origin.strip("."))
        graph[module] = found - {module}
    return graph


def part(module: str) -> str:
    top = module.split(".")[0]
    return "app" if module in APP else top if top in SUB_PACKAGES else "core"


def test_the_modules_import_one_another_without_a_circle():
    graph = imports()

    def reaches(start: str, seen: tuple[str, ...]) -> None:
        for other in graph.get(start, ()):
            assert other not in seen, f"import circle: {' -> '.join(seen + (other,))}"
            reaches(other, seen + (other,))

    for module in graph:
        if module:
            reaches(module, (module,))


def test_each_part_imports_only_the_parts_below_it():
    wrong = sorted(f"{module} -> {other}" for module, others in imports().items()
                   if part(module) != "app"
                   for other in others
                   if part(other) != part(module) and part(other) not in ALLOWED[part(module)])
    assert not wrong


def outside_imports(path: Path) -> set[str]:
    """The modules from outside ``pbem`` that the file imports (anywhere in it)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.add(node.module or "")
    return {name for name in found if not name.startswith("pbem")}


def test_the_core_the_stores_and_the_boards_know_no_web_framework():
    """They ask the application for settings and paths through ``pbem.server``; only
    Flask-Babel's words are read there (where the core's sentences are written)."""
    wrong = sorted(f"{module}: {name}" for module, path in MODULES.items()
                   if part(module) in ("core", "store", "boards")
                   for name in outside_imports(path)
                   if name.split(".")[0] == "flask" or name.startswith("flask_")
                   and name != "flask_babel")
    assert not wrong


def test_every_module_is_in_a_part_the_rule_knows():
    assert {part(module) for module in MODULES} == set(ALLOWED) | {"app"}


@pytest.mark.parametrize("module", ["matches", "creation", "results", "clocks", "links",
                                    "store.db", "signals"])
def test_the_game_log_imports_nothing_that_sends(module):
    assert not {part(other) for other in reached(module)} & {"mail", "web", "jobs", "app"}


def reached(module: str) -> set[str]:
    """The modules ``module`` imports, and those they import, and so on."""
    graph = imports()
    found, todo = set(), [module]
    while todo:
        for other in graph[todo.pop()] - found:
            found.add(other)
            todo.append(other)
    return found


def test_a_seats_choices_are_kept_apart_from_what_sends():
    """What a seat chose is read by everything that emails, so it sends nothing itself:
    the reminder jobs and the reactions to events come above it, not below."""
    assert not {part(other) for other in reached("mail.preferences")} & {
        "mail", "web", "jobs", "app"}
    assert {"mail.notify", "mail.preferences"} <= reached("mail.reminders")
    assert "mail.reminders" not in reached("mail.notify")


def test_recording_an_event_tells_every_subscriber_in_its_transaction(app, db, new_game):
    from pbem import matches

    heard = []

    def subscriber(sender, *, before, after, event, latest):
        heard.append((sender is db, sender.conn.in_transaction, before.ply, after.ply,
                      event.kind, event.move))

    game = new_game("mastery")
    with app.test_request_context(), signals.event_recorded.connected_to(subscriber):
        match = matches.load(db, game.id)
        move = match.game.legal_moves(match.current, 0)[0]
        commands.submit(db, game.id, 0, Command.of("move", Move(move)), 0)
    assert heard == [(True, True, 0, 1, "move", move)]


def test_the_core_reads_settings_and_paths_from_whatever_application_is_bound(monkeypatch):
    """No Flask in sight: an object with a configuration and a URL map is enough for the
    core to write an email's links and a reply address."""
    from types import SimpleNamespace

    from werkzeug.routing import Map, Rule

    from pbem import links, server

    bound = SimpleNamespace(
        config={"PUBLIC_URL": "https://games.example.org", "REPLY_ADDRESS": None,
                "MAIL_DOMAIN": "games.example.org"},
        url_map=Map([Rule("/<any(play, watch):role>/<token>", endpoint="play.page")]))
    monkeypatch.setattr(server, "_current", lambda: bound)
    token = links.new_token()
    assert links.email_url("play.page", role="play", token=token) == \
        f"https://games.example.org/play/{token}"
    assert links.email_urls("play.page", ["a", "b"], role="watch") == [
        "https://games.example.org/watch/a", "https://games.example.org/watch/b"]
    assert links.reply_address(token, 3) == f"move+v3.{token}@games.example.org"
    bound.config["PUBLIC_URL"] = None  # unset: the mark that the outbox replaces once set
    assert links.email_url("play.page", role="play", token=token).startswith(
        links.PUBLIC_URL_MARK + "/play/")
    monkeypatch.setattr(server, "_current", server._unbound)
    with pytest.raises(server.Unbound):
        server.setting("PUBLIC_URL")
