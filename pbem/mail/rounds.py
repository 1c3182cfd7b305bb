"""A tournament's emails (``pbem/tournaments.py``): to each player when a round of theirs
starts, one email with a link to each of their new games (a round robin's every game at
once), instead of each game's own start email; and to everyone when it ends."""
from __future__ import annotations

from typing import Any

import sqlite_utils
from flask import current_app, render_template

from .. import languages, links, signals, tournaments
from . import outbox


def _queue(db: sqlite_utils.Database, email: str, subject: str, template: str,
           **context: Any) -> None:
    # A player has no language of their own (a seat has): every entrant gets English,
    # whatever the language of the page whose request started the round.
    with languages.in_language(languages.DEFAULT):
        body = render_template(f"email/{template}.txt", **context)
    outbox.queue(db, recipient=email, subject=subject, kind="tournament", body=body,
                 domain=current_app.config["MAIL_DOMAIN"])


def _page(tournament: tournaments.Tournament) -> str:
    return links.email_url("tournaments.page", tournament_id=tournament.id)


@signals.round_started.connect
def round_started(db: sqlite_utils.Database, *, tournament: tournaments.Tournament,
                  games: list[tournaments.Pairing]) -> None:
    entered = tournaments.entrants(db, tournament)
    handles = {e.player_id: e.handle for e in entered}
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
            what = "Your games" if tournament.format == "round-robin" \
                else f"Round {games[0].round}"
            _queue(db, email, f"{what} — {tournament.name}", "round",
                   tournament=tournament, name=entrant.handle, games=mine,
                   page=_page(tournament))


def _seat(game: tournaments.Pairing, player_id: int) -> int:
    return 0 if game.first_id == player_id else 1


@signals.tournament_finished.connect
def tournament_finished(db: sqlite_utils.Database, *,
                        tournament: tournaments.Tournament) -> None:
    shown = tournaments.table(db, tournament)
    for entrant in shown.entrants:
        if entrant.email is not None:
            _queue(db, entrant.email, f"Tournament over — {tournament.name}", "tournament_end",
                   tournament=tournament, name=entrant.handle, shown=shown,
                   page=_page(tournament))
