"""The pairing rules (``pbem.pairings``) as properties over many random tournaments, each
from a seeded random generator so that a failure can be replayed."""
from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest

from pbem import pairings
from pbem.pairings import Game


def colour_counts(pairs) -> Counter:
    """first moves less second moves, per player"""
    balance: Counter = Counter()
    for first, second in pairs:
        balance[first] += 1
        balance[second] -= 1
    return balance


@pytest.mark.parametrize("players", range(2, 41))
def test_a_round_robin_pairs_everyone_once_with_colours_balanced(players):
    rounds = pairings.round_robin([f"p{i}" for i in range(players)])
    assert len(rounds) == players - 1 + players % 2
    every = [pair for pairs in rounds for pair in pairs]
    assert Counter(frozenset(pair) for pair in every) == {
        frozenset(pair): 1 for pair in itertools.combinations([f"p{i}" for i in range(players)], 2)}
    for pairs in rounds:  # no one twice in a round; an odd field has one player out
        seated = [p for pair in pairs for p in pair]
        assert len(seated) == len(set(seated)) == players - players % 2
    assert all(abs(b) <= 1 for b in colour_counts(every).values())


@pytest.mark.parametrize("players", [2, 3, 6, 9, 14])
def test_a_double_round_robin_swaps_the_colours(players):
    names = list(range(players))
    single, double = pairings.round_robin(names), pairings.round_robin(names, double=True)
    assert double[:len(single)] == single
    assert double[len(single):] == [[(b, a) for a, b in pairs] for pairs in single]
    assert all(b == 0 for b in colour_counts(p for r in double for p in r).values())


def play_swiss(rng: random.Random, players: int, rounds: int, withdrawals: int = 0):
    """A Swiss of random results: the games and the players withdrawn; stops early when
    no round can be paired. Checks every round's pairing as it goes."""
    names = [f"p{i}" for i in range(players)]
    games: list[Game] = []
    withdrawn: set[str] = set()
    for number in range(1, rounds + 1):
        if withdrawals and rng.random() < 0.3:
            withdrawn.add(rng.choice(names))
            withdrawals -= 1
        pairing = pairings.swiss(names, games, withdrawn)
        if pairing is None:
            break
        active = [p for p in names if p not in withdrawn]
        seated = [p for pair in pairing.pairs for p in pair] + [pairing.bye] * (pairing.bye is not None)
        assert sorted(seated) == sorted(active), "every active player once in a round"
        assert (pairing.bye is not None) == (len(active) % 2 == 1)
        met = {frozenset((g.first, g.second)) for g in games}
        assert not met & {frozenset(pair) for pair in pairing.pairs}, "a pair met twice"
        assert pairing.bye not in {g.first for g in games if g.second is None}, "a second bye"
        yield pairing, games
        games = games + [Game(number, a, b, rng.choice((0, 0.5, 1))) for a, b in pairing.pairs]
        if pairing.bye is not None:
            games.append(Game(number, pairing.bye, None, 1))


@pytest.mark.parametrize("seed", range(60))
def test_swiss_rounds_never_repeat_a_pair_and_give_a_bye_at_most_once(seed):
    rng = random.Random(seed)
    players = rng.randint(2, 80)
    rounds = rng.randint(1, min(players - 1, 12))
    played = list(play_swiss(rng, players, rounds, withdrawals=rng.randint(0, 3)))
    assert played  # a first round can always be paired


def halves(score: float) -> int:
    return round(2 * score)


def score_cost(pairs, bye, score) -> int:
    """What the score groups cost a pairing: each pair's difference in half points
    squared, and the bye's height above the lowest score (a bye to the lowest costs 1)."""
    cost = sum((halves(score[a]) - halves(score[b])) ** 2 for a, b in pairs)
    if bye is not None:
        lowest = min(score[p] for p in score)
        cost += (halves(score[bye]) - halves(lowest) + 1) ** 2
    return cost


def all_pairings(players, met, had_bye):
    """Every round that pairs ``players`` without a repeat (and a bye to one who has had
    none, if their number is odd): (pairs, bye)."""
    def pairs_of(rest):
        if not rest:
            yield []
            return
        first = rest[0]
        for other in rest[1:]:
            if frozenset((first, other)) not in met:
                remaining = [p for p in rest[1:] if p != other]
                for more in pairs_of(remaining):
                    yield [(first, other)] + more
    if len(players) % 2 == 0:
        for pairs in pairs_of(players):
            yield pairs, None
        return
    for bye in players:
        if bye not in had_bye:
            for pairs in pairs_of([p for p in players if p != bye]):
                yield pairs, bye


def colour_histories(players, games) -> dict:
    ordered = sorted(games, key=lambda g: g.round)
    histories = {}
    for p in players:
        seq = tuple(g.first == p for g in ordered
                    if g.second is not None and p in (g.first, g.second))
        histories[p] = pairings.Colours(sum(1 if c else -1 for c in seq), seq)
    return histories


def pairing_cost(pairs, bye, score, colours) -> tuple[int, int, int]:
    """(the pairs of two who both must have the same colour, the score groups' cost, how
    much all the pairs want the same colour)"""
    levels = [min(abs(colours[a].wants_first), abs(colours[b].wants_first))
              for a, b in pairs if colours[a].wants_first * colours[b].wants_first > 0]
    return levels.count(3), score_cost(pairs, bye, score), sum(levels)


@pytest.mark.parametrize("seed", range(80))
def test_swiss_keeps_to_colour_limits_score_groups_and_colours_in_that_order(seed):
    """In fields small enough to try every pairing: none breaks the colour limits less
    often than the one chosen; of those that break them as rarely, none keeps the score
    groups better; of those, none clashes less over colours."""
    rng = random.Random(seed)
    players = rng.randint(3, 10)
    for pairing, games in play_swiss(rng, players, rng.randint(2, players - 1)):
        active = sorted({p for pair in pairing.pairs for p in pair} | {pairing.bye} - {None})
        score = {p: s for p, s in pairings.points(active, games).items() if p in active}
        colours = colour_histories(active, games)
        met = {frozenset((g.first, g.second)) for g in games}
        had_bye = {g.first for g in games if g.second is None}
        best = min(pairing_cost(pairs, bye, score, colours)
                   for pairs, bye in all_pairings(active, met, had_bye))
        assert pairing_cost(pairing.pairs, pairing.bye, score, colours) == best


@pytest.mark.parametrize("seed", range(20))
def test_swiss_colours_stay_near_balance(seed):
    """Nobody has the first move three games more (or fewer) than the second, and nobody
    the same colour three times running, in fields big enough to avoid it."""
    rng = random.Random(seed)
    players = rng.randint(20, 120)
    pairing, games = list(play_swiss(rng, players, 9))[-1]
    every = [(g.first, g.second) for g in games if g.second is not None] + pairing.pairs
    assert max(abs(b) for b in colour_counts(every).values()) <= 2
    for player in {p for pair in every for p in pair}:
        firsts = "".join("1" if first == player else "2" for first, second in every
                         if player in (first, second))
        assert "111" not in firsts and "222" not in firsts


def test_a_large_swiss_pairs_within_score_groups_slice_by_slice():
    """A field cut into slices still pairs nearly every player in their score group."""
    rng = random.Random(7)
    for pairing, games in play_swiss(rng, 400, 6):
        score = pairings.points([f"p{i}" for i in range(400)], games)
        across = sum(score[a] != score[b] for a, b in pairing.pairs)
        groups = len(set(score.values()))
        slices = 400 // pairings.SLICE
        assert across <= groups + slices


def test_a_swiss_whose_later_entrants_always_win_is_paired_slice_by_slice(monkeypatch):
    """The results that pile the players who have met, or had a bye, at the bottom of the
    standings: the last slice cannot pair them, and the pairs above are mended rather than
    the whole field matched at once (which takes minutes at 1,000). Counted: the players of
    each matching networkx is asked for."""
    import networkx
    matched = []
    whole = networkx.max_weight_matching

    def counted(graph, *args, **kwargs):
        matched.append(graph.number_of_nodes())
        return whole(graph, *args, **kwargs)
    monkeypatch.setattr(networkx, "max_weight_matching", counted)
    names = list(range(65))
    games: list[Game] = []
    for number in range(1, 31):
        pairing = pairings.swiss(names, games)
        assert pairing is not None
        seated = [p for pair in pairing.pairs for p in pair] + [pairing.bye]
        assert sorted(seated) == names
        met = {frozenset((g.first, g.second)) for g in games}
        assert not met & {frozenset(pair) for pair in pairing.pairs}
        assert pairing.bye not in {g.first for g in games if g.second is None}
        games += [Game(number, a, b, 1 if a > b else 0) for a, b in pairing.pairs]
        games.append(Game(number, pairing.bye, None, 1))
    assert max(matched) <= 3 * pairings.SLICE


def test_the_first_round_of_a_swiss_meets_the_top_half_with_the_bottom_half():
    names = [f"p{i}" for i in range(8)]
    pairing = pairings.swiss(names, [])
    assert sorted(frozenset(p) for p in pairing.pairs) == sorted(
        frozenset((f"p{i}", f"p{i + 4}")) for i in range(4))
    assert sorted(first for first, _ in pairing.pairs) == ["p0", "p1", "p2", "p3"]


def test_the_bye_goes_to_the_lowest_who_has_had_none():
    names = ["a", "b", "c", "d", "e"]
    games = [Game(1, "a", "b", 1), Game(1, "c", "d", 1), Game(1, "e", None, 1)]
    pairing = pairings.swiss(names, games)
    assert pairing.bye in {"b", "d"}  # the players without a point; e had one bye already


def test_no_pairing_once_everyone_has_met():
    names = ["a", "b", "c"]
    games = [Game(1, "a", "b", 1), Game(1, "c", None, 1), Game(2, "a", "c", 1),
             Game(2, "b", None, 1), Game(3, "b", "c", 1), Game(3, "a", None, 1)]
    assert pairings.swiss(names, games) is None


def play_knockout(rng: random.Random, players: int, draws: float = 0.3):
    seeds = [f"s{i}" for i in range(players)]
    games: list[Game] = []
    while True:
        rounds = pairings.knockout(seeds, games)
        if pairings.knockout_winner(rounds) is not None:
            return seeds, games, rounds
        number = len(rounds)
        due = [tie.next_game() for tie in rounds[-1]]
        assert any(due), "a round that waits on nothing"
        for pair in filter(None, due):
            result = 0.5 if rng.random() < draws else rng.choice((0, 1))
            games.append(Game(number, *pair, result))


@pytest.mark.parametrize("seed", range(40))
def test_a_knockout_ends_with_one_winner_who_lost_no_tie(seed):
    rng = random.Random(seed)
    players = rng.randint(2, 40)
    seeds, games, rounds = play_knockout(rng, players)
    assert len(rounds) == math.ceil(math.log2(players))
    winner = pairings.knockout_winner(rounds)
    for number, ties in enumerate(rounds, start=1):
        for tie in ties:
            decisive = [g for g in tie.games if g.points != 0.5]
            assert len(decisive) == (len(tie.players) == 2), "a tie ends at its first win"
            assert tie.games[-1:] == tuple(decisive)
            for drawn, replay in zip(tie.games, tie.games[1:]):
                assert (replay.first, replay.second) == (drawn.second, drawn.first)
        losers = {p for tie in ties for p in tie.players} - {tie.winner for tie in ties}
        later = {p for ties in rounds[number:] for tie in ties for p in tie.players}
        assert not losers & later
    assert winner in rounds[-1][0].players
    assert pairings.knockout_standings(seeds, games, rounds)[0].player == winner


def test_a_knockout_gives_the_top_seeds_the_byes_and_keeps_the_first_two_apart():
    rounds = pairings.knockout([f"s{i}" for i in range(6)], [])
    assert [tie.players for tie in rounds[0]] == [
        ("s0",), ("s3", "s4"), ("s1",), ("s2", "s5")]
    assert pairings.bracket(8) == [0, 7, 3, 4, 1, 6, 2, 5]


def test_a_withdrawn_player_loses_their_tie_but_not_a_tie_already_won():
    seeds = ["a", "b", "c", "d"]
    games = [Game(1, "a", "d", 1), Game(1, "b", "c", 0.5)]
    rounds = pairings.knockout(seeds, games, withdrawn={"a", "b"})
    assert [tie.winner for tie in rounds[0]] == ["a", "c"]  # a had won; b is gone
    assert rounds[1][0].winner == "c"


def test_standings_count_points_and_break_ties():
    games = [Game(1, "a", "b", 1), Game(1, "c", "d", 0.5),
             Game(2, "a", "c", 0), Game(2, "b", "d", 1),
             Game(3, "a", "d", 1), Game(3, "b", "c", 0.5)]
    by = {s.player: s for s in pairings.standings(["a", "b", "c", "d"], games,
                                                  pairings.SONNEBORN_BERGER)}
    assert {p: s.points for p, s in by.items()} == {"a": 2, "b": 1.5, "c": 2, "d": 0.5}
    # a beat b (1.5) and d (0.5); c beat a (2) and drew d (0.5) and b (1.5)
    assert by["a"].tiebreak == 2 and by["c"].tiebreak == 2 + 0.25 + 0.75
    assert [s.player for s in pairings.standings(["a", "b", "c", "d"], games,
                                                 pairings.SONNEBORN_BERGER)] == ["c", "a", "b", "d"]
    buchholz = {s.player: s.tiebreak for s in pairings.standings(
        ["a", "b", "c", "d"], games + [Game(4, "d", None, 1)], pairings.BUCHHOLZ)}
    assert buchholz["a"] == 1.5 + 2 + 1.5 and all(s.played == 3 for s in by.values())


@pytest.mark.parametrize("players,size", [(n, s) for n in range(2, 40, 3) for s in (3, 4, 6, 10)])
def test_league_divisions_hold_everyone_once_none_under_half_size(players, size):
    split = pairings.divisions(list(range(players)), size)
    assert [p for division in split for p in division] == list(range(players))
    assert all(len(d) == size for d in split[:-1]) or len(split) == 1
    assert len(split) == 1 or size / 2 <= len(split[-1]) < size * 1.5


def test_a_league_season_moves_the_best_up_and_the_last_down():
    finished = [["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"], ["c1", "c2", "c3"]]
    assert pairings.next_season(finished, 1) == [
        ["a1", "a2", "a3", "b1"], ["a4", "b2", "b3", "c1"], ["b4", "c2", "c3"]]
    assert pairings.next_season(finished, 2)[0] == ["a1", "a2", "b1", "b2"]
    # those who leave are left out; a division left with one player joins the one above
    assert pairings.next_season([["a", "b"], ["c", "d"]], 1, leaving={"d", "a"}) == [
        ["c", "b"]]
    assert pairings.next_season([["a", "b"], ["c", "d", "e"]], 1, leaving={"a"}) == [
        ["c", "b", "d", "e"]]
