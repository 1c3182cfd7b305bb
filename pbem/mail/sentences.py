"""What stands between the players, in sentences for them to read: the offers waiting for
an answer and the ones declined, as the game page, the turn emails, the digest and the
answers to email replies say them (the game log in ``matches`` keeps the facts; what each
kind of event is called lives with it in ``events.KINDS``)."""
from __future__ import annotations

from ..matches import Match


def notices(match: Match, viewer: int | None) -> list[str]:
    """What stands between the players, for ``viewer`` to read: offers waiting for an
    answer and offers declined since the offerer last moved. A team's proposals to resign
    are its own business: only its players read them."""
    if match.finished:
        return []
    draw = draw_notice(match, viewer)
    return ([draw] if draw else []) + resign_notices(match, viewer) \
        + takeback_notices(match, viewer)


def takeback_notices(match: Match, viewer: int | None) -> list[str]:
    """The standing request to take back a move, for ``viewer``."""
    asker = match.takeback_offer
    if asker is None:
        return []
    if asker == viewer:
        return ["You asked to take back your last move."]
    answer = ": accept or decline it" if match.takeback_offer_open_to(viewer) else ""
    return [f"{_who(match, asker, viewer)} asks to take back their last move{answer}."]


def _who(match: Match, seat: int, viewer: int | None) -> str:
    return "You" if seat == viewer else match.seats[seat].name or ""


def _whose(match: Match, seat: int, viewer: int | None) -> str:
    return "your" if seat == viewer else f"{match.seats[seat].name}'s"


def draw_notice(match: Match, viewer: int | None) -> str | None:
    """The standing draw offer, or the last one declined, for ``viewer``."""
    offerer, declined = match.draw_offer, match.draw_declined
    if offerer is not None:
        if offerer == viewer:
            return "You offer a draw."
        if viewer is not None and match.draw_offer_open_to(viewer):
            return f"{_who(match, offerer, viewer)} offers a draw: accept or decline it."
        return f"{_who(match, offerer, viewer)} offers a draw."
    if declined is None:
        return None
    by, whose = _who(match, declined.by, viewer), _whose(match, declined.offerer, viewer)
    if declined.played_on:
        return f"{by} played on instead of accepting {whose} draw offer."
    return f"{by} declined {whose} draw offer."


def resign_notices(match: Match, viewer: int | None) -> list[str]:
    """The standing proposal that ``viewer``'s team resign, or the ones declined."""
    if viewer is None or not match.partners(viewer):
        return []
    team = match.game.team_of(match.players, viewer)
    found = []
    for proposer in (seat for seat in match.resign_offers if seat in team):
        if proposer == viewer:
            found.append(f"You propose that your team resign; waiting for "
                         f"{match.people(match.partners(viewer))} to confirm.")
        else:
            found.append(f"{match.seats[proposer].name} proposes that your team resign: "
                         f"resign together, or play on.")
    for declined in (d for d in match.resign_declined if d.offerer in team):
        found.append(f"{_who(match, declined.by, viewer)} declined "
                     f"{_whose(match, declined.offerer, viewer)} proposal to resign: your "
                     f"team plays on.")
    return found
