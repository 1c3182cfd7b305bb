"""Magnetic Field on the web: the field's SVG (tiles, magnets, hands, scores), the game's own
turn builder (draft picks, several tiles, the figure action in either order, the preview of
the reaction before confirming), the rules page in English and Russian, hidden information
over every channel a player or spectator receives (pages, history, API, records, emails), and
one game in headless Chromium."""
from __future__ import annotations

import dataclasses
import re

import pytest

import engine
from engine.magnetic_field import CELL_INDEX, CELLS, EMPTY
from pbem.boards import magnetic_field as board

from helpers import (api_move, builds, cell_markup, confirm_move, emails_to, fits, links_in,
                     refused, seen_by, svg_of)

# What is checked is what is drawn and said, and that two games differing in a secret look
# the same (rendering, not storage): one engine.
pytestmark = pytest.mark.one_database

GAME = engine.get("magnetic-field")
BLUE_FIRST = {"colours": "seat0-blue"}
PICKS = ("K", "K", "D", "D")  # Blue, Red, Blue, Red


# -- helpers -------------------------------------------------------------------------------

def drafted(seed: str = "t", picks=PICKS):
    state = GAME.start(2, BLUE_FIRST, seed)
    for pick in picks:
        state = GAME.apply(state, state.to_move[0], f"pick {pick}")
    return state


def field(cells: dict[str, str]) -> str:
    squares = [EMPTY] * CELLS
    for name, char in cells.items():
        squares[CELL_INDEX[name]] = char
    return "".join(squares)


def position(figures=None, tiles=None, hands=("", ""), public=None, in_hand=(5, 5),
             scores=(0, 0), deck="", to_move=0):
    """A play position, seat 0 Blue; figures: cell -> N direction (upper case Blue)."""
    return dataclasses.replace(
        drafted(), figures=field(figures or {}), tiles=field(tiles or {}), hands=hands,
        public_hands=hands if public is None else public, in_hand=in_hand,
        entered=(True, True), scores=scores, deck=deck, passes=0, to_move=(to_move,))


def built_svg(app, state, *clicks, link="/x?path={}") -> str:
    """Blue's drawing after ``clicks``, with the builder's overlay, and a link (``link``
    formatted with the click) on each cell and choice that may come next."""
    step = builds(app, GAME, state, 0, *clicks)
    with app.test_request_context():
        return str(board.render({**GAME.view(state, 0), **(step.overlay or {})}, seat=0,
                                targets={t: link.format(t) for t in step.cells + step.choices}))


def field_cell(svg: str, name: str) -> str:
    return cell_markup(svg, name, until=('<line class="reaction',))









@pytest.fixture
def seeded(seeded_game):
    """``seeded(seed)`` → a new Magnetic Field game (Blue = seat 0) whose secret seed is
    ``seed``."""
    return lambda seed: seeded_game("magnetic-field", seed, BLUE_FIRST)


# -- the drawing -----------------------------------------------------------------------------

def test_field_has_100_cells_with_tiles_and_magnets(app):
    state = position(figures={"e4": "N", "c3": "E", "e7": "s", "h8": "w"},
                     tiles={"e5": "K", "e6": "D", "f5": "C", "f6": "X", "e4": "K"},
                     hands=("KD", "C"))
    svg = svg_of(app, GAME, state)
    assert svg.startswith('<div class="board-frame mf-frame" data-pan="start">\n<svg')
    assert 'class="board magnetic-field field"' in svg and 'class="board magnetic-field panel"' in svg
    assert len(re.findall(r'class="cell" data-cell="[a-j]\d+"', svg)) == 100
    assert {n for n in re.findall(r'data-cell="([a-j]\d+)"', svg)} == set(CELL_INDEX)
    for name, code in {"e5": "K", "e6": "D", "f5": "C", "f6": "X"}.items():
        markup = field_cell(svg, name)
        assert f'class="tile tile-{code}" fill="url(#mf-{code})"' in markup  # the pattern
        assert re.search(rf'class="tile-letter"[^>]*>{code}</text>', markup)  # the letter
    assert all(f'id="mf-{code}"' in svg for code in "CXKD")
    assert "tile" not in field_cell(svg, "a1").replace("<title>a1</title>", "")
    # magnets: owner colour, N and S letters, the axis turned to the N direction
    for name, colour, angle in (("e4", "blue", 0), ("c3", "blue", 90), ("e7", "red", 180),
                                ("h8", "red", 270)):
        markup = field_cell(svg, name)
        assert f'class="magnet {colour}"' in markup
        assert f'rotate({angle} ' in markup
        assert re.search(r'class="pole n"[^>]*>N</text>', markup)
        assert re.search(r'class="pole s"[^>]*>S</text>', markup)
    # the N letter sits towards the N direction: e4 points north, so N is above S
    e4 = field_cell(svg, "e4")
    n_y = float(re.search(r'class="pole n" x="[\d.]+" y="([\d.]+)"', e4)[1])
    s_y = float(re.search(r'class="pole s" x="[\d.]+" y="([\d.]+)"', e4)[1])
    assert n_y < s_y
    assert "<title>e4: Knockout tile, Blue figure, N pole north</title>" in e4
    # Blue is square-ended, Red round-ended: a difference of shape, not only colour
    assert 'rx="1.5"' in field_cell(svg, "e4") and 'rx="10.0"' in field_cell(svg, "e7")
    # north is up for both players
    assert svg_of(app, GAME, state, seat=1).count('data-cell="') == 100
    assert _cell_y(svg, "a10") < _cell_y(svg, "a1") and _cell_y(svg_of(app, GAME, state, 1), "a10") \
        < _cell_y(svg_of(app, GAME, state, 1), "a1")


def _cell_y(svg: str, name: str) -> float:
    return float(re.search(rf'data-cell="{name}"[^<]*<title>[^<]*</title>\s*<rect x="[\d.]+" '
                           rf'y="([\d.]+)"', svg)[1])


def test_hands_deck_and_scores_come_from_the_view(app):
    # Blue holds K (drafted, public) and D, X (drawn, hidden from Red).
    state = position(hands=("XKD", "CKD"), public=("K", "D"), scores=(7, 3), deck="KKDC",
                     in_hand=(3, 4))
    blue, red, spectator = svg_of(app, GAME, state, 0), svg_of(app, GAME, state, 1), svg_of(app, GAME, state, None)
    own = re.search(r'<g class="player blue[^"]*" data-seat="0">.*?</g>\s*</g>', blue, re.S)[0]
    assert re.findall(r'data-tile="([CXKD])"', own) == ["X", "K", "D"]  # in the order CXKD
    theirs = re.search(r'<g class="player red[^"]*" data-seat="1">.*?</g>\s*</g>', blue, re.S)[0]
    assert re.findall(r'data-tile="([CXKD])"', theirs) == ["D"]  # only the public tile
    assert theirs.count('class="hand-tile hidden"') == 2
    assert '<text class="hand-count" x="40" y="191">3 tiles in hand: 1 known, 2 face down</text>' \
        in theirs
    assert '>3 tiles in hand</text>' in own
    # the same from Red's side, and a spectator sees both hands as Red sees Blue's
    blue_for_red = re.search(r'<g class="player blue[^"]*" data-seat="0">.*?</g>\s*</g>', red,
                             re.S)[0]
    assert re.findall(r'data-tile="([CXKD])"', blue_for_red) == ["K"]
    assert blue_for_red.count('class="hand-tile hidden"') == 2
    assert spectator.count('class="hand-tile hidden"') == 4
    for svg in (blue, red, spectator):
        assert "Deck: 4 tiles face down" in svg
        assert re.search(r'class="score-value">7</tspan> / 15', svg)
        assert re.search(r'class="score-value">3</tspan> / 15', svg)
        assert "figures: 3 in hand · 0 on the field" in svg
    assert "Blue — you" in blue and "Red — you" in red and "— you" not in spectator


def _hidden_tiles(svg: str, seat: int) -> list[tuple[float, float]]:
    block = re.search(rf'<g class="player [^"]*" data-seat="{seat}">.*?</g>\s*</g>', svg, re.S)[0]
    return [(float(x), float(y)) for x, y in re.findall(
        r'<g class="hand-tile hidden"><rect x="([\d.]+)" y="([\d.]+)"', block)]


def test_each_face_down_tile_is_drawn_and_the_count_said_plainly(app):
    # Red holds three tiles nobody else knows: Blue and spectators see three backs side by
    # side and the count in words, never the codes.
    state = position(hands=("", "CKD"), public=("", ""))
    for svg in (svg_of(app, GAME, state, 0), svg_of(app, GAME, state, None)):
        backs = _hidden_tiles(svg, 1)
        assert len(backs) == 3 and len(set(backs)) == 3
        xs = sorted(x for x, _ in backs)
        assert all(b - a >= board.HAND_TILE for a, b in zip(xs, xs[1:]))  # none overlaps
        assert re.search(r'<text class="hand-count"[^>]*>3 tiles in hand, face down</text>', svg)
        assert not re.search(r'data-tile="[CKD]"', svg)
    many = position(hands=("", "CKDCKDCKDC"), public=("", ""))  # a second row
    backs = _hidden_tiles(svg_of(app, GAME, many, None), 1)
    assert len(set(backs)) == 10 and len({y for _, y in backs}) == 2
    assert max(x for x, _ in backs) + board.HAND_TILE <= board.PANEL_WIDTH
    assert "no tiles in hand" in svg_of(app, GAME, position(), 0)
    assert "1 tile in hand<" in svg_of(app, GAME, position(hands=("C", ""), public=("C", "")), 0)


def test_last_move_and_its_reaction_are_marked(app):
    state = position(figures={"e10": "s"}, tiles={"e10": "K", "c3": "C"}, hands=("D", ""))
    after = GAME.apply(state, 0, "D@c4 +e9:n")  # e10 is knocked off the field
    svg = svg_of(app, GAME, after, last=board.move_cells(after.last.move))
    assert board.move_cells("D@c4 +e9:n") == {"c4", "e9"}
    assert board.move_cells("K@e10 j10-j7") == {"e10", "j10", "j7"}
    assert 'class="mark last"' in field_cell(svg, "c4") and 'class="mark last"' in field_cell(svg, "e9")
    assert re.search(r'<line class="reaction knockout"[^>]*><title>Red figure on e10 knocked '
                     r'off the field</title>', svg)
    assert ">Last turn, Blue: D@c4 +e9:n</text>" in svg and ">1 reaction · +5 points</text>" in svg


def test_draft_pool_is_drawn_and_clickable(app):
    state = GAME.start(2, BLUE_FIRST, "s")
    svg = svg_of(app, GAME, state, targets={"pick-K": "/x?path=pick-K"})
    assert "Face-up tiles to pick:" in svg and "×16" in svg and "×15" in svg and "×1<" in svg
    assert '<a href="/x?path=pick-K" class="choice pool-tile" data-choice="pick-K">' in svg
    assert 'data-choice="pick-D"' not in svg  # not a target: drawn, not a link



def test_every_link_in_the_drawing_is_escaped(app):
    """Cells, hand tiles and draft picks are links whose query has several parameters (the
    conditional-moves page's do): each & is written &amp;, and a quote or a bracket in a link
    cannot end its attribute."""
    link = '/c/x?m=K%40e5&m="<b>&path={}'
    play = position(figures={"e4": "N"}, tiles={"e5": "K"}, hands=("KD", ""))
    cells, hand = built_svg(app, play, link=link), built_svg(app, play, "K", "e6", link=link)
    pool = built_svg(app, GAME.start(2, BLUE_FIRST, "s"), link=link)
    assert len(re.findall(r'<a href="[^"]*" class="cell"', cells)) == 100  # any may take a figure
    assert 'class="choice hand-tile" data-choice="D"' in hand
    assert 'class="choice pool-tile" data-choice="pick-K"' in pool
    for svg in (cells, hand, pool):
        hrefs = re.findall(r'<a href="([^"]*)"', svg)
        assert hrefs and svg.count("<a ") == len(hrefs)
        assert all(h.startswith("/c/x?m=K%40e5&amp;m=&#34;&lt;b&gt;&amp;path=") for h in hrefs)
        assert '"<b>' not in svg and "&m=" not in svg


def test_the_mover_the_tile_picked_up_and_the_entry_cells_are_marked(app):
    state = dataclasses.replace(position(figures={"e4": "N"}, tiles={"e5": "K"},
                                         hands=("KD", "")), passes=2)
    svg = built_svg(app, state)
    assert '<g class="player blue to-move" data-seat="0">' in svg and ">▶ Blue — you</text>" in svg
    assert '<g class="player red" data-seat="1">' in svg and ">Red</text>" in svg
    assert f"passes in a row: 2 of {board.PASS_LIMIT}" in svg
    # any empty cell may take a figure: a faint outline; the figure that may act, a bold one
    assert 'class="target faint"/></a>' in field_cell(svg, "a1")
    assert 'class="target"/></a>' in field_cell(svg, "e4")
    # the tile picked up is marked in the hand, and is no longer a link
    svg = built_svg(app, state, "K")
    hand = re.search(r'<g class="hand-tile selected" data-tile="K">.*?</g>', svg, re.S)[0]
    assert '<title>Knockout (K)</title>' in hand and 'class="mark selected"' in hand
    assert 'class="choice hand-tile"' not in svg


# -- the turn builder ----------------------------------------------------------------------------

def test_click_paths():
    assert board.click_path("pick K") == ("pick-K",)
    assert board.click_path("pass") == ("pass",)
    assert board.click_path("K@e5 D@e6 +e4:n") == ("K", "e5", "D", "e6", "e4", "n")
    assert board.click_path("e4:w") == ("e4", "w")
    assert board.click_path("e10-e7") == ("e10", "e7")
    assert board.is_cell("j10") and board.is_cell("a1") and not board.is_cell("K")
    assert not board.is_cell("+n") and not board.is_cell("n") and not board.is_cell("k11")
    assert board.choice_label("K") == "Place a Knockout tile (K)"
    assert board.choice_label("pick-X") == "Pick Capture (X)"
    assert board.choice_label("+n") == "Enter a figure, N pole ↑ north"
    assert board.choice_label("w") == "N pole ← west"


def test_every_listed_move_can_be_clicked(app):
    state = position(figures={"e4": "N", "e7": "s"}, tiles={"e5": "K"}, hands=("KD", ""),
                     in_hand=(3, 4), deck="KD")
    moves = GAME.legal_moves(state, 0)
    sample = moves[::max(1, len(moves) // 120)] + ["pass", "e4:w", "e4-e3", "K@e6 e4-e1"]
    for move in sample:
        step = builds(app, GAME, state, 0, *board.click_path(move))
        assert step.complete == move, move
        with app.test_request_context():  # and the field can draw its result
            assert "</svg>" in board.render({**GAME.view(state, 0), **step.overlay}, seat=0)


def test_multi_tile_turns_are_built_tile_by_tile(app):
    state = position(figures={"a1": "N"}, tiles={"e5": "D"}, hands=("KKD", ""), deck="CC")
    step = builds(app, GAME, state, 0)
    assert step.choices[:2] == ("K", "D") and "pass" in step.choices and step.complete is None
    assert "a1" in step.cells and "e4" in step.cells  # own figure, an empty cell to enter
    step = builds(app, GAME, state, 0, "K")
    assert set(step.cells) == {"d5", "e4", "e6", "f5"} and step.choices == ()
    step = builds(app, GAME, state, 0, "K", "e4")
    assert step.complete == "K@e4" and step.overlay["pending"] == {"e4": "K"}
    assert "e3" in builds(app, GAME, state, 0, "K", "e4", "K").cells  # next to the new tile
    step = builds(app, GAME, state, 0, "K", "e4", "K", "e3", "D", "e2")
    assert step.complete == "K@e4 K@e3 D@e2" and step.choices[:3] == ("+n", "+e", "+s")
    assert "K" not in step.choices  # the hand is used up
    step = builds(app, GAME, state, 0, "K", "e4", "K", "e3", "D", "e2", "+s", "e1")
    assert step.complete == "K@e4 K@e3 D@e2 +e1:s"
    assert step.summary == "K on e4; K on e3; D on e2; enter on e1 facing south"
    GAME.apply(state, 0, step.complete)  # legal, though not listed
    assert step.complete not in GAME.legal_moves(state, 0)
    # a path that no longer fits (a stale page, a hand-made URL) starts over
    assert builds(app, GAME, state, 0, "K", "a9").path == ()
    assert builds(app, GAME, state, 0, "X", "e4").path == ()
    assert builds(app, GAME, state, 0, "a1", "n", "e5").path == ()


def test_figure_action_in_either_order_rotate_and_move(app):
    state = position(figures={"c3": "E"}, tiles={"e5": "K"}, hands=("", ""), in_hand=(2, 5))
    assert builds(app, GAME, state, 0, "d4").choices == ("n", "e", "s", "w")
    assert builds(app, GAME, state, 0, "d4", "e").complete == "+d4:e"
    facing = builds(app, GAME, state, 0, "+e")
    assert "d4" in facing.cells and "c3" not in facing.cells  # not on a figure
    assert builds(app, GAME, state, 0, "+e", "d4").complete == "+d4:e"
    figure = builds(app, GAME, state, 0, "c3")
    assert figure.choices == ("n", "s", "w") and set(figure.cells) == {
        "c4", "c5", "c6", "c2", "c1", "d3", "e3", "f3", "b3", "a3"}
    assert builds(app, GAME, state, 0, "c3", "w").complete == "c3:w"
    assert builds(app, GAME, state, 0, "c3", "f3").complete == "c3-f3"
    assert builds(app, GAME, state, 0, "c3", "g3").path == ()  # too far


def test_draft_builder(app):
    state = GAME.start(2, BLUE_FIRST, "s")
    step = builds(app, GAME, state, 0)
    assert step.choices == ("pick-X", "pick-K", "pick-D") and step.cells == ()
    assert builds(app, GAME, state, 0, "pick-X").complete == "pick X"
    assert builds(app, GAME, GAME.apply(state, 0, "pick X"), 1, "pick-X").path == ()  # none left


def test_preview_shows_the_reaction_and_the_points_before_confirming(app):
    state = position(figures={"e10": "s", "c3": "N"}, tiles={"e10": "K", "c3": "C"},
                     hands=("D", ""), deck="XK")
    step = builds(app, GAME, state, 0, "D", "c4", "e9", "n")
    assert step.complete == "D@c4 +e9:n"
    note = str(step.note)
    assert "After this turn" in note and "<svg" not in note  # the main field shows it
    assert "Red figure on e10 knocked off the field" in note
    assert "+2 knockout (e10)" in note and "+3 knocked out from a Knockout tile (e10)" in note
    assert "+1 Control tile held (c3)" in note
    assert "You score <strong>+6</strong>" in note and "Score: Blue 6 – Red 0" in note
    # Red's last figure on the field is knocked out: Red has its turn to bring one back
    assert "mf-outcome" in note and "This turn" not in note
    assert ("Red has no figure on the field: Red loses at the end of its turn unless it "
            "brings one back.") in note
    none_left = dataclasses.replace(state, in_hand=(5, 0), knocked_out=(0, 4))
    assert "none in hand to bring back: Red loses at the end of its turn." in str(
        builds(app, GAME, none_left, 0, "D", "c4", "e9", "n").note)
    # an attraction: both figures go back to hand
    pull = position(figures={"e7": "n"}, tiles={"e5": "X"}, hands=("", ""), deck="K")
    note = str(builds(app, GAME, pull, 0, "e5", "n").note)
    assert "Red figure on e7 pulled to e6 (N attracts S)" in note and "+2 capture (e5)" in note


def test_a_player_with_no_figure_on_the_field_is_told_to_bring_one_back(app):
    state = position(figures={"h8": "w"}, tiles={"e5": "D"}, hands=("K", ""), in_hand=(5, 4),
                     deck="K")
    assert builds(app, GAME, state, 0).hint.startswith(
        "You have no figure on the field: enter one this turn, or you lose at its end.")
    for clicks in (("pass",), ("K", "e4")):  # ending the turn without a figure loses
        assert "This turn loses the game:</strong> Blue has no figure on the field." in str(
            builds(app, GAME, state, 0, *clicks).note)
    entering = str(builds(app, GAME, state, 0, "c3", "n").note)
    assert "This turn" not in entering and "Then you draw a tile" in entering
    # no warning before Blue has ever entered a figure
    fresh = dataclasses.replace(state, entered=(False, True))
    assert "no figure" not in builds(app, GAME, fresh, 0).hint


def preview_words(app, state, *clicks, language="en") -> str:
    """The builder's words before the confirm button, on a page in ``language``."""
    with app.test_request_context(f"/?lang={language}"):
        return str(board.build(GAME, state, state.to_move[0], tuple(clicks)).note)


def test_the_preview_warns_that_emptying_your_field_before_the_opponent_enters_loses(app):
    # Red has never entered: Blue's second figure on e7 (S pole at e5's N) would stick to
    # its first. Not a draw at 0-0 (nor a win when ahead): the preview says Blue loses, why,
    # and that the scores do not count, in English and in Russian.
    for scores in ((0, 0), (3, 0)):
        state = dataclasses.replace(position(figures={"e5": "N"}, in_hand=(4, 5), deck="K",
                                             scores=scores), entered=(True, False))
        note = preview_words(app, state, "e7", "n")
        assert ('<p class="mf-outcome loss"><strong>This turn loses the game:</strong> Blue '
                "has no figure on the field, and Red has not entered one yet. The scores "
                "settle an empty field only once both players have entered a figure: until "
                "then, emptying your own field loses.</p>") in note
        assert "sticks to the figure on e7 and both go back to hand" in note
        russian = preview_words(app, state, "e7", "n", language="ru")
        assert ("<strong>Этим ходом вы проиграете партию:</strong> Синие: ни одной фигурки на "
                "поле, а Красные ещё не выставляли фигурок.") in russian
        assert "Очки решают при пустом поле, только когда оба игрока уже выставляли" in russian
    # a figure entered anywhere else keeps the game going, without a warning
    assert "mf-outcome" not in preview_words(app, state, "c3", "n")


def test_the_preview_says_when_a_turn_draws_or_wins_the_game(app):
    # Once both players have entered, an empty field goes to the scores
    for scores, english, russian in (
            ((2, 2), '<p class="mf-outcome draw"><strong>This turn ends the game in a draw:'
                     "</strong> neither player has a figure on the field; the scores are "
                     "equal.</p>",
             "<strong>Этот ход заканчивает партию вничью:</strong> ни у одного игрока нет "
             "фигурок на поле; очков поровну."),
            ((3, 1), '<p class="mf-outcome win"><strong>This turn wins the game:</strong> '
                     "neither player has a figure on the field; Blue has more points.</p>",
             "<strong>Этим ходом вы выиграете партию:</strong> ни у одного игрока нет фигурок на "
             "поле; больше очков: Синие.")):
        state = position(figures={"e5": "N"}, in_hand=(4, 5), scores=scores, deck="K")
        assert english in preview_words(app, state, "e7", "n")
        assert russian in preview_words(app, state, "e7", "n", language="ru")
    # six passes in a row, the sixth in the making
    passes = dataclasses.replace(position(figures={"e5": "N", "c3": "s"}, deck="K"), passes=5)
    assert "This turn ends the game in a draw:</strong> 6 passes in a row" in preview_words(
        app, passes, "pass")


def test_the_preview_warning_is_the_same_whatever_the_opponents_tiles_and_the_deck(app):
    # The preview reads only the field, the counts and the mover's own hand: two games that
    # differ only in Red's hidden tiles and the deck's order give Blue the same words.
    base = dataclasses.replace(position(figures={"e5": "N"}, in_hand=(4, 5), deck="KDDK",
                                        hands=("", "XK"), public=("", "")),
                               entered=(True, False))
    twin = dataclasses.replace(base, hands=("", "DD"), deck="KXKK")
    assert GAME.view(base, 0) == GAME.view(twin, 0)
    for clicks in (("e7", "n"), ("c3", "n"), ("pass",)):
        for language in ("en", "ru"):
            assert preview_words(app, base, *clicks, language=language) == \
                preview_words(app, twin, *clicks, language=language)
    assert "This turn loses the game" in preview_words(app, base, "e7", "n")


def test_the_turn_being_built_is_drawn_on_the_main_field(app):
    state = position(figures={"e10": "s", "c3": "N"}, tiles={"e10": "K", "c3": "C"},
                     hands=("D", ""), scores=(2, 1), deck="XK")

    def drawn(*clicks) -> str:
        step = builds(app, GAME, state, 0, *clicks)
        with app.test_request_context():
            return str(board.render({**GAME.view(state, 0), **step.overlay}, seat=0,
                                    selected=tuple(c for c in clicks if board.is_cell(c))))

    # entering on e9 knocks Red's e10 off the field: the field shows the turn's result
    svg = drawn("D", "c4", "e9", "n")
    assert 'class="board magnetic-field field after"' in svg
    assert "the result of your turn, not played yet" in svg
    e9 = field_cell(svg, "e9")
    assert 'class="magnet blue pending"' in e9 and "Blue figure, N pole north (this turn)" in e9
    e10 = field_cell(svg, "e10")
    assert 'class="magnet red gone"' in e10 and "Red figure, N pole south before this turn" in e10
    assert re.search(r'<line class="reaction knockout pending"[^>]*marker-end="url\(#mf-arrow-'
                     r'pending\)"><title>Red figure on e10 knocked off the field</title>', svg)
    assert 'class="tile-on-field pending" data-tile="D"' in field_cell(svg, "c4")
    # the counts under the field are those after the turn
    assert re.search(r'class="score-value">8</tspan> / 15', svg)  # 2 + 6
    assert "figures: 4 in hand · 2 on the field" in svg  # Blue entered one
    assert "figures: 5 in hand · 0 on the field · 1 out" in svg  # Red lost e10
    # a slide: the figure on its new cell, its old cell outlined, an arrow between
    svg = drawn("c3", "c6")
    assert 'class="magnet blue pending"' in field_cell(svg, "c6")
    assert 'class="magnet blue gone"' in field_cell(svg, "c3")
    assert re.search(r'<line class="reaction slide pending"[^>]*><title>Your figure slides '
                     r'from c3 to c6</title>', svg)
    # a figure pulled without moving, onto the one that pulls it: both leave the field
    pull = position(figures={"e7": "n"}, tiles={"e5": "X"}, hands=("", ""), deck="K")
    step = builds(app, GAME, pull, 0, "e6", "n")
    with app.test_request_context():
        svg = str(board.render({**GAME.view(pull, 0), **step.overlay}, seat=0))
    assert 'class="magnet red gone"' in field_cell(svg, "e7")
    assert 'class="magnet blue' not in field_cell(svg, "e6")
    line = re.search(r'<line class="reaction stick pending" x1="([\d.]+)" y1="([\d.]+)" '
                     r'x2="([\d.]+)" y2="([\d.]+)"', svg)
    assert float(line[1]) == float(line[3]) and float(line[2]) < float(line[4])  # e7 to e6
    # before the figure action is chosen, the field is the position as it is
    svg = drawn("c3")
    assert "after" not in svg.split(">", 2)[1] and "pending" not in field_cell(svg, "c3")
    assert 'class="magnet red"' in field_cell(svg, "e10")


# -- the pages -----------------------------------------------------------------------------------

def test_the_builder_flow_over_http(client, seeded):
    game = seeded("builder-flow")
    # the draft: a choice, then its confirm form; posting it records the pick
    page = client.get(game.urls[0]).get_data(as_text=True)
    assert "Pick one face-up tile" in page
    assert '<a class="button choice" href="' in page and "Pick Knockout (K)" in page
    page = client.get(links_in(page)["pick-K"]).get_data(as_text=True)
    assert confirm_move(page) == "pick K"
    response = client.post(f"/play/{game.urls[0].rsplit('/', 1)[1]}/move",
                           data={"move": "pick K", "ply": "0"})
    assert response.status_code == 303
    assert client.get(game.apis[0]).json["view"]["hands"][0]["public"] == ["K"]
    for seat, pick in ((1, "K"), (0, "D"), (1, "D")):
        api_move(client, game.apis[seat], f"pick {pick}")
    # Blue's turn: choose the K tile in hand (a link in the SVG), then its cell
    page = client.get(game.urls[0]).get_data(as_text=True)
    assert re.search(r'class="choice hand-tile" data-choice="K"', page)
    assert confirm_move(page) is None and "Place a Knockout tile (K)" in page
    page = client.get(links_in(page)["K"]).get_data(as_text=True)
    cells = set(re.findall(r'<a href="[^"]*" class="cell" data-cell="(\w+)"', page))
    assert cells == {"e5", "f5", "e6", "f6"}  # the first tile: the centre four
    page = client.get(links_in(page)["e5"]).get_data(as_text=True)
    assert confirm_move(page) == "K@e5"
    assert 'class="tile-on-field pending" data-tile="K"' in page
    # then the figure: orientation first, then the cell
    page = client.get(links_in(page)["+n"]).get_data(as_text=True)
    assert "enter facing north: choose its cell" in page
    page = client.get(links_in(page)["e4"]).get_data(as_text=True)
    assert confirm_move(page) == "K@e5 +e4:n"
    preview = page.index("After this turn")
    assert 0 < preview < page.index('id="confirm-move"')  # shown before the confirm button
    assert "You score <strong>+0</strong>" in page and "Then you draw a tile" in page
    response = client.post(f"/play/{game.urls[0].rsplit('/', 1)[1]}/move",
                           data={"move": "K@e5 +e4:n", "ply": "4"}, follow_redirects=True)
    assert "You played K@e5 +e4:n." in response.get_data(as_text=True)
    state = client.get(game.apis[1]).json
    assert state["ply"] == 5 and state["view"]["last_move"]["move"] == "K@e5 +e4:n"
    assert state["view"]["figures"]["e4"] == {"owner": 0, "colour": "blue", "facing": "n"}
    # Red: a cell first, then the direction; the typed form takes any turn too
    page = client.get(game.urls[1] + "?path=K.e6").get_data(as_text=True)
    page = client.get(links_in(page)["e7"]).get_data(as_text=True)
    assert "Choose where the new figure" in page
    page = client.get(links_in(page)["s"]).get_data(as_text=True)
    assert confirm_move(page) == "K@e6 +e7:s"
    response = client.post(f"/play/{game.urls[1].rsplit('/', 1)[1]}/move",
                           data={"move": "k@e6 d@f6 +e7:south", "ply": "5"})
    assert response.status_code == 303
    assert client.get(game.apis[0]).json["view"]["last_move"]["move"] == "K@e6 D@f6 +e7:s"


def test_the_game_page_lists_few_moves_and_spectators_get_no_builder(client, seeded):
    game = seeded("lists")
    for seat, pick in enumerate(PICKS):
        api_move(client, game.apis[seat % 2], f"pick {pick}")
    api_move(client, game.apis[0], "K@e5 +e4:n")
    page = client.get(game.urls[1]).get_data(as_text=True)
    assert "Too many legal moves to list here" in page and "<option" not in page
    assert len(page) < 150_000
    watch = client.get(game.watch).get_data(as_text=True)
    assert 'class="builder"' not in watch and '<a href="' not in re.search(
        r"<svg.*?</svg>", watch, re.S)[0]
    history = client.get(game.urls[0] + "/history/2").get_data(as_text=True)
    assert "Position after ply 2 of 5" in history and 'class="builder"' not in history


# -- hidden information ------------------------------------------------------------------------

def _seed_pair() -> tuple[str, str]:
    """Two seeds whose decks (after PICKS) give Blue the same first four draws (deck
    positions 0, 2, 4, 6) and Red different first and second draws."""
    seen: dict[str, list[tuple[str, str]]] = {}
    for i in range(5000):
        seed = f"pages-{i}"
        deck = drafted(seed).deck
        for other, other_deck in seen.get(deck[0:8:2], []):
            if other_deck[1] != deck[1] and other_deck[3] != deck[3]:
                return other, seed
        seen.setdefault(deck[0:8:2], []).append((seed, deck))
    raise AssertionError("no seed pair found")


def test_blue_and_spectators_cannot_tell_games_that_differ_only_in_reds_draws(app, client,
                                                                            seeded):
    seed_a, seed_b = _seed_pair()
    a, b = seeded(seed_a), seeded(seed_b)
    # Only public moves: Red plays its drafted tiles, and later figure actions and passes.
    script = [(0, "pick K"), (1, "pick K"), (0, "pick D"), (1, "pick D"),
              (0, "K@e5 +e4:n"), (1, "K@e6 +e7:s"), (0, "D@f5 +f3:w"), (1, "D@f6 +h3:e"),
              (0, "<first draw>@g5"), (1, "e7:e"), (0, "pass"), (1, "h3-h6")]
    blue_paths = ("", "K", "e4", "e4.w", "e4.e2", "%2Bn.a1", "pass", "nonsense.e4")
    for ply, (seat, move) in enumerate(script):
        if move.startswith("<first draw>"):
            tiles = client.get(a.apis[0]).json["view"]["hands"][0]["tiles"]
            assert tiles == client.get(b.apis[0]).json["view"]["hands"][0]["tiles"]
            move = move.replace("<first draw>", tiles[0])
        if seat == 0:  # Blue's own errors are the same too
            bad_moves = ("X@e5", "C@a1", "+e4:n +e5:n") + (("pick K",) if ply > 3 else ())
            for index, bad in enumerate(bad_moves):
                page = index == ply // 2 % len(bad_moves)
                assert refused(client, a, 0, bad, page) == refused(client, b, 0, bad, page)
        blue_a, blue_b = (seen_by(client, game, 0, blue_paths if seat == 0 else ("",),
                                  newest=2) for game in (a, b))
        assert blue_a.keys() == blue_b.keys()
        for key in blue_a:
            assert blue_a[key] == blue_b[key], f"ply {ply}, Blue's {key} differs"
        assert seen_by(client, a, None, newest=2) == seen_by(client, b, None, newest=2), \
            f"ply {ply}: spectator"
        api_move(client, a.apis[seat], move)
        api_move(client, b.apis[seat], move)
    assert seen_by(client, a, 0) == seen_by(client, b, 0)
    assert seen_by(client, a, None) == seen_by(client, b, None)
    emails_a, emails_b = emails_to(app, a, "ann@example.org"), emails_to(app, b, "ann@example.org")
    assert len(emails_a) == 7 and emails_a == emails_b  # started, then each of Blue's turns
    # The games really differ, and Red (who may know) sees it.
    red_a, red_b = client.get(a.apis[1]).json["view"], client.get(b.apis[1]).json["view"]
    assert red_a["hands"][1]["tiles"] != red_b["hands"][1]["tiles"]
    assert seen_by(client, a, 1)["page "] != seen_by(client, b, 1)["page "]
    # Nothing Blue or a spectator received names a hidden tile's code, the deck or the seed.
    final = client.get(a.apis[0]).json
    assert final["view"]["hands"][1]["hidden"] == 4 and final["view"]["hands"][1]["public"] == []
    for text in list(seen_by(client, a, 0).values()) + emails_a:
        assert seed_a not in text and '"seed"' not in text


def test_chat_and_notes_leave_blue_and_spectators_unable_to_tell_reds_draws(app, client,
                                                                          seeded):
    """Both players chat alike in two games that differ only in Red's draws, and Red's
    private notes list its hand: Blue's and the spectators' pages, answers, records,
    emails and webhook posts stay the same, and Red's notes reach nobody but Red."""
    games = [seeded(seed) for seed in _seed_pair()]
    hook = "https://93.184.216.34/hook"  # a public address: no DNS look-up
    for game in games:  # public moves only, as in the test above; then Red has drawn
        assert client.put(f"{game.apis[0]}/webhook", json={"url": hook}).status_code == 200
        for ply, move in enumerate(("pick K", "pick K", "pick D", "pick D", "K@e5 +e4:n",
                                    "K@e6 +e7:s", "D@f5 +f3:w", "D@f6 +h3:e")):
            api_move(client, game.apis[ply % 2], move)
        hand = client.get(game.apis[1]).json["view"]["hands"][1]["tiles"]
        assert client.put(f"{game.apis[1]}/notes", json={"text": f"My hand: {hand}"}) \
            .status_code == 200
        for seat, text in ((1, "Nice draw for me."), (0, "We will see.")):
            assert client.post(f"{game.apis[seat]}/chat", json={"text": text}).status_code == 201
    blue = seen_by(client, games[0], 0)
    assert blue == seen_by(client, games[1], 0)
    assert seen_by(client, games[0], None) == seen_by(client, games[1], None)
    assert emails_to(app, games[0], "ann@example.org") == \
        emails_to(app, games[1], "ann@example.org")
    posts = emails_to(app, games[0], hook)  # the webhook rows: their summary, the JSON body
    assert len(posts) >= 5 and posts == emails_to(app, games[1], hook)
    assert "Nice draw for me." in blue["api"] and "My hand" not in str(blue)
    assert seen_by(client, games[0], 1)["notes"] != seen_by(client, games[1], 1)["notes"]


def test_the_seed_is_exported_once_the_game_is_over(client, seeded):
    game = seeded("exported-seed")
    assert "exported-seed" not in client.get(game.watch + "/record.json").get_data(as_text=True)
    token = game.urls[0].rsplit("/", 1)[1]
    client.post(f"/play/{token}/resign", data={"confirm": "yes", "ply": "0"})
    assert client.get(game.watch + "/record.json").json["seed"] == "exported-seed"


# -- the rules pages ---------------------------------------------------------------------------

def test_rules_in_english_and_russian_with_a_switch(client):
    english = client.get("/rules/magnetic-field").get_data(as_text=True)
    assert '<html lang="en">' in english and "<h1>Magnetic Field</h1>" in english
    assert english == client.get("/rules/magnetic-field?lang=en").get_data(as_text=True)
    for words in ("The draft", "Blue, Red, Blue, Red", "The magnetic reaction", "N end first",
                  "Equal poles repel", "knocked out", "Opposite poles attract",
                  "in this order", "+3 more", "Capture tile", "Domination tile", "Draw",
                  "pass", "Ring-out", "Six passes", "15 points", "What is hidden",
                  "<code>K@e5 D@e6 +e4:n</code>", "<code>pick K</code>", "<code>e4-e7</code>",
                  "<code>e4:w</code>", "seed"):
        assert words in english, words
    russian = client.get("/rules/magnetic-field?lang=ru")
    text = russian.get_data(as_text=True)
    assert russian.status_code == 200 and '<html lang="ru">' in text
    assert "<h1>Магнитное поле</h1>" in text
    for words in ("Выбор плиток", "Магнитная реакция", "отталкиваются", "притягиваются",
                  "выбита", "Ринг", "Шесть пасов", "15 очков", "Что скрыто", "зерно",
                  "<code>+e4:n</code>", "<code>pass</code>"):
        assert words in text, words
    for page, current, other in ((english, "English", "ru"), (text, "Русский", "en")):
        switch = re.search(r'<nav class="languages".*?</nav>', page, re.S)[0]  # every page's
        assert f'href="?lang={other}"' in switch
        assert re.search(rf'aria-current="true" lang="\w+">{current}</span>', switch)
    # a language the site does not speak keeps the one chosen before (the cookie)
    fallback = client.get("/rules/magnetic-field?lang=de").get_data(as_text=True)
    assert '<html lang="ru">' in fallback and "<h1>Магнитное поле</h1>" in fallback
    assert client.get("/rules/magnetic-field?lang=../x").status_code == 200


def test_the_rules_pages_state_the_amended_ring_out_ruling_with_its_diagram(client):
    # The diagram is the case itself, replayed by the engine: Red has only placed a tile,
    # Blue sticks its second figure to its first, and loses (not a 0-0 draw)
    from pbem.web import diagrams

    before, after = diagrams.DIAGRAMS["magnetic-field"]["own-field"].positions(GAME)
    blue, red = before.blue, before.red
    assert before.entered[blue] and not before.entered[red] and before.on_field(blue) == 1
    assert after.scores == (0, 0) and after.on_field(blue) == after.on_field(red) == 0
    assert after.outcome.winners == (red,) and not after.outcome.draw
    english = client.get("/rules/magnetic-field").get_data(as_text=True)
    for words in ("If the opponent has also entered at least one figure during the game and "
                  "has no figure on the field either when such a turn ends, the higher score "
                  "wins, and equal scores are a draw. If the opponent has never entered a "
                  "figure, the scores do not count: the player who emptied their own field "
                  "loses.",
                  "yet this is no draw: Red has never entered a figure, so Blue, who emptied "
                  "its own field, loses."):
        assert words in " ".join(english.split()), words
    russian = client.get("/rules/magnetic-field?lang=ru").get_data(as_text=True)
    for words in ("Если же соперник ещё ни разу не выставлял фигурку, очки не считаются: "
                  "проигрывает тот, кто сам опустошил своё поле.",
                  "но это не ничья: Красные ни разу не выставляли фигурку, поэтому Синие, "
                  "сами опустошившие своё поле, проигрывают."):
        assert words in " ".join(russian.split()), words
    for page, caption in ((english, "yet this is no draw"), (russian, "но это не ничья")):
        figure = next(f for f in page.split('<figure class="diagram">')[1:] if caption in f)
        assert figure.count('class="board magnetic-field field"') == 2  # before and after
        assert "<code>+e2:n</code>" in figure


# -- in a real browser ------------------------------------------------------------------------

@pytest.mark.browser
def test_draft_tile_and_figure_by_clicking_in_chromium(client, seeded, live_server,
                                                       open_context):
    from playwright.sync_api import expect

    game = seeded("browser")
    pages = []
    for url in game.urls:
        page = open_context().new_page()
        page.set_default_timeout(10_000)
        page.goto(live_server + url)
        pages.append(page)
    # the draft: Blue clicks face-up tiles under the field, Red uses the buttons
    for seat, pick in enumerate(PICKS):
        page = pages[seat % 2]
        page.reload()
        if seat % 2:
            page.locator(".builder a.choice",
                         has_text=board.choice_label(f"pick-{pick}")).click()
        else:
            page.locator(f'.board-area a.choice[data-choice="pick-{pick}"]').click()
        expect(page.locator("#confirm-move")).to_have_text(f"Play pick {pick}")
        page.locator("#confirm-move").click()
        expect(page.locator("section.moves")).to_contain_text(f"pick {pick}")
    blue = pages[0]
    blue.reload()
    expect(blue.locator("#status")).to_contain_text("Your turn")
    # a tile from the hand, then its cell
    blue.locator('.board-area a.choice[data-choice="K"]').click()
    expect(blue.locator(".builder")).to_contain_text("K: choose its cell")
    blue.locator('.board-area a.cell[data-cell="e5"]').click()
    expect(blue.locator('[data-cell="e5"] .tile-on-field.pending')).to_have_count(1)
    # a figure: its direction, then its cell
    blue.locator(".builder a.choice", has_text="Enter a figure, N pole ↑ north").click()
    expect(blue.locator(".builder")).to_contain_text("enter facing north")
    blue.locator('.board-area a.cell[data-cell="e4"]').click()
    expect(blue.locator(".mf-preview")).to_contain_text("After this turn")
    expect(blue.locator(".mf-preview")).to_contain_text("Score: Blue 0 – Red 0")
    expect(blue.locator('.board-area [data-cell="e4"] .magnet.blue.pending')).to_have_count(1)
    blue.locator("#confirm-move").click()
    expect(blue.locator(".notice")).to_contain_text("You played K@e5 +e4:n.")
    expect(blue.locator('.board-area [data-cell="e4"] .magnet.blue')).to_have_count(1)
    expect(blue.locator('.board-area [data-cell="e5"] .tile-K')).to_have_count(1)
    assert client.get(game.apis[1]).json["view"]["last_move"]["move"] == "K@e5 +e4:n"


PHONE = {"width": 390, "height": 844}


@pytest.mark.browser
def test_on_a_phone_every_target_is_big_and_the_next_controls_are_on_screen(
        client, seeded, live_server, open_context):
    """At 390×844: no sideways scroll, every link of the drawings at least 40 px square (the
    field pans in its frame instead), and the buttons the player needs next (picks,
    directions, confirm) on screen together with the field, with and without JavaScript."""
    from axe_playwright_python.base import AXE_SCRIPT
    from playwright.sync_api import expect

    game = seeded("phone")

    def open_page(url: str, javascript: bool = True):
        page = open_context(viewport=PHONE, java_script_enabled=javascript).new_page()
        page.goto(live_server + url)
        return page

    def check(page, controls: str) -> None:
        buttons = page.locator(controls)
        expect(buttons.first).to_be_visible()
        fits(page)
        small = page.locator("#game svg a").evaluate_all("""links => links.map(a => {
            const box = a.getBoundingClientRect();
            return [a.dataset.cell || a.dataset.choice, box.width, box.height];
        }).filter(([, width, height]) => width < 40 || height < 40)""")
        assert small == []
        for box in (button.bounding_box() for button in buttons.all()):
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
            assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], box

    # the field pans in its frame: the keyboard reaches the frame, to scroll it, even with
    # nothing to click on the field (axe: scrollable-region-focusable), and the position in
    # words says that the field is still empty, not a grid of dots
    red = open_page(game.urls[1])
    frame = red.locator(".mf-frame")
    expect(frame).to_have_attribute("tabindex", "0")
    expect(frame).to_have_accessible_name("Swipe the board sideways to see all of it")
    red.evaluate(AXE_SCRIPT)
    assert red.evaluate("axe.run(document, {runOnly: ['scrollable-region-focusable']})"
                        ".then(results => results.violations.length)") == 0
    frame.focus()
    red.keyboard.press("ArrowRight")
    expect(frame).not_to_have_js_property("scrollLeft", 0)
    red.get_by_text("The position in words").click()
    words = red.locator("#position-words pre")
    expect(words).to_contain_text("The field is empty.")
    expect(words).not_to_contain_text(" .  . ")

    # the draft, without JavaScript: every click loads a page
    blue = open_page(game.urls[0], javascript=False)
    check(blue, ".builder a.choice")
    blue.locator(".builder a.choice", has_text="Pick Knockout (K)").click()
    check(blue, "#confirm-move")
    blue.locator("#confirm-move").click()
    expect(blue.locator("section.moves")).to_contain_text("pick K")
    for seat, pick in ((1, "K"), (0, "D"), (1, "D")):
        api_move(client, game.apis[seat], f"pick {pick}")

    # a turn, with JavaScript: a tile, then a figure entered by choosing its direction
    blue = open_page(game.urls[0])
    check(blue, '.builder a.choice:has-text("Place a")')  # the hand's tiles, as buttons
    blue.locator(".builder a.choice", has_text="Place a Knockout tile (K)").click()
    expect(blue.locator(".builder")).to_contain_text("K: choose its cell")
    check(blue, ".builder a.cancel")
    frame = blue.locator(".mf-frame")
    assert frame.evaluate("frame => frame.scrollWidth - frame.clientWidth") > 0  # it pans
    frame.evaluate("frame => { frame.scrollLeft = 30; }")
    blue.locator('.board-area a.cell[data-cell="e5"]').click()
    expect(blue.locator(".builder")).to_contain_text("Selected: K on e5")
    assert frame.evaluate("frame => frame.scrollLeft") == 30  # where the player left it
    blue.locator('.board-area a.cell[data-cell="e4"]').click()
    expect(blue.locator(".builder")).to_contain_text("enter on e4: choose its direction")
    check(blue, ".builder a.choice")  # the four directions
    blue.locator(".builder a.choice", has_text="N pole ↑ north").click()
    expect(blue.locator("#confirm-move")).to_have_text("Play K@e5 +e4:n")
    expect(blue.locator('.board-area svg.field [data-cell="e4"] .magnet.blue.pending')) \
        .to_have_count(1)
    check(blue, "#confirm-move")
    blue.locator("#confirm-move").click()
    expect(blue.locator(".notice")).to_contain_text("You played K@e5 +e4:n.")
    api_move(client, game.apis[1], "K@e6 +e7:s")

    # the next turn: a tile, then one of Blue's figures turned
    blue.reload()
    blue.locator(".builder a.choice", has_text="Place a Domination tile (D)").click()
    expect(blue.locator(".builder")).to_contain_text("D: choose its cell")
    blue.locator('.board-area a.cell[data-cell="f5"]').click()
    expect(blue.locator(".builder")).to_contain_text("Selected: D on f5")
    blue.locator('.board-area a.cell[data-cell="e4"]').click()
    expect(blue.locator(".builder")).to_contain_text("your figure on e4")
    check(blue, ".builder a.choice")  # the directions it may turn to
    blue.locator(".builder a.choice", has_text="N pole ← west").click()
    expect(blue.locator("#confirm-move")).to_have_text("Play D@f5 e4:w")
    check(blue, "#confirm-move")
    blue.locator("#confirm-move").click()
    expect(blue.locator(".notice")).to_contain_text("You played D@f5 e4:w.")
    api_move(client, game.apis[1], "e7:e")
    api_move(client, game.apis[0], "e4:n")

    # Red, and a spectator, see Blue's three face-down tiles side by side, and their number
    for url in (game.urls[1], game.watch):
        page = open_page(url)
        hand = page.locator('svg.panel g.player[data-seat="0"]')
        expect(hand.locator(".hand-count")).to_have_text("3 tiles in hand, face down")
        backs = [tile.bounding_box() for tile in hand.locator(".hand-tile.hidden").all()]
        assert len(backs) == 3
        assert all(a["x"] + a["width"] <= b["x"] for a, b in zip(backs, backs[1:]))
        fits(page)
        # the move list: no entry (with its number, left of it) overlaps another
        items = page.locator("section.moves li").evaluate_all(
            "items => items.map(li => { const b = li.getBoundingClientRect();"
            " return [b.left - 32, b.right, b.top, b.bottom]; })")
        assert len(items) == 9
        for i, (left, right, top, bottom) in enumerate(items):
            for other_left, other_right, other_top, other_bottom in items[i + 1:]:
                assert not (left < other_right and other_left < right
                            and top < other_bottom and other_top < bottom), items
