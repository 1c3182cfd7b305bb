"""The board of an email as PNG pictures, drawn from the SVG of the seat's own page.

A board module draws one or more ``<svg>`` drawings (Magnetic Field: the field, then the
players' panel), styled by classes of the site's stylesheet. ``png`` rasterises each drawing
with resvg (a Rust library in a wheel: no system library to install) and the board rules of
``static/style.css``, its ``var(--…)`` colours written out (resvg reads no custom
properties). The labels are drawn in DejaVu Sans (Debian's fonts-dejavu-core) when it is
there, else in a sans-serif font of the system's; each picture has an opaque white
background, so that its dark labels stay readable in a mail app's dark mode.
"""
from __future__ import annotations

import functools
import html
import re
from pathlib import Path
from typing import Any

import resvg_py
from flask_babel import gettext

from ..boards import BOARDS

STYLESHEET = Path(__file__).resolve().parents[2] / "static" / "style.css"
FONTS = Path("/usr/share/fonts/truetype/dejavu")
FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")  # the labels' weights: 400 and 700
WIDTH = 600  # pixels: sharp at an email's width; the cost grows with the pixels (see README)

# A drawing hidden from screen readers repeats what the board shows for the page's layout
# (Magnetic Field's rank numbers that stay in view while the field pans): not a picture.
DRAWING = re.compile(r"<svg\b(?![^>]*\baria-hidden=\"true\").*?</svg>", re.S)
LABEL = re.compile(r'<svg\b[^>]*\baria-label="([^"]*)"')
# The rules a drawing can match: a board's classes, nothing of the page around it (:has,
# #game), nothing interactive (:hover, :focus).
BOARD_CLASSES = re.compile(r"\.(?:board|{})\b".format("|".join(map(re.escape, BOARDS))))
PAGE_ONLY = re.compile(r":has\(|:hover|:focus|#")


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
    return bytes(resvg_py.svg_to_bytes(svg_string=drawing, style_sheet=stylesheet(),
                                       width=WIDTH, background="#ffffff", **_fonts()))


@functools.cache
def stylesheet() -> str:
    """The rules of the site's stylesheet that style a board, its colours written out."""
    css = re.sub(r"/\*.*?\*/", "", STYLESHEET.read_text(encoding="utf-8"), flags=re.S)
    colours = dict(re.findall(r"--([\w-]+)\s*:\s*([^;}]+)", css[:css.index("}")]))
    # a variable set outside :root (a layout's, not a colour) stays: no board rule reads it
    css = re.sub(r"var\(--([\w-]+)\)", lambda m: colours.get(m[1], m[0]).strip(), css)
    return "\n".join(f"{selector} {{{body}}}" for selector, body in _rules(css)
                     if BOARD_CLASSES.search(selector) and not PAGE_ONLY.search(selector))


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
