"""A seeded fuzz of every endpoint the app registers: odd JSON types, odd form values
(Unicode digits, lone surrogates, huge numbers, nesting), odd URL parts. Whatever comes in,
the answer is never a 5xx, and a refused request (4xx) leaves every game's event log as it
was. Endpoints added later are fuzzed too: the URL parts are filled in by their names."""
from __future__ import annotations

import json
import random
import re
import string

import pytest


from helpers import everything_in

SEED = 20261123
REQUESTS = 2500

# Values that broke endpoints before, and their relatives.
ODD_TEXT = ["", " ", "²", "٣", "1e9", "-1", "0", "00", "9" * 5000, "1.5", "NaN", "true",
            "null", "[]", "{}", "\x00", "\ud800", "\udfff", "é" * 3000, "<b>x</b>",
            "=?utf-8?q?a=0d=0aBcc:_x@evil.example?=", "a\r\nBcc: x@evil.example", "\u202e",
            "offer", "accept", "decline", "yes", "on", "off", "each", "digest", "none",
            "d2-d4", "pass", "pick K", "setup", "f6:f3+", "resign", "a@b.c", "x" * 70000,
            "http://[::1", "https://[", "http://[::127.0.0.1]/", "http://example.org:0/",
            "http://" + "a" * 300 + ".org/", "https://93.184.216.34/hook"]
FORM_FIELDS = ["move", "ply", "answer", "confirm", "days", "email", "name0", "email0",
               "name1", "email1", "name2", "email2", "name3", "email3", "players",
               "option-setup", "option-colours", "option-random_setup", "clock-mode",
               "clock-days", "clock-initial_days", "clock-increment_days", "clock-max_days",
               "clock-vacation_days", "clock-weekends", "clock-on_timeout", "home", "path",
               "text", "seat", "lines", "lang", "level", "public", "webhook", "feed", "m",
               "remove", "add", "name", "open1", "handle"]
JSON_KEYS = ["game", "players", "options", "clock", "move", "ply", "answer", "days", "name",
             "email", "open", "bot", "text", "lines", "public", "seat", "mode", "url", "handle",
             "key"]


def odd_value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(10 if depth < 3 else 6)
    if kind == 0:
        return rng.choice(ODD_TEXT)
    if kind == 1:
        return rng.choice([0, -1, 1, 2, 3, 10**30, -(10**30), 2**63, 1.0, 1e308, -0.0])
    if kind == 2:
        return rng.choice([True, False, None])
    if kind == 3:
        return "".join(rng.choice(string.printable) for _ in range(rng.randrange(12)))
    if kind == 4:
        return rng.randrange(-3, 500)
    if kind == 5:
        return rng.choice(ODD_TEXT[:20])
    if kind in (6, 7):
        return [odd_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(JSON_KEYS + ["x", "1"]): odd_value(rng, depth + 1)
            for _ in range(rng.randrange(5))}


def odd_json_body(rng: random.Random) -> str:
    if rng.random() < 0.15:
        return json.dumps(odd_value(rng))
    body = {key: odd_value(rng) for key in rng.sample(JSON_KEYS, rng.randrange(1, 5))}
    text = json.dumps(body)  # escapes the lone surrogates of ODD_TEXT as \\ud800
    if rng.random() < 0.2:  # and one in a key the endpoints read
        text = text[:-1] + ', "text": "\\udfffx"}'
    return text


def odd_form(rng: random.Random) -> dict[str, str]:
    form = {}
    for field in rng.sample(FORM_FIELDS, rng.randrange(1, 8)):
        value = odd_value(rng)
        form[field] = value if isinstance(value, str) else json.dumps(value)
    return {k: sendable(v) for k, v in form.items()}


def sendable(text: str) -> str:
    """``text`` as HTTP can carry it outside JSON: lone surrogates replaced."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


@pytest.fixture
def world(app, client, db):
    """Games of every kind, and every secret a client can hold for them."""
    games = []
    specs = [("mastery", 2, {}, {"mode": "per_move", "days": 3, "vacation_days": 10}),
             ("magnet", 2, {}, None), ("magnetic-field", 2, {}, None),
             ("the-right-moves", 4, {}, None)]
    for game, players, options, clock in specs:
        body = {"game": game, "options": options, "players": [
            {"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(players)]}
        if clock:
            body["clock"] = clock
        answer = client.post("/api/games", json=body).json
        games.append(answer)
    # games waiting for players (join links, the lobby), one over (rematches), with chat
    for game, players, public in (("magnet", 2, True), ("the-right-moves", 4, True),
                                  ("mastery", 2, False)):
        games.append(client.post("/api/games", json={"game": game, "public": public, "players": [
            {"name": "Host", "email": "host@example.org"},
            *[{"open": True}] * (players - 1)]}).json)
    over = games[0]["seats"][0]["api"]
    client.post(f"{over}/chat", json={"text": "Good luck"})
    client.post(f"{over}/resign", json={})
    client.post("/home", data={"email": "p0@example.org"})
    bodies = "\n".join(r["body"] for r in db.query("SELECT body FROM outbox"))
    tokens = {"play": [], "watch": [], "email": re.findall(r"/email/([\w-]{32})", bodies),
              "home": re.findall(r"/home/([\w-]{32})", bodies), "join": [], "feed": []}
    for answer in games:
        for seat in answer["seats"]:
            if "url" in seat:
                tokens["play"].append(seat["url"].rsplit("/", 1)[1])
                tokens["feed"].append(client.post(f"{seat['api']}/feed").json["feed"]
                                      .rsplit("/", 1)[1])
            else:
                tokens["join"].append(seat["join"].rsplit("/", 1)[1])
        tokens["watch"].append(answer["spectator"].rsplit("/", 1)[1])
    return {"games": [g["id"] for g in games], "tokens": tokens}


def url_values(rng: random.Random, rule, world) -> dict[str, str]:
    """Values for the URL variables of ``rule``: mostly ones that open something real
    (a token of the kind the rule takes), sometimes nonsense."""
    tokens, values = world["tokens"], {}
    for name in sorted(rule.arguments, key=lambda n: n != "role"):  # the role first
        converter = rule._converters[name]
        if hasattr(converter, "items"):  # any(...)
            values[name] = rng.choice(sorted(converter.items))
        elif "int" in type(converter).__name__.lower():
            values[name] = str(rng.choice([0, 1, 2, 3, 5, 40, 10**12]))
        elif name == "token":
            kind = next((k for k in ("email", "home", "watch", "join", "feed")
                         if rule.rule.startswith(f"/{k}") or values.get("role") == k), "play")
            pool = tokens[kind] if rng.random() < 0.8 else [t for ts in tokens.values()
                                                            for t in ts]
            values[name] = rng.choice(pool) if rng.random() < 0.9 else rng.choice(
                ["x" * 32, "short", "%00", "é" * 32])
        elif name == "game_id":
            values[name] = rng.choice(world["games"] + ["mastery", "magnet", "magnetic-field",
                                                        "the-right-moves", "nope", ".."])
        else:
            values[name] = rng.choice(["x", "1", "..", "mastery", "style.css", "%00", "é"])
    return values


def event_counts(db) -> dict[str, int]:
    return {row["game_id"]: row["n"] for row in
            db.query("SELECT game_id, COUNT(*) AS n FROM events GROUP BY game_id")}


def path_of(rule, values: dict[str, str]) -> str:
    path = rule.rule
    for name, value in values.items():
        path = re.sub(rf"<(?:[^<>]*:)?{name}>", value, path)
    return path


class Sender:
    """Sends requests, each of which must not fail on the server nor, if refused, change a
    game. The games' event counts are read once after each request: nothing else runs
    between two requests, so they are the next request's counts before it."""

    def __init__(self, client, db) -> None:
        self.client, self.db = client, db
        self.counts = event_counts(db)

    def send(self, method: str, path: str, what: str, **kwargs) -> int:
        response = self.client.open(path, method=method, **kwargs)
        request = f"{method} {path} {what}"[:600]
        assert response.status_code < 500, request
        counts = event_counts(self.db)
        if response.status_code >= 400:
            assert counts == self.counts, request
            if response.mimetype == "application/json":
                assert isinstance(response.json.get("error"), str), request
        self.counts = counts
        return response.status_code


# What storage makes of odd values (PostgreSQL refuses a NUL in text, SQLite does not) is
# tried on both engines by the sweep below, every value in every field; the random mix of
# fields, bodies and URL parts here is the parsing's, on one engine.
@pytest.mark.one_database
def test_no_input_gets_a_server_error_or_changes_a_game_when_refused(app, client, db, world):
    rng = random.Random(SEED)
    rules = [rule for rule in app.url_map.iter_rules() if rule.endpoint != "static"]
    sender = Sender(client, db)
    statuses: dict[int, int] = {}
    for _ in range(REQUESTS):
        rule = rng.choice(rules)
        method = rng.choice(sorted(rule.methods - {"HEAD", "OPTIONS"}))
        kwargs = {"query_string": {"path": sendable(str(odd_value(rng)))}} \
            if rng.random() < 0.2 else {}
        if method != "GET":
            choice = rng.random()
            if choice < 0.5:
                kwargs.update(data=odd_json_body(rng), content_type="application/json")
            elif choice < 0.9:
                kwargs["data"] = odd_form(rng)
            else:
                kwargs.update(data=bytes(rng.randrange(256) for _ in range(rng.randrange(64))),
                              content_type=rng.choice(["application/json", "text/plain",
                                                       "multipart/form-data; boundary=x"]))
        status = sender.send(method, path_of(rule, url_values(rng, rule, world)), str(kwargs),
                             **kwargs)
        statuses[status] = statuses.get(status, 0) + 1
    print(f"{REQUESTS} fuzzed requests, answers by status: {dict(sorted(statuses.items()))}")
    assert sum(n for status, n in statuses.items() if status < 400) > REQUESTS // 20


def test_a_deeply_nested_body_is_refused_everywhere_and_changes_nothing(app, client, db, world):
    """Python's json cannot read "[" * 5000 (a RecursionError, once a 500): every endpoint
    that takes a body answers 400 with a readable error, and nothing changes."""
    rng = random.Random(SEED + 2)
    nested = "[" * 5000 + "]" * 5000
    before = everything_in(db)
    sent = 0
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods & {"POST", "PUT", "PATCH", "DELETE"}):
            path = path_of(rule, url_values(rng, rule, world))
            for body in (nested, f'{{"text": "x", "move": {nested}}}'):
                answer = client.open(path, method=method, data=body,
                                     content_type="application/json")
                assert answer.status_code == 400, f"{method} {path}"
                assert answer.json == {"error": "The JSON body is nested too deeply to be read."}
            sent += 1
    assert sent > 30 and everything_in(db) == before


SWEEP_TEXT = ["²", "٣", "-1", "", "9" * 5000, "1e9", "x" * 3000, "\x00", "a\r\nb", "http://[::1"]
SWEEP_JSON = [["offer"], {"a": 1}, 1e308, 10**30, True, None, "²", -1, "x" * 3000, "\ud800",
              "http://[::1"]


def test_every_field_of_every_endpoint_takes_odd_values(app, client, db, world):
    """Each field an endpoint may read, alone with the real ply, set to odd values in turn:
    the systematic half of the fuzz, which random choices reach too rarely. Each endpoint
    gets each field with one of the values, the next endpoint with the next, so that every
    value meets every field at several endpoints."""
    rng = random.Random(SEED + 1)
    form = [[({"data": {field: value, "ply": "0", "confirm": "yes"}}, f"{field}={value!r}")
             for value in SWEEP_TEXT] for field in FORM_FIELDS]
    body = [[({"data": json.dumps({field: value, "ply": 0}),
               "content_type": "application/json"}, f"{field}={value!r}")
             for value in SWEEP_JSON] for field in JSON_KEYS]
    sender, sent = Sender(client, db), 0
    endpoints = [(rule, method) for rule in app.url_map.iter_rules()
                 for method in sorted(rule.methods & {"POST", "PUT"})]
    for turn, (rule, method) in enumerate(endpoints):
        for values in form + body:
            kwargs, what = values[turn % len(values)]
            sender.send(method, path_of(rule, url_values(rng, rule, world)), what, **kwargs)
            sent += 1
    print(f"{sent} swept requests")
    assert len(endpoints) >= 3 * len(SWEEP_JSON)  # each value meets each field 3 times over
