"""Everything registered is documented: games have rules pages and README rows, operator
commands and settings are in the README."""
from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import engine

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()

# What is documented does not depend on what stores the games.
pytestmark = pytest.mark.one_database


@pytest.mark.parametrize("game", engine.GAMES.values(), ids=list(engine.GAMES))
def test_every_game_has_a_rules_page_and_a_readme_row(client, game):
    page = client.get(f"/rules/{game.id}")
    assert page.status_code == 200 and game.title in page.get_data(as_text=True)
    assert f"| {game.title} |" in README and f"`/rules/{game.id}`" in README
    assert f'href="/rules/{game.id}"' in client.get("/rules").get_data(as_text=True)


def test_every_operator_command_is_documented(app):
    ours = {"serve", "init-db", "send-mail", "run-scheduler", "list-games"}
    assert ours <= set(app.cli.commands)
    for name in app.cli.commands:
        assert f"| `{name}` |" in README, name


def test_every_setting_is_documented(app):
    flask_defaults = set(type(app).default_config)
    for name in set(app.config) - flask_defaults - {"DATABASE", "TESTING", "SECRET_KEY"}:
        assert f"`{name}`" in README, name
    assert "`DATABASE`" in README and "`SECRET_KEY`" in README


def test_the_readme_starts_with_the_two_commands():
    commands = [line for line in README.splitlines()[:6] if line.startswith("./dev ")]
    assert [c.split()[1] for c in commands] == ["serve", "test"]
    assert "./dev test" in (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text()


@pytest.mark.parametrize("game", engine.GAMES.values(), ids=list(engine.GAMES))
def test_every_game_has_a_board_with_the_whole_interface(game):
    from pbem.boards import board_for
    board = board_for(game.id)
    assert board is importlib.import_module(f"pbem.boards.{game.id.replace('-', '_')}")
    for name in ("render", "click_path", "is_cell", "choice_label", "move_cells", "text"):
        assert callable(getattr(board, name, None)), f"{game.id} board lacks {name}"
