"""The site's icon: an SVG that every page links, also answered at /favicon.ico."""
from __future__ import annotations

import re

import pytest


@pytest.mark.one_database  # pages' heads, whatever stores the game
def test_every_page_links_the_svg_icon_and_favicon_ico_answers(client, new_game):
    game = new_game("mastery")
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"
    assert icon.get_data(as_text=True).lstrip().startswith("<svg")
    for path in ("/", "/new", "/rules", "/rules/magnet", game.urls[0], game.watch, "/home"):
        html = client.get(path).get_data(as_text=True)
        link = re.search(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', html)
        assert link, path
        assert client.get(link.group(1)).get_data() == icon.get_data(), path
