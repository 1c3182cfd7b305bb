"""The registry of event kinds (``pbem/events.py``): every kind has its words in every way
in that offers it, and each way in reads those words back to the kind."""
from __future__ import annotations

import dataclasses
import typing
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pbem import clocks, events, matches
from pbem.events import KINDS, Command, Days, Event, Message, Move, Rematch, Verdict
from pbem.mail import channels, inbound, notify, preferences, push
from pbem.web.database import get_db

TEMPLATES = Path(__file__).resolve().parent.parent / "templates" / "email"

# The ways in that do not offer a kind, and why; every other (kind, way in) has its words.
NOT_OFFERED = {
    *((kind, way) for kind in ("timeout", "adjudicated", "forfeited")  # the server's alone
      for way in ("page", "api", "email")),
    ("join", "page"), ("join", "api"), ("join", "email"),  # a join link's page (lobby)
    # the server's, as an identity is deleted: matches.anonymise
    ("anonymise", "page"), ("anonymise", "api"), ("anonymise", "email"),
    ("move", "email"),      # a reply's first line is the move itself, in the game's notation
    ("vacation", "email"),  # declared on the page or through the API
    ("withdraw", "email"),  # only the creator, before the game starts: the page or the API
}
PAYLOADS = {Move: Move("d4xc5"), Days: Days(3), Message: Message("Hi!\nGood luck."),
            Rematch: Rematch("AbC123"), Verdict: Verdict(draw=True)}


def test_the_registry_is_keyed_by_each_kinds_name():
    assert all(name == kind.name for name, kind in KINDS.items())


@pytest.mark.parametrize("transport", events.TRANSPORTS)
@pytest.mark.parametrize("name", KINDS)
def test_every_kind_has_its_words_in_every_way_in_that_offers_it(name, transport):
    words = KINDS[name].words
    offered = words.email if transport == "email" else getattr(words, transport)
    assert bool(offered) == ((name, transport) not in NOT_OFFERED)


@pytest.mark.one_database  # the routes
@pytest.mark.parametrize("name", KINDS)
def test_the_page_and_the_api_words_are_routes_that_take_the_kind(app, name):
    posted = {rule.rule.replace("<any(play, watch):role>", "play")
              for rule in app.url_map.iter_rules() if "POST" in rule.methods}
    for transport, prefix in (("page", "/play/<token>/"), ("api", "/api/play/<token>/")):
        request = getattr(KINDS[name].words, transport)
        if request is not None:
            assert prefix + request[0] in posted
            assert name in events.kinds_named(transport, request)


@pytest.mark.parametrize("name", [name for name in KINDS if KINDS[name].words.email])
def test_an_email_reply_reads_each_word_back_to_its_kind(name):
    for word in KINDS[name].words.email:
        command = inbound.action(f"{word.capitalize()}.")  # as a sentence: "Resign."
        assert name in command.kinds, word


@pytest.mark.parametrize("name", KINDS)
def test_every_kind_says_what_was_recorded(name):
    kind = KINDS[name]
    payload = PAYLOADS[kind.payload] if kind.payload else None
    fields = dataclasses.asdict(payload) if payload else {}
    assert kind.words.done.format(**fields, partners="Ann", opponents="Bob")
    if kind.words.news:
        assert kind.words.news.format(**fields, name="Ann")


@pytest.mark.parametrize("name", KINDS)
def test_every_payload_is_stored_and_read_back_as_it_was(name):
    kind = KINDS[name]
    payload = PAYLOADS[kind.payload] if kind.payload else None
    event = Event(1, 0, name, payload, "2026-01-01T00:00:00+00:00")
    move, text = event.columns()
    assert Event.stored(1, 0, name, move, event.created_at, text) == event


def test_a_bare_answer_means_whichever_offer_waits_and_a_draw_answer_first():
    assert inbound.action("accept").kinds == ("draw_accept", "resign_accept", "takeback_accept")
    assert inbound.action("decline").kinds == ("draw_decline", "resign_decline",
                                               "takeback_decline")
    assert inbound.action("resign").kinds == ("resign", "resign_accept", "resign_offer")
    assert inbound.action("d4xc5") == Command.of("move", Move("d4xc5"))
    assert inbound.action("say: hello") == Command(("chat",), Message("hello"))


def test_the_kind_names_the_type_checker_knows_are_the_registrys():
    assert set(typing.get_args(events.KindName)) == set(KINDS)


ENDINGS = {"adjudicated": Verdict(draw=False), "withdraw": None}  # others: no payload


@pytest.mark.one_database  # what a fold does to a game and its clocks
@pytest.mark.parametrize("name", [name for name in KINDS if KINDS[name].ends])
def test_every_kind_that_ends_a_game_stops_its_clocks(app, client, name):
    players = [{"name": "Ann", "email": "ann@example.org"},
               {"name": "Bob", "email": "bob@example.org"} if name != "withdraw"
               else {"open": True}]
    created = client.post("/api/games", json={
        "game": "mastery", "players": players, "clock": {"mode": "per_move", "days": 3}})
    with app.app_context():
        match = matches.load(get_db(), created.json["id"])
    now = datetime.now(timezone.utc)
    assert [c.running for c in clocks.of_match(match, now) or ()] == \
        ([True, False] if name != "withdraw" else [False, False])
    ended = match.with_events([Event(1, 0, name, ENDINGS.get(name), match.created_at)])
    assert ended.finished
    assert not any(c.running or c.deadline for c in clocks.of_match(ended, now))
    assert clocks.steps_of(ended)[-1].to_move == ()


@pytest.mark.parametrize("name", [name for name in KINDS if KINDS[name].tells])
def test_every_email_a_kind_sends_has_its_template_subject_and_topic(name):
    tells = KINDS[name].tells
    assert (TEMPLATES / f"{tells.template or tells.email}.txt").is_file()
    assert notify.SUBJECTS[tells.email] == tells.subject
    assert tells.email in preferences.HELD_BACK["digest"] and tells.email in preferences.HELD_BACK["none"]
    assert channels.TOPIC_OF.get(tells.email) == tells.topic
    assert tells.topic is None or tells.topic in channels.TOPICS
    if tells.detail:
        fields = {"author": "Ann", "who": "Dark (Ann)", "message": "Hi", "news": []}
        assert tells.detail.format(**fields) == push.DETAILS[tells.email].format(**fields)
