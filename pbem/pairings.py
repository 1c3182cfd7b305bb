"""Who plays whom in a tournament, and the standings: pure functions of the players (in seed
order) and the games so far, with no database or web in sight.

- ``round_robin``: Berger tables, every pair once (twice in a double round robin, colours
  swapped), and no player has the first move more than one game more than the second.
- ``swiss``: one round's pairs as a maximum-weight matching (networkx), whose weights put
  the rules in order: no pair twice (no edge at all), then the colour limits (nobody with
  three first moves more than second moves, or the reverse, nor the same colour three
  times running), then score groups, then colour preferences, then the top half of a score
  group against its bottom half; an odd player out gets a bye, the lowest-placed who has
  had none.
- ``knockout``: a seeded bracket; a drawn game is replayed with colours swapped until a
  game is won.
- ``standings``: a win 1 point, a draw ½, a bye 1; Sonneborn–Berger or Buchholz to break
  ties.

A player is anything hashable that sorts (the app uses handles). A game's ``points`` are
its first player's: 1, ½ or 0, and None while it is being played.
"""
from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

Player = Any  # hashable, and sortable
Pair = tuple  # (first player, second player): the first has the first move


@dataclass(frozen=True)
class Game:
    round: int
    first: Player
    second: Player | None  # None: a bye, a point without a game
    points: float | None = None  # the first player's: 1, 0.5, 0; None while it goes on

    @property
    def finished(self) -> bool:
        return self.points is not None

    def points_of(self, player: Player) -> float:
        """A player's points from the game, once it is over (0 before)."""
        points = self.points or 0.0
        return points if player == self.first else 1 - points


# Round robin ----------------------------------------------------------------------------

def round_robin(players: Sequence[Player], double: bool = False) -> list[list[Pair]]:
    """Every round's pairs by Berger's tables: number the players 0..n-1 (n made even with
    a bye that the answer leaves out) and in round r the players i and j whose sum is r
    modulo n-1 meet; the one whose doubled number is r meets the last player. The player
    with the first move is chosen so that everyone's first and second moves differ by at
    most one; a double round robin repeats the rounds with colours swapped."""
    seats: list[Player | None] = list(players)
    if len(seats) % 2:
        seats.append(None)
    n = len(seats)
    m = n - 1
    rounds = []
    for r in range(m):
        pairs = []
        for i in range(m):
            j = (r - i) % m
            if j == i:  # i meets the last player: first in the lower half of the numbers
                pair = (seats[i], seats[m]) if i < m / 2 else (seats[m], seats[i])
            elif i < j:
                # the one whose distance to the other (mod m) is short moves first: over
                # the rounds each player is short against half of the others
                pair = (seats[i], seats[j]) if (j - i) % m <= m // 2 else (seats[j], seats[i])
            else:
                continue
            if None not in pair:
                pairs.append(pair)
        rounds.append(pairs)
    if double:
        rounds += [[(second, first) for first, second in pairs] for pairs in rounds]
    return rounds


# Standings ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Standing:
    player: Player
    points: float
    tiebreak: float
    played: int


SONNEBORN_BERGER, BUCHHOLZ = "sonneborn-berger", "buchholz"


def points(players: Iterable[Player], games: Iterable[Game]) -> dict[Player, float]:
    """Each player's points from the finished games (a bye counts a win)."""
    score = {player: 0.0 for player in players}
    for game in games:
        if game.second is None:
            score[game.first] += 1
        elif game.finished:
            score[game.first] += game.points_of(game.first)
            score[game.second] += game.points_of(game.second)
    return score


def standings(players: Sequence[Player], games: Sequence[Game],
              tiebreak: str | None = None) -> list[Standing]:
    """Best first: by points, then the tiebreak (``SONNEBORN_BERGER``: the points of the
    opponents one beat and half of those one drew; ``BUCHHOLZ``: the points of all one's
    opponents; None: no tiebreak), then the seed order."""
    score = points(players, games)
    breaks = {player: 0.0 for player in players}
    played = {player: 0 for player in players}
    for game in games:
        if game.second is None or not game.finished:
            continue
        for player, opponent in ((game.first, game.second), (game.second, game.first)):
            played[player] += 1
            if tiebreak == SONNEBORN_BERGER:
                breaks[player] += game.points_of(player) * score[opponent]
            elif tiebreak == BUCHHOLZ:
                breaks[player] += score[opponent]
    seed = {player: number for number, player in enumerate(players)}
    ranked = sorted(players, key=lambda p: (-score[p], -breaks[p], seed[p]))
    return [Standing(p, score[p], breaks[p], played[p]) for p in ranked]


# Swiss ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Colours:
    """A player's colour history: ``balance`` is first moves less second moves, ``last``
    the colours of their games, latest last (True: first)."""
    balance: int
    last: tuple[bool, ...]

    @property
    def wants_first(self) -> int:
        """How much the player wants the first move: 3 must (unbalanced by two, or second
        twice running), 2 should (unbalanced by one), 1 would like (second last time), 0
        no preference; negative the same for the second move."""
        if self.balance <= -2 or self.last[-2:] == (False, False):
            return 3
        if self.balance >= 2 or self.last[-2:] == (True, True):
            return -3
        if self.balance:
            return -2 * self.balance
        return (1 if not self.last[-1] else -1) if self.last else 0


@dataclass(frozen=True)
class Pairing:
    pairs: list[Pair]
    bye: Player | None


# With at most this many players (plus one floated down), a round is one matching; larger
# fields are cut into slices of consecutive players in the standings, each its own matching
# (networkx's matching grows with the cube of its players: a whole field of 1,000 takes
# minutes), and a slice's player left over floats down into the next. Those the last slice
# cannot pair (they have all met, or all had a bye) are paired by changing a pair or two of
# the slices above (``_Rules.repaired``). That always succeeds in a field of more than about
# 100 players of whom none has met 50 (a tournament's Swiss has at most 50 rounds), so only
# a smaller field (a matching of 100 takes under half a second) that has played most of its
# rounds may need one matching of the whole field after all.
SLICE = 16


def swiss(players: Sequence[Player], games: Sequence[Game],
          withdrawn: Iterable[Player] = ()) -> Pairing | None:
    """The next round of a Swiss: ``players`` in seed order, ``games`` all the games and
    byes so far (finished), ``withdrawn`` the players paired no more. None when no pairing
    without a repeat exists."""
    out = set(withdrawn)
    active = [p for p in players if p not in out]
    score = points(players, games)
    seed = {player: number for number, player in enumerate(players)}
    met = {frozenset((g.first, g.second)) for g in games if g.second is not None}
    had_bye = {g.first for g in games if g.second is None}
    history: dict[Player, list[bool]] = {p: [] for p in players}
    for game in sorted(games, key=lambda g: g.round):
        if game.second is not None:
            history[game.first].append(True)
            history[game.second].append(False)
    colours = {p: Colours(sum(1 if c else -1 for c in history[p]), tuple(history[p]))
               for p in active}
    order = sorted(active, key=lambda p: (-score[p], seed[p]))
    rules = _Rules(score, colours, met, had_bye, order)
    pairs: list[Pair] = []
    carried: list[Player] = []
    rest = order
    while rest:
        last = len(rest) < 2 * SLICE
        chunk, rest = (carried + rest, []) if last else (carried + rest[:SLICE], rest[SLICE:])
        found, carried = rules.match(chunk, last)
        pairs += found
    if not rules.complete(carried, len(order)) and len(order) >= 2 * SLICE:
        pairs, carried = rules.repaired(pairs, carried, odd=len(order) % 2 == 1)
        if not rules.complete(carried, len(order)):
            pairs, carried = rules.match(order, True)  # the whole field at once (see SLICE)
    if not rules.complete(carried, len(order)):
        return None
    return Pairing(pairs, carried[0] if carried else None)


class _Rules:
    """The weights of a Swiss round's matching."""

    def __init__(self, score, colours, met, had_bye, order):
        self.score, self.colours, self.met, self.had_bye = score, colours, met, had_bye
        self.place = {player: number for number, player in enumerate(order)}
        self.group_size: dict[float, int] = {}
        self.in_group = {}  # a player's place in their score group
        for player in order:
            self.in_group[player] = self.group_size.get(score[player], 0)
            self.group_size[score[player]] = self.in_group[player] + 1

    def complete(self, left_over: list[Player], players: int) -> bool:
        """Whether the players left over at the end are just the one bye an odd field
        needs, to a player who has had none."""
        return len(left_over) == players % 2 and not self.had_bye.intersection(left_over)

    def match(self, chunk: list[Player], last: bool) -> tuple[list[Pair], list[Player]]:
        """The pairs of ``chunk`` and its players left over (at most one when every other
        can be paired): the one that gets the bye if ``last``, else floated down."""
        import networkx as nx  # here, when pairing: it would add a quarter to every start
        n = len(chunk)
        chunk = sorted(chunk, key=self.place.__getitem__)
        # each rule outweighs everything the rules below it can add up to over n/2 pairs
        lowest = min(self.score[p] for p in chunk)
        widest = round(2 * (max(self.score[p] for p in chunk) - lowest)) + 1
        order_unit = 1
        colour_unit = order_unit * (n + 1) * n
        score_unit = colour_unit * 4 * n
        limit_unit = score_unit * (n + 2) * widest * widest
        most = limit_unit * (n + 1)  # above every penalty: the weights stay positive
        graph = nx.Graph()
        for a, b in itertools.combinations(chunk, 2):
            if frozenset((a, b)) in self.met:
                continue
            halves = round(2 * abs(self.score[a] - self.score[b]))
            wants = self.colours[a].wants_first, self.colours[b].wants_first
            clash = min(abs(wants[0]), abs(wants[1])) if wants[0] * wants[1] > 0 else 0
            penalty = (limit_unit * (clash == 3) + score_unit * halves * halves
                       + colour_unit * clash + order_unit * self._misplaced(a, b))
            graph.add_edge(a, b, weight=most - penalty)
        if n % 2:
            # the one left over: the bye, to the lowest who has had none, or a float down,
            # the lowest of the chunk
            for position, player in enumerate(chunk):
                if last and player in self.had_bye:
                    continue
                halves = round(2 * (self.score[player] - lowest)) + 1
                penalty = score_unit * halves * halves + order_unit * (n - position)
                graph.add_edge(player, _LEFT_OVER, weight=most - penalty)
        matching = nx.max_weight_matching(graph, maxcardinality=True)
        pairs, left_over = [], set(chunk)
        for a, b in matching:
            if _LEFT_OVER in (a, b):
                continue
            pairs.append(self._colours(a, b))
            left_over -= {a, b}
        pairs.sort(key=lambda pair: min(self.place[pair[0]], self.place[pair[1]]))
        return pairs, sorted(left_over, key=self.place.__getitem__)

    def allowed(self, a: Player, b: Player, strict: bool) -> bool:
        """Whether ``a`` may meet ``b`` (``_BYE``: have the bye): not again, and, ``strict``,
        not two who both must have the same colour."""
        if _BYE in (a, b):
            return (b if a is _BYE else a) not in self.had_bye
        if frozenset((a, b)) in self.met:
            return False
        wants = self.colours[a].wants_first * self.colours[b].wants_first
        return not (strict and wants > 0 and min(abs(self.colours[a].wants_first),
                                                 abs(self.colours[b].wants_first)) == 3)

    def repaired(self, pairs: list[Pair], left_over: list[Player],
                 odd: bool) -> tuple[list[Pair], list[Player]]:
        """The pairs of the slices completed: the players ``left_over`` at the end (and, in
        an ``odd`` field, the bye) paired two by two, each two by the shortest augmenting
        path through at most two of the ``pairs``: the one left over meets one player of a
        pair, whose partner meets the other one left over (or, through a second pair, its
        partner's partner). The lowest-placed pairs are tried first (the nearest in score
        to those left over, who have floated to the bottom), the colour limits kept where
        any such path keeps them. Each path is looked for in time linear in the pairs
        (quadratic through two, which only a field that has met nearly everyone needs), so
        a field of 1,000 is paired in well under a second whatever its results. Returns
        the pairs and the players still left over (the bye's)."""
        paired = [tuple(pair) for pair in reversed(pairs)]  # the lowest-placed first
        left = sorted(left_over, key=self.place.__getitem__) + [_BYE] * odd
        while left:
            first = left.pop(0)
            for strict in (True, False):
                other = next((o for o in left if self._augment(paired, first, o, strict)),
                             None)
                if other is not None:
                    left.remove(other)
                    break
            else:
                return pairs, sorted(left_over, key=self.place.__getitem__)
        bye = [p for pair in paired if _BYE in pair for p in pair if p is not _BYE]
        done = [self._colours(*pair) for pair in paired if _BYE not in pair]
        done.sort(key=lambda pair: min(self.place[pair[0]], self.place[pair[1]]))
        return done, bye

    def _augment(self, paired: list[tuple], u: Player, v: Player, strict: bool) -> bool:
        """Pair ``u`` with ``v`` in ``paired`` (changed in place), directly or through one
        or two of its pairs; whether it could."""
        ok = functools.partial(self.allowed, strict=strict)
        if ok(u, v):
            paired.append((u, v))
            return True
        ends = [(i, x, y) for i, pair in enumerate(paired) for x, y in (pair, pair[::-1])]
        for i, x, y in ends:  # u-x, y-v
            if ok(u, x) and ok(y, v):
                paired[i] = (u, x)
                paired.append((y, v))
                return True
        for i, x, y in ends:  # u-x, y-z, w-v
            if not ok(u, x):
                continue
            for j, z, w in ends:
                if j != i and ok(y, z) and ok(w, v):
                    paired[i], paired[j] = (u, x), (y, z)
                    paired.append((w, v))
                    return True
        return False

    def _misplaced(self, a: Player, b: Player) -> int:
        """How far a pair in one score group is from the top half meeting the bottom half
        (the first of the top half meets the first of the bottom half)."""
        if self.score[a] != self.score[b]:
            return 0
        distance = abs(self.in_group[a] - self.in_group[b])
        return abs(distance - self.group_size[self.score[a]] // 2)

    def _colours(self, a: Player, b: Player) -> Pair:
        """Who of a pair moves first: the one who wants it more; else the one who had it
        less often; else the higher placed, as they want."""
        wa, wb = self.colours[a].wants_first, self.colours[b].wants_first
        if wa != wb:
            return (a, b) if wa > wb else (b, a)
        top, other = sorted((a, b), key=self.place.__getitem__)
        return (top, other) if self.colours[top].wants_first >= 0 else (other, top)


_LEFT_OVER = object()  # the matching's vertex of the bye or the float
_BYE = object()  # a repair's stand-in for the bye: whoever meets it has the bye


# Knockout -------------------------------------------------------------------------------

def bracket(size: int) -> list[int]:
    """Seed numbers (0-based) in bracket order for a power of two ``size``: the first meets
    the last, and the first two seeds can meet only in the final."""
    order = [0]
    while len(order) < size:
        order = [s for seed in order for s in (seed, 2 * len(order) - 1 - seed)]
    return order


@dataclass(frozen=True)
class Tie:
    """Two players (or one with a bye) who meet in a knockout round, and their games."""
    players: tuple[Player, ...]
    games: tuple[Game, ...]
    winner: Player | None

    def next_game(self) -> Pair | None:
        """The game to play now: the first (the higher seed first), or a replay of a drawn
        game with colours swapped; None while one is being played or once decided."""
        if self.winner is not None or len(self.players) < 2:
            return None
        if not self.games:
            return self.players[0], self.players[1]
        last = self.games[-1]
        return (last.second, last.first) if last.finished else None


def knockout(seeds: Sequence[Player], games: Sequence[Game],
             withdrawn: Iterable[Player] = ()) -> list[list[Tie]]:
    """The rounds so far, each a list of ties in bracket order, up to the round being
    played. The top seeds get the byes of a field that is not a power of two; a withdrawn
    player loses their tie once its games are over."""
    out = set(withdrawn)
    size = 1
    while size < len(seeds):
        size *= 2
    entrants: list[Player | None] = [seeds[s] if s < len(seeds) else None
                                     for s in bracket(size)]
    rounds: list[list[Tie]] = []
    number = 1
    while len(entrants) > 1:
        ties = []
        for a, b in zip(entrants[::2], entrants[1::2]):
            players = tuple(p for p in (a, b) if p is not None)
            played = tuple(g for g in games if g.round == number and g.second is not None
                           and {g.first, g.second} == set(players))
            ties.append(Tie(players, played, _tie_winner(players, played, out)))
        rounds.append(ties)
        if any(tie.winner is None for tie in ties):
            break
        entrants = [tie.winner for tie in ties]
        number += 1
    return rounds


def _tie_winner(players: tuple, games: tuple[Game, ...], out: set) -> Player | None:
    """The one who won the tie's last game; else, once no game is being played, the one
    who stayed when the other withdrew; else None."""
    if len(players) == 1:
        return players[0]
    last = games[-1] if games else None
    if last is not None and not last.finished:
        return None
    if last is not None and last.points != 0.5:
        return last.first if last.points == 1 else last.second
    staying = [p for p in players if p not in out]
    if len(staying) == 2:
        return None
    return staying[0] if staying else players[0]  # both gone: the first loses the next tie


def knockout_winner(rounds: list[list[Tie]]) -> Player | None:
    final = rounds[-1] if rounds else []
    return final[0].winner if len(final) == 1 else None


def knockout_standings(seeds: Sequence[Player], games: Sequence[Game],
                       rounds: list[list[Tie]]) -> list[Standing]:
    """Best first: by the ties won (the ``tiebreak``, so the winner comes first), then by
    points, then the seed order."""
    won = {player: 0 for player in seeds}
    for ties in rounds:
        for tie in ties:
            if tie.winner is not None:
                won[tie.winner] += 1
    seed = {player: number for number, player in enumerate(seeds)}
    by_points = {s.player: s for s in standings(seeds, games)}
    ranked = sorted(seeds, key=lambda p: (-won[p], -by_points[p].points, seed[p]))
    return [Standing(p, by_points[p].points, won[p], by_points[p].played) for p in ranked]


# Leagues --------------------------------------------------------------------------------

def divisions(players: Sequence[Player], size: int) -> list[list[Player]]:
    """``players`` (best first) in divisions of ``size``, the first the top one; a last
    division of fewer than half ``size`` joins the one above it."""
    cut = [list(players[start:start + size]) for start in range(0, len(players), size)]
    if len(cut) > 1 and len(cut[-1]) < size / 2:
        last = cut.pop()
        cut[-1] = cut[-1] + last
    return cut


def next_season(finished: Sequence[Sequence[Player]], promote: int,
                leaving: Iterable[Player] = ()) -> list[list[Player]]:
    """A league's divisions next season from each division's final standings (best
    first, the top division first): the ``promote`` best of each division but the top
    one go up a division, and the ``promote`` last of each but the bottom one go down;
    the players ``leaving`` are left out, and a division left with fewer than two joins
    the one above it."""
    moved: list[list[Player]] = [list(division) for division in finished]
    for upper, lower in zip(range(len(finished)), range(1, len(finished))):
        up = list(finished[lower][:promote])
        down = list(finished[upper][-promote:]) if promote else []
        moved[upper] = [p for p in moved[upper] if p not in down] + up
        moved[lower] = down + [p for p in moved[lower] if p not in up]
    gone = set(leaving)
    kept: list[list[Player]] = []
    for division in moved:
        division = [p for p in division if p not in gone]
        if kept and len(division) < 2:
            kept[-1] += division
        elif division:
            kept.append(division)
    if len(kept) > 1 and len(kept[0]) < 2:  # the top division alone too small: joins below
        top = kept.pop(0)
        kept[0] = top + kept[0]
    return kept
