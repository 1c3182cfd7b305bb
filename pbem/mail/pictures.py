"""The board of an email as PNG pictures, drawn from the SVG of the seat's own page.

A board module draws one or more ``<svg>`` drawings (Magnetic Field: the field, then the
players' panel), styled by classes of the site's stylesheet. Each drawing is rasterised
with resvg (a Rust library in a wheel: no system library to install) and the board rules of
``static/style.css``, its ``var(--…)`` colours written out (resvg reads no custom
properties). The labels are drawn in DejaVu Sans (Debian's fonts-dejavu-core) when it is
there, else in a sans-serif font of the system's; each picture has an opaque white
background, so that its dark labels stay readable in a mail app's dark mode.

Rasterising a whole board took 30 to 80 ms, more than the rest of an email together, so a
picture is put together from parts drawn once: each element at the top of a drawing (a
square with what stands on it, a coordinate, a tray) is rasterised alone, where it stands
on a board of that game and size, and kept (``PARTS``); a picture pastes its parts over
white in their order, as resvg paints them, so that it is the drawing's own rendering to
within a rounding. A drawing's new parts are drawn together, side by side: first small, to
find where each shows, then each at full size where it shows. The picture is a palette PNG,
half the size of a full-colour one. Where a kind of board's colours and their blends fit
256 (Mastery's), every picture of it has that palette, and its rows are compressed in bands
kept by the parts that show in them: a position shares most of its bands with others of
its game and of other games (an empty rank, the coordinates), so only the bands of the
squares that changed are pasted and compressed. Other boards choose their 256 colours
from a quarter of each picture's pixels. Every seat
and digest that shows the same drawing gets the same picture (``png``); seats that may know
different things have different drawings, and a picture is made of its own drawing's parts
alone: the same whatever was drawn before it.
"""
from __future__ import annotations

import functools
import html
import io
import itertools
import math
import re
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence, cast

import resvg_py
from flask_babel import gettext
from PIL import Image, ImageColor

from ..boards import BOARDS
from ..store.lru import BytesLRU

STYLESHEET = Path(__file__).resolve().parents[2] / "static" / "style.css"
FONTS = Path("/usr/share/fonts/truetype/dejavu")
FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")  # the labels' weights: 400 and 700
WIDTH = 600  # pixels: sharp at an email's width (two pixels a point on most phones)
COMPRESSION = 1  # zlib's level for the PNG: 6 made it a fifth smaller in three times the time
GAP = 2  # pixels between parts drawn side by side
PROBE = 8  # how much smaller the drawing that finds where each part shows is drawn
SAMPLE = 2  # a picture's colours are chosen from every SAMPLE-th pixel each way
BAND = 32  # rows of a picture compressed together, and kept (BANDS)
BLEND_STEP = 26  # the widest step between a board's blends of two of its colours
BANDS = BytesLRU(4 * 2**20)  # compressed bands of rows, by board and the parts they show
PARTS = BytesLRU(32 * 2**20)  # drawn parts, by board and part (PICTURE_CACHE_MB sets it)

# A drawing hidden from screen readers repeats what the board shows for the page's layout
# (Magnetic Field's rank numbers that stay in view while the field pans): not a picture.
DRAWING = re.compile(r"<svg\b(?![^>]*\baria-hidden=\"true\").*?</svg>", re.S)
LABEL = re.compile(r'<svg\b[^>]*\baria-label="([^"]*)"')
# The rules a drawing can match: a board's classes, nothing of the page around it (:has,
# #game), nothing interactive (:hover, :focus).
BOARD_CLASSES = re.compile(r"\.(?:board|{})\b".format("|".join(map(re.escape, BOARDS))))
PAGE_ONLY = re.compile(r":has\(|:hover|:focus|#")
TAG = re.compile(r"<[^>]*>")
# What is never drawn: tooltips and screen readers' words (which differ by language)
UNDRAWN = re.compile(r"<title>[^<]*</title>|\s(?:aria-label|role)=\"[^\"]*\"")
# What the opening tag says of where the drawing goes, not of how its parts look
PLACEMENT = re.compile(r'\s(?:x|y|width|height|viewBox|preserveAspectRatio)="[^"]*"')
VIEWBOX = re.compile(r'\bviewBox="([^"]*)"')
CLASSES = re.compile(r'\bclass="([^"]*)"')
SELECTOR_CLASSES = re.compile(r"\.([\w-]+)")
COLOUR = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|\brgb\([^)]*\)|\b(?:white|black)\b")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ZLIB_HEADER = b"\x78\x01"  # deflate, a 32 kB window, the fastest level
FINAL_BLOCK = b"\x03\x00"  # an empty last deflate block: the bands' blocks are not last
ADLER = 65521


def drawings(markup: str) -> list[str]:
    """The ``<svg>`` drawings of a board's markup, in order."""
    return DRAWING.findall(markup)


def numbered(board: str) -> list[tuple[str, str]]:
    """The drawings of ``board`` (a board's markup), in order, each with the content id of
    its picture: an HTML part shows it as ``cid:<id>``."""
    return [(f"board-{number}@pictures", drawing)
            for number, drawing in enumerate(drawings(board), start=1)]


def label(drawing: str) -> str:
    """What ``drawing`` shows, in words (its aria-label), for its picture's alt text."""
    return html.unescape(found[1]) if (found := LABEL.search(drawing)) else gettext("The board")


@functools.lru_cache(maxsize=64)  # the same drawing is mailed to several seats, and in digests
def png(drawing: str) -> bytes:
    """One drawing as a PNG, ``WIDTH`` pixels wide."""
    board = Board.of(drawing)
    parts = _drawn(board)
    palette = _palette(board.style, board.defs)
    if palette is None:
        canvas = Image.new("RGB", board.size, "white")
        for part in parts:
            if part.image is not None:
                canvas.paste(part.image, part.at, part.image)
        return _encoded(canvas)
    return _banded(board, parts, palette)


Region = tuple[int, int, int, int]  # left, top, right and bottom, in pixels


@dataclass(frozen=True)
class Board:
    """A drawing taken apart, without the words nobody sees: a group with the attributes
    of its ``<svg>`` (``style``: the board's classes, which its stylesheet's rules name),
    its ``viewBox``, its ``defs`` (what parts refer to) and the elements it draws
    (``parts``, in order). The first three are the kind of board: a game, its size and
    which way up."""

    style: str
    view: tuple[float, float, float, float]
    defs: str
    parts: tuple[str, ...]

    @classmethod
    def of(cls, drawing: str) -> Board:
        drawing = UNDRAWN.sub("", drawing)
        opening, defs, parts = "", list[str](), list[str]()
        depth = start = 0
        for tag in TAG.finditer(drawing):
            if tag[0].startswith("</"):
                depth -= 1
                if depth == 1:
                    whole = drawing[start:tag.end()]
                    (defs if whole.startswith("<defs") else parts).append(whole)
            elif tag[0].endswith("/>"):
                if depth == 1:
                    parts.append(tag[0])
            else:
                if depth == 0:
                    opening = tag[0]
                elif depth == 1:
                    start = tag.start()
                depth += 1
        found = VIEWBOX.search(opening)
        if found is None:
            raise ValueError("a board's drawing needs a viewBox")
        x, y, width, height = map(float, found[1].replace(",", " ").split())
        style = "<g" + PLACEMENT.sub("", opening.removeprefix("<svg"))
        return cls(style, (x, y, width, height), "".join(defs), tuple(parts))

    @property
    def scale(self) -> float:
        """Pixels a unit of the drawing."""
        return WIDTH / self.view[2]

    @property
    def size(self) -> tuple[int, int]:
        """The picture's size in pixels."""
        return WIDTH, math.ceil(self.view[3] * self.scale - 1e-9)

    def window(self, at: tuple[int, int], region: Region, scale: float) -> str:
        """The opening of a nested ``<svg>`` placed at ``at`` in a drawing whose units are
        pixels, showing ``region`` of the board (its pixels at ``scale`` pixels a unit):
        what lies outside it is clipped."""
        left, top, right, bottom = region
        x, y = self.view[0] + left / scale, self.view[1] + top / scale
        width, height = right - left, bottom - top
        return (f'<svg x="{at[0]}" y="{at[1]}" width="{width}" height="{height}" '
                f'viewBox="{x!r} {y!r} {width / scale!r} {height / scale!r}" '
                f'preserveAspectRatio="none">')


@dataclass(frozen=True)
class Part:
    """A part as drawn: its pixels (RGBA, cropped to what shows; None if nothing does)
    and where they go."""

    image: Image.Image | None
    at: tuple[int, int] = (0, 0)

    @property
    def nbytes(self) -> int:
        return 100 + (self.image.width * self.image.height * 4 if self.image else 0)


def _drawn(board: Board) -> list[Part]:
    """Each of ``board``'s parts as drawn, those not kept yet drawn now and kept."""
    kind = (board.style, board.view, board.defs)
    drawn = {part: found for part in board.parts
             if (found := PARTS.get((kind, part))) is not None}
    new = [part for part in dict.fromkeys(board.parts) if part not in drawn]
    for part, found in zip(new, _draw(board, new)):
        drawn[part] = found
        PARTS.put((kind, part), found, found.nbytes)
    return [drawn[part] for part in board.parts]


def _draw(board: Board, parts: Sequence[str]) -> list[Part]:
    """``parts`` of ``board`` drawn, each alone where it stands on the board. All of them
    are drawn side by side ``PROBE`` times smaller, to find where each shows, then side by
    side again at full size, each where it shows and a little around. One that reaches the
    edge of where it was looked for (a line too thin to be seen small) is drawn again over
    the whole board; where something showed between the parts, and none reached its edge,
    each is drawn on its own."""
    if not parts:
        return []
    width, height = board.size
    whole = (0, 0, width, height)
    small = (0, 0, math.ceil(width / PROBE), math.ceil(height / PROBE))
    regions = []
    for probe in _side_by_side(board, [(small, part) for part in parts],
                               board.scale / PROBE)[0]:
        box = probe.getchannel("A").getbbox()
        regions.append(whole if box is None else (  # a small pixel more each way
            max(0, (box[0] - 1) * PROBE), max(0, (box[1] - 1) * PROBE),
            min(width, (box[2] + 1) * PROBE), min(height, (box[3] + 1) * PROBE)))
    drawn: dict[int, Part] = {}
    while todo := [index for index in range(len(parts)) if index not in drawn]:
        found, spilt = _side_by_side(board, [(regions[i], parts[i]) for i in todo],
                                     board.scale)
        shown = [pixels.getchannel("A").getbbox() for pixels in found]
        beyond = [index for index, box in zip(todo, shown)
                  if box and _reaches_edge(box, regions[index], board.size)]
        for index in beyond:
            regions[index] = whole  # it goes on past where it was looked for
        if spilt and not beyond:
            return [drawn.get(index) or _alone(board, part) for index, part in enumerate(parts)]
        if not spilt:
            for index, pixels, box in zip(todo, found, shown):
                if index not in beyond:
                    left, top = regions[index][:2]
                    drawn[index] = Part(pixels.crop(box), (left + box[0], top + box[1])) \
                        if box else Part(None)
    return [drawn[index] for index in range(len(parts))]


def _reaches_edge(box: Region, region: Region, size: tuple[int, int]) -> bool:
    """Whether what shows at ``box`` of ``region``'s pixels reaches an edge of the region
    that is not the board's."""
    left, top, right, bottom = region
    return ((box[0] == 0 < left) or (box[1] == 0 < top)
            or (box[2] == right - left and right < size[0])
            or (box[3] == bottom - top and bottom < size[1]))


def _alone(board: Board, part: str) -> Part:
    """``part`` drawn by itself over the whole of ``board``."""
    ((pixels,), _) = _side_by_side(board, [((0, 0, *board.size), part)], board.scale)
    shown = pixels.getchannel("A").getbbox()
    return Part(pixels.crop(shown), shown[:2]) if shown else Part(None)


def _side_by_side(board: Board, windows: Sequence[tuple[Region, str]],
                  scale: float) -> tuple[list[Image.Image], bool]:
    """The pixels of each of ``windows``: its part drawn alone, showing its region of
    ``board`` at ``scale`` pixels a unit; and whether anything showed between them (a part
    that goes on past its region, which may have reached another's). They are drawn in one
    drawing, in rows, ``GAP`` pixels apart; a part whose region ends at the board's edge is
    clipped there, as the picture clips it (a clip costs resvg a layer of its own: the
    others are not)."""
    width, height = board.size
    sizes = [(right - left, bottom - top) for (left, top, right, bottom), _ in windows]
    # about square: resvg's time goes with the pixels drawn, empty or not
    row_width = max(max(w for w, _ in sizes) + 2 * GAP,
                    math.isqrt(sum((w + GAP) * (h + GAP) for w, h in sizes)) + GAP)
    places, x, y, row = [], GAP, GAP, 0
    for left, top, right, bottom in (region for region, _ in windows):
        if x > GAP and x + right - left + GAP > row_width:
            x, y, row = GAP, y + row + GAP, 0
        places.append((x, y))
        x, row = x + right - left + GAP, max(row, bottom - top)
    shown = []
    for (x, y), ((left, top, right, bottom), part) in zip(places, windows):
        if left == 0 or top == 0 or right == width or bottom == height:
            shown.append(f"{board.window((x, y), (left, top, right, bottom), scale)}"
                         f"{board.style}{part}</g></svg>")
        else:
            shown.append(f'<g transform="matrix({scale!r} 0 0 {scale!r} '
                         f'{x - left - board.view[0] * scale!r} '
                         f'{y - top - board.view[1] * scale!r})">{board.style}{part}</g></g>')
    # the defs inside a group of the board's classes, as their rules expect
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{row_width}" '
           f'height="{y + row + GAP}">{board.style}{board.defs}</g>{"".join(shown)}</svg>')
    text = "<text" in svg
    data = resvg_py.svg_to_bytes(svg_string=svg, style_sheet=_stylesheet(svg),
                                 **(_fonts() if text else {"skip_system_fonts": True}))
    image = Image.open(io.BytesIO(bytes(data))).convert("RGBA")
    pixels = [image.crop((x, y, x + right - left, y + bottom - top))
              for (x, y), ((left, top, right, bottom), _) in zip(places, windows)]
    between = image.getchannel("A")
    for (x, y), ((left, top, right, bottom), _) in zip(places, windows):
        between.paste(0, (x, y, x + right - left, y + bottom - top))
    return pixels, between.getbbox() is not None


def _encoded(picture: Image.Image) -> bytes:
    """``picture`` as a palette PNG: 256 colours chosen from every ``SAMPLE``-th pixel each
    way, each pixel the nearest of them. (A board has some 270 to 310 colours, most of them
    antialiasing's: choosing from all its pixels took three times as long, mapping them
    all as long again, and came within 10 levels of its colours where this comes within
    15.)"""
    width, height = picture.size
    sample = picture.resize((max(1, width // SAMPLE), max(1, height // SAMPLE)),
                            Image.Resampling.NEAREST)
    palette = sample.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    indexed = picture.quantize(palette=palette, dither=Image.Dither.NONE)
    written = io.BytesIO()
    indexed.save(written, "PNG", compress_level=COMPRESSION)
    return written.getvalue()


@functools.lru_cache(maxsize=64)
def _palette(style: str, defs: str) -> Image.Image | None:
    """The palette of every picture of a kind of board (its ``style`` and ``defs``): the
    colours its stylesheet rules and its defs name, white, and blends of each two of them
    some ``BLEND_STEP`` levels apart, as antialiasing mixes them; None where that makes
    more than 256 (then each picture chooses its own)."""
    classes = set(" ".join(CLASSES.findall(style)).split())
    named = {(255, 255, 255)}
    texts = [defs] + [body for selector, body in _board_rules()
                      if any(set(SELECTOR_CLASSES.findall(one)) & set(BOARDS) <= classes
                             for one in selector.split(","))]
    for text in texts:
        for found in COLOUR.findall(text):
            red, green, blue = ImageColor.getrgb(found)[:3]
            named.add((red, green, blue))
    colours = sorted(named)
    for one, other in itertools.combinations(sorted(named), 2):
        steps = round(max(abs(a - b) for a, b in zip(one, other)) / BLEND_STEP)
        colours += [cast(tuple[int, int, int], tuple(
            round(a + (b - a) * step / steps) for a, b in zip(one, other)))
            for step in range(1, steps)]
    if len(colours) > 256:
        return None
    palette = Image.new("P", (1, 1))
    palette.putpalette([channel for colour in colours + colours[-1:] * (256 - len(colours))
                        for channel in colour])
    return palette


def _banded(board: Board, parts: Sequence[Part], palette: Image.Image) -> bytes:
    """The picture of ``board``'s ``parts`` in ``palette``, compressed in bands of ``BAND``
    rows, each alone: a band is the same wherever the same parts show in it, so most of a
    position's bands are kept from the positions before it, and a picture is put together
    from compressed bands (one zlib stream, its checksum combined from theirs)."""
    width, height = board.size
    kind = (board.style, board.view, board.defs)
    showing: list[list[tuple[str, Part]]] = [[] for _ in range(math.ceil(height / BAND))]
    for drawing, part in zip(board.parts, parts):
        if part.image is not None:
            top = max(0, part.at[1])
            bottom = min(height, part.at[1] + part.image.height)
            for band in range(top // BAND, math.ceil(bottom / BAND)):
                showing[band].append((drawing, part))
    keys = [(kind, band, tuple(drawing for drawing, _ in shown))
            for band, shown in enumerate(showing)]
    found = [BANDS.get(key) for key in keys]
    missing = [band for band, kept in enumerate(found) if kept is None]
    runs: list[list[int]] = []  # of bands one after another
    for band in missing:
        if runs and runs[-1][-1] == band - 1:
            runs[-1].append(band)
        else:
            runs.append([band])
    for run in runs:
        for band, made in zip(run, _bands(width, height, run, parts, palette)):
            found[band] = made
            BANDS.put(keys[band], made, len(made[0]) + 100 + 8 * len(showing[band]))
    data, checksum = [], 1
    for compressed, adler, length in cast(list[tuple[bytes, int, int]], found):
        data.append(compressed)
        checksum = _adler_combined(checksum, adler, length)
    stream = b"".join([ZLIB_HEADER, *data, FINAL_BLOCK, checksum.to_bytes(4, "big")])
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8 bits, a palette
    colours = palette.getpalette() or []
    return b"".join([PNG_SIGNATURE, _chunk(b"IHDR", header), _chunk(b"PLTE", bytes(colours)),
                     _chunk(b"IDAT", stream), _chunk(b"IEND", b"")])


def _bands(width: int, height: int, bands: Sequence[int], parts: Sequence[Part],
           palette: Image.Image) -> list[tuple[bytes, int, int]]:
    """``bands`` (one after another) of a picture ``height`` rows high, its ``parts`` that
    show there pasted once over their rows: each band's rows as PNG holds them (each a filter
    byte, none, then its pixels' colours in ``palette``) deflated on their own, not as the
    last block; their checksum (Adler-32) and length."""
    top, bottom = bands[0] * BAND, min(height, (bands[-1] + 1) * BAND)
    canvas = Image.new("RGB", (width, bottom - top), "white")
    for part in parts:
        if part.image is not None and part.at[1] < bottom \
                and part.at[1] + part.image.height > top:
            canvas.paste(part.image, (part.at[0], part.at[1] - top), part.image)
    pixels = canvas.quantize(palette=palette, dither=Image.Dither.NONE).tobytes()
    made = []
    for band in bands:
        rows = b"".join(b"\0" + pixels[row * width:(row + 1) * width] for row in range(
            band * BAND - top, min(height, (band + 1) * BAND) - top))
        deflating = zlib.compressobj(COMPRESSION, zlib.DEFLATED, -15)
        made.append((deflating.compress(rows) + deflating.flush(zlib.Z_SYNC_FLUSH),
                     zlib.adler32(rows), len(rows)))
    return made


def _adler_combined(first: int, second: int, length: int) -> int:
    """The Adler-32 of two runs of bytes one after the other, from theirs and the second's
    ``length``."""
    low = (first & 0xFFFF) + (second & 0xFFFF) - 1
    high = (first >> 16) + (second >> 16) + length * ((first & 0xFFFF) - 1)
    return (high % ADLER) << 16 | low % ADLER


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data)))


@functools.cache
def stylesheet() -> str:
    """The rules of the site's stylesheet that style a board, its colours written out."""
    return "\n".join(f"{selector} {{{body}}}" for selector, body in _board_rules())


def _stylesheet(svg: str) -> str:
    """The rules of ``stylesheet`` that may match in ``svg``: those of a selector whose
    classes it all has. (resvg reads the whole stylesheet again for every drawing, which
    cost a drawing of a few parts two thirds of its time.)"""
    return _rules_for(frozenset(" ".join(CLASSES.findall(svg)).split()))


@functools.lru_cache(maxsize=256)
def _rules_for(classes: frozenset[str]) -> str:
    return "\n".join(
        f"{selector} {{{body}}}" for selector, body in _board_rules()
        if any(set(SELECTOR_CLASSES.findall(one)) <= classes for one in selector.split(",")))


@functools.cache
def _board_rules() -> list[tuple[str, str]]:
    css = re.sub(r"/\*.*?\*/", "", STYLESHEET.read_text(encoding="utf-8"), flags=re.S)
    colours = dict(re.findall(r"--([\w-]+)\s*:\s*([^;}]+)", css[:css.index("}")]))
    # a variable set outside :root (a layout's, not a colour) stays: no board rule reads it
    css = re.sub(r"var\(--([\w-]+)\)", lambda m: colours.get(m[1], m[0]).strip(), css)
    return [(selector, body) for selector, body in _rules(css)
            if BOARD_CLASSES.search(selector) and not PAGE_ONLY.search(selector)]


def _rules(css: str) -> list[tuple[str, str]]:
    """The top-level rules of ``css`` as (selector, declarations); at-rules (@media) left
    out with what they hold."""
    rules, start, depth, opened = [], 0, 0, 0
    for at, character in enumerate(css):
        if character == "{":
            depth += 1
            if depth == 1:
                opened = at
        elif character == "}":
            depth -= 1
            if depth == 0:
                selector = css[start:opened].strip()
                if not selector.startswith("@"):
                    rules.append((selector, css[opened + 1:at]))
                start = at + 1
    return rules


@functools.cache
def _fonts() -> dict[str, Any]:
    files = [FONTS / name for name in FONT_FILES]
    if not all(path.is_file() for path in files):
        return {}  # the system's fonts (resvg finds them), whichever sans-serif they hold
    return {"skip_system_fonts": True, "font_files": [str(path) for path in files],
            "font_family": "DejaVu Sans", "sans_serif_family": "DejaVu Sans"}
