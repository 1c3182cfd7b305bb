"""Every page type read with ``Accept-Language: ru`` shows no English word: what a Russian
reader sees is in Russian but for notation, names and the words listed in ``KEPT`` with
their reasons."""
from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from helpers import path_of
from test_accessibility import GAMES, page_types, two_player_game

pytestmark = pytest.mark.one_database  # the pages' words, whatever stores the games

# Words that stay as they are in Russian, and why
KEPT = {
    "Ann", "Bob", "Cid", "Autumn", "cup",  # the players' and the tournament's names
    "Robo",  # a bot's handle
    "Mastery", "Right", "Moves", "The", "Magnetic", "Field", "Magnet",  # the games' names
    "Imperial", "Crown",  # Mastery's setups by name, as its Russian rules call them
    "John", "Ross", "Matt", "Calkins", "Diversified", "Ventures",  # authors, a publisher
    "Abstract", "Play", "Discord", "Slack",  # a site's and services' names
    "English", "UTC", "Atom", "JSON", "Glicko", "SHA", "Python",  # languages, standards, a system
    "API",  # as Russian programmers write it
    "setup",  # Magnet's notation of a setup move
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
        # addresses, and the names of the computer and of a deleted player as seats and
        # ratings keep them, are not words
        text = re.sub(r"\S+@\S+|https?://\S+|Computer \((easy|medium|hard)\)|Former player", "",
                      " ".join(data.split()))
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
