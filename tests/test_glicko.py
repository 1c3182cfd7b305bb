"""Glicko-2 (pbem/glicko.py) against Glickman's own worked example, and the properties the
server relies on: each game one rating period for its two players."""
from __future__ import annotations

import pytest

from pbem.glicko import Rating, game, rate


def test_glickmans_worked_example():
    """"Example of the Glicko-2 system" (Glickman, 2013): 1500/200/0.06 beats 1400/30,
    loses to 1550/100 and to 1700/300 in one period (the PyPI package glicko2 2.1.0 gives
    1441.5 here)."""
    after = rate(Rating(1500, 200, 0.06), [(Rating(1400, 30), 1), (Rating(1550, 100), 0),
                                           (Rating(1700, 300), 0)])
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_new_player_has_glickmans_defaults_and_is_provisional():
    assert Rating() == Rating(1500, 350, 0.06)
    assert Rating().provisional and Rating(1500, 110).provisional is False


@pytest.mark.parametrize("first, second", [(Rating(), Rating()),
                                            (Rating(1700, 80, 0.06), Rating(1400, 200, 0.05))])
def test_a_win_raises_a_loss_lowers_and_a_draw_moves_towards_the_opponent(first, second):
    won, lost = game(first, second, 1)
    assert won.rating > first.rating and lost.rating < second.rating
    assert won.deviation < first.deviation and lost.deviation < second.deviation
    drew, other = game(first, second, 0.5)
    assert (drew.rating - first.rating) * (second.rating - first.rating) >= 0
    assert (other.rating - second.rating) * (first.rating - second.rating) >= 0


def test_equal_players_exchange_equal_points_and_the_sum_is_kept():
    won, lost = game(Rating(1600, 150), Rating(1600, 150), 1)
    assert won.rating - 1600 == pytest.approx(1600 - lost.rating)
    drew, other = game(Rating(1600, 150), Rating(1600, 150), 0.5)
    assert (drew.rating, other.rating) == pytest.approx((1600, 1600))


def test_the_first_game_moves_an_unsure_rating_more_than_a_sure_one():
    unsure, _ = game(Rating(1500, 350), Rating(1500, 60), 1)
    sure, _ = game(Rating(1500, 60), Rating(1500, 350), 1)
    assert unsure.rating - 1500 > sure.rating - 1500 > 0


def test_a_period_without_games_only_widens_the_deviation():
    idle = rate(Rating(1550, 100, 0.06), [])
    assert idle.rating == 1550
    assert idle.deviation == pytest.approx((100 ** 2 + (0.06 * 173.7178) ** 2) ** 0.5, abs=0.01)
