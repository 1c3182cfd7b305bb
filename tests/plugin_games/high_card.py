"""High Card: a small game with hidden information, brought as a plugin by the tests
(``tests/conftest.py``'s ``plugin_games`` installs it) to play what the example game has not: secret hands,
``resample``, and a drawing of its own.

Nine cards, 1 to 9, are shuffled by the seed; each of two players is dealt three, and the
other three stay face down. In turn, each plays one of their cards face up; when both have
played their three, the higher sum wins (equal sums draw). A seat sees its own hand, the
cards played, and how many cards the opponent holds.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

from engine import IllegalMove, Outcome

CARDS = tuple(range(1, 10))


@dataclass(frozen=True)
class State:
    hands: tuple[tuple[int, ...], ...]   # each seat's cards, sorted: secret
    deck: tuple[int, ...]                # the cards nobody was dealt: secret
    played: tuple[tuple[int, ...], ...]  # each seat's cards face up, in order
    ply: int = 0
    to_move: tuple[int, ...] = (0,)
    outcome: Outcome | None = None


class HighCard:
    id = "high-card"
    title = "High Card"
    player_counts = (2,)
    default_options = {"hand": 3}  # no engine.Option: the form offers the default alone
    tournaments = False  # one lucky deal decides it
    rules = {"en": "Play your three cards one by one; the higher sum wins.\n\nA move is "
                   "\"play\" and a card of your hand: play 7.",
             "ru": "Сыграйте три свои карты по одной; побеждает большая сумма."}

    def start(self, players: int = 2, options: Mapping[str, Any] | None = None,
              seed: str = "") -> State:
        if players != 2:
            raise ValueError(f"High Card is played by 2 players, not {players!r}.")
        options = {**self.default_options, **(options or {})}
        if set(options) != {"hand"} or options["hand"] != 3:
            raise ValueError(f"High Card has one option, hand, of 3 cards: not {options!r}.")
        cards = list(CARDS)
        random.Random(f"high-card {seed}").shuffle(cards)
        return State((tuple(sorted(cards[:3])), tuple(sorted(cards[3:6]))), tuple(cards[6:]),
                     ((), ()))

    def legal_moves(self, state: State, seat: int) -> list[str]:
        if seat not in state.to_move:
            return []
        return [f"play {card}" for card in state.hands[seat]]

    def apply(self, state: State, seat: int, move: str) -> State:
        if state.outcome is not None or seat not in state.to_move:
            raise IllegalMove("It is not your turn." if state.outcome is None
                              else "The game is over.")
        if not isinstance(move, str) or move not in self.legal_moves(state, seat):
            raise IllegalMove(f"Play a card of your hand, e.g. play {state.hands[seat][0]}.")
        card = int(move.split()[1])
        hands = list(state.hands)
        hands[seat] = tuple(c for c in hands[seat] if c != card)
        played = list(state.played)
        played[seat] += (card,)
        after = replace(state, hands=tuple(hands), played=tuple(played), ply=state.ply + 1,
                        to_move=(1 - seat,))
        if any(after.hands):
            return after
        sums = [sum(cards) for cards in after.played]
        outcome = Outcome((), True, "equal sums") if sums[0] == sums[1] else Outcome(
            (sums.index(max(sums)),), False, f"a sum of {max(sums)} to {min(sums)}")
        return replace(after, to_move=(), outcome=outcome)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return {"hand": list(state.hands[seat]) if seat is not None else None,
                "played": [list(cards) for cards in state.played],
                "held": [len(hand) for hand in state.hands]}

    def replay(self, players: int, options: Mapping[str, Any] | None, seed: str,
               moves: Iterable[tuple[int, str]]) -> State:
        state = self.start(players, options, seed)
        for seat, move in moves:
            state = self.apply(state, seat, move)
        return state

    def resample(self, state: State, seat: int, rng: random.Random) -> State:
        """The opponent's hand and the deck dealt anew from the cards ``seat`` has not
        seen: its own hand and the cards played are all it knows."""
        other = 1 - seat
        unseen = sorted(state.hands[other] + state.deck)
        rng.shuffle(unseen)
        held = len(state.hands[other])
        hands = list(state.hands)
        hands[other] = tuple(sorted(unseen[:held]))
        return replace(state, hands=tuple(hands), deck=tuple(unseen[held:]))

    def draw(self, view: Mapping[str, Any], seat: int | None) -> str:
        """The cards played, in two rows, and the viewer's hand, as SVG."""
        rows = [*view["played"], view["hand"] or []]
        cards = "".join(
            f'<rect x="{10 + 40 * i}" y="{10 + 60 * row}" width="34" height="50" fill="#fff" '
            f'stroke="#333"/><text x="{27 + 40 * i}" y="{42 + 60 * row}" '
            f'text-anchor="middle" font-size="20">{card}</text>'
            for row, played in enumerate(rows) for i, card in enumerate(played))
        return (f'<svg xmlns="http://www.w3.org/2000/svg" class="board high-card" '
                f'viewBox="0 0 200 190" role="img" aria-label="The cards on the table">'
                f'{cards}</svg>')


GAME = HighCard()


class Impostor(HighCard):
    """A plugin that claims the id of one of the server's own games: left out."""
    id = "mastery"


IMPOSTOR = Impostor()


class PeekingHighCard(HighCard):
    """A ``resample`` that keeps the opponent's real cards first: it depends on what the
    seat cannot see, which the conformance checks must find."""
    id = "peeking-high-card"

    def resample(self, state: State, seat: int, rng: random.Random) -> State:
        other = 1 - seat
        unseen = list(state.hands[other] + state.deck)
        rng.shuffle(unseen[1:])  # shuffles a copy: the real order stays
        held = len(state.hands[other])
        hands = list(state.hands)
        hands[other] = tuple(sorted(unseen[:held]))
        return replace(state, hands=tuple(hands), deck=tuple(unseen[held:]))


PEEKING = PeekingHighCard()
