"""The sentences about a game's players and its result, for pages, emails and the API
alike: the players of some seats ("Ann and Cid"), who plays whom ("Ann & Cid vs Bob &
Dee") and the outcome naming the players ("Ann won: Bob resigned"). Each is
``engine.Text``, English with its fields, translated where it is shown; a ``Match`` says
them of itself (``people``, ``sides``, ``reason``, ``result``).
"""
from __future__ import annotations

import functools
import re
from typing import Any, Mapping, Sequence

import engine


def naming(text: Any, names: Mapping[str, Any]) -> Any:
    """``text`` with each side it names replaced by ``names``: in its fields, at any depth,
    if it is ``engine.Text``; a field that is a side becomes the name itself (which may be
    Text: "team Red")."""
    if isinstance(text, engine.Text) and text.fields:
        return engine.Text(text.template, **{field: naming(value, names)
                                             for field, value in text.fields.items()})
    if not isinstance(text, str):
        return text
    if text in names:  # a side, also as the engines name it (Text: "Dark")
        return names[text]
    if isinstance(text, engine.Text):  # words, not names
        return text
    sides = "|".join(re.escape(side) for side in sorted(names, key=len, reverse=True))
    return re.sub(rf"(?<!\w)(?:{sides})(?!\w)", lambda found: names[found.group(0)], text)


def people(names: Sequence[Any]) -> Any:
    """Players by name: "Ann", "Ann and Cid" ("" for none); ``Text``, its "and" in the
    reader's language."""
    if len(names) < 2:
        return names[0] if names else ""  # as it is: the computer's name is Text
    return engine.Text("%(names)s and %(last)s", names=tuple(names[:-1]), last=names[-1])


def sides(teams: Sequence[Sequence[Any]]) -> Any:
    """Who plays whom, from each team's names: "Ann vs Bob"; teams "Ann & Cid vs Bob &
    Dee" (``Text``)."""
    together = [functools.reduce(
        lambda first, second: engine.Text("%(first)s & %(second)s", first=first,
                                          second=second), names)
        for names in teams]
    return functools.reduce(
        lambda first, second: engine.Text("%(first)s vs %(second)s", first=first,
                                          second=second), together)


def reason(game: engine.Game, players: int, start: engine.State, names: Sequence[Any],
           outcome: engine.Outcome) -> engine.Text:
    """The outcome's reason with the players named (``names``, by seat): the engine names
    sides ("Dark resigned", "Red (2) has no legal move"); each side becomes its player's
    name, and in a team game each team's colour "team Red"."""
    named: dict[str, Any] = {game.side_name(start, seat): names[seat]
                             for seat in range(players)}
    for seat in range(players):
        team = game.team_name(players, seat)
        if team:
            named.setdefault(team, engine.Text("team %(team)s", team=team))
    return naming(outcome.reason, named)


def result(game: engine.Game, players: int, start: engine.State, names: Sequence[Any],
           outcome: engine.Outcome | None) -> engine.Text:
    """The outcome in words, naming the players (``names``, by seat): "Ann won: Bob
    resigned", "Ann and Cid won (team Red): Dee has no legal move", "Draw: draw agreed"."""
    if outcome is None:
        return engine.Text("in progress")
    why = reason(game, players, start, names, outcome)
    if outcome.draw:
        return engine.Text("Draw: %(reason)s", reason=why)
    if not outcome.winners:
        return engine.Text("No result: %(reason)s", reason=why)
    winners = people([names[seat] or "" for seat in outcome.winners])
    team = game.team_name(players, outcome.winners[0])
    if team:
        return engine.Text("%(players)s won (team %(team)s): %(reason)s", team=team,
                           players=winners, reason=why)
    return engine.Text("%(players)s won: %(reason)s", players=winners, reason=why)
