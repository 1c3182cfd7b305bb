"""The OpenAPI document (``GET /api/openapi.json``, pbem/web/openapi.py): it describes every
route under /api/, and the API answers as it says. Schemathesis sends each operation
requests drawn from the document, both to unknown links and to the links of real games, a
player key and a tournament, and checks that no answer is a server error and that each has
a documented status, content type and body."""
from __future__ import annotations

import time
from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.core.failures import FailureGroup
from schemathesis.checks import (content_type_conformance, not_a_server_error,
                                 response_schema_conformance, status_code_conformance)

from pbem.web import openapi

from helpers import path_of, sign_up

EXAMPLES = 6  # per operation and set of links: the whole run is a few seconds
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]
PEOPLE = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]


def test_every_api_route_is_described_and_nothing_else(app):
    routes = {key for rule in app.url_map.iter_rules() for key in openapi.described(rule)}
    assert {key for key in routes} - set(openapi.operations()) == set(), \
        "describe each new /api route in pbem/web/openapi.py"
    assert set(openapi.operations()) - routes == set(), "descriptions of routes that are gone"


@pytest.mark.one_database
def test_the_document_is_openapi_3_1_of_every_route(client):
    answer = client.get("/api/openapi.json")
    assert answer.status_code == 200 and answer.mimetype == "application/json"
    document = answer.json
    assert document["openapi"] == "3.1.0"
    assert document["paths"]["/api/games"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]["properties"]["game"]["enum"][0] == "mastery"
    moves = document["paths"]["/api/play/{token}/moves"]["post"]
    assert set(moves["responses"]) == {"200", "400", "403", "404", "409", "413", "422", "429"}
    role = document["paths"]["/api/{role}/{token}"]["get"]["parameters"][0]
    assert role == {"name": "role", "in": "path", "required": True,
                    "schema": {"type": "string", "enum": ["play", "watch"]}}
    assert "/join/{token}" in document["paths"] and "get" not in document["paths"]["/join/{token}"]
    loaded = schemathesis.openapi.from_dict(document)  # schemathesis reads it whole
    assert len(list(loaded.get_all_operations())) == sum(map(len, document["paths"].values()))


@pytest.mark.one_database
def test_an_unknown_link_s_record_and_poll_answer_json(client):
    """They are the links' own addresses, which programs fetch (the poll, the download)."""
    for path in ("/play/nothing/record.json", "/watch/nothing/version"):
        answer = client.get(path)
        assert answer.status_code == 404 and answer.json == {
            "error": "This link does not open any game. Check that you copied all of it."}


@pytest.mark.one_database
def test_a_number_written_in_other_digits_is_refused_as_any_other_word(client, db):
    """"²" and "٣" are digits to ``str.isdigit`` but only the second is one to ``int``: a
    clock's days, a tournament's rounds, the new game form's rating range and the lobby's
    filters were 500s or Python's own message."""
    players = [{"name": "Ann", "email": "ann@example.org"}, {"open": True}]
    clock = client.post("/api/games", json={"game": "mastery", "players": players, "clock": {
        "mode": "per_move", "days": "²"}})
    assert clock.status_code == 400 and clock.json == {
        "error": "The clock's 'days' must be a whole number of days from 1 to 60."}
    assert client.post("/api/games", json={"game": "mastery", "players": players, "clock": {
        "mode": "per_move", "days": "٣"}, "public": True}).status_code == 201  # Arabic-Indic
    key = path_of(sign_up(client, db, "Ann"))
    cup = client.post(f"{key}/tournaments", json={"name": "Cup", "game": "mastery",
                                                 "format": "swiss", "rounds": "²"})
    assert cup.status_code == 400 and cup.json == {
        "error": "'rounds' must be a whole number from 1 to 50."}
    for written in ("²", "--5", "1.5"):
        listed = client.get("/api/challenges", query_string={"min_rating": written})
        assert listed.status_code == 200 and len(listed.json["challenges"]) == 1  # no filter
    form = {"players": "2", "name0": "Ann", "email0": "ann@example.org", "open1": "yes",
            "public": "yes", "rating-min": "²"}
    assert client.post("/new/mastery", data=form).status_code == 303


def known_links(client, db) -> dict[str, list[dict]]:
    """Path parameters that open something, by the parameter names of a path: a running
    game's seats and spectator, an open seat's join link and lobby address, a player key,
    its handle and a tournament."""
    created = client.post("/api/games", json={"game": "mastery", "players": PEOPLE}).json
    seats = [path_of(seat["api"]).rsplit("/", 1)[1] for seat in created["seats"]]
    watch = path_of(created["spectator"]).rsplit("/", 1)[1]
    waiting = client.post("/api/games", json={"game": "the-right-moves", "public": True,
                                              "players": [PEOPLE[0], {"open": True}]}).json
    join = path_of(waiting["seats"][1]["join"]).rsplit("/", 1)[1]
    key = path_of(sign_up(client, db, "Ann")).rsplit("/", 1)[1]
    tournament = client.post(f"/api/player/{key}/tournaments", json={
        "name": "Cup", "game": "mastery", "format": "round-robin"}).json["id"]
    return {
        "play": [{"token": seat} for seat in seats],
        "role": [{"role": "play", "token": seats[0]}, {"role": "watch", "token": watch}],
        "player": [{"token": key}],
        "tournament": [{"token": key, "tournament_id": tournament}],
        "public_tournament": [{"tournament_id": tournament}],
        "join": [{"token": join}],
        "lobby": [{"game_id": waiting["id"], "seat": 1}],
        "handle": [{"handle": "ann"}],
        "game_id": [{"game_id": "mastery"}],
    }


def links_for(path: str, known: dict[str, list[dict]]) -> list[dict]:
    if path.startswith("/api/player/{token}/tournaments/{tournament_id}"):
        return known["tournament"]
    for start, kind in (("/api/player/", "player"), ("/api/play/", "play"),
                        ("/api/{role}/", "role"), ("/{role}/", "role"), ("/join/", "join"),
                        ("/lobby/", "lobby"), ("/api/tournaments/", "public_tournament"),
                        ("/api/players/", "handle"), ("/api/ratings/", "game_id")):
        if path.startswith(start):
            return known[kind]
    return []


@pytest.mark.one_database
def test_the_api_answers_as_its_document_says(app, client, db):
    """Each operation: unknown links, then each known one, ``EXAMPLES`` requests each."""
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    known = known_links(client, db)
    statuses: Counter[int] = Counter()
    failures: dict[tuple[str, str], str] = {}  # the first example of each kind, by operation
    started = time.monotonic()
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1
        strategies = [operation.as_strategy(generation_mode=mode, path_parameters=links)
                      for links in [{}, *links_for(operation.path, known)]
                      for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)]

        @given(case=st.one_of(strategies))
        @settings(max_examples=EXAMPLES * len(strategies), deadline=None, database=None,
                  derandomize=True, phases=[Phase.explicit, Phase.generate],
                  suppress_health_check=list(HealthCheck))
        def requests(case) -> None:
            try:
                response = case.call_and_validate(checks=CHECKS)
            except FailureGroup as found:
                for failure in found.exceptions:
                    failures.setdefault((case.operation.label, failure.title),
                                        case.as_curl_command())
            except Exception as error:  # noqa: BLE001 - the app's own (the test app raises it)
                failures.setdefault((case.operation.label, repr(error)),
                                    case.as_curl_command())
            else:
                statuses[response.status_code] += 1

        requests()
    seconds = time.monotonic() - started
    print(f"schemathesis: {operations} operations, {sum(statuses.values())} requests "
          f"answered as documented, {len(failures)} failures, {seconds:.1f} s; "
          f"statuses {sorted(statuses.items())}")
    assert not failures, "\n".join(f"{label}: {title}\n    {curl}"
                                   for (label, title), curl in failures.items())
    assert statuses[200] and statuses[201] and statuses[404]  # it reached real games too
