"""A player's events older than EVENTS_KEPT_DAYS are pruned by the scheduler's job, but for
what a stream still needs (each player's latest, each seat's latest in a running game); a
client resuming after an event whose successors were pruned begins from the current state,
as a stream without Last-Event-ID does."""
from __future__ import annotations

from datetime import timedelta

from apscheduler.schedulers.background import BackgroundScheduler

from pbem.jobs import scheduler
from pbem.store import utc

from helpers import api_move, path_of, sign_up
from test_platform import events_after, short_streams, stream_of  # noqa: F401


def kept(db, handle: str) -> list[int]:
    return [row[0] for row in db.execute(
        "SELECT e.seq FROM player_events e JOIN players p ON p.id = e.player_id "
        "WHERE p.handle = ? ORDER BY e.seq", [handle])]


def game(client, *keys: str) -> tuple[str, list[str]]:
    created = client.post("/api/games", json={"game": "mastery", "players": [
        {"key": key} for key in keys]})
    assert created.status_code == 201, created.json
    return created.json["id"], [path_of(seat["api"]) for seat in created.json["seats"]]


def first_legal(client, api: str) -> str:
    return client.get(api).json["legal_moves"][0]


def test_old_events_are_pruned_and_a_stream_resumed_before_them_starts_from_now(
        app, client, db, monkeypatch, short_streams):
    ann, bob = sign_up(client, db, "Ann"), sign_up(client, db, "Bob")
    now = utc.now()
    monkeypatch.setattr(utc, "now", lambda: now - timedelta(days=15))  # older than 14 days
    finished, (ann_a, bob_a) = game(client, ann, bob)     # Ann 1: her turn
    api_move(client, ann_a, first_legal(client, ann_a))  # Bob 1: his turn
    api_move(client, bob_a, first_legal(client, bob_a))  # Ann 2: her turn
    assert client.post(f"{ann_a}/resign", json={}).status_code == 200  # Ann 3, Bob 2: over
    waiting, _ = game(client, ann, bob)                  # Ann 4: her turn, still hers
    moved_on, (ann_c, bob_c) = game(client, ann, bob)    # Ann 5: her turn
    api_move(client, ann_c, first_legal(client, ann_c))  # Bob 3: his turn
    api_move(client, bob_c, first_legal(client, bob_c))  # Ann 6: her turn again, still hers
    monkeypatch.setattr(utc, "now", lambda: now)
    recent, _ = game(client, ann, bob)                   # Ann 7: her turn, new
    assert kept(db, "Ann") == [1, 2, 3, 4, 5, 6, 7] and kept(db, "Bob") == [1, 2, 3]

    assert scheduler.prune_player_events(app) == 6
    # gone: those of the finished game, and a turn the seat's later one replaced; kept:
    # the turns still current, the new one, and Bob's latest (his next event is number 4)
    assert kept(db, "Ann") == [4, 6, 7] and kept(db, "Bob") == [3]
    assert scheduler.prune_player_events(app) == 0

    # a client that saw event 2 (or 4) missed pruned ones: it is told what is current now,
    # as a new stream is, then where to resume
    current = [("4", "turn", waiting), ("6", "turn", moved_on), ("7", "turn", recent),
               ("7", "", None)]
    fresh = [(told[0], told[1], told[2].get("id")) for told in stream_of(client, ann)]
    assert fresh == current
    for seen in ("2", "4"):
        resumed = stream_of(client, ann, seen)
        assert [(told[0], told[1], told[2].get("id")) for told in resumed] == current
    # one that saw 6 missed nothing: only what came after it
    assert [(told[0], told[2]["id"]) for told in stream_of(client, ann, "6")] == [
        ("7", recent)]
    # the long poll alike: the current events at once, and the latest number
    answer = client.get(f"{path_of(ann)}/events?after=2&wait=5").json
    assert [(told["id"], told["data"]["id"]) for told in answer["events"]] == [
        (4, waiting), (6, moved_on), (7, recent)]
    assert answer["last"] == 7
    assert [told["id"] for told in events_after(client, ann, 6)] == [7]

    # the numbers go on after the pruned ones
    game(client, bob, ann)
    assert kept(db, "Bob") == [3, 4]
    assert [(told[0], told[1]) for told in stream_of(client, bob, "3")] == [("4", "turn")]


def test_the_scheduler_prunes_the_events_every_hour(app):
    jobs = scheduler._scheduler(BackgroundScheduler, app)  # made with its jobs, not started
    assert jobs is not None
    try:
        job = jobs.get_job("prune-player-events")
        assert job is not None and job.trigger.interval == timedelta(hours=1)
    finally:
        jobs.lock_handle.close()
