"""A tournament's emails (``pbem/tournaments.py``): to each player when a round of theirs
starts, one email with a link to each of their new games (a round robin's every game at
once), instead of each game's own start email; and to everyone when it ends. Each is in
its player's language (``players.Player.language``), dates and numbers too."""
from __future__ import annotations

from typing import Any

import sqlite_utils
from flask import current_app, render_template
from flask_babel import LazyString, lazy_gettext

from .. import languages, links, pairings, players, signals, tournaments
from . import outbox

# What the emails call each tie-break, in their language.
TIEBREAKS = {pairings.SONNEBORN_BERGER: lazy_gettext("Sonneborn–Berger"),
             pairings.BUCHHOLZ: lazy_gettext("Buchholz")}


def _queue(db: sqlite_utils.Database, email: str, language: str, subject: LazyString,
           template: str, tournament: tournaments.Tournament, **context: Any) -> None:
    """Queue ``email/<template>.txt`` to an entrant, in the entrant's ``language`` (not
    that of the page whose request started the round)."""
    with languages.in_language(language):
        body = render_template(f"email/{template}.txt", tournament=tournament,
                               format_name=tournament.format_name,
                               tiebreak=TIEBREAKS.get(tournament.tiebreak or ""), **context)
        outbox.queue(db, recipient=email, subject=str(subject), kind="tournament", body=body,
                     domain=current_app.config["MAIL_DOMAIN"])


def _page(tournament: tournaments.Tournament) -> str:
    return links.email_url("tournaments.page", tournament_id=tournament.id)


@signals.round_started.connect
def round_started(db: sqlite_utils.Database, *, tournament: tournaments.Tournament,
                  games: list[tournaments.Pairing]) -> None:
    entered = tournaments.entrants(db, tournament)
    handles: dict[int | None, str] = {e.player_id: e.handle for e in entered}
    told = [(e, e.email) for e in entered if e.email is not None and not e.withdrawn]
    theirs: dict[int, list[tournaments.Pairing]] = {e.player_id: [] for e, _ in told}
    for game in games:
        for player in (game.first_id, game.second_id):
            if player in theirs:
                theirs[player].append(game)
    # Each one's links to their games, minted together (a round robin of 100 has 9,900).
    tokens = links.mint_all(db, [(game.game_id, _seat(game, e.player_id)) for e, _ in told
                                 for game in theirs[e.player_id] if game.game_id],
                            emailed=True)
    urls = iter(links.email_urls("play.page", tokens, role="play"))
    spoken = players.languages_of(db, [e.player_id for e, _ in told])
    for entrant, email in told:
        # (round, opponent, first move?, link): the opponent None for a bye
        mine: list[tuple[int, str | None, bool | None, str | None]] = []
        for game in theirs[entrant.player_id]:
            if game.game_id is None:
                mine.append((game.round, None, None, None))
                continue
            seat = _seat(game, entrant.player_id)
            mine.append((game.round, handles.get(game.second_id if seat == 0
                                                 else game.first_id), seat == 0,
                         next(urls)))
        if mine:
            subject = lazy_gettext("Your games — %(tournament)s", tournament=tournament.name) \
                if tournament.format == "round-robin" else lazy_gettext(
                    "Round %(round)s — %(tournament)s", round=games[0].round,
                    tournament=tournament.name)
            _queue(db, email, spoken[entrant.player_id], subject, "round", tournament,
                   name=entrant.handle, games=mine, page=_page(tournament))


def _seat(game: tournaments.Pairing, player_id: int) -> int:
    return 0 if game.first_id == player_id else 1


@signals.tournament_finished.connect
def tournament_finished(db: sqlite_utils.Database, *,
                        tournament: tournaments.Tournament) -> None:
    shown = tournaments.table(db, tournament)
    told = [(e, e.email) for e in shown.entrants if e.email is not None]
    spoken = players.languages_of(db, [e.player_id for e, _ in told])
    for entrant, email in told:
        _queue(db, email, spoken[entrant.player_id],
               lazy_gettext("Tournament over — %(tournament)s", tournament=tournament.name),
               "tournament_end", tournament, name=entrant.handle, shown=shown,
               last_season=tournaments.last_season(shown), page=_page(tournament))
