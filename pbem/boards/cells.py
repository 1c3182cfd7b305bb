"""A board's cell as SVG, the same way in every drawing that names its cells for screen readers:
a cell that may be clicked is a link named by its ``<title>``; another is a group, which is
an image named by the same title when it shows something (so a piece is read as "c6: Light
Pawn", never as a bare letter)."""
from __future__ import annotations

import re
from html import unescape

from markupsafe import escape

# What a drawing names for screen readers: its cells (named by their <title>) and its other
# images (a tray, a hand: role="img" with an aria-label), in the order they are drawn
NAMED = re.compile(r'<(?:a|g)\b[^>]*?(?:data-cell="(?P<cell>[^"]*)"[^>]*?>\s*'
                   r'<title>(?P<title>[^<]*)</title>|role="img" aria-label="(?P<image>[^"]*)")')


def cell(name: str, title: str, body: str, *, href: str | None = None,
         labelled: bool = False, attributes: str = "") -> str:
    """Cell ``name`` (a name of the board's own, written as it is) holding ``body`` (SVG
    markup): a link to ``href`` if there is one, else a group, an image named by ``title``
    if ``labelled``. ``title`` and ``href`` are escaped here; ``attributes`` is markup put
    after ``data-cell``, its leading space included (`` transform="..."``, say)."""
    title = escape(title)
    if href:
        return (f'<a href="{escape(href)}" class="cell" data-cell="{name}"{attributes}>'
                f'<title>{title}</title>{body}</a>')
    image = f' role="img" aria-label="{title}"' if labelled else ""
    return (f'<g class="cell" data-cell="{name}"{attributes}{image}>'
            f'<title>{title}</title>{body}</g>')


def described(svg: str) -> list[str]:
    """What a drawing shows, in words, as its cells and images name it for screen readers:
    "d1: Dark Master", "Light, off the board: ..." (an empty cell, named by its name alone,
    says nothing). The drawing was made from what its viewer may know, and so are these."""
    said = []
    for found in NAMED.finditer(svg):
        words = unescape(found["title"] if found["cell"] is not None else found["image"])
        if words != found["cell"] and words not in said:
            said.append(words)
    return said
