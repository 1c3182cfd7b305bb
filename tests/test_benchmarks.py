"""The benchmark (``./dev bench``, ``benchmarks/run.py``) runs every section and estimates the
capacity from their figures. A short run whose figures are not judged (speed is measured,
not asserted): the command the README quotes must keep working."""
from __future__ import annotations

import concurrent.futures
import functools
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import run
    # each rate for 0.4 s: the server's CPU is read in the kernel's ticks of 10 ms, and in
    # 0.2 s on a machine busy with the other tests a server answered too little to show any
    monkeypatch.setattr(run, "SECONDS", 0.4)
    # each rate's warm-up keeps the server and its clients busy: a tenth of a second here
    monkeypatch.setattr(run.serving, "hammer", in_a_thread(functools.partial(
        run.serving.hammer, warmup=0.1)))
    monkeypatch.setattr(run, "THINK", 0.5)
    monkeypatch.setattr(run, "FIGURES", {})
    return run


def in_a_thread(call):
    """``call`` run in a thread of its own: the serving benchmark runs an asyncio event
    loop, which cannot start in a worker's thread where the browser tests' Playwright keeps
    one running (conftest's ``browser``, one per worker)."""
    def run(*args, **kwargs):
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(call, *args, **kwargs).result()

    return run


# Each section is a test of its own, so that parallel workers share them out.

def test_the_page_commit_and_mail_sections_give_the_capacity(bench, capsys):
    bench.page_figures(plies=2, repeats=2)
    bench.cold_figures(repeats=2, ply=16)  # the figures at ply 400 are not judged here
    bench.commit_figures(clients=2, games=2)
    bench.mail_figures(count=4)
    bench.capacity()
    printed = capsys.readouterr().out
    assert set(bench.FIGURES) == {"page", "304", "drawn", "click", "load", "move", "commits",
                                  "mail"}
    # loading a game of 16 plies may cost less than the timer's noise
    assert [name for name, figure in bench.FIGURES.items()
            if figure < 0 or (figure == 0 and name != "load")] == [], bench.FIGURES
    for section in ("Pages:", "Cold cache:", "Commits:", "Mail:", "Capacity:"):
        assert section in printed


def test_the_records_section_compares_a_review_page_with_a_games(bench, capsys):
    bench.record_figures(repeats=2, ply=16, plies=32)
    printed = capsys.readouterr().out
    assert "Records:" in printed and "review page at ply 31 of 32" in printed


def test_the_strangers_section_times_an_email_beside_slow_receivers(bench, capsys):
    bench.stranger_figures(dribbling=1, silent=1, emails=1, dribble=0.5, patience=30)
    assert "an email's delay, median of 1" in capsys.readouterr().out


def test_the_jobs_section_finds_nothing_left_on_a_second_pass(bench, capsys):
    bench.job_figures(games=1000, due=5)
    printed = capsys.readouterr().out
    assert "Jobs:" in printed
    assert "timeouts again: 0 done" in printed


def test_the_fairness_section_measures_a_persons_wait(bench, monkeypatch, capsys):
    # its job process with the computers' defaults would give their games a first move only
    # after 10 s (BOT_PACE_SECONDS), and look every 3 s: quicker here, as nothing is judged
    production = bench.server_env
    monkeypatch.setattr(bench, "server_env", lambda folder: {
        **production(folder), "PBEM_BOT_PACE_SECONDS": "1", "PBEM_BOT_INTERVAL_SECONDS": "0.5"})
    bench.fairness_figures(games=4, moves=1)
    assert "Fairness:" in capsys.readouterr().out


def test_the_engine_sections_run(bench, capsys):
    bench.playout_figures(seconds=0.1)
    bench.magnet_figures(seconds=0.1, least_games=2)
    assert "Magnet legal-move generation:" in capsys.readouterr().out


@pytest.fixture
def bots_bench(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bots
    return bots


def test_bots_bench_credits_each_game_to_the_side_that_moved_first(bots_bench):
    # Sides alternate: the first player (easy) moves first in even games, second in odd ones.
    for number in (0, 1):
        first, opener = bots_bench.play_game(("mastery", 2, "easy", "random", number, 400, None))
        assert first == 1.0  # easy beats random moves from either side
        assert opener == (first if number % 2 == 0 else 1 - first)


def test_bots_bench_balance_plays_each_level_against_itself(bots_bench, capsys):
    bots_bench.balance([("mastery", 2), ("the-right-moves", 4)], ["easy"], games=2, jobs=1,
                       max_plies=6)
    printed = capsys.readouterr().out
    assert "wins, draws and losses of the side that moves first" in printed
    rows = [line.split() for line in printed.splitlines()[2:]]
    assert [row[:2] for row in rows] == [["mastery", "easy-easy"],
                                        ["the-right-moves", "(4p)"]]
    assert rows[0][2:6] == ["0", "2", "0", "50%"]  # 6 plies: two unfinished games, draws
