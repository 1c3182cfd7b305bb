"""Reports and moderators: what players tell the site's moderators, and what moderators do.

A report (``report``) names a player (or, from a game, a seat without an account), a reason
(``REASONS``) and a text, and keeps its evidence as it stood: the game's chat, every
message with its author's name and time, and its moves as a spectator reads them (a
report from a profile keeps the reported player's messages in the games the two share).
Later changes to the game change nothing of it.

A moderator (the role ``moderator``: ``flask --app pbem moderators add <handle>``) reads
the open reports and acts on a player (``act``): ``warn`` (an email), ``mute`` (their chat
refused), ``suspend`` (no rated games, tournament entries or public challenges; their
running games go on), ``close`` (sign-in refused, their profile closed, off every
leaderboard), ``restore`` (undoes the three), ``annul`` (a rated game of theirs changes no
rating: ``ratings.annul``), or ``dismiss`` (a report handled with nothing done). Each action
is a row of the append-only moderation log, and handles the report it cites; the caller
emails the player the action and its note (with a link to appeal), and the reporter that
the report was handled. The player's appeal (``appeal``) is a report of their own, reason
``appeal``, back in the queue."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from . import events, links, matches, players, ratings
from .events import InvalidRequest, Refused
from .matches import Match
from .players import Player
from .store import utc
from .store.db import write

REASONS = ("abuse", "cheating", "spam", "other")
APPEAL = "appeal"  # the reason of a player's appeal against an action
ACTIONS = ("warn", "mute", "suspend", "close", "restore", "annul", "dismiss")
# what each action sets on the player's row (``sanctions``); restore clears them all
SETS = {"mute": "muted_at", "suspend": "suspended_at", "close": "closed_at"}
MAX_TEXT = 2000  # characters of a report's text, an appeal's or a moderator's note


class NoReport(matches.ActionError):
    status = 404


@dataclass(frozen=True)
class Report:
    id: int
    reporter: str            # a handle, or a seat's name
    reporter_id: int | None
    reporter_game: str | None
    reporter_seat: int | None
    handle: str              # the reported player's handle, or a seat's name
    reported_id: int | None
    game: str | None
    message: int | None      # the chat message reported: its event's seq
    reason: str
    text: str
    evidence: dict[str, Any]
    status: str              # open, handled
    at: str
    handled_at: str | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "reporter": self.reporter, "handle": self.handle,
                "game": self.game, "message": self.message, "reason": self.reason,
                "text": self.text, "at": self.at, "status": self.status,
                "handled_at": self.handled_at, "evidence": self.evidence}


def _report(row: Any) -> Report:
    return Report(row["id"], row["reporter_name"], row["reporter_id"], row["reporter_game"],
                  row["reporter_seat"], row["reported_name"], row["reported_id"],
                  row["game_id"], row["message_seq"], row["reason"], row["text"],
                  json.loads(row["evidence"]), row["status"], row["created_at"],
                  row["handled_at"])


def checked_reason(reason: Any) -> str:
    if reason not in REASONS:
        raise InvalidRequest("'reason' must be one of %(reasons)s.", reasons=REASONS)
    return reason


def checked_note(text: Any, what: str, *, may_be_empty: bool = False) -> str:
    return events.checked_text(text, what, MAX_TEXT, may_be_empty=may_be_empty)


def game_evidence(match: Match, message: int | None = None) -> dict[str, Any]:
    """The game as a report keeps it: every chat message with its author's name (whatever
    the seats read), the reported one marked, and the moves as a spectator reads them."""
    final = match.current
    return {
        "game": match.id, "kind": match.game.id, "players": [s.name for s in match.seats],
        "chat": [{"seat": event.seat, "name": None if event.seat is None
                  else match.seats[event.seat].name, "text": event.payload.text,
                  "at": event.created_at, "reported": event.seq == message}
                 for event in match.events if event.kind == "chat"
                 and isinstance(event.payload, events.Message)],
        "moves": [match.game.public_move(event.seat, event.move, None, final)
                  for event in match.moves],
        "outcome": match.outcome_json(),
    }


def shared_chat(db: sqlite_utils.Database, reporter: Player, reported: Player
                ) -> dict[str, Any]:
    """A profile's report keeps the reported player's messages in the games the two share."""
    mine = {game_id for game_id, _ in players.seats_of(db, reporter)}
    said: list[dict[str, Any]] = []
    for game_id, seat in players.seats_of(db, reported):
        if game_id not in mine:
            continue
        match = matches.load(db, game_id)
        said += [{"game": game_id, "name": match.seats[seat].name, "text": event.payload.text,
                  "at": event.created_at} for event in match.events
                 if event.kind == "chat" and event.seat == seat
                 and isinstance(event.payload, events.Message)]
    return {"chat": sorted(said, key=lambda message: message["at"])[-100:]}


def report(db: sqlite_utils.Database, *, reporter: Player | None, reporter_name: str,
           reported: Player | None, reported_name: str, reason: Any, text: Any,
           evidence: dict[str, Any], game_id: str | None = None,
           reporter_seat: int | None = None, message: int | None = None) -> int:
    """Keep a report for the moderators; its id. ``reporter`` None: a seat of ``game_id``
    without an account (``reporter_seat``), told by its address when it is handled."""
    reason = reason if reason == APPEAL else checked_reason(reason)
    text = checked_note(text, "A report")
    with write(db):
        return db.execute(
            "INSERT INTO reports (reporter_id, reporter_name, reporter_game, reporter_seat, "
            "reported_id, reported_name, game_id, message_seq, reason, text, evidence, "
            "status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?) "
            "RETURNING id",
            [reporter and reporter.id, reporter_name,
             game_id if reporter_seat is not None else None, reporter_seat,
             reported and reported.id, reported_name, game_id, message, reason, text,
             json.dumps(evidence), utc.iso(utc.now())]).fetchone()[0]


_REPORT_COLUMNS = ("SELECT id, reporter_id, reporter_name, reporter_game, reporter_seat, "
                   "reported_id, reported_name, game_id, message_seq, reason, text, evidence, "
                   "status, created_at, handled_at FROM reports ")


def reports(db: sqlite_utils.Database, *, most: int = 200) -> list[Report]:
    """The reports, the open ones first (oldest first: the queue), then the handled ones
    (the latest first)."""
    return [_report(row) for row in db.query(
        _REPORT_COLUMNS + "ORDER BY status <> 'open', "
        "CASE WHEN status = 'open' THEN id END, handled_at DESC, id DESC LIMIT ?",
        [most])]


def open_reports(db: sqlite_utils.Database) -> list[Report]:
    return [_report(row) for row in db.query(
        _REPORT_COLUMNS + "WHERE status = 'open' ORDER BY created_at, id")]


def find(db: sqlite_utils.Database, report_id: Any) -> Report:
    row = db.execute(_REPORT_COLUMNS + "WHERE id = ?", [report_id]).fetchone() \
        if isinstance(report_id, int) and not isinstance(report_id, bool) \
        and 0 < report_id < 2**63 else None  # a column's range, on either engine
    if row is None:
        raise NoReport("There is no report %(id)s.", id=str(report_id))
    return _report(row)


def made_by(db: sqlite_utils.Database, player: Player) -> list[dict[str, Any]]:
    """The reports ``player`` made (their data's export): what they wrote and its status."""
    return [{"id": row["id"], "handle": row["reported_name"], "game": row["game_id"],
             "reason": row["reason"], "text": row["text"], "at": row["created_at"],
             "status": row["status"]} for row in db.query(
        "SELECT * FROM reports WHERE reporter_id = ? ORDER BY created_at, id", [player.id])]


# -- actions ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Action:
    id: int
    moderator: str
    action: str
    handle: str
    note: str
    report: int | None
    game: str | None
    at: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "moderator": self.moderator, "action": self.action,
                "handle": self.handle, "note": self.note, "report": self.report,
                "game": self.game, "at": self.at}


@dataclass(frozen=True)
class Done:
    """What ``act`` did: the log's row, the secret of its appeal link (None: nothing to
    appeal), and the report it handled."""
    action: Action
    appeal_token: str | None
    report: Report | None


def act(db: sqlite_utils.Database, moderator: Player, subject: Player | None, action: Any,
        note: Any, *, report_id: Any = None, game_id: Any = None) -> Done:
    """Take ``action`` on ``subject`` (a player; None only to dismiss a report about a seat
    without an account), log it, and handle the report it cites. Bad input refuses
    (``InvalidRequest``, ``Refused``) and changes nothing."""
    if action not in ACTIONS:
        raise InvalidRequest("'action' must be one of %(actions)s.", actions=ACTIONS)
    note = checked_note(note if note is not None else "", "A note", may_be_empty=True)
    cited = find(db, report_id) if report_id is not None else None
    if cited is not None and cited.status != "open":
        raise Refused("Report %(id)s is handled already.", id=str(cited.id))
    if subject is None and action != "dismiss":
        raise InvalidRequest("'handle' must be a player's handle.")
    if subject is not None and subject.id == moderator.id and action != "dismiss":
        raise Refused("A moderator does not act on themselves.")
    with write(db):
        if action in SETS:
            db.execute(f"UPDATE players SET {SETS[action]} = ? WHERE id = ?",
                       [utc.iso(utc.now()), subject.id])  # type: ignore[union-attr]
        elif action == "restore":
            db.execute("UPDATE players SET muted_at = NULL, suspended_at = NULL, "
                       "closed_at = NULL WHERE id = ?", [subject.id])  # type: ignore[union-attr]
        elif action == "annul":
            match = _subject_game(db, subject, game_id)  # type: ignore[arg-type]
            if not ratings.annul(db, match):
                raise Refused("That game changed no rating (or it is annulled already).")
        now = utc.iso(utc.now())
        token = links.new_token() if action not in ("dismiss", "restore") else None
        row = db.execute(
            "INSERT INTO moderation_log (moderator_id, moderator, subject_id, handle, action, "
            "note, report_id, game_id, appeal_hash, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [moderator.id, moderator.handle, subject and subject.id,
             subject.handle if subject else cited.handle if cited else "", action, note,
             cited.id if cited else None, game_id if action == "annul" else None,
             token and links.token_hash(token), now]).fetchone()
        if cited is not None:
            db.execute("UPDATE reports SET status = 'handled', handled_at = ? WHERE id = ?",
                       [now, cited.id])
    logged = Action(row[0], moderator.handle, action,
                    subject.handle if subject else cited.handle if cited else "", note,
                    cited.id if cited else None, game_id if action == "annul" else None, now)
    return Done(logged, token, cited)


def _subject_game(db: sqlite_utils.Database, subject: Player, game_id: Any) -> Match:
    if not isinstance(game_id, str) or (match := matches.find(db, game_id)) is None:
        raise InvalidRequest("'game' must be the id of a game (to annul).")
    if subject.id not in ratings.seat_players(db, match.id).values():
        raise Refused("%(handle)s did not play that game.", handle=subject.handle)
    return match


_ACTION_COLUMNS = ("SELECT id, moderator, action, handle, note, report_id, game_id, "
                   "created_at FROM moderation_log ")


def _action(row: Any) -> Action:
    return Action(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7])


def log(db: sqlite_utils.Database, *, subject: Player | None = None, most: int = 500
        ) -> list[Action]:
    """The moderation log, the latest first (of one player, with ``subject``)."""
    where, values = ("WHERE subject_id = ? ", [subject.id]) if subject else ("", [])
    return [_action(row) for row in db.execute(
        _ACTION_COLUMNS + where + "ORDER BY created_at DESC, id DESC LIMIT ?",
        [*values, most])]


def appealed(db: sqlite_utils.Database, token: str) -> tuple[Action, Player | None] | None:
    """The action an appeal link (emailed with it) is about, and its player; None for a
    link that opens none."""
    if not links.TOKEN_SHAPE.fullmatch(token):
        return None
    row = db.execute(_ACTION_COLUMNS.replace("SELECT ", "SELECT subject_id, ", 1)
                     + "WHERE appeal_hash = ?", [links.token_hash(token)]).fetchone()
    if row is None:
        return None
    return _action(row[1:]), players.find(db, row[0]) if row[0] is not None else None


def appeal(db: sqlite_utils.Database, token: str, text: Any) -> int:
    """The player's appeal against the action of ``token``'s link: a report of their own,
    reason ``appeal``, back in the moderators' queue."""
    found = appealed(db, token)
    if found is None:
        raise NoReport("This appeal link opens nothing.")
    action, player = found
    name = player.handle if player else action.handle
    return report(db, reporter=player, reporter_name=name, reported=player,
                  reported_name=name, reason=APPEAL, text=checked_note(text, "An appeal"),
                  evidence={"action": action.to_json()})

