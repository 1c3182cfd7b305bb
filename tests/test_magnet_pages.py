"""Magnet on the web: the hexagonal board's SVG (91 vertices, pieces by owner, rank and
value, hidden values marked as unknown), the secret setup builder (piece type then vertex,
random arrangements, the waiting page), the turn builder (magnet, affected pieces and their
paths, order, promotions), typed notation, history pages that reveal everything once the game
is over, hidden information over every channel a player or spectator receives, and both
setups and a turn in headless Chromium."""
from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from email.message import EmailMessage

import pytest

import engine
from engine import magnet as M
from pbem.boards import magnet as board
from pbem.mail import inbound
from pbem.store.db import connect

from helpers import (api_move, builds, cell_markup, confirm_move, emails_to, fits, links_in,
                     refused, seen_by, svg_of)

# What is checked is what is drawn and said, and that two games differing in a secret look
# the same (rendering, not storage): one engine.
pytestmark = pytest.mark.one_database

GAME = engine.get("magnet")
RED, BLUE = 0, 1
HOOK = "https://93.184.216.34/hook"  # a webhook at a public address: no DNS look-up
CANON = {RED: GAME.setup_text(RED, M.SET), BLUE: GAME.setup_text(BLUE, M.SET)}


# -- helpers -------------------------------------------------------------------------------

def position(pieces: dict[str, str], to_move: int = RED, turn: int = 1) -> M.MagnetState:
    """A position in play; ``pieces``: vertex -> owner letter, code, optional rank ("R3/2")."""
    cells = [0] * 91
    for name, spec in pieces.items():
        code, _, rank = spec[1:].partition("/")
        cells[M.INDEX[name]] = M._piece("RB".index(spec[0]), M._CODE_KIND[code.lower()],
                                        int(rank or 1))
    cells = tuple(cells)
    return M.MagnetState(players=2, options={"random_setup": False}, board=cells,
                         arrangements=(M.SET, M.SET), turn=turn, to_move=(to_move,),
                         seen={(M.public_board(cells), to_move): 1})


def vertex_markup(svg: str, name: str) -> str:
    return cell_markup(svg, name, until=('<line class="path preview',))


def pieces_in(svg: str) -> dict[str, tuple[str, str, str]]:
    """vertex -> (owner, rank, value shown) of every piece drawn on the board."""
    found = {}
    for name in M.NAMES:
        match = re.search(r'<g class="piece [^"]*"[^>]* data-owner="(\d)" data-rank="(\d)" '
                          r'data-value="([^"]+)"', vertex_markup(svg, name))
        if match:
            found[name] = match.groups()
    return found






def token_of(url: str) -> str:
    return url.rsplit("/", 1)[1]




def post_move(client, url: str, move: str, ply: int, **kwargs):
    return client.post(f"/play/{token_of(url)}/move", data={"move": move, "ply": str(ply)},
                       **kwargs)


@pytest.fixture
def seeded(seeded_game):
    """``seeded(seed, options)`` → a new Magnet game whose secret seed is ``seed``."""
    return lambda seed="s", options=None: seeded_game("magnet", seed, options)


# -- the interface and the drawing -------------------------------------------------------------

def test_the_board_speaks_the_notation():
    assert board.click_path("f6:f3+,d4") == ("f6", "f3", "d4", "f3+")
    assert board.click_path("setup b1=K c1=T2") == ("K", "b1", "T2", "c1")
    assert board.is_cell("f6") and board.is_cell("k6") and not board.is_cell("k7")
    assert not board.is_cell("T2") and not board.is_cell("2") and not board.is_cell("f3+")
    assert board.choice_label("K") == "King (K)" and board.choice_label("T2") == "Trap T2"
    assert board.choice_label("3") == "Piece of value 3"
    assert board.choice_label("random") == "Random arrangement"
    assert board.choice_label("d4+") == "☐ Promote d4"
    assert board.choice_label("d4-").startswith("☑ Promote d4")
    assert board.move_cells("f6:f3+,d4") == {"f6", "f3", "d4"}
    assert board.move_cells(CANON[RED]) == set()


def test_svg_has_91_vertices_on_the_lattice_and_hides_blues_values_from_red(app):
    state = GAME.start(2, {"random_setup": True}, "drawn")
    svg = svg_of(app, GAME, state, RED)
    assert svg.startswith("<svg") and 'class="board magnet"' in svg
    assert len(re.findall(r'class="cell" data-cell="[a-k]\d+"', svg)) == 91
    assert set(re.findall(r'data-cell="([a-k]\d+)"', svg)) == set(M.NAMES)
    lattice = re.search(r'<path class="lattice" d="([^"]+)"', svg)[1]
    assert lattice.count("M") == 33  # 11 lines in each of the 3 directions
    assert svg.count('class="centre-star"') == 1
    assert len(re.findall(r'class="start start0"', svg)) == 12
    assert len(re.findall(r'class="start start1"', svg)) == 12
    drawn = pieces_in(svg)
    assert len(drawn) == 24
    view = GAME.view(state, RED)
    for name, (owner, rank, value) in drawn.items():
        assert int(owner) == view["pieces"][name]["owner"] and rank == "1"
        assert value == (view["pieces"][name]["piece"] if owner == "0" else "?")
    # Blue's pieces: hexagonal, on a pale dashed face with "?"; Red's: round, by value
    blue_piece = vertex_markup(svg, "b1")
    assert 'class="piece blue unknown"' in blue_piece and "<polygon class=\"body\"" in blue_piece
    assert '<text class="value" dy="0.36em">?</text>' in blue_piece
    assert "Blue piece, rank 1, value unknown" in blue_piece
    king = next(n for n, p in view["pieces"].items() if p.get("piece") == "K")
    assert 'class="piece red king"' in vertex_markup(svg, king)
    assert "<circle class=\"body\"" in vertex_markup(svg, king)
    assert len(re.findall(r'class="piece red trap"', svg)) == 2
    assert re.search(r'<g class="rank">.*?>1</text></g>', blue_piece)  # the rank, public
    # Blue sees the mirror image; a spectator sees no value at all
    assert {v for o, _, v in pieces_in(svg_of(app, GAME, state, BLUE)).values() if o == "0"} == {"?"}
    assert {v for _, _, v in pieces_in(svg_of(app, GAME, state, None)).values()} == {"?"}
    assert "Turn 1: Red to move (the opening turn: one piece moves)" in svg


def test_last_turn_paths_captures_and_losses_are_drawn(app):
    state = position({"b7": "RK", "j3": "BK", "f3": "R4/3", "f4": "BT2", "f5": "B3/2",
                      "e6": "R2"})
    after = GAME.apply(state, RED, "f6:f3+,e6")
    red, blue = svg_of(app, GAME, after, RED), svg_of(app, GAME, after, BLUE)
    for svg in (red, blue):
        assert 'class="magnet-ring last"' in vertex_markup(svg, "f6")
        assert 'class="horseshoe last"' in vertex_markup(svg, "f6")
        assert re.search(r'<line class="path trail"[^>]*><title>last turn: f3 → f6</title>', svg)
        assert 'class="destroyed"' in vertex_markup(svg, "f6")
        assert 'class="took"' in vertex_markup(svg, "f4")
        assert "Last turn, Red: magnet on f6; f3 → f6 took f4, f5 and was" in svg
        assert "destroyed by a trap; e6 → f6" in svg  # f6 was free again for e6
        # captured values are public: Blue's T2 and 3 for both players
        lost = re.search(r'Blue lost:.*?(?=Red lost:|</g>\s*</svg>)', svg, re.S)[0]
        assert re.findall(r'data-value="([^"]+)"', lost) == ["T2", "3"]
    # the piece the trap destroyed: its value only for its owner
    red_lost = re.search(r"Red lost:.*", red, re.S)[0]
    blue_sees = re.search(r"Red lost:.*", blue, re.S)[0]
    assert 'data-rank="3" data-value="4"' in red_lost and 'data-value="?"' in blue_sees
    assert 'class="lost destroyed"' in red_lost


# -- the layout: each player's way up, marks that cover nothing ------------------------------

def piece_positions(svg: str) -> dict[str, tuple[float, float, int]]:
    """vertex -> (x, y, owner) of every piece drawn on the board."""
    owners = pieces_in(svg)
    return {name: (x, y, int(owners[name][0])) for name, x, y, *_ in layout(svg)["bodies"]}


def dot(svg: str, name: str) -> tuple[float, float]:
    match = re.search(r'class="dot" cx="([-\d.]+)" cy="([-\d.]+)"', vertex_markup(svg, name))
    return float(match[1]), float(match[2])


def label_at(svg: str, text: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in re.findall(
        rf'<text class="coord" x="([-\d.]+)" y="([-\d.]+)"[^>]*>{text}</text>', svg)]


def bottom_side(svg: str) -> int:
    """The owner whose pieces are drawn lower on the board, on average (the start vertices
    are on three sides each: Red's left and upper sides, Blue's lower and right sides)."""
    heights: dict[int, list[float]] = {0: [], 1: []}
    for _, y, owner in piece_positions(svg).values():
        heights[owner].append(y)
    return max(heights, key=lambda owner: sum(heights[owner]) / len(heights[owner]))


def test_each_player_sees_their_own_pieces_at_the_bottom(app):
    state = GAME.start(2, {"random_setup": True}, "turned")
    red, blue, spectator = (svg_of(app, GAME, state, seat) for seat in (RED, BLUE, None))
    assert bottom_side(red) == RED and bottom_side(blue) == BLUE
    assert bottom_side(spectator) == BLUE  # Red's start vertices on the upper sides
    assert red != blue.replace('data-value="?"', "")  # a turned board, not a copy
    # turned round the centre: a2 and k5 trade places, the coordinates go with the vertices
    assert piece_positions(red)["a2"][:2] == piece_positions(spectator)["k5"][:2]
    for svg, below in ((red, False), (spectator, True)):
        (x, y), = label_at(svg, "a")
        assert x == dot(svg, "a1")[0] and (y > dot(svg, "a1")[1]) == below
        (a6_x, a6_y), = [dot(svg, "a6")]
        (beside_a6, _), = [(lx, ly) for lx, ly in label_at(svg, "6")
                           if abs(ly - a6_y) <= 4 and abs(lx - a6_x) < 25]
        assert (beside_a6 > a6_x) == below  # inside file a: its left for Red
    # the last turn's arrow turns with the board
    after = GAME.apply(position({"b7": "RK", "j3": "BK", "f3": "R4/3", "e6": "R2"}), RED,
                       "f6:f3,e6")
    trail = r'<line class="path trail" x1="([-\d.]+)" y1="([-\d.]+)" x2="([-\d.]+)" y2="([-\d.]+)"'
    y1, y2 = (float(v) for v in re.search(trail, svg_of(app, GAME, after, RED)).group(2, 4))
    assert y2 > y1  # f3 → f6 runs down the page for Red, who sees f1 at the top
    y1, y2 = (float(v) for v in re.search(trail, svg_of(app, GAME, after, BLUE)).group(2, 4))
    assert y2 < y1


SVG = "{http://www.w3.org/2000/svg}"
# The rings round a vertex, and the width of their lines (static/style.css)
RINGS = {"target": 3, "target faint": 3, "affected": 2, "capture": 3, "magnet-ring last": 3,
         "magnet-ring pending": 4}
OUTLINE = 0.8      # half the width of a piece's outline
LABEL_FONT = 11    # the coordinates' font size, in the board's units


def layout(svg: str) -> dict[str, list]:
    """What the board draws round its vertices, in its own units and drawing order: every
    piece body and every mark on or by a piece (rank badge, order number, promotion mark,
    horseshoe, cross of a capture) as a circle (vertex, x, y, r, order), every ring (vertex,
    x, y, outer radius, order) and every coordinate as a box (x, y, half width, half height,
    order). ``svg`` may be a whole page."""
    root = ET.fromstring(re.search(r"<svg .*</svg>", svg, re.S)[0])
    found = {"bodies": [], "marks": [], "rings": [], "labels": []}
    order = {element: k for k, element in enumerate(root.iter())}

    def at(element):
        x, y, scale = re.fullmatch(r"translate\(([-\d.]+) ([-\d.]+)\)(?: scale\(([\d.]+)\))?",
                                   element.get("transform")).groups()
        return float(x), float(y), float(scale or 1)

    for cell in root.iter():
        if cell.get("class") != "cell":
            continue
        name = cell.get("data-cell")
        for element in cell.iter():
            cls, k = element.get("class") or "", order[element]
            if element.tag == SVG + "circle" and cls in RINGS:
                found["rings"].append((name, float(element.get("cx")), float(element.get("cy")),
                                       float(element.get("r")) + RINGS[cls] / 2, k))
            elif cls.startswith("piece "):
                x, y, _ = at(element)
                found["bodies"].append((name, x, y, board.PIECE + OUTLINE, k))
                badge = element.find(f"{SVG}g[@class='rank']/{SVG}circle")
                found["marks"].append((name, x + float(badge.get("cx")),
                                       y + float(badge.get("cy")), float(badge.get("r")), k))
            elif cls in ("order", "promote"):
                circle = element.find(f"{SVG}circle")
                found["marks"].append((name, float(circle.get("cx")), float(circle.get("cy")),
                                       float(circle.get("r")), k))
            elif cls.startswith("horseshoe"):
                x, y, scale = at(element)
                found["marks"].append((name, x, y, 9 * scale, k))
            elif cls == "took":
                x, y = (float(v) for v in re.match(r"M([-\d.]+) ([-\d.]+)", element.get("d"))
                        .groups())
                found["marks"].append((name, x + 4, y + 4, 5.7, k))
    for text in root.iter(f"{SVG}text"):
        if text.get("class") == "coord":
            found["labels"].append((float(text.get("x")), float(text.get("y")),
                                    0.3 * LABEL_FONT * len(text.text), 4, order[text]))
    return found


def overlapping(svg: str) -> list[str]:
    """Where marks, rings, pieces and coordinates cover one another."""
    drawn, found = layout(svg), []
    marks = drawn["marks"]
    for i, (v, x, y, r, _) in enumerate(marks):
        for w, x2, y2, r2, _ in marks[i + 1:]:
            if math.dist((x, y), (x2, y2)) < r + r2:
                found.append(f"a mark of {v} and one of {w}")
        for w, x2, y2, outer, _ in drawn["rings"]:
            if w != v and math.dist((x, y), (x2, y2)) < outer + r:
                found.append(f"a mark of {v} under the ring of {w}")
        for w, x2, y2, r2, _ in drawn["bodies"]:  # Blue's hexagons reach 1.5 further
            if w != v and math.dist((x, y), (x2, y2)) < r + r2 + 1.5:
                found.append(f"a mark of {v} on the piece of {w}")
    for v, _, _, _, k in drawn["rings"]:  # a piece and its marks are drawn over its rings
        assert all(k < k2 for w, *_, k2 in drawn["bodies"] + marks if w == v), v
    for x, y, half_width, half_height, k in drawn["labels"]:
        for v, x2, y2, r, _ in drawn["bodies"] + marks:
            nearest = (min(max(x2, x - half_width), x + half_width),
                       min(max(y2, y - half_height), y + half_height))
            if math.dist(nearest, (x2, y2)) < r:
                found.append(f"the coordinate at {x}, {y} and {v}")
        assert all(k > k2 for *_, k2 in drawn["rings"]), "a coordinate under a ring"
    return found


def test_marks_round_the_pieces_and_the_coordinates_cover_nothing(app):
    crowded = position(ORDERED | {"a5": "R2/2", "a4": "R3", "b6": "B2", "k5": "B2", "k4": "B3",
                                  "g9": "R2", "b2": "B4/2"})
    after = GAME.apply(position({"b7": "RK", "j3": "BK", "f3": "R4/3", "f4": "BT2",
                                 "f5": "B3/2", "e6": "R2", "a2": "R2", "k1": "B2"}),
                       RED, "f6:f3+,e6")
    opening = GAME.apply(GAME.apply(GAME.start(2, {}, "o"), RED, CANON[RED]), BLUE,
                         CANON[BLUE])
    with app.test_request_context():
        setup = board.build(GAME, GAME.start(2, {}, "s"), RED, ("random",))
    cases = [(crowded, RED, ("f6", "c3", "c3+")), (crowded, RED, ("a6",)),
             (after, BLUE, ()), (after, RED, ()), (opening, RED, ("b3", "a3", "a3+")),
             (opening, RED, ("b3",)), (opening, None, ())]
    for state, seat, clicks in cases:
        for viewer in {seat, None}:
            overlay, targets = {}, {}
            if clicks and viewer is not None:
                built = builds(app, GAME, state, viewer, *clicks)
                overlay = built.overlay
                targets = {t: "#" for t in built.cells + built.choices}
            with app.test_request_context():
                svg = str(board.render({**GAME.view(state, viewer), **overlay}, seat=viewer,
                                       targets=targets))
            assert not overlapping(svg), (clicks, viewer, overlapping(svg))
    with app.test_request_context():
        svg = str(board.render({**GAME.view(GAME.start(2, {}, "s"), RED), **setup.overlay},
                               seat=RED, targets={t: "#" for t in setup.cells + setup.choices}))
    assert len(layout(svg)["bodies"]) == 12 and not overlapping(svg)
    # the test sees every mark: a rank badge per piece, then the order and the promotion
    pieces = len(crowded.board) - crowded.board.count(0)
    assert len(layout(svg_of(app, GAME, crowded, RED))["marks"]) == pieces
    built = builds(app, GAME, crowded, RED, "f6", "c3", "c3+")
    with app.test_request_context():
        svg = str(board.render({**GAME.view(crowded, RED), **built.overlay}, seat=RED))
    assert len(layout(svg)["marks"]) == pieces + 4 + 1 + 1  # and the magnet's horseshoe


def test_links_and_words_from_the_view_go_into_the_drawing_escaped(app):
    """The drawing is built as strings: every link and every word from the view is escaped
    where it goes in (a link's & and quotes, a tooltip's apostrophe, markup in a value)."""
    link, escaped = "/play/t?path=3&x=\"<b>'", "/play/t?path=3&amp;x=&#34;&lt;b&gt;&#39;"
    start = GAME.start(2, {}, "s")
    setup = builds(app, GAME, start, RED, "K", "a2", "T2")
    with app.test_request_context():
        svg = str(board.render({**GAME.view(start, RED), **setup.overlay}, seat=RED,
                               targets={t: link for t in setup.cells + setup.choices}))
    assert f'<a href="{escaped}" class="cell" data-cell="a3" data-drop="1">' in svg
    assert f'<a href="{escaped}" class="choice tray-piece" data-choice="3"' in svg
    assert "<title>a3: Red start vertex</title>" in svg and "<b>" not in svg
    state = position({"b7": "RK", "j3": "BK", "f3": "R4/3", "f4": "BT2", "f5": "B3/2",
                      "e6": "R2"})
    view = GAME.view(GAME.apply(state, RED, "f6:f3+,e6"), BLUE)
    view["pieces"]["b7"]["rank"] = "<i>1</i>"
    view["captured"][0]["vertex"] = "<i>f4</i>"
    with app.test_request_context():
        svg = str(board.render(view, seat=BLUE, targets={"f6": link}))
    assert "<i>" not in svg and "<b>" not in svg
    b7 = vertex_markup(svg, "b7")
    assert 'data-rank="&lt;i&gt;1&lt;/i&gt;"' in b7
    assert "<title>b7: Red piece, rank &lt;i&gt;1&lt;/i&gt;, value unknown</title>" in b7
    assert "captured on &lt;i&gt;f4&lt;/i&gt; (turn 2)" in svg
    f6 = vertex_markup(svg, "f6")
    assert f6.startswith(f'<a href="{escaped}" class="cell" data-cell="f6">')
    assert "the last turn&#39;s magnet</title>" in f6


# -- emails: the board as text -------------------------------------------------------------------

def height_of(text: str, pattern: str) -> float:
    """The mean line of the diagram (above the first blank line) on which ``pattern`` is
    found, counting each time it is."""
    found = [k for k, line in enumerate(text.split("\n\n")[0].splitlines())
             for _ in re.finditer(pattern, line)]
    return sum(found) / len(found)


def test_email_text_shows_the_board_as_the_reader_may_know_it_and_sees_it():
    state = GAME.start(2, {"random_setup": True}, "mail")
    red = board.text(GAME.view(state, RED), RED)
    diagram = red.split("\n\n")[0]
    assert diagram.count("B?(1)") == 12 and "RK(1)" in diagram and diagram.count("*") == 1
    assert "R?" not in diagram and "B?(2) is a Blue piece of rank 2" in red  # the legend
    # Red's page is turned round: so is its text, Red's pieces below the centre
    assert height_of(red, r"R\w+\(") > height_of(red, r"\*") > height_of(red, r"B\?")
    lines, words = red.splitlines(), " ".join(red.split())
    assert lines[0].split() == list("kjihgfedcba") and "at the top of each file" in words
    assert "Your pieces start at the bottom" in words
    blue = board.text(GAME.view(state, BLUE), BLUE)
    assert height_of(blue, r"B\w+\(") > height_of(blue, r"\*") > height_of(blue, r"R\?")
    assert blue.splitlines()[0].split() == list("abcdefghijk")
    assert blue.count("R?(1)") == 12 and "BK(1)" in blue
    spectator = board.text(GAME.view(state, None), None)
    assert spectator.count("R?(1)") == 12 and spectator.count("B?(1)") == 12
    assert "Red starts at the top, Blue at the bottom." in spectator
    # the ranks at the edges, as on the page: for Red, k2 on the left and a2 on the right
    rank2 = next(line for line in lines if line.endswith(" 2"))
    assert re.fullmatch(r" +2 B\?\(1\)[ .]+R\w+\(1\) +2", rank2), rank2
    assert max(map(len, lines)) <= 76 and all(line.isprintable() for line in lines)


def test_start_email_shows_the_start_vertices_to_set_up(app, client, seeded):
    game = seeded("start-mail")
    email = emails_to(app, game, "ann@example.org")[0]
    diagram = email.split("It is your turn.\n\n")[1].split("\n\n")[0]
    marks = re.findall(r"(?<!\S)([rb.*])(?!\S)", "\n".join(diagram.splitlines()[1:-1]))
    assert marks.count("r") == 12 and marks.count("b") == 12 and marks.count("*") == 1
    assert marks.count(".") == 91 - 25
    assert height_of(diagram, r" r\b") > height_of(diagram, r"\*") > height_of(diagram, r" b\b")
    assert "r and b: Red's and Blue's start vertices" in email


# -- setup -------------------------------------------------------------------------------------

def test_setup_by_clicks_random_and_the_waiting_page(client, seeded):
    game = seeded("setup")
    page = client.get(game.urls[RED]).get_data(as_text=True)
    assert "<strong>Your turn.</strong>" in page and "Arrange your 12 pieces" in page
    assert re.search(r'<a href="[^"]*" class="choice tray-piece" data-choice="K"', page)
    assert "K ×1" in page and "2 ×3" in page and confirm_move(page) is None
    # Red: a piece type, then a start vertex, twelve times (the table's order, so the
    # result is the canonical setup)
    for vertex, code in zip(M.START_NAMES[RED].split(), (M.CODES[k] for k in M.SET)):
        page = client.get(links_in(page)[code]).get_data(as_text=True)
        assert "holding your" in page
        targets = set(re.findall(r'<a href="[^"]*" class="cell" data-cell="(\w+)"', page))
        assert targets == set(M.START_NAMES[RED].split())  # only Red's start vertices
        page = client.get(links_in(page)[vertex]).get_data(as_text=True)
        assert f'data-value="{code}"' in vertex_markup(page, vertex)
        assert "class=\"piece red" in vertex_markup(page, vertex)
    assert "K ×0" in page and "4 ×0" in page and "all 12 pieces placed" in page
    assert confirm_move(page) == CANON[RED]
    # a placed piece can be picked up and put elsewhere (the other piece goes to the tray)
    moved = client.get(links_in(page)["a2"]).get_data(as_text=True)  # pick up the king
    assert confirm_move(moved) is None and "K ×1" in moved and "holding your king" in moved
    assert re.search(r'data-choice="K"[^>]*><title>[^<]*</title>\s*<circle class="hit"[^>]*/>'
                     r'<circle class="selected"', moved)  # the tray shows it in hand
    moved = client.get(links_in(moved)["j7"]).get_data(as_text=True)  # onto the 4 of j7
    assert "4 ×1" in moved and 'data-value="K"' in vertex_markup(moved, "j7")
    moved = client.get(links_in(moved)["4"]).get_data(as_text=True)
    moved = client.get(links_in(moved)["a2"]).get_data(as_text=True)
    assert confirm_move(moved) == CANON[RED].replace("a2=K", "a2=4").replace("j7=4", "j7=K")
    # confirm the canonical one
    response = post_move(client, game.urls[RED], CANON[RED], 0, follow_redirects=True)
    page = response.get_data(as_text=True)
    assert f"You played {CANON[RED]}." in page
    assert 'class="builder"' not in page and "Waiting for the opponent&#39;s setup." in page
    assert "Waiting for Bob (Blue)." in page
    assert pieces_in(page)["a2"] == ("0", "1", "K")
    # Blue sees that Red has set up, but nothing of it; then takes a random arrangement
    page = client.get(game.urls[BLUE]).get_data(as_text=True)
    assert "Red has set up; now arrange your pieces." in page
    assert {v for o, _, v in pieces_in(page).values() if o == "0"} == {"?"}
    assert "<li><a href" in page and "</span> setup</a> <small>" in page  # Red's move, hidden
    assert "a2=K" not in page
    page = client.get(links_in(page)["random"]).get_data(as_text=True)
    move = confirm_move(page)
    assert move and move.startswith("setup b1=") and len(move.split()) == 13
    assert GAME.parse_setup(BLUE, move)  # a valid arrangement
    # a partial arrangement can be completed at random
    partial = client.get(game.urls[BLUE] + "?path=K.k5.T2.b1").get_data(as_text=True)
    filled = confirm_move(client.get(links_in(partial)["fill"]).get_data(as_text=True))
    assert "k5=K" in filled and "b1=T2" in filled
    response = post_move(client, game.urls[BLUE], move, 1)
    assert response.status_code == 303
    state = client.get(game.apis[RED]).json
    assert state["view"]["phase"] == "play" and state["to_move"] == [RED]
    assert all("piece" not in p for p in state["view"]["pieces"].values() if p["owner"] == BLUE)


def test_either_side_may_set_up_first_and_a_stale_path_starts_over(client, seeded):
    game = seeded("either")
    api_move(client, game.apis[BLUE], CANON[BLUE])
    page = client.get(game.urls[BLUE]).get_data(as_text=True)
    assert "Waiting for the opponent&#39;s setup." in page and 'class="builder"' not in page
    page = client.get(game.urls[RED] + "?path=K.b1.nonsense").get_data(as_text=True)
    assert "Arrange your 12 pieces" in page and 'data-pending' not in page
    assert "Blue has set up; now arrange your pieces." in page
    watch = client.get(game.watch).get_data(as_text=True)
    assert "Setup (secret) — Red: arranging · Blue: set up" in watch
    assert {v for _, _, v in pieces_in(watch).values()} == {"?"}


def test_the_setup_page_lists_no_legal_moves(client, seeded):
    game = seeded("no-list")
    page = client.get(game.urls[RED]).get_data(as_text=True)
    # the list would hold one arrangement of the many: it says nothing while setting up
    assert "All legal moves" not in page and "Too many legal moves" not in page
    assert "<option value=" not in page and 'id="move-input"' in page  # typing still works
    api_move(client, game.apis[RED], CANON[RED])
    api_move(client, game.apis[BLUE], CANON[BLUE])
    page = client.get(game.urls[RED]).get_data(as_text=True)
    legal = client.get(game.apis[RED]).json["legal_moves"]
    assert f"All legal moves ({len(legal)})" in page and f'<option value="{legal[0]}">' in page


def test_the_setup_typed_as_text_works_too(client, seeded):
    game = seeded("typed-setup")
    response = post_move(client, game.urls[RED], "setup j7=4 i8=4 h9=4 g10=3 e10=3 d9=3 "
                         "c8=2 b7=2 a5=2 a4=t3 a3=t2 a2=k", 0, follow_redirects=True)
    assert f"You played {CANON[RED]}." in response.get_data(as_text=True)
    response = post_move(client, game.urls[BLUE], "setup b1=K", 1)
    text = response.get_data(as_text=True)
    assert response.status_code == 422 and "Every start vertex needs a piece" in text
    assert 'value="setup b1=K"' in text  # the typed text is kept


# -- the turn builder -----------------------------------------------------------------------------

# f4 and c3 both reach f6 (the first there takes it, the other stops short); h4 and f9 do not.
ORDERED = {"b7": "RK", "j3": "BK", "f4": "R3/2", "c3": "R4/3", "h4": "R2", "f9": "R2",
           "e5": "B2", "g5": "B3"}


def test_turn_builder_magnet_then_order_then_promotions(app):
    state = position(ORDERED)
    first = builds(app, GAME, state, RED)
    assert first.path == () and "f6" in first.cells and first.complete is None
    assert set(first.cells) == {m.split(":")[0] for m in GAME.legal_moves(state, RED)}
    after_magnet = builds(app, GAME, state, RED, "f6")
    assert after_magnet.complete is None
    assert "The order of c3, f4 matters here (the first to reach f6" in after_magnet.hint
    assert after_magnet.cells == ("c3", "f4")  # h4 and f9 never meet them
    assert M.order_pieces(state, RED, "f6") == ["c3", "f4"]
    preview = after_magnet.overlay["mg_turn"]["preview"]
    assert preview == M.path_preview(state, RED, "f6")
    assert preview["c3"]["captures"] == ["e5"] and preview["f4"]["reaches"]
    note = str(after_magnet.note)
    assert "<strong>c3</strong> (your piece of value 4, rank 3): c3 → d4 → e5 → f6" in note
    assert "capturing e5 (Blue&#39;s piece of rank 1, value unknown)" in note
    assert "may be a trap" in note
    # c3 first: f4 follows by itself, h4 and f9 go where the legal list puts them
    step = builds(app, GAME, state, RED, "f6", "c3")
    assert step.complete == "f6:c3,f4,f9,h4" and step.complete in GAME.legal_moves(state, RED)
    assert step.overlay["mg_turn"]["order"] == ["c3", "f4", "f9", "h4"]
    assert builds(app, GAME, state, RED, "f6", "f4").complete == "f6:f4,c3,f9,h4"
    assert "stops one vertex short of f6" in str(step.note)
    # promotions: those the rules allow in this order (as in the legal list's move for it)
    allowed = {c[:-1] for c in step.choices}
    assert allowed == {p.rstrip("+") for m in GAME.legal_moves(state, RED)
                       if m.replace("+", "").startswith("f6:c3,f4,")
                       for p in m.split(":")[1].split(",") if p.endswith("+")}
    assert "c3+" in step.choices
    ticked = builds(app, GAME, state, RED, "f6", "c3", "c3+")
    assert ticked.complete == "f6:c3+,f4,f9,h4" and "c3-" in ticked.choices
    assert ticked.path == ("f6", "c3", "c3+")
    unticked = builds(app, GAME, state, RED, *ticked.path, "c3-")
    assert unticked.complete == "f6:c3,f4,f9,h4"
    assert GAME.apply(state, RED, ticked.complete)  # legal
    # another vertex moves the magnet; nonsense starts over at the magnet
    assert builds(app, GAME, state, RED, "f6", "c3", "e6").path[0] == "e6"
    assert builds(app, GAME, state, RED, "f6", "zz").path == ("f6",)
    assert builds(app, GAME, state, RED, "q9").path == ()


def test_turn_builder_when_the_order_does_not_matter_and_on_the_opening(app):
    state = position({"b7": "RK", "j3": "BK", "f3": "R4/2", "d4": "R2"})
    one = builds(app, GAME, state, RED, "f6")
    moves = [m for m in GAME.legal_moves(state, RED) if m.startswith("f6:")]
    assert len({m.replace("+", "") for m in moves}) == 1
    assert one.complete == moves[0] and one.cells and "f6" not in one.cells
    assert set(one.choices) == {"f3+", "d4+"}
    both = builds(app, GAME, state, RED, "f6", "f3+", "d4+")
    assert both.complete.count("+") == 2 and both.complete in moves
    opening = GAME.apply(GAME.apply(GAME.start(2, {}, "o"), RED, CANON[RED]), BLUE, CANON[BLUE])
    choose = builds(app, GAME, opening, RED, "b3")
    assert "exactly one piece moves" in choose.hint
    assert set(choose.cells) == {"a2", "a3", "b7", "j7"}
    picked = builds(app, GAME, opening, RED, "b3", "a3")
    assert picked.complete == "b3:a3" and picked.choices == ("a3+",)
    assert builds(app, GAME, opening, RED, "b3", "a2").choices == ()  # the king never promotes


def test_a_whole_turn_through_the_pages(client, seeded):
    game = seeded("turns")
    api_move(client, game.apis[RED], CANON[RED])
    api_move(client, game.apis[BLUE], CANON[BLUE])
    # the opening: the magnet on b3, then the piece, then its promotion
    page = client.get(game.urls[RED]).get_data(as_text=True)
    assert "Click a vertex to place the magnet" in page
    page = client.get(links_in(page)["b3"]).get_data(as_text=True)
    assert 'class="magnet-ring pending"' in vertex_markup(page, "b3")
    assert all('class="affected"' in vertex_markup(page, v) for v in ("a2", "a3", "b7", "j7"))
    assert len(re.findall(r'<line class="path preview"', page)) == 4
    assert "A magnet on b3 pulls 4 of your pieces" in page
    page = client.get(links_in(page)["a3"]).get_data(as_text=True)
    assert confirm_move(page) == "b3:a3" and "☐ Promote a3" in page
    page = client.get(links_in(page)["a3+"]).get_data(as_text=True)
    assert confirm_move(page) == "b3:a3+" and 'id="confirm-move">Play b3:a3+</button>' in page
    assert post_move(client, game.urls[RED], "b3:a3+", 2).status_code == 303
    assert client.get(game.apis[BLUE]).json["view"]["pieces"]["b3"] == {"owner": 0, "rank": 2}
    api_move(client, game.apis[BLUE], "a1:b1")
    # Red's second turn: a5 and b7 both reach a6; b7 first, promoted
    page = client.get(game.urls[RED] + "?path=a6").get_data(as_text=True)
    assert "The order of a5, b7 matters here" in page and confirm_move(page) is None
    assert set(re.findall(r'<a href="[^"]*" class="cell" data-cell="(\w+)"', page)) == {
        "a5", "b7"}
    page = client.get(links_in(page)["b7"]).get_data(as_text=True)
    assert confirm_move(page) == "a6:b7,a5"
    assert re.search(r'<g class="order">.*?>1</text>', vertex_markup(page, "b7"))
    page = client.get(links_in(page)["b7+"]).get_data(as_text=True)
    assert confirm_move(page) == "a6:b7+,a5" and "a5+" not in links_in(page)
    response = post_move(client, game.urls[RED], "a6:b7+,a5", 4, follow_redirects=True)
    assert "You played a6:b7+,a5." in response.get_data(as_text=True)
    view = client.get(game.apis[RED]).json["view"]
    assert view["pieces"]["a6"] == {"owner": 0, "rank": 2, "piece": "2"}
    assert view["last_turn"]["moves"][1] == {"from": "a5", "to": "a5", "destroyed": False,
                                             "promoted": False, "captured": []}


def test_typed_notation_works_alongside_the_builder(client, seeded):
    game = seeded("typed")
    api_move(client, game.apis[RED], CANON[RED])
    api_move(client, game.apis[BLUE], CANON[BLUE])
    response = post_move(client, game.urls[RED], "B3 : A3+", 2, follow_redirects=True)
    assert "You played b3:a3+." in response.get_data(as_text=True)
    response = post_move(client, game.urls[BLUE], "f6:f5", 3)
    text = response.get_data(as_text=True)
    assert response.status_code == 422 and "none of your pieces lies on a line" in text
    assert 'value="f6:f5"' in text and 'class="builder"' in text


def test_history_shows_every_value_once_the_game_is_over(client, seeded):
    game = seeded("history")
    api_move(client, game.apis[RED], CANON[RED])
    api_move(client, game.apis[BLUE], CANON[BLUE])
    api_move(client, game.apis[RED], "b3:a3")
    during = client.get(game.urls[RED] + "/history/3").get_data(as_text=True)
    assert {v for o, _, v in pieces_in(during).values() if o == "1"} == {"?"}
    watch = client.get(game.watch + "/history/2").get_data(as_text=True)
    assert {v for _, _, v in pieces_in(watch).values()} == {"?"}
    assert client.get(game.watch).get_data(as_text=True).count("</span> setup</a>") == 2
    client.post(f"/play/{token_of(game.urls[BLUE])}/resign", data={"confirm": "yes", "ply": "3"})
    for url in (game.urls[RED], game.watch):
        for ply in (2, 3):
            shown = pieces_in(client.get(f"{url}/history/{ply}").get_data(as_text=True))
            assert "?" not in {v for _, _, v in shown.values()}, (url, ply)
            assert shown["b1"][2] == "K" and shown["a2"][2] == "K"
        page = client.get(url).get_data(as_text=True)
        assert CANON[BLUE] in page and "every value is shown" in page


# -- hidden information ------------------------------------------------------------------------

RED_SETUP = "setup a2=4 a3=4 a4=3 a5=2 b7=2 c8=2 d9=3 e10=3 g10=T2 h9=T3 i8=4 j7=K"
# The two games differ only in where Blue's king and traps stand (h1, j1, k4); b1 c1 d1 e1,
# which Red captures, hold the same pieces in both.
BLUE_A = "setup b1=2 c1=3 d1=4 e1=2 g1=2 h1=K i1=3 j1=T3 k2=3 k3=4 k4=T2 k5=4"
BLUE_B = "setup b1=2 c1=3 d1=4 e1=2 g1=2 h1=T2 i1=3 j1=K k2=3 k3=4 k4=T3 k5=4"
# Red: a2 to a1 (promoted), captures b1, then c1 and d1, then e1; Blue shuffles on the right.
# Blue's turns: a magnet on k1, k6, b6, with a move legal in both games.
SCRIPT = [(BLUE, "<setup>"), (RED, RED_SETUP), (RED, "a1:a2+"), (BLUE, "k1 …"),
          (RED, "b1:a1+ …"), (BLUE, "k6 …"), (RED, "d1:b1+ …"), (BLUE, "b6 …"),
          (RED, "f1:d1 …")]
RED_BAD = ("setup a2=K", "f6:f5", "a1:a2,a3", "zz", "b1:a1+,a1", "k1:k2", "d1:b1,c1", "")


def _red_turn(client, game, pattern: str) -> str:
    """Red's legal move with this magnet whose first piece carries the mark given (``+`` or
    not) and no other promotion: the same in both games, as Red's knowledge is."""
    magnet, first = pattern.split(" ")[0].split(":")
    for move in client.get(game.apis[RED]).json["legal_moves"]:
        head, pieces = move.split(":")
        listed = pieces.split(",")
        if head == magnet and listed[0] == first and "+" not in ",".join(listed[1:]):
            return move
    raise AssertionError(pattern)


def _blue_turn(client, a, b, magnet: str) -> str:
    """A move of Blue's with this magnet, without promotions, legal in both games (Blue's
    own lists differ: its values, hence its promotions, are not the same)."""
    in_b = set(client.get(b.apis[BLUE]).json["legal_moves"])
    return next(m for m in client.get(a.apis[BLUE]).json["legal_moves"]
                if m.split(":")[0] == magnet and "+" not in m and m in in_b)


def test_red_and_spectators_cannot_tell_games_that_differ_only_in_blues_arrangement(
        app, client, seeded):
    a, b = seeded("same"), seeded("same")
    blue_setups = {a.id: BLUE_A, b.id: BLUE_B}
    captured = 0
    for ply, (seat, move) in enumerate(SCRIPT):
        if seat == RED and "…" in move:
            move = _red_turn(client, a, move)
            assert move == _red_turn(client, b, SCRIPT[ply][1])
        elif "…" in move:
            move = _blue_turn(client, a, b, move.split()[0])
        red_paths = ("",)
        if seat == RED and ply > 1:
            magnet, pieces = move.split(":")
            red_paths = ("", magnet, f"{magnet}.{pieces.split(',')[0].rstrip('+')}",
                         f"{magnet}.{pieces.split(',')[0]}", "nonsense.e4", "K.a2")
        elif seat == RED:
            red_paths = ("", "K.a2", "K.a2.T2", "random.K", "a2")
        for index, bad in enumerate(RED_BAD):
            page = index == ply % len(RED_BAD)
            assert refused(client, a, RED, bad, page) == refused(client, b, RED, bad, page), \
                (ply, bad)
        red_a, red_b = (seen_by(client, game, RED, red_paths, newest=2) for game in (a, b))
        assert red_a.keys() == red_b.keys()
        for key in red_a:
            assert red_a[key] == red_b[key], f"ply {ply}, Red's {key} differs"
        assert seen_by(client, a, None, newest=2) == seen_by(client, b, None, newest=2), \
            f"ply {ply}: spectator"
        for game in (a, b):
            text = blue_setups[game.id] if move == "<setup>" else move
            after = api_move(client, game.apis[seat], text)
        captured_now = len(after["view"]["captured"])
        assert captured_now >= captured
        captured = captured_now
    assert captured == 4 and after["outcome"] is None  # b1, c1, d1, e1: "elsewhere"
    assert seen_by(client, a, RED) == seen_by(client, b, RED)
    # what was compared includes Red's board turned round (the way up depends on the seat)
    assert bottom_side(client.get(a.urls[RED]).get_data(as_text=True)) == RED
    assert seen_by(client, a, None) == seen_by(client, b, None)
    for bad in RED_BAD:  # not Red's turn now
        assert refused(client, a, RED, bad) == refused(client, b, RED, bad)
    emails_a, emails_b = emails_to(app, a, "ann@example.org"), emails_to(app, b, "ann@example.org")
    assert len(emails_a) >= 4 and emails_a == emails_b  # started, then each of Red's turns
    # The games really differ, and Blue (who may know) sees it.
    blue_a, blue_b = client.get(a.apis[BLUE]).json["view"], client.get(b.apis[BLUE]).json["view"]
    assert blue_a["pieces"]["h1"]["piece"] == "K" and blue_b["pieces"]["h1"]["piece"] == "T2"
    assert seen_by(client, a, BLUE)["page "] != seen_by(client, b, BLUE)["page "]
    # Red knows the captured values, and nothing else of Blue's
    red_view = client.get(a.apis[RED]).json["view"]
    assert [c["piece"] for c in red_view["captured"]] == ["2", "3", "4", "2"]
    assert all("piece" not in p for p in red_view["pieces"].values() if p["owner"] == BLUE)
    assert "arrangements" in red_view and list(red_view["arrangements"]) == ["0"]


def test_chat_and_notes_leave_red_and_spectators_unable_to_tell_the_games_apart(
        app, client, seeded):
    """Both players chat alike in two games that differ only in Blue's arrangement, and
    Blue's private notes name it: Red's and the spectators' pages, answers, records,
    emails and webhook posts stay the same, and Blue's notes reach nobody but Blue."""
    a, b = seeded("talk"), seeded("talk")
    for game, setup in ((a, BLUE_A), (b, BLUE_B)):
        assert client.put(f"{game.apis[RED]}/webhook", json={"url": HOOK}).status_code == 200
        api_move(client, game.apis[BLUE], setup)
        notes = client.put(f"{game.apis[BLUE]}/notes", json={"text": f"Mine: {setup}"})
        assert notes.status_code == 200
        for seat, text in ((BLUE, "Ready when you are."), (RED, "Where is your king?")):
            assert client.post(f"{game.apis[seat]}/chat", json={"text": text}).status_code == 201
        client.put(f"{game.apis[RED]}/notes", json={"text": "Guess: h1"})
        api_move(client, game.apis[RED], RED_SETUP)
        client.post(f"{game.apis[BLUE]}/chat", json={"text": "Not telling."})
    red = seen_by(client, a, RED)
    assert red == seen_by(client, b, RED)
    assert seen_by(client, a, None) == seen_by(client, b, None)
    assert emails_to(app, a, "ann@example.org") == emails_to(app, b, "ann@example.org")
    posts = emails_to(app, a, HOOK)  # the webhook rows: their summary, then the JSON body
    assert len(posts) == 3 and posts == emails_to(app, b, HOOK)  # Blue's 2 messages, a turn
    assert "Not telling." in red["api"] and "Guess: h1" in red["notes"]
    assert "Mine: setup" in seen_by(client, a, BLUE)["notes"]
    assert seen_by(client, a, BLUE)["notes"] != seen_by(client, b, BLUE)["notes"]


def reply_by_email(app, game, address: str, text: str) -> str:
    """Reply to the latest email of ``game`` to ``address`` with ``text`` as its first line;
    the reply's status."""
    db = connect(app.config["DATABASE"])
    (headers,) = db.execute("SELECT headers FROM outbox WHERE game_id = ? AND recipient = ? "
                            "AND channel = 'email' ORDER BY id DESC LIMIT 1",
                            [game.id, address]).fetchone()
    reply = EmailMessage()
    reply["From"], reply["To"] = address, json.loads(headers)["Reply-To"]
    reply["Subject"], reply["Message-ID"] = "Re: our game", "<reply@example.org>"
    reply.set_content(text)
    with app.app_context():
        return inbound.receive(db, bytes(reply)).status


def test_answers_to_reds_emailed_moves_show_what_red_may_know(app, client, seeded):
    """Red sets up by email, Blue on the page, then Red replies with a move that cannot be
    played, in two games that differ only in Blue's arrangement: the answers, the pictures
    of their boards included, are the same in both."""
    a, b = seeded("answers"), seeded("answers")
    statuses = []
    for game, setup in ((a, BLUE_A), (b, BLUE_B)):
        statuses.append([reply_by_email(app, game, "ann@example.org", RED_SETUP)])
        api_move(client, game.apis[BLUE], setup)
        statuses[-1].append(reply_by_email(app, game, "ann@example.org", "k1:k2"))
    assert statuses[0] == statuses[1] and statuses[0][0] == "recorded"
    emails = emails_to(app, a, "ann@example.org")
    assert emails == emails_to(app, b, "ann@example.org")
    answers = [e for e in emails if "In-Reply-To: <reply@example.org>" in e]
    assert len(answers) == 2 and all("Content-Type: image/png" in e for e in answers)


# Two games that differ only in Red's values: a2 is a 3 in one and a 2 in the other, d9 the
# other way round. Red promotes a2 onto a1, then sends it onto Blue's trap on b1 asking for
# one more promotion where its value allows it (the trap destroys it: the + must leave no
# trace). Then Red's c8 and d9 trade places every three turns while Blue walks round, so
# the position both players see comes back every six plies: a draw by repetition at ply 17
# in both games, though only in the first are c8 and d9 of equal value.
RED_VALUES = ("setup a2=3 a3=4 a4=4 a5=2 b7=3 c8=2 d9=2 e10=3 g10=T2 h9=T3 i8=4 j7=K",
              "setup a2=2 a3=4 a4=4 a5=2 b7=3 c8=2 d9=3 e10=3 g10=T2 h9=T3 i8=4 j7=K")
BLUE_TRAP = "setup b1=T2 c1=2 d1=2 e1=2 g1=3 h1=3 i1=3 j1=4 k2=4 k3=4 k4=K k5=T3"
ROUND = [(BLUE, ("a4:i1",) * 2), (RED, ("d1:d9",) * 2), (BLUE, ("j1:h1",) * 2),
         (RED, ("e10:c8",) * 2), (BLUE, ("h1:h2,g1,i1",) * 2), (RED, ("c8:d8,d9",) * 2)]
VALUES_SCRIPT = [(BLUE, (BLUE_TRAP,) * 2), (RED, RED_VALUES), (RED, ("a1:a2+",) * 2),
                 (BLUE, ("k6:k5",) * 2), (RED, ("b1:a1+,b7", "b1:a1,b7")), *ROUND, *ROUND]
BLUE_BAD = ("b1:a1+", "d8:d9", "a4:i1,h1")  # their errors name Red's pieces
BOB = "bob@example.org"


def test_blue_and_spectators_cannot_tell_reds_values_by_a_dropped_promotion_or_a_repetition(
        app, client, seeded):
    games = seeded("values"), seeded("values")
    for ply, (seat, moves) in enumerate(VALUES_SCRIPT):
        for index, bad in enumerate(BLUE_BAD):
            page = index == ply % len(BLUE_BAD)
            assert refused(client, games[0], BLUE, bad, page) == \
                refused(client, games[1], BLUE, bad, page), (ply, bad)
        newest = None if ply == len(VALUES_SCRIPT) - 1 else 2  # all before the last move
        for viewer, paths in ((BLUE, ("", "a1", "d8")), (None, ("",))):
            seen = [seen_by(client, game, viewer, paths, newest) for game in games]
            assert seen[0].keys() == seen[1].keys()
            for key in seen[0]:
                assert seen[0][key] == seen[1][key], f"ply {ply}: {viewer}'s {key} differs"
        assert emails_to(app, games[0], BOB) == emails_to(app, games[1], BOB), f"ply {ply}"
        answers = [api_move(client, game.apis[seat], move) for game, move in zip(games, moves)]
    # Both games ended on the same ply, by repetition; the destroyed piece was not promoted.
    assert answers[0]["ply"] == answers[1]["ply"] == len(VALUES_SCRIPT)
    assert answers[0]["outcome"] == answers[1]["outcome"] == {
        "winners": [], "draw": True, "reason": "the same position occurred three times"}
    # Now every value is public, the setups too; the turns are recorded alike in both games.
    records = [client.get(f"{game.watch}/record.json").json for game in games]
    turns = [[e["move"] for e in record["events"] if e["ply"] > 2] for record in records]
    assert turns[0] == turns[1] and "b1:a1,b7" in turns[0] and "+" not in turns[0][2]
    finals = [emails_to(app, game, BOB) for game in games]
    assert finals[0][:-1] == finals[1][:-1] and "three times" in finals[0][-1]
    # Replaying the record gives the game itself.
    for game, record in zip(games, records):
        replayed = GAME.replay(2, {}, "values", [(e["seat"], e["move"])
                                                 for e in record["events"]])
        assert GAME.view(replayed, None) == client.get(game.watch.replace(
            "/watch/", "/api/watch/")).json["view"]


# -- in a real browser ------------------------------------------------------------------------

@pytest.mark.browser
def test_setups_and_a_turn_by_clicking_in_chromium(client, seeded, live_server, open_context):
    from playwright.sync_api import expect

    game = seeded("browser")
    pages = []
    for url in game.urls:
        page = open_context(viewport={"width": 1100, "height": 1400}).new_page()
        page.set_default_timeout(10_000)
        page.goto(live_server + url)
        pages.append(page)
    red, blue = pages
    # Red: a piece type in the tray, then a start vertex, twelve times
    for vertex, code in zip(M.START_NAMES[RED].split(), (M.CODES[k] for k in M.SET)):
        red.locator(f'.board-area a.tray-piece[data-choice="{code}"]').click()
        expect(red.locator(".builder")).to_contain_text("holding your")
        red.locator(f'.board-area a.cell[data-cell="{vertex}"]').click()
        placed = red.locator(f'.board-area [data-cell="{vertex}"] .piece.red')
        expect(placed).to_have_count(1)
    expect(red.locator("#confirm-move")).to_have_text(f"Play {CANON[RED]}")
    red.locator("#confirm-move").click()
    expect(red.locator("#game")).to_contain_text("Waiting for the opponent's setup.")
    # Blue: drags its king onto k5, then fills the rest at random
    blue.reload()
    king = blue.locator('.board-area a.tray-piece[data-choice="K"]')
    target = blue.locator('.board-area [data-cell="k5"]')
    king.hover()
    blue.mouse.down()
    box = target.bounding_box()
    blue.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=8)
    blue.mouse.up()
    expect(blue.locator('.board-area [data-cell="k5"] .piece.blue.king')).to_have_count(1)
    blue.locator(".builder a.choice", has_text="Fill the rest at random").click()
    expect(blue.locator("#confirm-move")).to_contain_text("k5=K")
    blue.locator("#confirm-move").click()
    expect(blue.locator(".notice")).to_contain_text("You played setup")
    # Red's opening: the magnet on b3, the pulled pieces shown, a3 chosen, confirmed
    red.reload()
    expect(red.locator("#status")).to_contain_text("Your turn")
    red.locator('.board-area a.cell[data-cell="b3"]').click()
    expect(red.locator(".mg-preview")).to_contain_text("A magnet on b3 pulls 4 of your")
    expect(red.locator(".board-area .affected")).to_have_count(4)
    expect(red.locator(".board-area line.path.preview")).to_have_count(4)
    red.locator('.board-area a.cell[data-cell="a3"]').click()
    expect(red.locator("#confirm-move")).to_have_text("Play b3:a3")
    red.locator("#confirm-move").click()
    expect(red.locator(".notice")).to_contain_text("You played b3:a3.")
    expect(red.locator('.board-area [data-cell="b3"] .piece.red')).to_have_count(1)
    assert client.get(game.apis[BLUE]).json["view"]["last_turn"]["magnet"] == "b3"


PHONE = {"width": 390, "height": 844}


def fits_a_phone(page) -> None:
    """No sideways scroll, and every target on the board (vertices, the tray's pieces) at
    least 40 px wide and high, as much of it as is on the screen."""
    fits(page)
    sizes = page.locator("svg.board a .hit").evaluate_all(
        "hits => hits.map(hit => { const r = hit.getBoundingClientRect(); return ["
        "Math.min(r.right, innerWidth) - Math.max(r.left, 0), r.height]; })")
    assert sizes and min(min(size) for size in sizes) >= 40, min(sizes)


def on_screen(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"] \
        and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]


@pytest.mark.browser
def test_on_a_phone_the_board_fits_and_the_confirm_button_is_on_screen(
        client, seeded, live_server, open_context):
    from playwright.sync_api import expect

    game = seeded("phone")
    context = open_context(viewport=PHONE, has_touch=True)
    red = context.new_page()
    red.set_default_timeout(10_000)
    red.goto(live_server + game.urls[RED])
    expect(red.locator(".builder")).to_contain_text("Arrange your 12 pieces")
    fits_a_phone(red)
    assert red.locator("details.legal").count() == 0
    red.locator(".builder a.choice", has_text="Random arrangement").click()
    expect(red.locator("#confirm-move")).to_contain_text("Play setup a2=")
    fits_a_phone(red)
    assert on_screen(red, "#confirm-move"), "the setup's confirm button is off screen"
    red.goto(red.url)  # the same page, from its top
    assert on_screen(red, "#confirm-move")
    red.locator("#confirm-move").click()
    expect(red.locator(".notice")).to_contain_text("You played setup")
    api_move(client, game.apis[BLUE], CANON[BLUE])
    # the opening turn: tap the magnet's vertex, then the piece
    red.reload()
    fits_a_phone(red)
    red.locator('.board-area a.cell[data-cell="b3"]').tap()
    expect(red.locator(".mg-preview")).to_contain_text("A magnet on b3 pulls 4 of your")
    red.locator('.board-area a.cell[data-cell="a3"]').tap()
    expect(red.locator("#confirm-move")).to_have_text("Play b3:a3")
    fits_a_phone(red)
    assert on_screen(red, "#confirm-move"), "the turn's confirm button is off screen"
    red.locator("#confirm-move").tap()
    expect(red.locator(".notice")).to_contain_text("You played b3:a3.")
    # Blue's longest turn in the move list wraps instead of widening the page
    longest = max(client.get(game.apis[BLUE]).json["legal_moves"], key=len)
    api_move(client, game.apis[BLUE], longest)
    red.reload()
    expect(red.locator("section.moves li").last).to_contain_text(longest)
    fits_a_phone(red)


@pytest.mark.browser
def test_on_a_desktop_a_move_is_never_split_across_the_move_lists_columns(
        client, seeded, live_server, open_context):
    game = seeded("columns")
    api_move(client, game.apis[RED], CANON[RED])
    api_move(client, game.apis[BLUE], CANON[BLUE])
    context = open_context(viewport={"width": 1280, "height": 900})
    red = context.new_page()
    red.goto(live_server + game.urls[RED])
    pieces = red.locator("section.moves li").evaluate_all(
        "items => items.map(li => li.getClientRects().length)")
    assert pieces == [1, 1]  # Red's long setup is not split in two
