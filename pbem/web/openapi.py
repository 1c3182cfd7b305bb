"""The JSON API described to programs: ``GET /api/openapi.json``, an OpenAPI 3.1 document
built from the app's own routes. Each route's methods, path parameters and their converters
come from the URL map; what it takes and answers comes from ``operations()`` below, keyed
by the route's endpoint and method, so that the handlers stay as they are. Every route under
``/api/`` must be described here (tests/test_openapi.py fails for one that is not), and so
are the routes outside it that answer JSON to a program holding a link (``DOCUMENTED``):
taking a seat, using a sign-in link, the live pages' poll and the record's download.
docs/api.md is the guide for people; this is its contract for machines, and the suite runs
schemathesis against it."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

import engine
from engine import bots
from flask import Blueprint, current_app, jsonify
from werkzeug.routing import Rule

from .. import clocks, moderation, tournaments
from ..mail import preferences

bp = Blueprint("openapi", __name__)

Schema = dict[str, Any]

# -- building blocks -------------------------------------------------------------------------

STRING: Schema = {"type": "string"}
INTEGER: Schema = {"type": "integer"}
NUMBER: Schema = {"type": "number"}
BOOLEAN: Schema = {"type": "boolean"}
OBJECT: Schema = {"type": "object"}
URL: Schema = {"type": "string", "format": "uri"}
TIME: Schema = {"type": "string"}  # ISO 8601, UTC


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def shape(required: Mapping[str, Schema], optional: Mapping[str, Schema] | None = None,
          ) -> Schema:
    """An object with ``required`` fields (and ``optional`` ones); others may be added."""
    return {"type": "object", "required": list(required),
            "properties": {**required, **(optional or {})}}


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def whole(low: int | None = None, high: int | None = None) -> Schema:
    return {"type": "integer", **({"minimum": low} if low is not None else {}),
            **({"maximum": high} if high is not None else {})}


def one_of(*values: str) -> Schema:
    return {"type": "string", "enum": list(values)}


HOURS: Schema = {"type": "integer", "enum": list(clocks.DEADLINE_REMINDERS)}


def games() -> Schema:
    """A game's id: the games this server has now, its plugins' too."""
    return one_of(*engine.GAMES)


def levels() -> Schema:
    return one_of(*bots.LEVELS)


# -- the answers' shapes (components) --------------------------------------------------------

def components() -> dict[str, Schema]:
    outcome = nullable(shape({"winners": array(INTEGER), "draw": BOOLEAN, "reason": STRING}))
    seat_links = shape({"seat": INTEGER, "url": URL, "api": URL})
    chat_line = shape({"seat": nullable(INTEGER), "text": STRING, "at": TIME})
    standing = shape({"rating": NUMBER, "deviation": NUMBER, "games": INTEGER,
                      "provisional": BOOLEAN})
    return {
        "Error": shape({"error": STRING}),
        "Empty": {"type": "object"},
        "Outcome": outcome,
        "Standing": standing,
        "Clock": nullable(shape({"mode": one_of(*clocks.MODES)})),
        "Game": shape({
            "game": STRING, "seat": nullable(INTEGER), "rated": BOOLEAN, "ply": whole(0),
            "version": whole(0), "to_move": array(INTEGER), "legal_moves": array(STRING),
            "view": {}, "outcome": ref("Outcome"),
            "players": array(shape({"seat": INTEGER, "side": STRING,
                                    "name": nullable(STRING), "bot": nullable(STRING)})),
            "draw_offer": nullable(INTEGER), "takeback_offer": nullable(INTEGER),
            "resign_offers": array(INTEGER), "time_control": ref("Clock"),
            "clocks": nullable(array(shape({
                "seat": INTEGER, "remaining_seconds": INTEGER, "deadline": nullable(TIME),
                "running": BOOLEAN, "paused": BOOLEAN, "on_vacation": BOOLEAN,
                "vacation_until": nullable(TIME), "vacation_days_left": INTEGER}))),
            "chat": array(chat_line),
            "rematch": nullable(shape({"id": STRING})), "rematch_asked": array(INTEGER),
            "email_status": nullable(one_of("ok", "bouncing", "unsubscribed"))},
            {"conditional": array(array(STRING)), "open_seats": array(INTEGER),
             "commitment": STRING, "seed": STRING}),
        "NewGame": shape({"id": STRING, "spectator": URL, "seats": array({"anyOf": [
            shape({"seat": INTEGER, "name": STRING, "url": URL, "api": URL},
                  {"not_emailed": STRING}),
            shape({"seat": INTEGER, "name": STRING, "bot": levels()}),
            # an open seat; one offered to a bot names it
            shape({"seat": INTEGER, "name": {"type": "null"}, "join": URL},
                  {"offered_to": STRING})]})}),
        "SeatLinks": seat_links,
        "Rematch": shape({"id": STRING, "seat": INTEGER, "url": URL, "api": URL}),
        "Notes": shape({"text": STRING, "updated_at": nullable(TIME)}),
        "EmailSettings": shape({"emails": one_of(*preferences.PREFERENCES),
                                "deadline_reminders": nullable(array(HOURS))}),
        "Position": shape({"ply": whole(0), "to_move": array(INTEGER),
                           "legal_moves": array(STRING), "view": {}, "outcome": outcome}),
        "Record": shape({
            "id": STRING, "game": STRING, "title": STRING, "options": OBJECT,
            "created_at": TIME, "players": array(OBJECT), "ply": whole(0), "outcome": outcome,
            "events": array(shape({"seq": INTEGER, "seat": nullable(INTEGER),
                                   "action": STRING, "at": TIME}))},
            {"result": nullable(STRING), "seed": STRING}),
        "GameRecord": shape({"header": OBJECT, "moves": array(array(nullable(STRING)))}),
        "Challenge": shape({
            "id": STRING, "game": STRING, "title": STRING, "seat": INTEGER, "side": STRING,
            "join": URL, "options": OBJECT, "players": array(nullable(STRING)),
            "created_at": TIME, "expires_at": TIME, "time_control": ref("Clock"),
            "rated": BOOLEAN},
            {"rating_range": shape({"min": nullable(NUMBER), "max": nullable(NUMBER)})}),
        "PlayerGames": shape({
            "handle": STRING, "email": STRING, "language": STRING,
            "ratings": {"type": "object", "additionalProperties": standing},
            "games": array(shape({
                "id": STRING, "game": STRING, "seat": INTEGER, "url": URL, "api": URL,
                "your_turn": BOOLEAN, "outcome": outcome, "rated": BOOLEAN,
                "tournament": nullable(STRING)})), "blocks": array(STRING)}),
        "Export": shape({
            "handle": STRING, "email": STRING, "language": STRING, "created_at": TIME,
            "games": array(shape({"id": STRING, "game": STRING, "seat": INTEGER,
                                  "record": ref("GameRecord"),
                                  "chat": array(chat_line), "notes": ref("Notes")})),
            "ratings": OBJECT, "tournaments": array(OBJECT), "blocks": array(STRING),
            "reports": array(OBJECT)},
            {"events": array(OBJECT), "bot": nullable(OBJECT), "bots": array(STRING)}),
        "Profile": shape({
            "handle": STRING, "closed": BOOLEAN,
            "ratings": {"type": "object", "additionalProperties": standing},
            "record": shape({"finished": whole(0), "timeouts": whole(0),
                             "completion": nullable(whole(0, 100))}),
            "games": array(shape({"id": STRING, "game": STRING,
                                  "players": array(nullable(STRING)), "outcome": outcome,
                                  "rated": BOOLEAN})),
            "bot": BOOLEAN, "owner": nullable(STRING)},  # a bot account: its owner's handle
            {"accepts": shape({"games": array(STRING), "clocks": array(STRING),
                               "rated": BOOLEAN})}),
        "Bot": shape({"handle": STRING, "bot": {"const": True}, "owner": STRING,
                      "games": array(STRING), "clocks": array(one_of(*clocks.MODES)),
                      "rated": BOOLEAN, "profile": URL}, {"key": URL}),
        "Events": shape({"events": array(shape({
            "id": whole(1), "event": one_of("turn", "challenge", "game_end"),
            "data": shape({"id": STRING, "game": STRING, "seat": INTEGER},
                          {"api": URL, "version": whole(0), "join": URL,
                           "outcome": outcome})})),
            "last": whole(0)}),
        "Report": shape({
            "id": INTEGER, "reporter": STRING, "handle": STRING, "game": nullable(STRING),
            "message": nullable(INTEGER), "reason": one_of(*moderation.REASONS,
                                                             moderation.APPEAL),
            "text": STRING, "at": TIME, "status": one_of("open", "handled"),
            "handled_at": nullable(TIME), "evidence": OBJECT}),
        "ModerationAction": shape({
            "id": INTEGER, "moderator": STRING, "action": one_of(*moderation.ACTIONS),
            "handle": STRING, "note": STRING, "report": nullable(INTEGER),
            "game": nullable(STRING), "at": TIME}),
        "SignedIn": shape({"handle": STRING, "profile": URL, "key": URL}),
        "TournamentLinks": shape({"id": STRING, "url": URL, "api": URL}),
        "Tournament": shape({
            "id": STRING, "name": STRING, "game": STRING,
            "format": one_of(*tournaments.FORMATS),
            "status": one_of("open", "running", "finished", "cancelled"),
            "organiser": nullable(STRING), "rated": BOOLEAN, "options": OBJECT,
            "clock": OBJECT, "rounds_planned": nullable(INTEGER), "min_players": INTEGER,
            "max_players": INTEGER, "starts_at": nullable(TIME),
            "round_days": nullable(INTEGER), "adjudication": STRING,
            "round_deadline": nullable(TIME), "games_due_at": nullable(TIME),
            "players": array(nullable(STRING)), "withdrawn": array(nullable(STRING)),
            "rounds": array(array(shape({"game": STRING, "outcome": nullable(OBJECT),
                                         "seats": array(nullable(STRING))}))),
            "byes": array(array(STRING)),
            "standings": array(shape({"handle": nullable(STRING), "points": NUMBER,
                                      "tiebreak": NUMBER, "played": INTEGER})),
            "winner": nullable(STRING)}),
    }


# -- what a request may carry ----------------------------------------------------------------

SEEN: dict[str, Schema] = {"ply": whole(0), "version": whole(0)}  # the position one saw


def player_entry() -> Schema:
    return {"anyOf": [
        shape({"name": STRING}, {"email": STRING, "language": one_of("en", "ru")}),
        shape({"open": {"const": True}}),
        shape({"bot": levels()}),
        shape({"key": STRING}, {"language": one_of("en", "ru")}),
        shape({"handle": STRING})]}  # a bot's: the seat offered to it


def clock_settings() -> Schema:
    return shape({"mode": one_of(*clocks.MODES)}, {
        "days": whole(1, 60), "initial_days": whole(1, 365), "increment_days": whole(0, 60),
        "max_days": whole(1), "weekends": one_of(*clocks.WEEKENDS),
        "on_timeout": one_of(*clocks.ON_TIMEOUT), "vacation_days": whole(0)})


def push_subscription() -> Schema:
    return shape({"endpoint": URL, "keys": shape({"p256dh": STRING, "auth": STRING})})


# -- the operations --------------------------------------------------------------------------

@dataclass(frozen=True)
class Operation:
    """One method of one route: what it does, the JSON body it takes (None: none), its
    query and header parameters, its successful answers' statuses and shapes, the statuses
    of its refusals (each ``{"error"}``) with when they happen, and the operations its
    answer leads to."""
    summary: str
    answers: Mapping[int, Schema | None]  # None: no body (304)
    errors: Mapping[int, str] = field(default_factory=dict)
    body: Schema | None = None
    query: Mapping[str, Schema] = field(default_factory=dict)
    headers: Mapping[str, Schema] = field(default_factory=dict)  # beside Accept-Language
    media: str = "application/json"  # the successful answers' (a stream's: its own)
    also: Mapping[str, Schema] = field(default_factory=dict)  # the first's other media
    tags: tuple[str, ...] = ()
    # what the first successful answer leads to: a name, the operation (endpoint, method)
    # and its parameters as OpenAPI's runtime expressions ("$response.body#/id")
    links: Mapping[str, tuple[tuple[str, str], Mapping[str, str]]] = \
        field(default_factory=dict)


def tournament_links() -> dict[str, tuple[tuple[str, str], dict[str, str]]]:
    """What the organiser's key can do with a tournament just made: look, enter, withdraw,
    start or cancel."""
    keyed = {"token": "$request.path.token", "tournament_id": "$response.body#/id"}
    return {"GetTournament": (("tournaments.api", "GET"),
                              {"tournament_id": "$response.body#/id"}),
            "EnterTournament": (("tournaments.entry_api", "POST"), keyed),
            "WithdrawFromTournament": (("tournaments.entry_api", "DELETE"), keyed),
            "OrganiseTournament": (("tournaments.organise_api", "POST"), keyed)}


NO_GAME = {404: "The link opens no game."}
NO_PLAYER = {404: "The key opens no player."}
LIMITED = {429: "Over a rate limit (Retry-After says when to try again)."}
MALFORMED = {400: "A malformed request: a missing field, a wrong type, an unknown value."}
STALE = {409: "The game moved on since the ply or version sent."}
REFUSED = {422: "The game refuses it: out of turn, the game over or waiting for players."}
SEAT_ACTION = {**MALFORMED, **NO_GAME, **STALE, **REFUSED, **LIMITED}
TAKING = {**MALFORMED, 404: "The link or the challenge opens no seat.",
          409: "The seat is taken, the game withdrawn, or the challenge expired.",
          422: "A rated seat: a player key is needed, in the challenge's rating range.",
          **LIMITED}
TOURNAMENT_ACTION = {**MALFORMED, 403: "Only the organiser may do that.",
                     404: "The key opens no player, or there is no such tournament.",
                     409: "The tournament is full or has started.",
                     422: "The tournament's state does not allow it.", **LIMITED}
GAME = ref("Game")
EMPTY = ref("Empty")


def operations() -> dict[tuple[str, str], Operation]:
    """Every documented operation, by its route's endpoint and method."""
    return {
        ("openapi.document_route", "GET"): Operation(
            "This document", {200: OBJECT}, tags=("meta",)),
        ("api.create_game", "POST"): Operation(
            "Create a game: one secret link per seat", {201: ref("NewGame")},
            {**MALFORMED, 422: "A rated game's rules are not met.",
             429: "Over a rate limit, or too many games between computers running."},
            body=shape({"game": games(), "players": array(player_entry())}, {
                "options": OBJECT, "clock": clock_settings(), "public": BOOLEAN,
                "rated": BOOLEAN,
                "rating_range": shape({}, {"min": nullable(NUMBER), "max": nullable(NUMBER)})}),
            tags=("games",)),
        ("api.game", "GET"): Operation(
            "The game as the seat (or a spectator) may know it", {200: GAME}, NO_GAME,
            tags=("games",)),
        ("api.moves", "POST"): Operation(
            "Play a move, from the ply or the version seen", {200: GAME}, SEAT_ACTION,
            body=shape({"move": STRING}, SEEN), tags=("games",)),
        ("api.resign", "POST"): Operation(
            "Resign (a team: propose or confirm; decline a partner's proposal)", {200: GAME},
            SEAT_ACTION, body=shape({}, {**SEEN, "answer": one_of("decline")}),
            tags=("games",)),
        ("api.draw", "POST"): Operation(
            "Offer a draw, or answer the opponent's offer", {200: GAME}, SEAT_ACTION,
            body=shape({"answer": one_of("offer", "accept", "decline")}, SEEN),
            tags=("games",)),
        ("api.takeback", "POST"): Operation(
            "Ask to take back one's last move (202), or answer the opponent's request (200)",
            {200: GAME, 202: GAME}, SEAT_ACTION,
            body=shape({}, {"answer": one_of("accept", "decline")}), tags=("games",)),
        ("api.withdraw", "POST"): Operation(
            "End a game that waits for players (its creator)", {200: GAME},
            {**MALFORMED, **NO_GAME, **STALE, **REFUSED}, body=shape({}, SEEN),
            tags=("games",)),
        ("api.vacation", "POST"): Operation(
            "Stop the seat's clock for some days", {200: GAME}, SEAT_ACTION,
            body=shape({"days": whole(1)}), tags=("games",)),
        ("api.chat", "POST"): Operation(
            "Post to the game's chat", {201: GAME},
            {**SEAT_ACTION, 403: "A spectator's link: spectators read the chat only."},
            body=shape({"text": STRING}), tags=("talk",)),
        ("api.notes", "GET"): Operation(
            "The seat's private notes", {200: ref("Notes")}, NO_GAME, tags=("talk",)),
        ("api.notes", "PUT"): Operation(
            "Replace the seat's private notes", {200: ref("Notes")},
            {**MALFORMED, **NO_GAME, **REFUSED}, body=shape({"text": STRING}),
            tags=("talk",)),
        ("api.email_settings", "GET"): Operation(
            "The seat's choice of emails and the hours before its deadline it is reminded",
            {200: ref("EmailSettings")}, NO_GAME, tags=("talk",)),
        ("api.email_settings", "PUT"): Operation(
            "Set the seat's choice of emails, its reminders' hours (null: the one warning)",
            {200: ref("EmailSettings")}, {**MALFORMED, **NO_GAME},
            body=shape({}, {"emails": one_of(*preferences.PREFERENCES),
                            "deadline_reminders": nullable(array(HOURS))}),
            tags=("talk",)),
        ("api.rematch", "POST"): Operation(
            "Ask for a rematch: 202 while others have not, 201 and the new game's link",
            {201: ref("Rematch"), 202: GAME}, SEAT_ACTION, body=shape({}), tags=("talk",)),
        ("api.set_conditional", "PUT"): Operation(
            "Replace the seat's conditional lines (their move, my reply, ...)", {200: GAME},
            SEAT_ACTION, body=shape({"lines": array(array(STRING))}), tags=("games",)),
        ("api.analyse", "POST"): Operation(
            "A position after a line of moves from a ply, nothing recorded",
            {200: ref("Position")}, SEAT_ACTION,
            body=shape({}, {"ply": whole(0), "moves": array(STRING)}), tags=("records",)),
        ("api.game_record", "GET"): Operation(
            "The game's record: this server's (json) or Abstract Play's (apgamerecord)",
            {200: {"anyOf": [ref("Record"), ref("GameRecord")]}},
            {**MALFORMED, **NO_GAME}, query={"format": one_of("json", "apgamerecord")},
            tags=("records",)),
        ("api.set_webhook", "PUT"): Operation(
            "Set (or clear, with null) the seat's webhook URL",
            {200: shape({"webhook": nullable(URL)})}, {**MALFORMED, **NO_GAME, **LIMITED},
            body=shape({"url": nullable(URL)}), tags=("news",)),
        ("api.new_feed", "POST"): Operation(
            "A new Atom feed link of the seat's game", {201: shape({"feed": URL})},
            {**NO_GAME, **LIMITED}, tags=("news",)),
        ("api.push_key", "GET"): Operation(
            "The server's VAPID public key, for browsers to subscribe with",
            {200: shape({"public_key": STRING})}, tags=("news",)),
        ("api.seat_push", "PUT"): Operation(
            "Tell a browser's push subscription of the seat's news",
            {201: shape({"endpoint": URL})},
            {**MALFORMED, **NO_GAME, 409: "Too many devices subscribed.", **LIMITED},
            body=push_subscription(), tags=("news",)),
        ("api.seat_push", "DELETE"): Operation(
            "No longer tell that subscription (also if it was not)", {200: EMPTY},
            {**MALFORMED, **NO_GAME, **LIMITED}, body=shape({"endpoint": STRING}),
            tags=("news",)),
        ("api.player_push", "PUT"): Operation(
            "Tell a browser's push subscription of all the player's seats' news",
            {201: shape({"endpoint": URL})},
            {**MALFORMED, **NO_PLAYER, 409: "Too many devices subscribed.", **LIMITED},
            body=push_subscription(), tags=("players",)),
        ("api.player_push", "DELETE"): Operation(
            "No longer tell that subscription (also if it was not)", {200: EMPTY},
            {**MALFORMED, **NO_PLAYER, **LIMITED}, body=shape({"endpoint": STRING}),
            tags=("players",)),
        ("api.leaderboard", "GET"): Operation(
            "A game's leaderboard",
            {200: shape({"players": array({"allOf": [shape({"handle": STRING}),
                                                     ref("Standing")]})})},
            {404: "There is no such game."}, tags=("players",)),
        ("lobby.challenges_api", "GET"): Operation(
            "The lobby's open seats, oldest first",
            {200: shape({"challenges": array(ref("Challenge"))})},
            query={"game": games(), "clock": one_of(*clocks.MODES), "min_rating": INTEGER,
                   "max_rating": INTEGER, "min_completion": whole(0, 100), "key": STRING},
            tags=("lobby",)),
        ("moderation_api.block_api", "POST"): Operation(
            "Block a player: they take none of the key's seats, their challenges and chat "
            "leave its player's lobby and games", {201: shape({"handle": STRING,
                                                             "blocks": array(STRING)})},
            {**MALFORMED, **NO_PLAYER, **LIMITED}, body=shape({"handle": STRING}),
            tags=("moderation",)),
        ("moderation_api.unblock_api", "DELETE"): Operation(
            "Undo a block", {200: shape({"blocks": array(STRING)})},
            {404: "The key opens no player, or it blocks nobody of that handle."},
            tags=("moderation",)),
        ("moderation_api.report_api", "POST"): Operation(
            "Report a player (in a game of the key's, or one chat message there)",
            {201: shape({"id": INTEGER})}, {**MALFORMED, **NO_PLAYER, **LIMITED},
            body=shape({"handle": STRING, "reason": one_of(*moderation.REASONS),
                        "text": STRING}, {"game": STRING, "message": INTEGER}),
            tags=("moderation",)),
        ("moderation_api.seat_report_api", "POST"): Operation(
            "A seat's report from its game (a seat without an account too)",
            {201: shape({"id": INTEGER})}, {**MALFORMED, **NO_GAME, **LIMITED},
            body=shape({"reason": one_of(*moderation.REASONS), "text": STRING},
                       {"seat": INTEGER, "message": INTEGER}), tags=("moderation",)),
        ("moderation_api.reports_api", "GET"): Operation(
            "A moderator's queue: every report, the open ones first, with its evidence",
            {200: shape({"reports": array(ref("Report"))})},
            {403: "The key is no moderator's."}, tags=("moderation",)),
        ("moderation_api.actions_api", "POST"): Operation(
            "A moderator's action on a player, emailed to them and logged",
            {201: ref("ModerationAction")},
            {**MALFORMED, 403: "The key is no moderator's.", 404: "There is no such report.",
             422: "The report is handled already, the game changed no rating, or the "
             "moderator's own handle.", **LIMITED},
            body=shape({"action": one_of(*moderation.ACTIONS)},
                       {"handle": STRING, "note": STRING, "report": INTEGER,
                        "game": STRING}), tags=("moderation",)),
        ("moderation_api.log_api", "GET"): Operation(
            "The moderation log, the latest first",
            {200: shape({"actions": array(ref("ModerationAction"))})},
            {403: "The key is no moderator's."}, tags=("moderation",)),
        ("players.sign_in_api", "POST"): Operation(
            "Email a one-time sign-in link to the address", {202: EMPTY},
            {**MALFORMED, **LIMITED}, body=shape({"email": STRING}), tags=("players",)),
        ("players.player_api", "GET"): Operation(
            "The player key: every seat of the player, their turn first",
            {200: ref("PlayerGames")}, NO_PLAYER, tags=("players",)),
        ("players.export_api", "GET"): Operation(
            "Everything the site keeps about the player", {200: ref("Export")}, NO_PLAYER,
            tags=("players",)),
        ("platform.events", "GET"): Operation(
            "The player's events as Server-Sent Events (turn, challenge, game_end), resumed "
            "after Last-Event-ID; with 'after', a long poll answering them as JSON",
            {200: STRING}, {400: "A malformed Last-Event-ID or 'after'.", **NO_PLAYER,
                            429: "The key holds as many listeners as one player may "
                                 "(Retry-After).",
                            503: "The server holds as many listeners as it can (Retry-After)."},
            query={"after": whole(0), "wait": NUMBER}, headers={"Last-Event-ID": STRING},
            media="text/event-stream", also={"application/json": ref("Events")},
            tags=("players",)),
        ("platform.declare_bot", "POST"): Operation(
            "Mark the player a bot; with a handle, register a bot account the player owns",
            {200: ref("Bot"), 201: ref("Bot")},
            {**MALFORMED, **NO_PLAYER, 409: "The handle is taken.",
             422: "A bot registers no bots.", **LIMITED},
            body=shape({"games": array(games())},
                       {"rated": BOOLEAN, "clocks": array(one_of(*clocks.MODES)),
                        "handle": STRING}), tags=("players",)),
        ("platform.bots_api", "GET"): Operation(
            "Every bot, with its owner and what it accepts",
            {200: shape({"bots": array(ref("Bot"))})}, tags=("players",)),
        ("players.profile_api", "GET"): Operation(
            "A player's public profile", {200: ref("Profile")},
            {404: "There is no such player."}, tags=("players",)),
        ("tournaments.create_api", "POST"): Operation(
            "Organise a tournament", {201: ref("TournamentLinks")},
            {**MALFORMED, **NO_PLAYER, 422: "A rated tournament without a clock that a "
             "timeout loses, or too many tournaments not yet started.", **LIMITED},
            links=tournament_links(),
            body=shape({"name": STRING, "game": games(),
                        "format": one_of(*tournaments.FORMATS)},
                       {"options": OBJECT, "clock": clock_settings(), "rounds": whole(1),
                        "division_size": whole(3, 50), "promote": whole(1),
                        "min_players": whole(2), "max_players": whole(2), "rated": BOOLEAN,
                        "public": BOOLEAN, "starts_at": TIME, "round_days": whole(1, 365),
                        "adjudication": one_of(*tournaments.ADJUDICATIONS)}),
            tags=("tournaments",)),
        ("tournaments.entry_api", "POST"): Operation(
            "Enter the tournament (the organiser: enter the computer)", {201: EMPTY},
            TOURNAMENT_ACTION, body=shape({}, {"bot": levels()}), tags=("tournaments",)),
        ("tournaments.entry_api", "DELETE"): Operation(
            "Withdraw from the tournament (the organiser: remove a player)", {200: EMPTY},
            TOURNAMENT_ACTION, body=shape({}, {"handle": STRING}), tags=("tournaments",)),
        ("tournaments.organise_api", "POST"): Operation(
            "The organiser's start or cancel; a league player's opt-out of the next season",
            {200: EMPTY}, TOURNAMENT_ACTION, body=shape({}), tags=("tournaments",)),
        ("tournaments.api", "GET"): Operation(
            "A tournament: players, rounds, standings, winner", {200: ref("Tournament")},
            {404: "There is no such tournament."}, tags=("tournaments",)),
        ("tournaments.api_list", "GET"): Operation(
            "The public tournaments",
            {200: shape({"tournaments": array(shape({
                "id": STRING, "url": URL, "api": URL, "name": STRING, "game": STRING,
                "format": STRING, "status": STRING}))})}, tags=("tournaments",)),
        # outside /api/: the links' own addresses, answering JSON to a program
        ("lobby.join", "POST"): Operation(
            "Take an open seat with its join link", {201: ref("SeatLinks")}, TAKING,
            body=shape({}, {"name": STRING, "email": STRING, "key": STRING}),
            tags=("lobby",)),
        ("lobby.join_challenge", "POST"): Operation(
            "Take a seat listed in the lobby", {201: ref("SeatLinks")}, TAKING,
            body=shape({}, {"name": STRING, "email": STRING, "key": STRING}),
            tags=("lobby",)),
        ("players.sign_in", "POST"): Operation(
            "Use an emailed sign-in link (a handle the first time)", {201: ref("SignedIn")},
            {**MALFORMED, 404: "A used, expired or unknown link.",
             409: "The handle is taken."}, body=shape({}, {"handle": STRING}),
            tags=("players",)),
        ("play.version", "GET"): Operation(
            "How many of the game's events the viewer may know of (ETag; 304 unchanged)",
            {200: shape({"events": whole(0)}), 304: None}, NO_GAME,
            headers={"If-None-Match": STRING}, tags=("records",)),
        ("play.record_json", "GET"): Operation(
            "The game's record, for download", {200: ref("Record")}, NO_GAME,
            tags=("records",)),
    }


# every refusal's sentence is in the request's language (English or Russian)
LANGUAGE = {"Accept-Language": STRING}

# The routes outside /api/ that the document describes (their other methods are pages).
DOCUMENTED = {("lobby.join", "POST"), ("lobby.join_challenge", "POST"),
              ("players.sign_in", "POST"), ("play.version", "GET"),
              ("play.record_json", "GET")}

# -- the document ----------------------------------------------------------------------------

PARAMETER = re.compile(r"<(?:(?P<converter>\w+)(?:\((?P<arguments>[^)]*)\))?:)?(?P<name>\w+)>")


def path_of(rule: Rule) -> tuple[str, list[Schema]]:
    """The OpenAPI path of a Werkzeug rule and its path parameters."""
    parameters = []

    def parameter(found: re.Match[str]) -> str:
        converter, name = found["converter"] or "default", found["name"]
        if converter == "any":
            schema = one_of(*(word.strip(" '\"") for word in found["arguments"].split(",")))
        elif converter == "int":
            schema = whole(0)
        else:  # a segment: anything but a slash
            schema = {"type": "string", "minLength": 1, "pattern": "^[^/]+$"}
        parameters.append({"name": name, "in": "path", "required": True, "schema": schema})
        return "{" + name + "}"

    return PARAMETER.sub(parameter, rule.rule), parameters


def described(rule: Rule) -> Iterator[tuple[str, str]]:
    """The (endpoint, method) pairs of ``rule`` that the document describes."""
    for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
        if rule.rule.startswith("/api/") or (rule.endpoint, method) in DOCUMENTED:
            yield rule.endpoint, method


def operation_id(key: tuple[str, str]) -> str:
    endpoint, method = key
    return f"{endpoint.replace('.', '_')}_{method.lower()}"


def json_content(schema: Schema) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def operation_json(key: tuple[str, str], operation: Operation,
                   parameters: list[Schema]) -> dict[str, Any]:
    method = key[1]
    errors = dict(operation.errors)
    if operation.body is not None:
        errors.setdefault(400, "The body is not a JSON object, or holds text that is not "
                               "valid Unicode.")
        errors[413] = "The body is larger than the server takes."
    if method != "GET":  # refused before anything is done (docs/api.md, "Conventions")
        cross_site = "A browser's request from another site's page."
        errors[403] = f"{errors[403]} Or: {cross_site}" if 403 in errors else cross_site
    responses: dict[str, Any] = {
        str(status): {"description": "Done.", "content": {operation.media: {"schema": schema}}}
        if schema is not None else {"description": "Not modified."}
        for status, schema in operation.answers.items()}
    for media, schema in operation.also.items():
        responses[str(min(operation.answers))]["content"][media] = {"schema": schema}
    if operation.links:
        responses[str(min(operation.answers))]["links"] = {
            name: {"operationId": operation_id(target), "parameters": dict(parameters)}
            for name, (target, parameters) in operation.links.items()}
    responses.update({str(status): {"description": why, "content": json_content(ref("Error"))}
                      for status, why in sorted(errors.items())})
    if 429 in errors:
        responses["429"]["headers"] = {"Retry-After": {
            "description": "Whole seconds to wait.", "schema": {"type": "string",
                                                               "pattern": "^[0-9]+$"}}}
    answer: dict[str, Any] = {
        "operationId": operation_id(key),
        "summary": operation.summary, "tags": list(operation.tags),
        "parameters": parameters + [
            {"name": name, "in": where, "required": False, "schema": schema}
            for where, named in (("query", operation.query),
                                 ("header", {**operation.headers, **LANGUAGE}))
            for name, schema in named.items()],
        "responses": responses}
    if operation.body is not None:
        # an empty body reads as {}: required only where a field is, and outside /api/,
        # where a JSON body is what makes the request the API's rather than a form's
        answer["requestBody"] = {"required": bool(operation.body.get("required"))
                                 or key in DOCUMENTED,
                                 "content": json_content(operation.body)}
    return answer


def document(url_map_rules: list[Rule], public_url: str) -> dict[str, Any]:
    """The OpenAPI document of these rules: every route under /api/ and ``DOCUMENTED``
    that ``operations()`` describes (the suite fails for one it does not describe)."""
    described_here = operations()
    paths: dict[str, dict[str, Any]] = {}
    for rule in sorted(url_map_rules, key=lambda rule: rule.rule):
        path, parameters = path_of(rule)
        for key in described(rule):
            if key in described_here:
                paths.setdefault(path, {})[key[1].lower()] = operation_json(
                    key, described_here[key], parameters)
    return {
        "openapi": "3.1.0",
        "info": {"title": "Correspondence games: the JSON API", "version": "1",
                 "description": "Secret links are the credentials: a seat's API base "
                 "/api/play/{token}, a spectator's /api/watch/{token}, a player key "
                 "/api/player/{token}. Errors are {\"error\": a sentence} in the request's "
                 "Accept-Language. The readable guide is docs/api.md."},
        "servers": [{"url": public_url.rstrip("/")}],
        "paths": paths,
        "components": {"schemas": components()},
    }


@bp.get("/api/openapi.json")
def document_route():
    return jsonify(document(list(current_app.url_map.iter_rules()),
                            current_app.config["PUBLIC_URL"]))
