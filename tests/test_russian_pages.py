"""Every page type read with ``Accept-Language: ru`` shows no English word: what a Russian
reader sees is in Russian but for notation, names and the words listed in ``KEPT`` with
their reasons."""
from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from html.parser import HTMLParser

import pytest

from pbem.jobs import scheduler
from pbem.mail import inbound

from helpers import api_move, path_of, sign_up
from test_accessibility import GAMES, page_types, two_player_game

pytestmark = pytest.mark.one_database  # the pages' words, whatever stores the games

# Words that stay as they are in Russian, and why
KEPT = {
    "Ann", "Bob", "Cid", "Dee", "Anya", "Vera", "Autumn", "cup",  # players', a tournament's names
    "Robo",  # a bot's handle
    "Mastery", "Right", "Moves", "The", "Magnet",  # the games' names (no Russian edition)
    "Imperial", "Crown",  # Mastery's setups by name, as its Russian rules call them
    "John", "Ross", "Matt", "Calkins", "Diversified", "Ventures",  # authors, a publisher
    "Abstract", "Play", "Discord", "Slack",  # a site's and services' names
    "English", "UTC", "Atom", "JSON", "Glicko", "SHA", "Python",  # languages, standards, a system
    "API",  # as Russian programmers write it
    "setup",  # Magnet's notation of a setup move
    "seed",  # the word programmers know for the generator's start value, once in brackets
}
SKIPPED_CLASSES: set[str] = set()
SKIPPED_TAGS = {"script", "style", "code", "kbd", "samp"}
# (an option of the legal moves' datalist is never closed)
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "option",
        "param", "source", "track", "wbr"}
SHOWN_ATTRIBUTES = ("title", "alt", "aria-label", "placeholder")


class VisibleWords(HTMLParser):
    """The words a reader meets on a page: its text and the attributes read out, but for
    the parts skipped (scripts, notation, the boards)."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[bool] = []  # per open element: whether it is skipped
        self.words: list[str] = []
        self.notation: set[str] = set()  # the words of the legal moves (the typed list's)
        self.listing = False  # in the legal moves' datalist

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "option" and self.listing:
            self.notation.update(re.findall(r"[A-Za-z]+", found.get("value") or ""))
        skipped = (bool(self.open) and self.open[-1]) or tag in SKIPPED_TAGS \
            or bool(SKIPPED_CLASSES & set((found.get("class") or "").split())) \
            or found.get("id") in SKIPPED_CLASSES
        if not skipped:
            for name in SHOWN_ATTRIBUTES:
                self.handle_data(found.get(name) or "")
            if tag == "input" and found.get("type") in ("submit", "button"):
                self.handle_data(found.get("value") or "")
        self.listing = self.listing or tag == "datalist"
        if tag not in VOID:
            self.open.append(skipped)

    def handle_endtag(self, tag: str) -> None:
        self.listing = self.listing and tag != "datalist"
        if tag not in VOID and self.open:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        if self.open and self.open[-1]:
            return
        text = re.sub(r"\S+@\S+|https?://\S+", "", " ".join(data.split()))  # addresses
        self.words += re.findall(r"[A-Za-z]{3,}", text)


def english_words(html: str) -> set[str]:
    parser = VisibleWords()
    parser.feed(html)
    return set(parser.words) - KEPT - parser.notation


def russian_page_types(client, db) -> dict[str, str]:
    """``page_types`` and the play pages of finished games (the second player resigned)."""
    pages = page_types(client, db)
    for game in GAMES:
        created = two_player_game(client, game)
        resigned = client.post(f"{created['seats'][1]['api']}/resign", json={"ply": 0})
        assert resigned.status_code == 200, resigned.json
        pages[f"finished {game}"] = path_of(created["seats"][0]["url"])
        pages[f"finished {game}, spectator"] = path_of(created["spectator"])
    computer = two_player_game(client, "mastery", second={"bot": "easy"})
    pages["against the computer"] = path_of(computer["seats"][0]["url"])
    lost = two_player_game(client, "magnet", second={"bot": "easy"})
    assert client.post(f"{lost['seats'][0]['api']}/resign", json={}).status_code == 200
    pages["lost to the computer"] = path_of(lost["seats"][0]["url"])  # the computer won
    return pages | {"all games' notifications": "/me/notifications"}  # signed in as Ann


def test_every_page_type_is_in_russian(client, db):
    english = {}
    for name, path in russian_page_types(client, db).items():
        page = client.get(path, headers={"Accept-Language": "ru"}, follow_redirects=True)
        assert page.status_code in (200, 404), (name, page.status_code)
        if found := english_words(page.get_data(as_text=True)):
            english[name] = sorted(found)
    assert not english, "\n".join(f"{name}: {words}" for name, words in english.items())


def test_the_page_of_a_game_just_made_is_in_russian(client):
    made = client.post("/new/the-right-moves", headers={"Accept-Language": "ru"}, data={
        "players": 2, "name0": "Ann", "email0": "ann@example.org", "by1": "easy",
        "option-repetition_draw": "false"}, follow_redirects=True)
    assert made.status_code == 200
    assert not english_words(made.get_data(as_text=True))


# -- emails and JSON refusals -----------------------------------------------------------

# The words a Russian email keeps, besides KEPT: the one-word replies it asks for, in «…»
REPLY_WORDS = {"say", "rematch", "accept", "decline", "resign", "draw", "pass", "pick"}
# addresses, links and the text boards' lines (notation: files, pieces, the legend's codes)
NOT_WORDS = re.compile(r"\S+@\S+|https?://\S+|^[ \d]*[a-z]( [a-z.])+[ \d]*$|\[[\w-]{8}\]",
                       re.M)


def english_in_email(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z]{3,}", NOT_WORDS.sub("", text))) - KEPT - REPLY_WORDS


def russian_game(client, game: str = "mastery", **body) -> dict:
    """A game of Аня and Борис, both with Russian emails."""
    created = client.post("/api/games", json={"game": game, "players": [
        {"name": "Аня", "email": "anya@example.org", "language": "ru"},
        {"name": "Борис", "email": "boris@example.org", "language": "ru"}], **body})
    assert created.status_code == 201, created.json
    return created.json


def every_email_kind(app, client, db) -> None:
    """Each kind of email the server sends, to Russian seats and players (``outbox``)."""
    game = russian_game(client, clock={"mode": "per_move", "days": 3, "vacation_days": 21})
    anya, boris = (path_of(seat["api"]) for seat in game["seats"])
    api_move(client, anya, client.get(anya).json["legal_moves"][0])  # your_turn
    turn = db.execute("SELECT headers FROM outbox WHERE kind = 'turn'").fetchone()
    reply = EmailMessage()  # Борис answers by email, with no move: the answer explains
    reply["From"], reply["To"] = "boris@example.org", json.loads(turn[0])["Reply-To"]
    reply["Subject"], reply["Message-ID"] = "Re: Ваш ход", "<reply@example.org>"
    reply.set_content("привет")  # (the answer quotes it)
    with app.app_context():
        inbound.receive(db, bytes(reply))
    client.post(f"{anya}/chat", json={"text": "Привет"})
    client.post(f"{anya}/draw", json={"answer": "offer"})
    client.post(f"{boris}/draw", json={"answer": "decline"})  # the declined email
    api_move(client, boris, client.get(boris).json["legal_moves"][0])
    client.post(f"{boris}/takeback")
    client.post(f"{anya}/takeback", json={"answer": "accept"})
    api_move(client, boris, client.get(boris).json["legal_moves"][0])
    client.post(f"{boris}/takeback")
    client.post(f"{anya}/takeback", json={"answer": "decline"})
    later = datetime.now(timezone.utc) + timedelta(days=2, hours=12)
    scheduler.send_reminders(app, later)
    scheduler.check_clocks(app, later)  # the deadline's warning
    assert client.post(f"{anya}/resign", json={}).status_code == 200  # finished
    client.post(f"{anya}/rematch")
    lost = client.post("/api/games", json={"game": "magnet", "players": [
        {"name": "Аня", "email": "anya@example.org", "language": "ru"}, {"bot": "easy"}]}).json
    client.post(f"{path_of(lost['seats'][0]['api'])}/resign", json={})  # the computer won
    teams = client.post("/api/games", json={"game": "the-right-moves", "players": [
        {"name": name, "email": f"{name.lower()}@example.org", "language": "ru"}
        for name in ("Ann", "Bob", "Cid", "Dee")]}).json
    client.post(f"{path_of(teams['seats'][0]['api'])}/resign", json={})  # resign_offer
    waiting = client.post("/api/games", json={"game": "the-right-moves", "players": [
        {"name": "Аня", "email": "anya@example.org", "language": "ru"},
        *[{"open": True}] * 3]}).json
    client.post(path_of(waiting["seats"][1]["join"]), data={"name": "Вера"},
                headers={"Accept-Language": "ru"})  # joined
    client.post("/api/games", json={"game": "magnetic-field", "players": [
        {"name": "Аня", "email": "anya@example.org", "language": "ru"}, {"open": True}]})
    scheduler.send_expiry_notices(app, datetime.now(timezone.utc) + timedelta(days=8))
    digested = russian_game(client, "magnet")
    db.execute("UPDATE seats SET notify = 'digest' WHERE game_id = ?", [digested["id"]])
    scheduler.send_digests(app, datetime.now(timezone.utc).replace(hour=23))
    client.post("/home", data={"email": "anya@example.org"}, headers={"Accept-Language": "ru"})
    client.set_cookie("lang", "ru")  # the players sign up from Russian pages
    keys = {name: path_of(sign_up(client, db, name)) for name in ("Anya", "Vera")}
    client.delete_cookie("lang")
    cup = client.post(f"{keys['Anya']}/tournaments", json={
        "name": "Autumn cup", "game": "mastery", "format": "swiss", "rounds": 1,
        "round_days": 3}).json
    for key in keys.values():
        client.post(f"{key}/tournaments/{cup['id']}/entry")
    client.post(f"{keys['Anya']}/tournaments/{cup['id']}/start")  # round
    scheduler.make_tournament_games(app)
    for found in client.get(keys["Anya"]).json["games"]:
        if found["tournament"] == cup["id"]:
            client.post(f"{path_of(found['api'])}/resign", json={})  # tournament_end
    scheduler.run_tournaments(app)


def test_every_email_kind_is_in_russian(app, client, db):
    every_email_kind(app, client, db)
    english, kinds = {}, set()
    for row in db.execute("SELECT kind, subject, body, headers, html FROM outbox "
                          "WHERE channel = 'email'"):
        kinds.add(row["kind"])
        # from the site by its Russian name (MAIL_FROM's, as the catalog translates it)
        assert json.loads(row["headers"])["From"] == "Игры по переписке <games@localhost>"
        found = english_in_email(f"{row['subject']}\n{row['body']}")
        if row["html"]:  # its buttons too
            found |= english_words(NOT_WORDS.sub("", row["html"])) - REPLY_WORDS
        if found:
            english.setdefault(row["kind"], set()).update(found)
    assert kinds >= {"start", "turn", "chat", "draw_offer", "draw_declined", "takeback_offer",
                     "takeback_answer", "reminder", "deadline", "end", "rematch", "answer",
                     "resign_offer", "joined", "expired", "digest", "home", "sign_in",
                     "tournament"}, kinds
    assert not english, "\n".join(f"{kind}: {sorted(words)}" for kind, words in english.items())


def test_json_refusals_are_in_russian(client):
    """Werkzeug's own 404, 405 and 413 and the API's refusals, asked for in Russian."""
    game = russian_game(client)
    api = path_of(game["seats"][0]["api"])
    ru = {"Accept-Language": "ru"}
    answers = [client.get("/api/nowhere", headers=ru), client.get(f"{api}/resign", headers=ru),
               client.post(f"{api}/moves", data=b"x" * (3 * 2**20), headers=ru),
               client.post(f"{api}/draw", json={"answer": "maybe"}, headers=ru),
               client.post(f"{api}/resign", json={"answer": "accept"}, headers=ru),
               client.put("/api/player/nobody/push", json={}, headers=ru),
               client.post("/api/games", headers=ru, json={"game": "the-right-moves", "players": [
                   {"name": name, "email": f"{name}@example.org"} for name in "abc"]})]
    assert [answer.status_code for answer in answers] == [404, 405, 413, 400, 400, 404, 400]
    assert "2 или 4" in answers[-1].json["error"]  # the engine's counts, in Russian too
    code = re.compile(r"'[^']*'|\b(?:offer|accept|decline|JSON)\b")  # the API's own words
    english = {answer.request.path: found for answer in answers
               if (found := set(re.findall(r"[A-Za-z]{3,}", code.sub("", answer.json["error"])))
                   - KEPT)}
    assert not english, english
