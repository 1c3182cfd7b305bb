"""Finding opponents: the join links of open seats and the lobby of public challenges.

A game may be created with seats left open (``creation.create``). Each open seat has a join
link, a secret like the play links (only its hash is stored, in ``invitations``):
``/join/<token>`` shows a form for a name and an optional email address, and a POST takes
the seat, as a form (then on to the new player's game page) or as JSON (the API: ``201``
and the seat's ``url`` and ``api``). A game made public lists its open seats in the lobby
(``/lobby``, ``GET /api/challenges``), where each has a join address of its own,
``/lobby/<game id>/<seat>``, that needs no secret: anyone may take a public seat.

Nothing here shows more of a game than its options: a seat is named as on the form that
creates a game (``Match.open_seat_name``), since Magnetic Field deals its colours by chance,
from the secret seed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import engine
import sqlite_utils

from flask import (Blueprint, abort, flash, jsonify, redirect, render_template, request,
                   url_for)
from flask_babel import gettext

from . import (blocks, botaccounts, clocks, commands, fairplay, glicko, languages, limits,
               links, matches, players, ratings, sanctions, tournaments)
from .events import Command, Joiner
from .store.db import get_db, write
from .store import utc
from .matches import Match

bp = Blueprint("lobby", __name__)


def options_text(match: Match, reader: int | None) -> list[str]:
    """The game's options in words as the player of seat ``reader`` reads them, the form's
    own words (e.g. ["Starting position: Crown"]); a spectator (None) reads those that say
    the same to everyone (the players' sides say the rest: "You play Blue" would not)."""
    return [f"{languages.translated(option.label)}: " + languages.translated(
                option.choice_label(match.options.get(option.name, option.default),
                                    reader or 0))
            for option in match.game.options
            if reader is not None or not any(isinstance(words, tuple)
                                             for words in option.choice_words.values())]


@dataclass(frozen=True)
class Filters:
    """What a visitor narrows the lobby to (its page's form, the API's query string):
    a game (engine id), a clock mode (``clocks.MODES``), a range of the waiting
    players' ratings in their game (unrated challenges then drop out) and the least share
    of their finished games that the waiting players completed (``fairplay.Record``; those
    without an account or a finished game then drop out). Unknown or empty values filter
    nothing."""
    game: str | None = None
    clock: str | None = None
    min_rating: int | None = None
    max_rating: int | None = None
    min_completion: int | None = None

    @classmethod
    def of(cls, args: Mapping[str, str]) -> Filters:
        def whole(name: str) -> int | None:
            try:
                return int(args.get(name, ""))
            except ValueError:  # not a whole number ("", "1.5", "²", "--5"): no filter
                return None
        game, clock = args.get("game", ""), args.get("clock", "")
        return cls(game if game in engine.GAMES else None,
                   clock if clock in clocks.MODES else None,
                   whole("min_rating"), whole("max_rating"), whole("min_completion"))

    @property
    def active(self) -> bool:
        return self != Filters()

    @property
    def by_rating(self) -> bool:
        return self.min_rating is not None or self.max_rating is not None

    def admits(self, rating: float) -> bool:
        return (self.min_rating is None or rating >= self.min_rating) \
            and (self.max_rating is None or rating <= self.max_rating)


def challenges(filters: Filters = Filters(), viewer: players.Player | None = None
               ) -> list[tuple[Match, int]]:
    """Every open seat of the public games that wait for players and have not expired,
    oldest first, as far as ``filters`` let them through; for ``viewer``, not those of
    players they block or who block them (``blocks.estranged``)."""
    db = get_db()
    since = utc.iso(utc.now() - matches.CHALLENGE_LIFETIME)
    found: list[tuple[Match, int]] = []
    for row in db.query("SELECT id FROM games WHERE public = 1 AND status = 'waiting' "
                        "AND created_at > ? ORDER BY created_at, rowid", [since]):
        match = matches.load(db, row["id"])
        if filters.game not in (None, match.game.id) \
                or filters.clock not in (None, (match.clock.mode if match.clock else "none")):
            continue
        if filters.by_rating:
            standings = ratings.seat_standings(db, match)
            if not all(s.seat in standings and filters.admits(standings[s.seat].rating.rating)
                       for s in match.seats if not s.open):
                continue
        if filters.min_completion is not None and not _completed(db, match,
                                                                 filters.min_completion):
            continue
        if viewer is not None and blocks.estranged(db, match.id, viewer):
            continue
        found.extend((match, seat) for seat in match.open_seats
                     if match.seats[seat].offered_to is None)  # a bot's is not for anyone
    return found


def _completed(db: sqlite_utils.Database, match: Match, least: int) -> bool:
    """Whether every waiting player of the challenge completed at least ``least`` percent
    of their finished games (a seat without an account has no record: it does not)."""
    seated = ratings.seat_players(db, match.id)
    waiting = [s.seat for s in match.seats if not s.open]
    if not all(seat in seated for seat in waiting):
        return False
    found = fairplay.records(db, [seated[seat] for seat in waiting])
    return all((record := found.get(seated[seat])) is not None
               and record.completion is not None and record.completion >= least
               for seat in waiting)


def challenge_json(match: Match, seat: int) -> dict[str, Any]:
    return {
        "id": match.id, "game": match.game.id, "title": match.game.title, "seat": seat,
        "side": match.open_seat_name(seat),
        "join": links.external_url("lobby.join_challenge", game_id=match.id, seat=seat),
        "options": match.options,
        "players": _players(match),  # who is waiting
        "created_at": match.created_at,
        "expires_at": utc.iso(match.expires_at),
        "time_control": match.clock.to_json() if match.clock else None,
        "rated": match.rated,
        **({"rating_range": dict(zip(("min", "max"), _rating_range(get_db(), match.id)))}
           if match.rated else {}),
    }


@bp.get("/api/challenges")
def challenges_api():
    """The lobby's challenges; with a player key in ``key`` (or signed in), as that player's
    lobby shows them (those of players they block, or who block them, left out)."""
    db = get_db()
    key = request.args.get("key")
    viewer = players.by_key(db, key) if key else players.current(db)
    return jsonify(challenges=[challenge_json(match, seat) for match, seat
                               in challenges(Filters.of(request.args), viewer)])


@bp.get("/lobby")
def lobby():
    """The challenges; for a signed-in player, their own first (not to be joined), and
    each rated seat they may not take saying why."""
    db = get_db()
    now = utc.now()
    filters = Filters.of(request.args)
    player = players.current(db)
    mine = _own_challenges(db, player) if player else {}
    entries = [{**_facts(match, seat), "match": match,
                "since": clocks.time_text(utc.parse(match.created_at)),
                "waited": clocks.duration_text(
                    max((now - utc.parse(match.created_at)).total_seconds(), 1)),
                "join": url_for(".join_challenge", game_id=match.id, seat=seat),
                "refusal": player and match.rated and _rated_seat_refusal(db, match, player),
                "records": _records(db, match)}
               for match, seat in challenges(filters, player) if match.id not in mine]
    return render_template("lobby.html", entries=entries, filters=filters,
                           mine=list(mine.values()), games=engine.GAMES.values(), player=player,
                           tournaments=tournaments.listed(db, ("open",), most=10))


def _records(db: sqlite_utils.Database, match: Match) -> list[tuple[str, fairplay.Record]]:
    """The waiting players' records (fair play), of those who have an account."""
    seated = {seat: player for seat, player in ratings.seat_players(db, match.id).items()
              if not match.seats[seat].bot}
    found = fairplay.records(db, seated.values())
    return [(match.seats[seat].name or "", found[player]) for seat, player in seated.items()
            if player in found]


def _own_challenges(db: sqlite_utils.Database, player: players.Player) -> dict[str, Any]:
    """The games of ``player`` that wait for players and can still be joined, by id: what
    the lobby shows of each, and the link to the player's seat."""
    now = utc.now()
    mine = {}
    for game_id, seat in players.seats_of(db, player):
        match = matches.find(db, game_id)
        if match is None or not match.waiting or now >= match.expires_at or game_id in mine:
            continue
        link = players.seat_link(db, player, game_id, seat)
        mine[game_id] = {**_facts(match, match.open_seats[0]), "match": match,
                         "open": [match.open_seat_name(s) for s in match.open_seats],
                         "expires": clocks.time_text(match.expires_at),
                         "url": url_for("play.page", role="play", token=link)}
    return mine


def _facts(match: Match, seat: int) -> dict[str, Any]:
    """What the lobby and a join page say about an open seat."""
    return {"side": match.open_seat_name(seat), "options": options_text(match, seat),
            "time_control": clocks.describe(match.clock),
            "waiting": [label for s, label in zip(match.seats,
                                                  ratings.seat_labels(get_db(), match))
                        if not s.open],
            "rating_range": match.rated and ratings.range_text(*_rating_range(get_db(),
                                                                              match.id))}


def _players(match: Match) -> list[str]:
    """The names of the players who took their seats, waiting for the others."""
    return [s.name for s in match.seats if s.name is not None]  # (an open seat's is None)


@bp.route("/join/<token>", methods=["GET", "POST"])
@limits.joining
def join(token: str):
    """An open seat's join link: a form to take the seat, or the API's ``POST <join>``."""
    access = links.resolve(get_db(), token, table=links.INVITATIONS)
    if access is None or access.seat is None:  # (a join link opens a seat)
        abort(404, gettext("This join link does not open any game. Check that you copied "
                           "all of it."))
    return _take_seat(access.game_id, access.seat, url_for(".join", token=token))


@bp.route("/lobby/<game_id>/<int:seat>", methods=["GET", "POST"])
@limits.joining
def join_challenge(game_id: str, seat: int):
    """A seat of a public challenge: the same as its join link, for anyone."""
    rows = list(get_db().query("SELECT 1 FROM games WHERE id = ? AND public = 1", [game_id]))
    match = matches.find(get_db(), game_id) if rows else None
    if match is None or not 0 <= seat < match.players:
        abort(404, gettext("There is no such challenge in the lobby."))
    return _take_seat(game_id, seat, url_for(".join_challenge", game_id=game_id, seat=seat))


def _take_seat(game_id: str, seat: int, here: str):
    db = get_db()
    if request.method == "GET":
        return _join_page(matches.load(db, game_id), seat, here)
    wants_json = request.is_json
    form = request.get_json(silent=True) if wants_json else request.form
    player = players.current(db)  # a seat taken signed in is the player's
    try:
        if not isinstance(form, dict):
            raise matches.InvalidRequest("The request body must be a JSON object with "
                                         "'name' and, if you like, 'email' (or 'key').")
        name: Any = form.get("name")  # as sent: the join's check refuses all but a name
        email: Any = form.get("email")
        # the seat's emails, its start email first, in the language of the page it was
        # taken from, or of the player whose key took it
        spoken = languages.current()
        if wants_json and "key" in form:  # the seat is the key's player's, by handle
            player = players.by_key(db, form["key"]) if isinstance(form["key"], str) else None
            if player is None:
                raise matches.InvalidRequest("'key' is not a player key.")
            name, email, spoken = player.handle, player.email, player.language
        with write(db):
            match = matches.load(db, game_id)
            if 0 <= seat < match.players and (
                    refusal := botaccounts.seat_refusal(db, match, seat, player)):
                raise matches.Refused(refusal)
            if refusal := blocks.refusal(db, game_id, player):
                raise matches.Refused(refusal)
            if player is not None:  # a suspended player takes no rated or public seat
                if match.rated or _public(db, game_id):
                    sanctions.refuse_suspended(db, [player.id])
                fairplay.refuse_over_room(db, [player.id])
            if match.rated:  # a rated seat: a player's, by handle
                if refusal := _rated_seat_refusal(db, match, player):
                    raise matches.Refused(refusal)
                assert player is not None  # the refusal's: nobody signed in
                name, email = player.handle, player.email
            matches.set_language(db, game_id, seat, spoken)
            if player is not None:  # before the join: what it sets off knows whose seat
                players.claim(db, player, game_id, seat)
            after = commands.submit(db, game_id, seat,
                                    Command.of("join", Joiner(name, email))).match
            token = links.mint(db, game_id, seat)
    except matches.ActionError as error:
        if wants_json:
            return languages.refusal(error.status, error.message)
        return _join_page(matches.load(db, game_id), seat, here, form=form,
                          error=error.message, status=error.status)
    play = links.external_url("play.page", role="play", token=token)
    if wants_json:
        return jsonify(seat=seat, url=play,
                       api=links.external_url("api.game", role="play", token=token)), 201
    flash(gettext("You have joined the game: it starts now.") if not after.waiting else
          gettext("You have joined the game. It starts when every seat is taken."))
    return redirect(url_for("play.page", role="play", token=token), 303)


def _public(db: sqlite_utils.Database, game_id: str) -> bool:
    return db.execute("SELECT public FROM games WHERE id = ?", [game_id]).fetchone()[0] == 1


def _rated_seat_refusal(db: sqlite_utils.Database, match: Match,
                        player: players.Player | None) -> engine.Text | None:
    """Why ``player`` (None: nobody signed in) may not take a seat of the rated game
    ``match``: only a player (signed in, or with their key) not already in the game, whose
    rating is in the range the challenge asks for."""
    if player is None:
        return engine.Text("This is a rated game: sign in to take its seat (or, with the API, "
                           "send your player key as 'key').")
    if player.id in ratings.seat_players(db, match.id).values():
        return engine.Text("You already play in this game.")
    low, high = _rating_range(db, match.id)
    standing = ratings.of_players(db, match.game.id, [player.id]).get(player.id)
    rating = standing.rating.rating if standing else glicko.RATING
    if (low is not None and rating < low) or (high is not None and rating > high):
        return engine.Text("This challenge asks for a rating in %(game)s %(range)s; yours is "
                           "%(rating)s.", game=match.game.title,
                           range=ratings.range_text(low, high), rating=round(rating))
    return None


def _rating_range(db: sqlite_utils.Database, game_id: str) -> tuple[int | None, int | None]:
    """The ratings a rated challenge asks of whoever takes its seats: (lowest, highest),
    either None."""
    return tuple(db.execute("SELECT rating_min, rating_max FROM games WHERE id = ?",
                            [game_id]).fetchone())


def _join_page(match: Match, seat: int, here: str, *, form: Any = None,
               error: str | None = None, status: int = 200):
    """The page of a join link: the game's facts and, while the seat is open and the
    player signed in is not blocked by a player of the game, the form."""
    player = players.current(get_db())  # signed in: the seat will be theirs
    taken = match.seat_refusal(seat)
    blocked = None if taken else blocks.refusal(get_db(), match.id, player)
    refusal = taken or blocked
    return render_template(
        "join.html", match=match, here=here, error=error or refusal, player=player,
        form=form or {}, taken=refusal is not None,
        **_facts(match, seat)), status if error or not refusal else 409 if taken else 422
