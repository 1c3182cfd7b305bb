"""What stands between the players, in sentences for them to read: the offers waiting for
an answer and the ones declined, as the game page, the turn emails, the digest and the
answers to email replies say them (the game log in ``matches`` keeps the facts; what each
kind of event is called lives with it in ``events.KINDS``)."""
from __future__ import annotations

from flask_babel import gettext

from .. import languages
from ..matches import Match


def N_(message: str) -> str:
    """Mark ``message`` for the catalog; ``gettext`` translates it where it is used."""
    return message


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
    """The standing request to take back a move, or the last one declined, for
    ``viewer``."""
    asker, declined = match.takeback_offer, match.takeback_declined
    if asker is None and declined is not None:
        return [_declined(match, declined.by, declined.offerer, viewer, (
            N_("You declined %(name)s's request to take back their last move."),
            N_("%(name)s declined your request to take back your last move: the game goes "
               "on."),
            N_("%(by)s declined %(offerer)s's request to take back their last move.")))]
    if asker is None:
        return []
    if asker == viewer:
        return [gettext("You asked to take back your last move.")]
    name = match.seats[asker].name or ""
    if match.takeback_offer_open_to(viewer):
        return [gettext("%(name)s asks to take back their last move: accept or decline it.",
                        name=name)]
    return [gettext("%(name)s asks to take back their last move.", name=name)]


def _declined(match: Match, by: int, offerer: int, viewer: int | None,
              sentences: tuple[str, str, str]) -> str:
    """One of ``sentences`` ("You ... %(name)s's", "%(name)s ... your", "%(by)s ...
    %(offerer)s's"), as ``viewer`` reads who answered whose offer."""
    yours, to_you, others = sentences
    if by == viewer:
        return gettext(yours, name=match.seats[offerer].name or "")
    if offerer == viewer:
        return gettext(to_you, name=match.seats[by].name or "")
    return gettext(others, by=match.seats[by].name or "",
                   offerer=match.seats[offerer].name or "")


def draw_notice(match: Match, viewer: int | None) -> str | None:
    """The standing draw offer, or the last one declined, for ``viewer``."""
    offerer, declined = match.draw_offer, match.draw_declined
    if offerer is not None:
        if offerer == viewer:
            return gettext("You offer a draw.")
        name = match.seats[offerer].name or ""
        if viewer is not None and match.draw_offer_open_to(viewer):
            return gettext("%(name)s offers a draw: accept or decline it.", name=name)
        return gettext("%(name)s offers a draw.", name=name)
    if declined is None:
        return None
    if declined.played_on:
        return _declined(match, declined.by, declined.offerer, viewer, (
            N_("You played on instead of accepting %(name)s's draw offer."),
            N_("%(name)s played on instead of accepting your draw offer."),
            N_("%(by)s played on instead of accepting %(offerer)s's draw offer.")))
    return _declined(match, declined.by, declined.offerer, viewer, (
        N_("You declined %(name)s's draw offer."),
        N_("%(name)s declined your draw offer."),
        N_("%(by)s declined %(offerer)s's draw offer.")))


def resign_notices(match: Match, viewer: int | None) -> list[str]:
    """The standing proposal that ``viewer``'s team resign, or the ones declined."""
    if viewer is None or not match.partners(viewer):
        return []
    team = match.game.team_of(match.players, viewer)
    found = []
    for proposer in (seat for seat in match.resign_offers if seat in team):
        if proposer == viewer:
            found.append(gettext("You propose that your team resign; waiting for "
                                 "%(partners)s to confirm.",
                                 partners=languages.translated(
                                     match.people(match.partners(viewer)))))
        else:
            found.append(gettext("%(name)s proposes that your team resign: resign together, "
                                 "or play on.", name=match.seats[proposer].name))
    for declined in (d for d in match.resign_declined if d.offerer in team):
        found.append(_declined(match, declined.by, declined.offerer, viewer, (
            N_("You declined %(name)s's proposal to resign: your team plays on."),
            N_("%(name)s declined your proposal to resign: your team plays on."),
            N_("%(by)s declined %(offerer)s's proposal to resign: your team plays on."))))
    return found
