"""The OpenAPI document (``GET /api/openapi.json``, pbem/web/openapi.py): it describes every
route under /api/, and the API answers as it says. Schemathesis sends each operation
requests drawn from the document, both to unknown links and to the links of real games, a
player key and a tournament, and checks that no answer is a server error and that each has
a documented status, content type and body."""
from __future__ import annotations

import time
from collections import Counter

import openapi_spec_validator
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.core.failures import FailureGroup
from schemathesis.checks import (content_type_conformance, not_a_server_error,
                                 response_schema_conformance, status_code_conformance)

from pbem.web import openapi

from helpers import SIGN_IN_LINK, api_move, path_of, sign_up
from test_push import Device

EXAMPLES = 6  # per operation and set of links: about 1,300 requests, ten seconds of CPU
STEPS = 30  # linked scenarios, each of at most four calls
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]
PEOPLE = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]


@pytest.mark.one_database
def test_every_api_route_is_described_and_nothing_else(app):
    routes = {key for rule in app.url_map.iter_rules() for key in openapi.described(rule)}
    assert routes - set(openapi.operations()) == set(), \
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
    openapi_spec_validator.validate(document)  # OpenAPI 3.1's own schema, and its $refs
    links = [link for path in document["paths"].values() for operation in path.values()
             for answer in operation["responses"].values()
             for link in answer.get("links", {}).values()]
    ids = {operation["operationId"] for path in document["paths"].values()
           for operation in path.values()}
    assert links and {link["operationId"] for link in links} <= ids
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


def token_of(url: str) -> str:
    return url.rsplit("/", 1)[1]


def test_a_device_whose_endpoint_holds_a_nul_is_no_longer_subscribed_as_any_other(
        client, new_game):
    """Nothing was subscribed there; PostgreSQL's text cannot hold a NUL, and the query
    was a 500 there (found by schemathesis)."""
    seat = new_game().apis[0]
    for endpoint in ("https://push.example.org/\x00", "https://push.example.org/none"):
        gone = client.delete(f"{seat}/push", json={"endpoint": endpoint})
        assert gone.status_code == 200 and gone.json == {}


def known_links(client, db) -> dict[str, list[dict]]:
    """Path parameters that open something, by the kind of path: the seats of a game two
    moves in with a clock (the first seat the player key's), of a game with hidden
    information, of a finished one and of one waiting for a player; spectators; an open
    seat's join link and lobby address; the player key, its handle and a tournament."""
    key = token_of(sign_up(client, db, "Ann"))

    def game(body: dict) -> dict:
        created = client.post("/api/games", json=body)
        assert created.status_code == 201, created.json
        return created.json

    clock = {"mode": "fischer", "initial_days": 7, "increment_days": 1, "max_days": 14,
             "vacation_days": 10}
    moved = game({"game": "mastery", "clock": clock,
                  "players": [{"key": f"/api/player/{key}"}, PEOPLE[1]]})
    for seat in (0, 1, 0):  # the last one is in its chat
        api = path_of(moved["seats"][seat]["api"])
        if seat == 0 and client.get(api).json["ply"] == 2:
            assert client.post(f"{api}/chat", json={"text": "Good luck"}).status_code == 201
        else:
            api_move(client, api, client.get(api).json["legal_moves"][0])
    hidden = game({"game": "magnet", "players": PEOPLE})
    finished = game({"game": "mastery", "players": PEOPLE})
    assert client.post(path_of(finished["seats"][1]["api"]) + "/resign").status_code == 200
    waiting = game({"game": "the-right-moves", "public": True,
                    "players": [PEOPLE[0], {"open": True}]})
    seats = [token_of(created["seats"][0]["api"])
             for created in (moved, hidden, finished, waiting)]
    tournament = client.post(f"/api/player/{key}/tournaments", json={
        "name": "Cup", "game": "mastery", "format": "round-robin"}).json["id"]
    return {
        "play": [{"token": seat} for seat in seats],
        "role": [{"role": "play", "token": seat} for seat in seats] + [
            {"role": "watch", "token": token_of(created["spectator"])}
            for created in (moved, finished)],
        "player": [{"token": key}],
        "tournament": [{"token": key, "tournament_id": tournament}],
        "public_tournament": [{"tournament_id": tournament}],
        "join": [{"token": token_of(waiting["seats"][1]["join"])}],
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
    # the generated webhooks' and push endpoints' hosts are random names: none is looked
    # up in the DNS (test_webhooks and test_push check the addresses' rule)
    app.config.update(WEBHOOK_ALLOW_PRIVATE=True, PUSH_ALLOW_PRIVATE=True)
    # the player key's streams of events end at once, and its long polls wait no longer:
    # what is checked is their answers, not their patience
    app.config.update(EVENTS_STREAM_SECONDS=0.05, EVENTS_POLL_SECONDS=0.01)
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    known = known_links(client, db)
    statuses: Counter[int] = Counter()
    failures: dict[tuple[str, str], str] = {}  # the first example of each kind, by operation
    started, cpu = time.monotonic(), time.process_time()
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1
        # valid requests to every link, and invalid ones to an unknown and a known link
        links = [{}, *links_for(operation.path, known)]
        strategies = [operation.as_strategy(path_parameters=found) for found in links] + [
            operation.as_strategy(generation_mode=GenerationMode.NEGATIVE,
                                  path_parameters=found)
            # outside /api/, a path that is no route's is a page's 404
            for found in (links[:2] if operation.path.startswith("/api/") else links[1:2])]

        @given(case=st.one_of(strategies))
        @settings(max_examples=EXAMPLES * len(strategies), deadline=None, database=None,
                  derandomize=True, phases=[Phase.explicit, Phase.generate],
                  suppress_health_check=list(HealthCheck))
        def requests(case) -> None:
            try:
                response = case.call_and_validate(checks=CHECKS)
            except FailureGroup as group:
                for failure in group.exceptions:
                    failures.setdefault((case.operation.label, failure.title),
                                        case.as_curl_command())
            except Exception as error:  # noqa: BLE001 - the app's own (the test app raises it)
                failures.setdefault((case.operation.label, repr(error)),
                                    case.as_curl_command())
            else:
                statuses[response.status_code] += 1

        requests()
    seconds, cpu = time.monotonic() - started, time.process_time() - cpu
    print(f"schemathesis: {operations} operations, {sum(statuses.values())} requests "
          f"answered as documented, {len(failures)} failures, {seconds:.1f} s "
          f"({cpu:.1f} s of CPU); "
          f"statuses {sorted(statuses.items())}")
    assert not failures, "\n".join(f"{label}: {title}\n    {curl}"
                                   for (label, title), curl in failures.items())
    assert statuses[200] and statuses[201] and statuses[404]  # it reached real games too


@pytest.mark.one_database
def test_the_document_s_links_lead_to_answers_it_describes(app, client, db):
    """Schemathesis follows the document's links with the player key: a tournament made,
    then looked at, entered, left, started or cancelled. (Only the key's tournaments: the
    other operations would start scenarios that seldom reach a tournament.)"""
    key = token_of(sign_up(client, db, "Ann"))
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app).include(
        path_regex=r"^/api/(player/\{token\}/tournaments|tournaments/)")
    statuses: Counter[tuple[str, int]] = Counter()

    class Scenarios(schema.as_state_machine()):
        def before_call(self, case) -> None:
            if case.operation.path == "/api/player/{token}/tournaments":
                # a scenario's first call: a tournament the key's player can act on (random
                # ones are refused, and test_the_api_answers_as_its_document_says sends them)
                case.path_parameters["token"] = key
                case.body = {"name": "Cup", "game": "mastery", "format": "round-robin"}

        def validate_response(self, response, case, **kwargs) -> None:
            case.validate_response(response, checks=CHECKS)
            statuses[case.operation.label, response.status_code] += 1

    # no shrinking, which would replay scenarios on a database they changed
    Scenarios.run(settings=settings(max_examples=STEPS, stateful_step_count=4, deadline=None,
                                    database=None, derandomize=True, phases=[Phase.generate],
                                    suppress_health_check=list(HealthCheck)))
    print(f"schemathesis, linked: {sum(statuses.values())} requests, "
          f"{sorted(statuses.items())}")
    assert statuses["POST /api/player/{token}/tournaments", 201]
    assert sum(count for (label, status), count in statuses.items()
               if "{tournament_id}" in label and status < 300) >= 3  # the links were followed


@pytest.mark.one_database
def test_answers_of_states_few_random_requests_reach_are_as_described(app, client, db):
    """Answers that need several requests in order, each checked against the document:
    seats of every kind, a join, a rematch made, a finished game with hidden information,
    a clock on vacation, a rated challenge, a device subscribed, a sign-in, a player's
    games, export and profile, a started tournament and a league."""
    app.config["PUSH_ALLOW_PRIVATE"] = True  # the device's endpoint is not looked up
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    checked: list[str] = []

    def answer(method: str, path: str, template: str, status: int, body=None) -> dict:
        response = client.open(path, method=method, json=body)
        assert response.status_code == status, (path, response.json)
        schema[template][method].validate_response(response)  # raises what does not fit
        checked.append(f"{method} {template} {status}")
        return response.json

    # a sign-in link used: the handle, the profile and the key
    answer("POST", "/api/sign-in", "/api/sign-in", 202, {"email": "ann@example.org"})
    mail = db.execute("SELECT body FROM outbox WHERE kind = 'sign_in'").fetchone()[0]
    link = SIGN_IN_LINK.search(mail).group(1)
    key = path_of(answer("POST", link, "/sign-in/{token}", 201, {"handle": "Ann"})["key"])
    mixed = answer("POST", "/api/games", "/api/games", 201, {"game": "the-right-moves",
                   "players": [{"key": key}, {"bot": "easy"}, {"open": True}, PEOPLE[1]]})
    assert {"url", "bot", "join"} <= {name for seat in mixed["seats"] for name in seat}
    seat = path_of(mixed["seats"][0]["api"])
    assert answer("GET", seat, "/api/{role}/{token}", 200)["open_seats"] == [2]
    answer("POST", path_of(mixed["seats"][2]["join"]), "/join/{token}", 201, {"name": "Cid"})
    answer("GET", key, "/api/player/{token}", 200)
    # a finished game: its rematch, and a Magnet game's seed
    done = client.post("/api/games", json={"game": "mastery", "players": PEOPLE}).json
    apis = [path_of(s["api"]) for s in done["seats"]]
    answer("POST", f"{apis[0]}/resign", "/api/play/{token}/resign", 200)
    answer("POST", f"{apis[0]}/rematch", "/api/play/{token}/rematch", 202)
    answer("POST", f"{apis[1]}/rematch", "/api/play/{token}/rematch", 201)
    magnet = client.post("/api/games", json={"game": "magnet", "players": PEOPLE}).json
    hidden = path_of(magnet["seats"][1]["api"])
    assert "seed" in answer("POST", f"{hidden}/resign", "/api/play/{token}/resign", 200)
    answer("GET", f"{hidden}/record?format=apgamerecord", "/api/{role}/{token}/record", 200)
    answer("POST", f"{hidden}/analysis", "/api/{role}/{token}/analysis", 200, {"ply": 0})
    answer("GET", path_of(magnet["spectator"]) + "/record.json",
           "/{role}/{token}/record.json", 200)
    # a clock on vacation, a device told of the seat's news
    on_clock = client.post("/api/games", json={"game": "mastery", "players": PEOPLE, "clock": {
        "mode": "per_move", "days": 3, "vacation_days": 5}}).json
    timed = path_of(on_clock["seats"][0]["api"])
    assert answer("POST", f"{timed}/vacation", "/api/play/{token}/vacation", 200,
                  {"days": 2})["clocks"][0]["on_vacation"]
    device = Device("https://push.example.org/device")
    answer("PUT", f"{timed}/push", "/api/play/{token}/push", 201, device.subscription)
    answer("PUT", f"{key}/push", "/api/player/{token}/push", 201, device.subscription)
    # a rated challenge in the lobby
    answer("POST", "/api/games", "/api/games", 201, {
        "game": "mastery", "rated": True, "public": True, "rating_range": {"min": 1400},
        "clock": {"mode": "per_move", "days": 3}, "players": [{"key": key}, {"open": True}]})
    lobby = answer("GET", "/api/challenges", "/api/challenges", 200)
    assert any("rating_range" in challenge for challenge in lobby["challenges"])
    # tournaments: a round robin started with the computer, and a league
    cup = answer("POST", f"{key}/tournaments", "/api/player/{token}/tournaments", 201, {
        "name": "Cup", "game": "mastery", "format": "round-robin"})
    entry = "/api/player/{token}/tournaments/{tournament_id}/entry"
    answer("POST", f"{key}/tournaments/{cup['id']}/entry", entry, 201)
    answer("POST", f"{key}/tournaments/{cup['id']}/entry", entry, 201, {"bot": "easy"})
    answer("POST", f"{key}/tournaments/{cup['id']}/start",
           "/api/player/{token}/tournaments/{tournament_id}/{action}", 200)
    assert answer("GET", f"/api/tournaments/{cup['id']}", "/api/tournaments/{tournament_id}",
                  200)["rounds"]
    league = answer("POST", f"{key}/tournaments", "/api/player/{token}/tournaments", 201, {
        "name": "League", "game": "mastery", "format": "league"})
    assert "divisions" in answer("GET", f"/api/tournaments/{league['id']}",
                                 "/api/tournaments/{tournament_id}", 200)
    answer("GET", "/api/tournaments", "/api/tournaments", 200)
    assert answer("GET", key, "/api/player/{token}", 200)["games"]
    assert answer("GET", f"{key}/export", "/api/player/{token}/export", 200)["games"]
    answer("GET", "/api/players/ann", "/api/players/{handle}", 200)
    # a bot registered, offered a seat and told of it on its events
    robo = answer("POST", f"{key}/bot", "/api/player/{token}/bot", 201,
                  {"handle": "Robo", "games": ["mastery"]})
    answer("GET", "/api/bots", "/api/bots", 200)
    offered = answer("POST", "/api/games", "/api/games", 201,
                     {"game": "mastery", "players": [{"key": key}, {"handle": "Robo"}]})
    assert offered["seats"][1]["offered_to"] == "Robo"
    told = answer("GET", f"{path_of(robo['key'])}/events?after=0&wait=0",
                  "/api/player/{token}/events", 200)
    assert told["events"][0]["event"] == "challenge"
    assert answer("GET", "/api/players/Robo", "/api/players/{handle}", 200)["bot"] is True
    print(f"schemathesis, in order: {len(checked)} answers as documented")
