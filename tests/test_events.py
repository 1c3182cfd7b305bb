"""The registry of event kinds (``pbem/events.py``): every kind has its words in every way
in that offers it, and each way in reads those words back to the kind."""
from __future__ import annotations

import dataclasses

import pytest

from pbem import events
from pbem.events import KINDS, Command, Days, Event, Message, Move, Rematch
from pbem.mail import inbound

# The ways in that do not offer a kind, and why; every other (kind, way in) has its words.
NOT_OFFERED = {
    ("timeout", "page"), ("timeout", "api"), ("timeout", "email"),  # the server's alone
    ("join", "page"), ("join", "api"), ("join", "email"),  # a join link's page: matches.join
    # the server's, as an identity is deleted: matches.anonymise
    ("anonymise", "page"), ("anonymise", "api"), ("anonymise", "email"),
    ("move", "email"),      # a reply's first line is the move itself, in the game's notation
    ("vacation", "email"),  # declared on the page or through the API
    ("withdraw", "email"),  # only the creator, before the game starts: the page or the API
}
PAYLOADS = {Move: Move("d4xc5"), Days: Days(3), Message: Message("Hi!\nGood luck."),
            Rematch: Rematch("AbC123")}


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
