"""Everything registered is documented: games have rules pages and rows in the README and
docs/playing.md, operator commands and settings are in docs/operations.md, every JSON
endpoint is in docs/api.md (and nothing else is), every module in docs/architecture.md, and
every relative link of the README and docs/ leads somewhere."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from werkzeug.exceptions import HTTPException

import engine

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
DOCS = {path.name: path.read_text() for path in (ROOT / "docs").glob("*.md")}
OPERATIONS, API, ARCHITECTURE = (DOCS["operations.md"], DOCS["api.md"],
                                 DOCS["architecture.md"])
# JSON endpoints outside /api/, shared with the pages: the methods that answer JSON
SHARED_JSON = {"lobby.join": {"POST"}, "lobby.join_challenge": {"POST"},
               "play.record_json": {"GET"}, "play.version": {"GET"},
               "players.sign_in": {"POST"}, "players.export_download": {"GET"},
               "console.healthz": {"GET"}}
DOCUMENTED_CALL = re.compile(r"`(GET|POST|PUT|DELETE) (/[^`]*)`")

# What is documented does not depend on what stores the games.
pytestmark = pytest.mark.one_database


@pytest.mark.parametrize("game", engine.GAMES.values(), ids=list(engine.GAMES))
def test_every_game_has_a_rules_page_and_a_row(client, game):
    page = client.get(f"/rules/{game.id}")
    assert page.status_code == 200 and game.title in page.get_data(as_text=True)
    for text in (README, DOCS["playing.md"]):
        assert f"| {game.title} |" in text and f"`/rules/{game.id}`" in text
    assert f'href="/rules/{game.id}"' in client.get("/rules").get_data(as_text=True)


def test_every_operator_command_is_documented(app):
    ours = {"serve", "init-db", "send-mail", "run-scheduler", "list-games"}
    assert ours <= set(app.cli.commands)
    for name in app.cli.commands:
        assert f"| `{name}` |" in OPERATIONS, name


def test_every_setting_is_documented(app):
    flask_defaults = set(type(app).default_config)
    for name in set(app.config) - flask_defaults - {"TESTING"}:
        assert f"`{name}`" in OPERATIONS, name


def json_calls(app) -> set[tuple[str, str]]:
    """(method, rule) of every request that answers JSON."""
    calls = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            methods = rule.methods - {"HEAD", "OPTIONS"}
        else:
            methods = SHARED_JSON.get(rule.endpoint, set())
        calls |= {(method, rule.rule) for method in methods}
    return calls


def test_every_json_endpoint_is_documented(app):
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules()}
    assert set(SHARED_JSON) <= endpoints
    for method, rule in json_calls(app):
        assert f"`{method} {rule}`" in API, f"{method} {rule}"


def test_the_api_page_documents_only_what_the_server_answers(app):
    urls = app.url_map.bind("games.example.org")
    known = json_calls(app)
    calls = DOCUMENTED_CALL.findall(API)
    assert len(calls) >= len(json_calls(app))
    for method, path in calls:
        if (method, path) in known:
            continue
        try:
            endpoint, _ = urls.match(path, method=method)
        except HTTPException:
            pytest.fail(f"docs/api.md: {method} {path} is no endpoint of the server")
        assert endpoint.startswith("api.") or method in SHARED_JSON.get(endpoint, ()), \
            f"docs/api.md: {method} {path} answers no JSON"


def test_every_module_is_in_the_architecture_page():
    package = ROOT / "pbem"
    games = {path.stem for path in (ROOT / "engine").glob("*.py")}  # boards/: one per game
    modules = {path.stem for path in package.rglob("*.py")} - {"__init__"} - games
    modules |= {path.name for path in package.iterdir()
                if (path / "__init__.py").exists()}
    for module in modules:
        assert f"`{module}`" in ARCHITECTURE or f"`{module}/`" in ARCHITECTURE, module


def anchor(heading: str) -> str:
    """GitHub's id of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    return {anchor(heading) for heading in re.findall(r"(?m)^#+ (.+)$", text)}


@pytest.mark.parametrize("page", ["README.md"] + [f"docs/{name}" for name in sorted(DOCS)])
def test_every_relative_link_resolves(page):
    source = ROOT / page
    text = source.read_text()
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links or page == "README.md"
    for link in links:
        if re.match(r"[a-z]+:", link):
            continue
        path, _, fragment = link.partition("#")
        target = (source.parent / path).resolve() if path else source
        assert target.exists(), f"{page}: {link}"
        if fragment:
            assert fragment in anchors(target.read_text()), f"{page}: {link}"


def test_the_readme_starts_with_the_two_commands_and_stays_an_entry():
    commands = [line for line in README.splitlines()[:6] if line.startswith("./dev ")]
    assert [c.split()[1] for c in commands] == ["serve", "test"]
    assert "./dev test" in (ROOT / ".ci" / "run").read_text()
    assert len(README.splitlines()) <= 200
    for name in DOCS:
        assert f"(docs/{name})" in README, name


@pytest.mark.parametrize("game", engine.GAMES.values(), ids=list(engine.GAMES))
def test_every_game_has_a_board_with_the_whole_interface(game):
    from pbem.boards import board_for
    board = board_for(game.id)
    assert board is importlib.import_module(f"pbem.boards.{game.id.replace('-', '_')}")
    for name in ("render", "click_path", "is_cell", "choice_label", "move_cells", "text"):
        assert callable(getattr(board, name, None)), f"{game.id} board lacks {name}"


# Where the code and the docs name a file of the project (a whole path, not a pattern's
# part), and whether as it was at a commit ("pbem/db.py at 021c809")
NAMED_PATH = re.compile(r"(?<![\w/.])((?:pbem|engine|tests|templates|static|docs|benchmarks)"
                        r"/[\w./-]*\w)(?![\w/\\-]|\.\w)( at [0-9a-f]{7,})?")
OURS = [path for folder in ("pbem", "engine", "tests", "templates", "static", "docs",
                            "benchmarks")
        for path in (ROOT / folder).rglob("*")
        if path.suffix in {".py", ".sql", ".html", ".txt", ".md", ".css", ".js"}
        and "translations" not in path.parts and path.is_file()] \
    + [ROOT / "README.md", ROOT / "pyproject.toml", ROOT / "dev"]


def test_every_file_the_code_and_the_docs_name_is_there():
    missing = sorted({f"{path.relative_to(ROOT)}: {named}" for path in OURS
                      for named, then in NAMED_PATH.findall(path.read_text())
                      if not (then or (ROOT / named).exists())})
    assert not missing


def test_nothing_cites_a_file_outside_the_repository():
    """The outside checks' contract is not in the repository: docs/api.md is the
    reference, and the code says what it means."""
    citing = sorted(str(path.relative_to(ROOT)) for path in OURS
                    if path != Path(__file__) and "CONTRACT" in path.read_text())
    assert not citing
