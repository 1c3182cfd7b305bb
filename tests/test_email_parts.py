"""Game emails as mail apps and providers read them: plain text beside HTML that shows the
board as a picture (PNG drawn from the SVG of the seat's own page) with the links as
buttons; a List-Unsubscribe header providers can read whatever the length of its URL; and
Auto-Submitted (RFC 3834) on every email, so that vacation responders stay quiet.

Messages go out through the real transports (a real SMTP server on loopback, .eml files);
the hidden-information side (two games differing in a secret give the other seat the same
emails, pictures included) is in the Magnet and Magnetic Field tests, by ``emails_to``."""
from __future__ import annotations

import base64
import email
import email.policy
import io
import math
import re
import struct
import zlib
from datetime import datetime, timezone
from email.message import EmailMessage

import pytest
import resvg_py
from PIL import Image, ImageChops

from pbem.jobs import scheduler
from pbem.mail import inbound, outbox, pictures
from pbem.mail.compose import _linked
from pbem.store.db import connect
from pbem.mail.message import HeaderInjection, compose

from helpers import api_move

# What is checked is how an email is written; the outbox's storage and claims are
# test_mail's, on both engines.
pytestmark = pytest.mark.one_database

PNG = b"\x89PNG\r\n\x1a\n"
LINKS = re.compile(r'(?:href|src)="([^"]*)"')


def deliver(app, db, smtp) -> list[EmailMessage]:
    before = len(smtp.messages)
    transport = outbox.SMTPTransport("127.0.0.1", smtp.port, timeout=5)
    sent, failed = outbox.deliver_due(db, transport, app.config["MAIL_FROM"],
                                      app.config["PUBLIC_URL"])
    assert failed == 0
    return smtp.messages[before:]


def to(messages: list[EmailMessage], address: str) -> EmailMessage:
    (found,) = [m for m in messages if m["To"] == address]
    return found


def html_of(message: EmailMessage) -> str:
    return message.get_body(("html",)).get_content()


def width_of(png: bytes) -> int:
    assert png.startswith(PNG)
    return struct.unpack(">I", png[16:20])[0]  # the IHDR chunk's first field


# -- the parts --------------------------------------------------------------------------

@pytest.mark.parametrize("game", ["mastery", "magnetic-field"])
def test_a_game_email_is_plain_text_beside_html_showing_the_seats_page_board(
        app, client, db, smtp, new_game, game):
    """multipart/alternative: the plain text as before, then multipart/related holding the
    HTML and the pictures it shows by cid; the pictures are the drawings of the page the
    seat's link opens (the seat not to move: nothing on it can be clicked)."""
    created = new_game(game, names=["Ann <b>", "Bob"])
    waiting = 1 - client.get(created.apis[0]).json["view"]["to_move"][0]
    address = f"p{waiting + 1}@example.org"
    queued = {row["recipient"]: dict(row) for row in db.query("SELECT * FROM outbox")}
    message = to(deliver(app, db, smtp), address)

    assert message.get_content_type() == "multipart/alternative"
    plain, related = message.get_payload()
    assert plain.get_content_type() == "text/plain"
    assert related.get_content_type() == "multipart/related"
    html, *images = related.get_payload()
    assert html.get_content_type() == "text/html"
    text = plain.get_content().replace("\r\n", "\n")
    assert text == queued[address]["body"]  # the plain text as it was queued
    assert "You play" in text and "The rules:" in text

    # the pictures: the drawings of the seat's own page, each shown by its cid
    page = client.get(created.urls[waiting]).get_data(as_text=True)
    drawings = pictures.drawings(page)
    assert len(images) == len(drawings) == (2 if game == "magnetic-field" else 1)
    for image, drawing in zip(images, drawings):
        assert image.get_content_type() == "image/png"
        assert image.get_content_disposition() == "inline"
        assert f'src="cid:{image["Content-ID"].strip("<>")}"' in html.get_content()
        assert image.get_content() == pictures.png(drawing)
        assert width_of(image.get_content()) == pictures.WIDTH

    # the words are the text's, escaped; the links are buttons, to PUBLIC_URL alone
    shown = html.get_content()
    assert "Ann &lt;b&gt;" in shown and "<b>" not in shown
    link = re.search(r"http://localhost/play/[\w-]{32}", text)[0]
    assert f'<a href="{link}" style="display:inline-block;' in shown
    assert ">Open the game</a>" in shown and ">Email settings</a>" in shown
    assert all(url.startswith(("http://localhost/", "cid:")) for url in LINKS.findall(shown))
    assert 'name="viewport" content="width=device-width' in shown


def test_what_a_player_types_reaches_the_html_as_words_and_no_link(app, client, db, smtp,
                                                                   new_game):
    game = new_game()
    typed = '<img src=x onerror=alert(1)> see https://evil.example/x "now" & http://localhost/'
    assert client.post(f"{game.apis[0]}/chat", json={"text": typed}).status_code == 201
    chat = [m for m in deliver(app, db, smtp) if m["Subject"].startswith("New message")]
    shown = html_of(to(chat, "p2@example.org"))
    assert "&lt;img src=x onerror=alert(1)&gt; see https://evil.example/x &#34;now&#34; " \
           "&amp; http://localhost/" in shown
    assert "<img" not in shown  # a chat email shows no board
    assert "evil.example" not in " ".join(LINKS.findall(shown))
    assert all(url.startswith("http://localhost/") for url in LINKS.findall(shown))


def test_a_line_links_each_of_the_emails_links_in_it_the_longest_where_two_begin():
    short, long = "http://localhost/play/a", "http://localhost/play/ab"
    assert _linked(f"{long} or {short}, then {long}.", [short, long]) == [
        ("", None), (long, long), (" or ", None), (short, short), (", then ", None),
        (long, long), (".", None)]
    assert _linked("no link here", {short: "Open"}) == [("no link here", None)]
    assert _linked("see http://localhost/", {}) == [("see http://localhost/", None)]


def test_the_html_follows_the_board_and_the_picture_changes_with_the_position(
        app, client, db, smtp, new_game):
    game = new_game()
    first = to(deliver(app, db, smtp), "p1@example.org")
    move = client.get(game.apis[0]).json["legal_moves"][0]
    api_move(client, game.apis[0], move)
    turn = to(deliver(app, db, smtp), "p2@example.org")
    assert turn["Subject"].startswith("Your move")
    before, after = ([p.get_content() for p in m.walk() if p.get_content_type() == "image/png"]
                     for m in (first, turn))
    assert before != after
    assert f"played: {move}" in html_of(turn)


@pytest.mark.browser
def test_the_html_fits_a_phone_and_shows_the_board(app, db, smtp, new_game, open_context):
    """In Chromium 390 px wide, light and dark: no sideways scrolling (a 60-letter name, a
    long unsubscribe URL), the picture as wide as the text, the seat's link a button."""
    new_game("magnet", names=["A" * 60, "Bob"])
    message = to(deliver(app, db, smtp), "p1@example.org")
    shown = html_of(message)
    for part in message.walk():  # what the mail app does with cid: the attached pictures
        if part.get_content_type() == "image/png":
            data = base64.b64encode(part.get_content()).decode()
            shown = shown.replace(f'cid:{part["Content-ID"].strip("<>")}',
                                  f"data:image/png;base64,{data}")
    for scheme in ("light", "dark"):
        context = open_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
        phone = context.new_page()
        phone.set_content(shown)
        widths = phone.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], f"{scheme}: {widths[0]}px wide on a {widths[1]}px screen"
        picture = phone.locator("img").first
        assert phone.evaluate("img => img.complete && img.naturalWidth", picture.element_handle()) \
            == pictures.WIDTH
        box = picture.bounding_box()
        assert box["x"] >= 0 and 300 < box["width"] <= 390 - box["x"]
        button = phone.get_by_role("link", name="Open the game").bounding_box()
        assert button["height"] >= 40 and button["x"] + button["width"] <= 390


# -- the pictures, put together from their parts -----------------------------------------

def rendered_whole(drawing: str) -> Image.Image:
    """``drawing`` rasterised in one piece by resvg, at the pictures' width and scale."""
    x, y, width, height = map(float, pictures.VIEWBOX.search(drawing)[1].split())
    scale = pictures.WIDTH / width
    pixels = math.ceil(height * scale - 1e-9)
    sized = pictures.VIEWBOX.sub(f'width="{pictures.WIDTH}" height="{pixels}" '
                                 f'viewBox="{x!r} {y!r} {width!r} {pixels / scale!r}"', drawing, 1)
    return Image.open(io.BytesIO(bytes(resvg_py.svg_to_bytes(
        svg_string=sized, style_sheet=pictures.stylesheet(), background="#ffffff",
        **pictures._fonts())))).convert("RGB")


def page_drawings(client, new_game, game: str) -> list[str]:
    """The drawings of both seats' pages of a new ``game`` after its first move (the last
    move marked, the seat to move's with its targets), the second seat's board turned."""
    created = new_game(game)
    mover = client.get(created.apis[0]).json["view"]["to_move"][0]
    api_move(client, created.apis[mover], client.get(created.apis[mover]).json["legal_moves"][0])
    return [drawing for url in created.urls
            for drawing in pictures.drawings(client.get(url).get_data(as_text=True))]


@pytest.mark.parametrize("game", ["mastery", "magnet", "the-right-moves", "magnetic-field"])
def test_a_picture_put_together_from_parts_is_its_drawing_rendered_whole(client, new_game,
                                                                         game):
    """Pasted from parts drawn one by one, a picture is the whole drawing as resvg draws
    it, to within a rounding at the edges; a palette PNG, 600 pixels wide."""
    forget_pictures()
    for drawing in page_drawings(client, new_game, game):
        data = pictures.png(drawing)
        assert data[25] == 3  # the IHDR's colour type: a palette
        zlib.decompress(idat(data))  # whole, its checksum right (Pillow does not check it)
        picture = Image.open(io.BytesIO(data)).convert("RGB")
        whole = rendered_whole(drawing)
        assert picture.size == whole.size and picture.width == pictures.WIDTH
        levels = ImageChops.difference(picture, whole).convert("L").histogram()
        assert max(level for level, count in enumerate(levels) if count) <= 48
        assert sum(levels[17:]) <= picture.width * picture.height / 2000


def idat(png: bytes) -> bytes:
    """The zlib stream of ``png``'s IDAT chunks."""
    stream, at = b"", len(PNG)
    while at < len(png):
        (length,), kind = struct.unpack(">I", png[at:at + 4]), png[at + 4:at + 8]
        stream += png[at + 8:at + 8 + length] if kind == b"IDAT" else b""
        at += 12 + length
    return stream


def forget_pictures() -> None:
    pictures.PARTS.clear()
    pictures.BANDS.clear()
    pictures.png.cache_clear()


@pytest.mark.parametrize("game", ["magnet", "mastery"])
def test_a_picture_is_the_same_whatever_was_drawn_before_it(client, new_game, game):
    """Two seats see the board the other way up (and in Magnet different things: a piece's
    value is hidden from the other side): each one's picture is made of its own drawing's
    parts (and Mastery's of bands of rows compressed alone), the same bytes whichever was
    drawn first, or after the kept parts and bands were dropped."""
    first, second = page_drawings(client, new_game, game)
    forget_pictures()
    one_way = [pictures.png(first), pictures.png(second)]
    assert (pictures.BANDS.nbytes > 0) == (game == "mastery")  # its colours fit a palette
    forget_pictures()
    other_way = [pictures.png(second), pictures.png(first)][::-1]
    pictures.png.cache_clear()
    # every part and band drawn again as the picture is put together
    pictures.PARTS.max_bytes = pictures.BANDS.max_bytes = 1
    try:
        dropped = [pictures.png(first), pictures.png(second)]
    finally:
        pictures.PARTS.max_bytes, pictures.BANDS.max_bytes = 32 * 2**20, 4 * 2**20
        forget_pictures()
    assert one_way == other_way == dropped
    assert one_way[0] != one_way[1]


# -- one composer for every kind of email ----------------------------------------------

FOOTER_HTML = '<div style="margin-top:24px;'  # where message.html's footer begins


def footer_of(message: EmailMessage) -> tuple[str, list[tuple[str, str]]]:
    """The plain text's footer (below "-- "), and the links of the HTML part's footer
    (URL, label): the settings a button, the unsubscribe link in its sentence, as in
    List-Unsubscribe."""
    text = message.get_body(("plain",)).get_content().replace("\r\n", "\n")
    words, signature, footer = text.rpartition("\n-- \n")
    assert signature and words, message["Subject"]
    shown = html_of(message)
    links = re.findall(r'<a href="([^"]*)"[^>]*>([^<]*)</a>', shown[shown.index(FOOTER_HTML):])
    (settings, settings_label), (unsubscribe, unsubscribe_label) = links
    assert settings_label == "Email settings" and unsubscribe_label == unsubscribe  # in words
    assert settings in footer and unsubscribe in footer
    assert message["List-Unsubscribe"] == f"<{unsubscribe}>"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    return footer, links


def reply(message: EmailMessage, text: str) -> bytes:
    answer = EmailMessage()
    answer["From"], answer["To"] = message["To"], message["Reply-To"]
    answer["Subject"], answer["Message-ID"] = "Re: " + message["Subject"], "<reply@example.org>"
    answer.set_content(text)
    return bytes(answer)


def test_turn_emails_answers_digests_and_home_links_are_made_alike(app, client, db, smtp,
                                                                   new_game):
    """Each kind of email has its HTML part and the one footer (the settings and
    unsubscribe links in the text, the HTML and List-Unsubscribe); an answer to an emailed
    move shows the board as the player's own page draws it, as a turn email does."""
    game = new_game()
    api_move(client, game.apis[0], client.get(game.apis[0]).json["legal_moves"][0])
    (turn,) = [m for m in deliver(app, db, smtp) if m["Subject"].startswith("Your move")]
    move = client.get(game.apis[1]).json["legal_moves"][0]
    with app.app_context():
        assert inbound.receive(connect(app.config["DATABASE"]), reply(turn, move)).status \
            == "recorded"
    db.execute("UPDATE seats SET notify = 'digest' WHERE game_id = ? AND seat = 0", [game.id])
    assert scheduler.send_digests(app, datetime.now(timezone.utc).replace(hour=23)) == 1
    assert client.post("/home", data={"email": "p2@example.org"}).status_code == 303
    sent = deliver(app, db, smtp)
    (answer,) = [m for m in sent if m["In-Reply-To"] == "<reply@example.org>"]
    assert answer["Subject"].startswith("Recorded — ")
    (digest,) = [m for m in sent if m["Subject"].startswith("Your games: 1 waiting")]
    (home,) = [m for m in sent if m["Subject"] == "Your games"]

    footers = {}
    for message in (turn, answer, digest, home):
        assert message.get_content_type() == "multipart/alternative", message["Subject"]
        assert message.get_body(("html",)) is not None
        footers[message["Subject"]] = footer_of(message)
    # a turn email and an answer: one seat's footer, each with its own secret
    (turn_text, turn_links), (answer_text, answer_links) = \
        footers[turn["Subject"]], footers[answer["Subject"]]
    assert turn_links != answer_links
    for (url, _), (other, _) in zip(turn_links, answer_links):
        turn_text = turn_text.replace(url, other)
    assert turn_text == answer_text
    assert "daily digest" in footers[digest["Subject"]][0]
    assert "list of games" in footers[home["Subject"]][0]

    # the answer's pictures are the drawings of the page its link opens, after the move
    shown = html_of(answer)
    link = re.search(r"http://localhost/play/[\w-]{32}", answer.get_body(("plain",))
                     .get_content())[0]
    assert f'<a href="{link}"' in shown
    page = client.get(link.removeprefix("http://localhost")).get_data(as_text=True)
    images = [p.get_content() for p in answer.walk() if p.get_content_type() == "image/png"]
    assert images == [pictures.png(drawing) for drawing in pictures.drawings(page)]
    assert all(f"cid:{cid}" in shown for cid, _ in pictures.numbered(page))
    # each game of a digest and the list of games are buttons
    assert re.search(r'<a href="http://localhost/play/[\w-]{32}" style="display:inline-block;'
                     r'[^"]*">Open Mastery: Player 1 vs Player 2</a>', html_of(digest))
    assert re.search(r'<a href="http://localhost/home/[\w-]{32}" style="display:inline-block;'
                     r'[^"]*">Open your games</a>', html_of(home))


# -- the headers ----------------------------------------------------------------------------

def test_list_unsubscribe_stays_an_unencoded_url_however_long(app, db, new_game, tmp_path):
    """Folded, the header became RFC 2047 encoded words (=?utf-8?q?=3Chttps...), which
    providers' unsubscribe buttons do not read: it stays one line, <URL> as it is."""
    app.config["PUBLIC_URL"] = "http://localhost/" + "/".join(["a-rather-long-folder"] * 8)
    new_game()
    folder = tmp_path / "out"
    assert outbox.deliver_due(db, outbox.FileTransport(folder), app.config["MAIL_FROM"],
                              app.config["PUBLIC_URL"]) == (2, 0)
    for path in folder.glob("*.eml"):
        raw = path.read_bytes()
        line = re.search(rb"^List-Unsubscribe: (.*)\r\n(?![ \t])", raw, re.M)[1].decode()
        assert re.fullmatch(re.escape(f"<{app.config['PUBLIC_URL']}/email/") + r"[\w-]{32}"
                            r"/unsubscribe>", line), line
        assert len(line) > 200
        parsed = email.message_from_bytes(raw, policy=email.policy.default)
        assert parsed["List-Unsubscribe"] == line
        assert parsed["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_a_header_word_longer_than_a_line_may_be_is_refused():
    url = "<https://games.example.org/" + "x" * 900 + ">"
    assert f"List-Unsubscribe: {url}\r\n".encode() in compose({"List-Unsubscribe": url}, "hi")
    with pytest.raises(HeaderInjection):
        compose({"List-Unsubscribe": url.replace("x" * 900, "x" * 1000)}, "hi")


def test_every_notification_is_auto_generated_and_an_answer_auto_replied(
        app, client, db, smtp, new_game):
    """RFC 3834: what the server sends of itself is auto-generated (start, turns, chat,
    the end); its answer to a player's own email is auto-replied."""
    game = new_game()
    api_move(client, game.apis[0], client.get(game.apis[0]).json["legal_moves"][0])
    assert client.post(f"{game.apis[0]}/chat", json={"text": "Hello"}).status_code == 201
    notifications = deliver(app, db, smtp)
    assert len(notifications) == 4  # two starts, a turn, a chat message
    for message in notifications:
        assert message.get_all("Auto-Submitted") == ["auto-generated"], message["Subject"]

    (turn,) = [m for m in notifications if m["Subject"].startswith("Your move")]
    reply = EmailMessage()
    reply["From"], reply["To"] = "p2@example.org", turn["Reply-To"]
    reply["Subject"], reply["Message-ID"] = "Re: " + turn["Subject"], "<reply@example.org>"
    reply.set_content(client.get(game.apis[1]).json["legal_moves"][0])
    with app.app_context():
        inbound.receive(connect(app.config["DATABASE"]), bytes(reply))
    (answer,) = [m for m in deliver(app, db, smtp) if m["In-Reply-To"] == "<reply@example.org>"]
    assert answer.get_all("Auto-Submitted") == ["auto-replied"]


def test_a_picture_that_cannot_be_drawn_leaves_the_email_its_words(app, db, smtp, new_game,
                                                                    caplog):
    """A board resvg refuses does not hold the email back (the mail job would retry it and
    give it up): the plain text goes alone, and the log names the email, not its content."""
    new_game("mastery")
    db.execute("UPDATE outbox SET board = ?", ['<svg class="board"><g></svg>'])
    messages = deliver(app, db, smtp)
    assert len(messages) == 2
    for message in messages:
        assert message.get_content_type() == "text/plain"
        assert "You play" in message.get_content()
    assert "the board's picture could not be drawn (ValueError)" in caplog.text
