"""What reaches a Russian reader besides the pages (test_russian_pages): the players named
together ("Ann и Cid", "Ann — Bob") in emails, push messages in the seat's language,
feeds, game records; English as it was."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone
from email import policy
from email.parser import BytesParser

import pytest

from pbem.jobs import scheduler
from pbem.mail.message import compose

from helpers import api_move, path_of, sign_up
from test_feeds import ATOM
from test_push import deliver, service, subscribe  # noqa: F401 (service: a fixture)

pytestmark = pytest.mark.one_database  # what is checked is the words, not the storage


def mastery(client, bob_language: str = "ru") -> dict:
    """A Mastery game of Ann (English, Dark) and Bob (``bob_language``, Light)."""
    created = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Ann", "email": "ann@example.org"},
        {"name": "Bob", "email": "bob@example.org", "language": bob_language}]})
    assert created.status_code == 201, created.json
    return created.json


def test_team_games_name_the_players_together_in_the_seats_language(app, client, db):
    created = client.post("/api/games", json={"game": "the-right-moves", "players": [
        {"name": "Ann", "email": "ann@example.org"},
        {"name": "Bob", "email": "bob@example.org", "language": "ru"},
        {"name": "Cid", "email": "cid@example.org", "language": "ru"},
        {"name": "Dee", "email": "dee@example.org"}]}).json
    started = {row["recipient"]: row for row in db.execute(
        "SELECT recipient, subject, body FROM outbox WHERE kind = 'start'").fetchall()}
    bob, ann = started["bob@example.org"], started["ann@example.org"]
    assert bob["subject"].endswith(f": Ann и Cid\u00a0— Bob и Dee [{created['id']}]")
    assert "Dee" in bob["body"] and "Ann и Cid" in bob["body"]  # his opponents
    assert ann["subject"].endswith(f": Ann & Cid vs Bob & Dee [{created['id']}]")
    assert "Bob and Dee" in ann["body"]


def test_a_russian_seats_push_names_the_players_and_the_result_in_russian(
        app, client, service):
    game = mastery(client)
    ann, bob = (path_of(seat["api"]) for seat in game["seats"])
    subscribe(client, bob, service.device("bob"))
    move = client.get(ann).json["legal_moves"][0]
    api_move(client, ann, move)
    assert client.post(f"{ann}/resign", json={}).status_code == 200
    deliver(app)
    turn, end = service.payloads("bob")
    assert turn["title"] == "Ваш ход — Mastery"
    assert turn["body"] == f"Ann\u00a0— Bob [{game['id']}]. Ann: ход {move}."
    assert end["title"] == "Партия окончена — Mastery"
    assert end["body"] == f"Ann\u00a0— Bob [{game['id']}]. Ann сдаётся"


def test_an_english_seats_push_is_as_it_was(app, client, service):
    game = mastery(client, bob_language="en")
    ann, bob = (path_of(seat["api"]) for seat in game["seats"])
    subscribe(client, bob, service.device("bob"))
    assert client.post(f"{ann}/resign", json={"ply": 0}).status_code == 200
    deliver(app)
    [end] = service.payloads("bob")
    assert end == {**end, "title": "Game over — Mastery",
                   "body": f"Ann vs Bob [{game['id']}]. Ann resigned"}


def test_a_russian_seats_feed_is_in_russian(client):
    game = mastery(client)
    ann, bob = (path_of(seat["api"]) for seat in game["seats"])
    feeds = [path_of(client.post(f"{api}/feed").json["feed"]) for api in (ann, bob)]
    move = client.get(ann).json["legal_moves"][0]
    api_move(client, ann, move)
    client.post(f"{bob}/resign", json={})
    english, russian = ([e.findtext(f"{ATOM}title") for e in ET.fromstring(
        client.get(feed).data).iter(f"{ATOM}entry")] for feed in feeds)
    assert english[0].startswith("Game over: Ann won") and english[1:] == [
        "Bob (Light) resigned", f"Ann (Dark) played {move}"]
    assert russian[0] == "Партия окончена: Победа: Ann (Bob сдаётся)"
    assert russian[1:] == ["Bob (Светлые) сдаётся", f"Ann (Тёмные): ход {move}"]


def test_a_tournaments_feed_names_its_format_in_the_readers_language(client, db):
    key = path_of(sign_up(client, db, "Ann"))
    cup = client.post(f"{key}/tournaments", json={"name": "Autumn cup", "game": "mastery",
                                                  "format": "round-robin"}).json
    feed = path_of(cup["url"]) + "/feed"
    title = {language: ET.fromstring(client.get(feed, headers={
        "Accept-Language": language}).data).findtext(f"{ATOM}title") for language in ("en", "ru")}
    assert title == {"en": "Autumn cup (Mastery round robin)", "ru": "Autumn cup (Mastery, круговой турнир)"}


def test_a_game_record_in_the_readers_language(client):
    game = mastery(client)
    ann, bob = (path_of(seat["url"]) for seat in game["seats"])
    client.post(path_of(game["seats"][0]["api"]) + "/draw", json={"answer": "offer"})
    client.post(path_of(game["seats"][1]["api"]) + "/resign", json={"ply": 0})
    russian = client.get(f"{ann}/record.txt", headers={"Accept-Language": "ru"}).text
    assert f"— партия {game['id']}, начата " in russian
    assert "\nРезультат: Победа: Ann (Bob сдаётся)\n" in russian
    assert "Ann (Тёмные): предложение ничьей\n" in russian and "Bob (Светлые): сдача\n" in russian
    english = client.get(f"{ann}/record.txt").text
    assert english.startswith(f"Mastery — game {game['id']}, started ")
    assert "\nResult: Ann won: Bob resigned\n" in english
    assert "Ann (Dark): draw offer\n" in english and "Bob (Light): resign\n" in english
    results = {language: client.get(f"{bob}/record.json", headers={
        "Accept-Language": language}).json["result"] for language in ("en", "ru")}
    assert results["en"] == "Ann won: Bob resigned" and results["ru"] == "Победа: Ann (Bob сдаётся)"


def test_the_new_game_forms_options_in_the_readers_language(client):
    russian = client.get("/new/magnetic-field", headers={"Accept-Language": "ru"}).text
    assert "Цвета" in russian and "Вы играете за Синих" in russian and "по жребию" in russian
    english = client.get("/new/magnetic-field").text
    assert "Colours" in english and "You play Blue" in english and "drawn at random" in english


def test_a_russian_subject_folded_between_two_encoded_words_keeps_its_space():
    """Python's header folding drops the space between two encoded words that meet at a
    fold, which the outbox then refuses: a Russian subject names its players in Russian."""
    subject = "Партия началась — Mastery: Аня против Bob [-vSP3uWu]"
    written = BytesParser(policy=policy.default).parsebytes(compose(
        {"To": "anya@example.org", "Subject": subject}, "Привет"), headersonly=True)
    assert written["Subject"] == subject


def test_a_russian_seats_deadline_warning_is_pushed_in_russian(app, client, service):
    created = client.post("/api/games", json={
        "game": "mastery", "clock": {"mode": "per_move", "days": 3},
        "players": [{"name": "Ann", "email": "ann@example.org", "language": "ru"},
                    {"name": "Bob", "email": "bob@example.org"}]}).json
    subscribe(client, path_of(created["seats"][0]["api"]), service.device("ann"))
    assert scheduler.check_clocks(app, datetime.now(timezone.utc) + timedelta(days=2, hours=6)) \
        == (0, 1)
    deliver(app)
    [warning] = service.payloads("ann")
    assert warning["title"] == "Время на исходе — Mastery"
    assert warning["body"].startswith(f"Ann\u00a0— Bob [{created['id']}]. ")
