"""Glicko-2 ratings, as Mark Glickman's "Example of the Glicko-2 system" (2013) computes them.

A player is a ``Rating``: the rating, its deviation (how uncertain it is) and the
volatility (how erratic the player's results are). ``rate`` gives a player's rating after
one rating period, from the results of that period's games; the server makes each finished
rated game one period for its two players (``pbem/ratings.py``), so a deviation never grows
between games. Pure functions: nothing here reads or writes anything.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

# Glickman's defaults: a new player, and the system constant tau that limits how fast the
# volatility changes.
RATING, DEVIATION, VOLATILITY, TAU = 1500.0, 350.0, 0.06, 0.5
PROVISIONAL_ABOVE = 110.0  # a rating is provisional while its deviation is larger
SCALE = 400 / math.log(10)  # 173.7178: from the Glicko scale to Glicko-2's
EPSILON = 0.000001  # the volatility's convergence tolerance (step 5)


@dataclass(frozen=True)
class Rating:
    rating: float = RATING
    deviation: float = DEVIATION
    volatility: float = VOLATILITY

    @property
    def provisional(self) -> bool:
        return self.deviation > PROVISIONAL_ABOVE


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi ** 2 / math.pi ** 2)


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def rate(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """``player``'s rating after a period of games against each opponent of ``results``
    (their ratings before the period), with the score of each: 1 a win, 0.5 a draw, 0 a
    loss. A period without games only widens the deviation (Glickman's step 6)."""
    mu, phi, sigma = (player.rating - RATING) / SCALE, player.deviation / SCALE, player.volatility
    if not results:
        return Rating(player.rating, math.sqrt(phi ** 2 + sigma ** 2) * SCALE, sigma)
    # Step 3 and 4: the estimated variance from the games alone, and the improvement.
    games = [((opponent.rating - RATING) / SCALE, opponent.deviation / SCALE, score)
             for opponent, score in results]
    v = 1 / sum(_g(phi_j) ** 2 * _expected(mu, mu_j, phi_j) * (1 - _expected(mu, mu_j, phi_j))
                for mu_j, phi_j, _ in games)
    gain = sum(_g(phi_j) * (score - _expected(mu, mu_j, phi_j)) for mu_j, phi_j, score in games)
    delta = v * gain
    # Step 5: the new volatility, by the Illinois algorithm.
    sigma = _volatility(delta, phi, v, sigma, tau)
    # Steps 6 to 8.
    phi_star = math.sqrt(phi ** 2 + sigma ** 2)
    phi = 1 / math.sqrt(1 / phi_star ** 2 + 1 / v)
    mu = mu + phi ** 2 * gain
    return Rating(mu * SCALE + RATING, phi * SCALE, sigma)


def _volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    a = math.log(sigma ** 2)

    def f(x: float) -> float:
        return (math.exp(x) * (delta ** 2 - phi ** 2 - v - math.exp(x))
                / (2 * (phi ** 2 + v + math.exp(x)) ** 2)) - (x - a) / tau ** 2

    low = a
    if delta ** 2 > phi ** 2 + v:
        high = math.log(delta ** 2 - phi ** 2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > EPSILON:
        new = low + (low - high) * f_low / (f_high - f_low)
        f_new = f(new)
        if f_new * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2
        high, f_high = new, f_new
    return math.exp(low / 2)


def game(first: Rating, second: Rating, score: float) -> tuple[Rating, Rating]:
    """Both players' ratings after one game between them, a period of its own; ``score``
    is the first player's (1, 0.5 or 0)."""
    return rate(first, [(second, score)]), rate(second, [(first, 1 - score)])
