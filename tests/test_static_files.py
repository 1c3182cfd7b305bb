"""Static files have an address per version (``pbem/web/webapp.py``): pages link
``/static/<file>?v=<digest>``, which browsers keep a year without asking again; any other
address of the file is answered too, and checked again each time."""
from __future__ import annotations

import re
import shutil

import pytest
from flask import url_for

from pbem.web.webapp import YEAR

pytestmark = pytest.mark.one_database  # what is served, whatever stores the games

KEPT = f"public, max-age={YEAR}, immutable"


def static_links(html: str) -> list[str]:
    return re.findall(r'(?:href|src)="(/static/[^"]+)"', html)


def test_every_static_file_a_page_links_is_kept_by_its_version(client, new_game):
    game = new_game("mastery")
    for path in ("/", game.urls[0], "/rules/magnet", "/offline"):
        links = static_links(client.get(path).get_data(as_text=True))
        assert len(links) == 4, path  # the icons, the stylesheet, the script
        for link in links:
            assert re.fullmatch(r"/static/[\w.-]+\?v=[0-9a-f]{16}", link), link
            answer = client.get(link)
            assert answer.status_code == 200 and answer.headers["Cache-Control"] == KEPT
            again = client.get(link, headers={"If-None-Match": answer.headers["ETag"]})
            assert again.status_code == 304 and again.headers["Cache-Control"] == KEPT
    icons = client.get("/manifest.webmanifest?lang=en").json["icons"]
    assert all(client.get(icon["src"]).headers["Cache-Control"] == KEPT for icon in icons)


def test_another_address_of_a_file_is_served_and_checked_each_time(client):
    for link in ("/static/style.css", "/static/style.css?v=0123456789abcdef"):
        answer = client.get(link)
        assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-cache"
    assert client.get("/static/nothing.css?v=0123456789abcdef").status_code == 404


def test_a_changed_file_gets_a_new_address(app, tmp_path):
    app.static_folder = str(shutil.copytree(app.static_folder, tmp_path / "static"))
    with app.test_request_context():
        before = url_for("static", filename="style.css")
        (tmp_path / "static" / "style.css").write_text("body { color: black; }\n")
        after = url_for("static", filename="style.css")
    assert before != after
    with app.test_client() as client:
        assert client.get(after).headers["Cache-Control"] == KEPT
        assert client.get(before).headers["Cache-Control"] == "no-cache"


@pytest.mark.browser
def test_a_browser_asks_for_the_static_files_no_more(new_game, live_server, open_context,
                                                     caplog):
    """Once a browser has them, pages open without asking for the stylesheet or the script
    again: each page used to ask for both (and the icon, which Chromium's own icon loader
    may check again as it likes). Chromium checks them once more at the first page the
    service worker controls, whose install fetches the offline page's files too."""
    game = new_game("mastery")
    page = open_context(reuse=False).new_page()
    page.goto(live_server + "/")
    page.evaluate("""() => navigator.serviceWorker.controller || new Promise((taken) =>
        navigator.serviceWorker.addEventListener("controllerchange", taken))""")
    page.goto(live_server + "/rules")
    asked = len(caplog.records)
    for path in ("/lobby", game.urls[0], "/rules/mastery", "/"):
        page.goto(live_server + path)
    lines = [record.getMessage() for record in caplog.records[asked:]]
    assert len(lines) >= 4, lines  # the pages (and perhaps a poll of the game's)
    assert not [line for line in lines if "/static/style.css" in line
                or "/static/app.js" in line], lines
