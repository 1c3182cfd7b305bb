"""The cap on a player's running games (``fairplay``) holds for games created at the same
moment: two requests of one player (two new games, or a new game and a seat joined), each
in a thread with its own connection, are let go together once both wait for the database,
and one of them is refused."""
from __future__ import annotations

import threading
import time

import pytest

from pbem.store.db import connect, dialect, write

from helpers import path_of, sign_up

# Each session waiting for a lock, and the sessions it waits for (PostgreSQL).
# (pg_locks, not pg_stat_activity: that one stays as the transaction first read it)
WAITING = "SELECT DISTINCT pid, pg_blocking_pids(pid) FROM pg_locks WHERE NOT granted"


def waiting_behind(holder, threads: list[threading.Thread]) -> None:
    """Until every thread waits, for the write ``holder`` holds or behind another thread
    that does. PostgreSQL lists who waits for whom (other tests' sessions, which wait for
    none of ours, are left out); SQLite does not say, so the threads are given a moment to
    ask for its write lock."""
    if dialect(holder) != "postgresql":
        time.sleep(0.5)
        return
    deadline = time.monotonic() + 30
    first = holder.execute("SELECT pg_backend_pid()").fetchone()[0]
    while True:
        waits = {pid: set(blockers) for pid, blockers in holder.execute(WAITING)}
        behind = {first}
        while more := {pid for pid, blockers in waits.items()
                       if pid not in behind and blockers & behind}:
            behind |= more
        if len(behind) - 1 >= len(threads):
            return
        assert all(t.is_alive() for t in threads), "a request ended without waiting"
        assert time.monotonic() < deadline, "the requests never waited for the lock"
        time.sleep(0.02)


@pytest.mark.parametrize("second", ["create", "join"])
def test_games_taken_at_once_never_pass_the_running_games_cap(app, client, db, second):
    """Two games at once, one created and another created too or joined: one is refused."""
    key = sign_up(client, db, "Ann")
    app.config["RUNNING_GAMES_FIRST"] = 1  # Ann, who finished none, may have one running
    challenge = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Bob", "email": "bob@example.org"}, {"open": True}]}).json
    join = path_of(challenge["seats"][1]["join"])
    codes: list[int] = []

    def take(how: str) -> None:
        answer = app.test_client().post(join, json={"key": key}) if how == "join" else \
            app.test_client().post("/api/games", json={"game": "mastery", "players": [
                {"key": key}, {"name": "Cid", "email": "cid@example.org"}]})
        codes.append(answer.status_code)

    holder = connect(app.config["DATABASE"])
    try:
        with write(holder):  # every writer waits: SQLite's write lock, PostgreSQL's games
            if dialect(holder) == "postgresql":
                holder.execute("LOCK TABLE games IN EXCLUSIVE MODE")  # (reading them goes on)
            threads = [threading.Thread(target=take, args=(how,)) for how in ("create", second)]
            for thread in threads:
                thread.start()
            waiting_behind(holder, threads)
        for thread in threads:
            thread.join()
    finally:
        holder.close()
    assert sorted(codes) == [201, 422]
    assert db.execute("SELECT count(*) FROM seats WHERE player_id = (SELECT id FROM players "
                      "WHERE handle = 'Ann')").fetchone()[0] == 1
