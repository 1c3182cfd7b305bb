"""Whole Russian sentences where the English was once put together from pieces: Magnet's
last turn, setup, piece titles, turn hints and preview; Magnetic Field's last turn (a pass,
said in words) and its knocked-out figures; Mastery's pieces off the board in an email; the
lines of pages that joined a game's title to what is said of it. Each in Russian is the
whole sentence with no English left, and in English the words it always said."""
from __future__ import annotations

import dataclasses
import re
from html import unescape

import pytest

import engine
from pbem import languages
from pbem.boards import board_for

from helpers import path_of
from test_accessibility import two_player_game
from test_lobby import challenge
from test_magnet_pages import CANON, ORDERED, position
from test_magnetic_field_pages import position as field_position

pytestmark = pytest.mark.one_database

MAGNET, FIELD, MASTERY = (engine.get(game) for game in ("magnet", "magnetic-field", "mastery"))
RED, BLUE = 0, 1
ENGLISH = re.compile(r"\b[A-Za-z]{2,}\b")  # a word; notation (f6, T2, B?(2)) is none


def in_russian(app, draw):
    """What ``draw()`` says with the language in force Russian."""
    with app.test_request_context(), languages.in_language("ru"):
        return draw()


def said(markup: str) -> str:
    """The words of ``markup`` as read: its text and titles, the tags out, the lines that a
    drawing wraps joined."""
    titles = " ".join(re.findall(r'(?:aria-label|title)="([^"]*)"', markup))
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", markup) + " " + titles).split())


def magnet_svg(app, state, seat, overlay=None, russian=True) -> str:
    def draw():
        view = {**MAGNET.view(state, seat), **(overlay or {})}
        return str(board_for("magnet").render(view, seat=seat))
    if russian:
        return in_russian(app, draw)
    with app.test_request_context():
        return draw()


def magnet_text(app, state, seat) -> str:
    """The board of a Russian seat's email, as ``seat`` may know it."""
    return in_russian(app, lambda: board_for("magnet").text(MAGNET.view(state, seat), seat))


def legal(state, seat: int, pattern: str) -> str:
    return next(m for m in MAGNET.legal_moves(state, seat) if re.fullmatch(pattern, m))


# -- Magnet --------------------------------------------------------------------------------

def test_magnets_last_turn_is_said_in_whole_russian_clauses(app):
    """Each piece's part of the last turn is one clause, the number of pieces it took in its
    Russian form: taken and destroyed, taken and promoted, promoted alone."""
    trapped = MAGNET.apply(position({"b7": "RK", "j3": "BK", "f3": "R4/3", "f4": "BT2",
                                     "f5": "B3/2", "e6": "R2"}), RED, "f6:f3+,e6")
    expected = ("Прошлый ход, Красные: магнит на f6; f3 → f6 со взятием фигур на f4, f5; "
                "фигура с f3 уничтожена ловушкой; e6 → f6")
    for seat in (RED, BLUE):
        assert expected in said(magnet_svg(app, trapped, seat))
        assert expected + "." in " ".join(magnet_text(app, trapped, seat).split())
    english = said(magnet_svg(app, trapped, RED, russian=False))
    assert ("Last turn, Red: magnet on f6; f3 → f6 took f4, f5 and was destroyed by a trap; "
            "e6 → f6") in english

    took_one = position({"b7": "RK", "j3": "BK", "f3": "R4/2", "f5": "B2"})
    promoted = MAGNET.apply(took_one, RED, legal(took_one, RED, r"f6:f3\+"))
    text = said(magnet_svg(app, promoted, BLUE))
    assert "магнит на f6; f3 → f5 со взятием фигуры на f5 и с повышением" in text
    assert "took" not in text and "promoted" not in text

    alone = position({"b7": "RK", "j3": "BK", "f3": "R4/2"})
    text = said(magnet_svg(app, MAGNET.apply(alone, RED, legal(alone, RED, r"f6:f3\+")), BLUE))
    assert "магнит на f6; f3 → f5 с повышением" in text

    blocked = position({"b7": "RK", "j3": "BK", "f6": "R2", "f5": "R2", "d4": "R2"})
    text = said(magnet_svg(app, MAGNET.apply(blocked, RED, "f6:d4,f5"), BLUE))
    assert "магнит на f6; d4 → e5; f5 остаётся на месте" in text and "stays" not in text


def test_magnets_setup_and_turn_status_are_whole_russian_sentences(app):
    blue_ready = MAGNET.apply(MAGNET.start(2, {}, "o"), BLUE, CANON[BLUE])
    for seat in (RED, None):
        text = said(magnet_svg(app, blue_ready, seat))
        assert "Расстановка (тайная): Красные ещё расставляют фигуры, Синие уже расставили" \
            in text
    assert "Setup (secret) — Red: arranging · Blue: set up" in said(
        magnet_svg(app, blue_ready, RED, russian=False))
    opening = MAGNET.apply(blue_ready, RED, CANON[RED])
    assert "Ход 1: ходят Красные (первый ход партии: ходит одна фигура)" in said(
        magnet_svg(app, opening, BLUE))


def test_magnets_piece_titles_are_whole_russian_phrases(app):
    """A piece's title agrees with it (a king is «ваш», a trap «ваша»), the pieces being
    placed included; the opponent's pieces say what they always said."""
    start = MAGNET.start(2, {}, "o")
    step = in_russian(app, lambda: board_for("magnet").build(MAGNET, start, RED, ("K", "a2")))
    svg = magnet_svg(app, start, RED, step.overlay)
    assert "a2: ваш король (Красные), поставлен, но ещё не подтверждён" in said(svg)
    trap = in_russian(app, lambda: board_for("magnet").build(MAGNET, start, RED, ("T2", "a2")))
    assert ("a2: ваша ловушка T2 (Красные), ранг 1, поставлена, но ещё не подтверждена"
            in said(magnet_svg(app, start, RED, trap.overlay)))
    english = magnet_svg(app, start, RED, step.overlay, russian=False)
    assert "a2: Red (yours) king (placed, not yet confirmed)" in said(english)

    state = position(ORDERED)
    text = said(magnet_svg(app, state, RED))
    assert "b7: ваш король (Красные)" in text
    assert "c3: ваша фигура ценности 4 (Красные), ранг 3" in text
    assert "e5: фигура (Синие), ранг 1, ценность неизвестна" in text
    assert not re.search(r"\b(?:yours|rank|value|unknown|king)\b", text)


def test_magnets_turn_builder_speaks_whole_russian_sentences(app):
    """The order's hint, the preview of where each piece goes (the opponent's piece by its
    rank alone) and the summary of the turn built, with no English word left."""
    state = position(ORDERED)

    def step(*clicks):
        return in_russian(app, lambda: board_for("magnet").build(MAGNET, state, RED, clicks))

    magnet = step("f6")
    assert magnet.hint == (
        "Здесь важен порядок фигур c3, f4 (первая, дошедшая до f6, занимает её, остальные "
        "останавливаются на вершину раньше): щёлкните их в том порядке, в каком они должны "
        "пойти. Остальные ваши фигуры тоже пойдут.")
    note = said(str(magnet.note))
    assert ("c3 (ваша фигура ценности 4, ранг 3): c3 → d4 → e5 → f6, берёт e5 (фигура Синих "
            "ранга 1, ценность неизвестна); доходит до магнита") in note
    assert magnet.summary == "магнит на f6"
    ordered = step("f6", "c3")
    assert "останавливается на вершину раньше f6, если там к тому времени будет ваша фигура" \
        in said(str(ordered.note))
    assert ordered.summary == "магнит на f6; порядок: c3, f4, f9, h4"
    promoted = step("f6", "c3", "c3+")
    assert promoted.summary == "магнит на f6; порядок: c3, f4, f9, h4; повысить: c3"
    assert "c3 (ваша фигура ценности 4, ранг 3): c3 → d4 → e5 → f6, берёт e5" in said(
        str(promoted.note)) and "повышается , если уцелеет" in said(str(promoted.note))
    for built in (magnet, ordered, promoted):
        words = " ".join((built.hint or "", built.summary or "", said(str(built.note))))
        assert not ENGLISH.findall(words), ENGLISH.findall(words)
    with app.test_request_context():
        english = board_for("magnet").build(MAGNET, state, RED, ("f6", "c3", "c3+"))
    assert english.summary == "magnet on f6; order c3, f4, f9, h4; promote c3"


def test_magnets_hidden_values_stay_hidden_in_russian(app):
    """Blue's arrangement changes nothing Red or a spectator reads in Russian."""
    ready = MAGNET.apply(MAGNET.start(2, {}, "o"), RED, CANON[RED])
    swapped = list(engine.magnet.SET)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    assert swapped != list(engine.magnet.SET)
    games = [MAGNET.apply(ready, BLUE, MAGNET.setup_text(BLUE, kinds))
             for kinds in (engine.magnet.SET, swapped)]
    for seat in (RED, None):
        first, second = (magnet_svg(app, game, seat) for game in games)
        assert first == second
        assert magnet_text(app, games[0], seat) == magnet_text(app, games[1], seat)


# -- Magnetic Field and Mastery ------------------------------------------------------------

def field_svg(app, state, seat=0) -> str:
    return in_russian(app, lambda: str(board_for("magnetic-field").render(
        FIELD.view(state, seat), seat=seat)))


def test_a_pass_is_said_in_russian_under_the_field(app):
    passed = FIELD.apply(field_position({"e5": "N"}, tiles={"e5": "K"}), 0, "pass")
    text = said(field_svg(app, passed, 1))
    assert "Прошлый ход, Синие: пас" in text and "pass" not in text
    with app.test_request_context():
        english = said(str(board_for("magnetic-field").render(FIELD.view(passed, 1), seat=1)))
    assert "Last turn, Blue: pass" in english


def test_knocked_out_figures_are_counted_in_one_russian_sentence(app):
    knocked = dataclasses.replace(field_position({"e5": "N"}, tiles={"e5": "K"}),
                                  knocked_out=(0, 1), in_hand=(4, 4))
    text = said(field_svg(app, knocked))
    assert "фигурки: в руке 4 · на поле 0 · выбито 1" in text
    email = in_russian(app, lambda: board_for("magnetic-field").text(FIELD.view(knocked, 0), 0))
    assert re.search(r"Красные: фигурки\xa0— в руке 4, на поле 0, выбито 1; плитки: ", email)
    assert re.search(r"Синие \(вы\): фигурки\xa0— в руке 4, на поле 1; плитки: ", email)


def test_masterys_pieces_off_the_board_in_a_russian_email(app):
    state = MASTERY.start(2, {}, "m")
    state = MASTERY.apply(state, 0, MASTERY.legal_moves(state, 0)[0])
    view = {**MASTERY.view(state, 0), "off_board": [{"M": 0, "O": 1, "P": 0},
                                                    {"M": 0, "O": 0, "P": 2}]}
    email = in_russian(app, lambda: board_for("mastery").text(view, 0))
    assert "Вне доски: Тёмные\xa0— 1 Офицер; Светлые\xa0— 2 Пешки." in email
    with app.test_request_context():
        english = board_for("mastery").text(view, 0)
    assert "Off the board: Dark 1 Officer; Light 2 Pawns." in english


# -- the pages -----------------------------------------------------------------------------

def russian_page(client, path: str) -> str:
    return client.get(path, headers={"Accept-Language": "ru"}).get_data(as_text=True)


def test_the_games_on_the_home_page_are_whole_russian_lines(client):
    page = russian_page(client, "/")
    assert re.search(r'<strong>Mastery</strong> \(игроков: 2\)\xa0— <a href="[^"]+">начать</a>, '
                     r'<a href="[^"]+">правила</a>', page)
    assert re.search(r'<strong>Mastery</strong> \(2 players\) — <a href="[^"]+">start</a>, '
                     r'<a href="[^"]+">rules</a>', client.get("/").text)


def test_a_finished_game_and_its_settings_say_whole_russian_sentences(client):
    created = two_player_game(client, "mastery")
    assert client.post(f"{created['seats'][1]['api']}/resign", json={"ply": 0}).status_code \
        == 200
    url = path_of(created["seats"][0]["url"])
    page = russian_page(client, url)
    over = re.search(r'<p class="game-over"[^>]*>(.*?)</p>', page, re.S)[1]
    assert over.startswith("<strong>Партия окончена</strong>\xa0— ")
    assert not ENGLISH.findall(re.sub(r"<[^>]+>|Ann|Bob", "", over)), over
    legends = re.findall(r"<legend>(.*?)</legend>", russian_page(client, url + "/email"))
    assert any(re.fullmatch(r"Mastery: Ann\W+Bob; ваша сторона: Тёмные \(партия окончена\)",
                            unescape(legend)) for legend in legends), legends


def test_a_challenge_in_the_lobby_is_a_whole_russian_heading(client):
    challenge(client)
    heading = re.search(r"<h2>Mastery\s<small>.*?</small></h2>", russian_page(client, "/lobby"))
    assert heading and heading[0] == "<h2>Mastery\xa0<small>— ждёт: Ann</small></h2>", heading
    assert "<h2>Mastery <small>— Ann is waiting</small></h2>" in client.get("/lobby").text
