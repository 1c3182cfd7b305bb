"""How the app's modules depend on one another: the game log (``matches``) and what it builds
on never import what sends messages; those subscribe to ``pbem.signals`` instead."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pbem import signals

PACKAGE = Path(__file__).resolve().parent.parent / "pbem"
SENDERS = {"notify", "mail", "inbound", "listener", "scheduler"}


def imports() -> dict[str, set[str]]:
    """module -> the pbem modules it imports anywhere (at the top or inside a function)."""
    graph = {}
    for path in PACKAGE.glob("*.py"):
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    found.add(node.module.split(".")[0])
                else:
                    found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pbem."):
                found.add(node.module.split(".")[1])
        graph[path.stem] = found & {p.stem for p in PACKAGE.glob("*.py")} - {path.stem}
    return graph


def test_the_modules_import_one_another_without_a_circle():
    graph = imports()

    def reaches(start: str, seen: tuple[str, ...]) -> None:
        for other in graph.get(start, ()):
            assert other not in seen, f"import circle: {' -> '.join(seen + (other,))}"
            reaches(other, seen + (other,))

    for module in graph:
        if module != "__init__":
            reaches(module, (module,))


@pytest.mark.parametrize("module", ["matches", "clocks", "links", "db", "signals"])
def test_the_game_log_imports_nothing_that_sends(module):
    graph = imports()
    reached, todo = set(), [module]
    while todo:
        for other in graph[todo.pop()] - reached:
            reached.add(other)
            todo.append(other)
    assert not reached & SENDERS


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
        matches.act(db, game.id, 0, "move", move, 0)
    assert heard == [(True, True, 0, 1, "move", move)]
