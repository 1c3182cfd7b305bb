"""The fixtures themselves: the engines a test runs on, and the database it is given."""
from __future__ import annotations

import sqlite3

import pytest

from pbem.store.db import is_url


def engines_of(request) -> list[str]:
    """The engines this session runs the asking test on."""
    return [item.callspec.params["database"] for item in request.session.items
            if item.originalname == request.node.originalname]


def test_a_test_of_storage_runs_on_every_engine_chosen(request, database):
    chosen = request.config.getoption("database")
    assert engines_of(request) == (["sqlite", "postgresql"] if chosen == "both" else [chosen])


@pytest.mark.one_database
def test_a_test_whose_database_is_incidental_runs_on_one_engine(request, database):
    chosen = request.config.getoption("database")
    assert engines_of(request) == ["sqlite" if chosen == "both" else chosen]


@pytest.mark.one_database
def test_an_sqlite_test_is_given_a_copy_of_the_sessions_schema(database, sqlite_template):
    if is_url(database):
        pytest.skip("on PostgreSQL, create_app makes each test's schema")
    tables = [[row[0] for row in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        for connection in map(sqlite3.connect, (database, sqlite_template))]
    assert "games" in tables[0] and tables[0] == tables[1]
