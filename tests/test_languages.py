"""English and Russian (pbem/languages.py): a page's language from the switch (the ``lang``
cookie) or Accept-Language, a seat's emails in its own language, a player's in theirs, and
every text of the templates and the code translated in the catalog.

A new template or message is checked by ``test_every_text_to_translate_has_its_russian``:
``./dev catalogs`` adds it to the catalog, to translate there (docs/operations.md); an email's
template that writes words without marking them fails
``test_an_email_template_writes_no_word_of_its_own``."""
from __future__ import annotations

import ast
import io
import re
from datetime import datetime, timezone
from html import unescape
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from jinja2 import nodes

from pbem.jobs import scheduler
from pbem.mail import outbox
from pbem.store.db import connect

from helpers import api_move, confirm_move, links_in, path_of, sign_up

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "pbem" / "translations" / "ru" / "LC_MESSAGES" / "messages.po"
# pybabel's own keywords, and those ./dev catalogs adds: engine.Text and the errors made of it
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), **{
    keyword: None for keyword in re.findall(r"-k (\w+)", (ROOT / "dev").read_text())}}
# the calls whose first argument is a message for players (engine.Text, the errors made of it)
MESSAGES = set(KEYWORDS) - {"_", "gettext", "ngettext", "lazy_gettext", "N_"}


def to_translate() -> dict[object, str]:
    """Every text the templates and the code mark for translation (as ``pybabel extract``
    finds them with babel.cfg), and where it is."""
    with open(ROOT / "babel.cfg") as config:
        method_map, options_map = parse_mapping_cfg(config)
    found = {}
    for filename, line, message, _comments, _context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=KEYWORDS):
        found.setdefault(message, f"{filename}:{line}")
    return found


def catalog():
    with open(CATALOG, "rb") as po:
        return read_po(po, locale="ru")


@pytest.mark.one_database
def test_every_text_to_translate_has_its_russian():
    russian = catalog()
    untranslated = []
    for message, where in to_translate().items():
        entry = russian.get(message[0] if isinstance(message, tuple) else message)
        strings = entry.string if entry is not None and isinstance(entry.string, tuple) \
            else (entry.string,) if entry is not None else ("",)
        if entry is None or entry.fuzzy or not all(strings):
            untranslated.append(f"{where}: {message!r}")
    assert not untranslated, "not in Russian (./dev catalogs, then translate):\n" + \
        "\n".join(untranslated)


@pytest.mark.one_database
@pytest.mark.parametrize("template", sorted(
    str(path.relative_to(ROOT / "templates")) for folder in ("email", "inbound")
    for path in (ROOT / "templates" / folder).glob("*.txt")))
def test_an_email_template_writes_no_word_of_its_own(app, template):
    """Every word of an email's text is marked for the catalog ({{ _() }}, {% trans %}):
    a word written in the template itself would reach a Russian reader in English."""
    tree = app.jinja_env.parse((ROOT / "templates" / template).read_text())
    bare = [node.data for node in tree.find_all(nodes.TemplateData)
            if re.search(r"[^\W\d_]{2,}", node.data)]
    assert not bare, f"{template} writes words outside the catalog: {bare}"


def test_every_message_for_players_is_a_template_the_catalog_can_hold():
    """What the engines and the core say to players is extracted for the catalog only when
    it is written as a template (``"%(move)s is ..."``, its fields as arguments): an
    f-string or a sum of strings would reach a Russian page in English. So is an outcome's
    reason (``Outcome``'s third argument), which results and emails show."""
    written_out = []
    for path in sorted([*ROOT.glob("engine/**/*.py"), *ROOT.glob("pbem/**/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            message = node.args[0] if name in MESSAGES and node.args else \
                node.args[2] if name == "Outcome" and len(node.args) == 3 else None
            if isinstance(message, (ast.JoinedStr, ast.BinOp)) or (
                    name == "Outcome" and isinstance(message, ast.Constant)):
                written_out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    assert not written_out, "write these as a template with fields:\n" + "\n".join(written_out)


@pytest.mark.one_database
def test_the_compiled_catalog_is_the_catalog():
    """The .mo the app reads says what the .po says (./dev catalogs compiles it)."""
    compiled = io.BytesIO()
    write_mo(compiled, catalog())
    assert CATALOG.with_suffix(".mo").read_bytes() == compiled.getvalue(), \
        "the .mo is older than the .po: run ./dev catalogs"


@pytest.mark.one_database
def test_pages_follow_accept_language_unless_the_switch_chose(client):
    english = client.get("/", headers={"Accept-Language": "de, en;q=0.5"})
    assert '<html lang="en">' in english.text and "Board games by correspondence" in english.text
    russian = client.get("/", headers={"Accept-Language": "ru-RU,ru;q=0.9,en;q=0.8"})
    assert '<html lang="ru">' in russian.text and "Настольные игры по переписке" in russian.text
    assert "Accept-Language" in russian.headers["Vary"]
    # the switch on every page links the same page in the other language
    switch = re.search(r'<nav class="languages".*?</nav>', russian.text, re.S)[0]
    assert 'href="?lang=en"' in switch and 'aria-current="true" lang="ru">Русский' in switch
    chosen = client.get("/lobby?lang=en", headers={"Accept-Language": "ru"})
    assert '<html lang="en">' in chosen.text
    assert re.match(r"lang=en;.*HttpOnly.*SameSite=Lax", chosen.headers["Set-Cookie"])
    # from then on the cookie wins over the browser's languages, on every page
    again = client.get("/new", headers={"Accept-Language": "ru"})
    assert '<html lang="en">' in again.text and "Start a game" in again.text
    client.get("/?lang=ru")
    assert "Начать партию" in client.get("/new", headers={"Accept-Language": "en"}).text
    # an unknown choice changes nothing
    assert "Set-Cookie" not in client.get("/?lang=xx").headers


@pytest.mark.one_database
def test_errors_dates_and_numbers_in_russian(client, new_game):
    missing = client.get("/nowhere", headers={"Accept-Language": "ru"})
    assert missing.status_code == 404 and "<h1>Не найдено</h1>" in missing.text
    game = new_game("mastery")
    page = client.get(game.urls[0] + "/history/9", headers={"Accept-Language": "ru"})
    assert "В этой партии пока 0 полуходов; полухода 9 нет." in page.text
    client.post(game.urls[0] + "/chat", data={"text": "Привет"})
    played = client.get(game.urls[0], headers={"Accept-Language": "ru"}).text
    assert re.search(r"<time datetime=[^>]+>\d+\s[а-я]+\.?\s\d{4}\sг\.,\s\d\d:\d\d UTC",
                     played)
    assert "Ходов пока нет." in played and "Ваш ход." in played
    english = client.get(game.urls[0], headers={"Accept-Language": "en"}).text
    assert re.search(r"<time datetime=[^>]+>\w{3} \d\d \w{3} \d{4}, \d\d:\d\d UTC", english)
    assert "No moves yet." in english


@pytest.mark.one_database
def test_the_manifest_in_the_pages_language(client):
    russian = client.get("/manifest.webmanifest", headers={"Accept-Language": "ru"}).json
    assert (russian["name"], russian["lang"]) == ("Игры по переписке", "ru")
    assert russian["description"].startswith("Абстрактные настольные игры по переписке")
    assert [s["name"] for s in russian["shortcuts"]] == ["Мои партии", "Новая партия", "Лобби"]
    english = client.get("/manifest.webmanifest", headers={"Accept-Language": "en"}).json
    assert (english["name"], english["lang"]) == ("Correspondence games", "en")
    assert [s["url"] for s in english["shortcuts"]] == [s["url"] for s in russian["shortcuts"]]
    # a browser fetches the manifest without cookies: a page links it in its own language
    client.set_cookie("lang", "ru")
    page = client.get("/", headers={"Accept-Language": "en"}).text
    linked = re.search(r'<link rel="manifest" href="([^"]+)">', page).group(1)
    assert linked == "/manifest.webmanifest?lang=ru"
    client.delete_cookie("lang")
    assert client.get(linked, headers={"Accept-Language": "en"}).json["lang"] == "ru"


@pytest.mark.one_database
def test_error_pages_in_russian(app, client, monkeypatch):
    russian = {"Accept-Language": "ru"}
    monkeypatch.setitem(app.config, "PROPAGATE_EXCEPTIONS", False)  # as on a real server
    monkeypatch.setitem(app.view_functions, "site.rules_index", lambda: 1 / 0)
    for answer, status, heading, reason in [
            (client.get("/nowhere", headers=russian), 404, "Не найдено",
             "По этому адресу ничего нет."),
            (client.get("/play/" + "x" * 32, headers=russian), 404, "Не найдено",
             "Эта ссылка не открывает ни одной партии."),
            (client.get("/play/%00", headers=russian), 404, "Не найдено", "Такой страницы нет."),
            (client.delete("/lobby", headers=russian), 405, "Метод не разрешён",
             "Этот адрес не отвечает на такой запрос."),
            (client.post("/new/mastery", data={"name0": "x" * 70_000}, headers=russian), 413,
             "Слишком большой запрос", "Отправленное слишком велико для этого сервера."),
            (client.get("/rules", headers=russian), 500, "Внутренняя ошибка сервера",
             "На сервере что-то пошло не так.")]:
        assert answer.status_code == status
        assert f"<h1>{heading}</h1>" in answer.text and reason in answer.text, answer.text
        assert "<html lang=\"ru\">" in answer.text
    english = client.delete("/lobby", headers={"Accept-Language": "en"})
    assert "This address does not answer this kind of request." in english.text


def test_a_seats_emails_are_in_its_language(app, client, db, smtp):
    created = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Аня", "email": "anya@example.org", "language": "ru"},
        {"name": "Bob", "email": "bob@example.org"}]})
    assert created.status_code == 201, created.json
    refused = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "A", "email": "a@example.org", "language": "xx"}, {"bot": "easy"}]})
    assert refused.status_code == 400 and "'language'" in refused.json["error"]
    outbox.deliver_due(db, outbox.SMTPTransport("127.0.0.1", smtp.port, timeout=5),
                       app.config["MAIL_FROM"], app.config["PUBLIC_URL"])
    sent = {m["To"]: m for m in smtp.messages}
    russian, english = sent["anya@example.org"], sent["bob@example.org"]
    assert russian["Subject"].startswith("Партия началась — Mastery")
    assert russian["From"] == "Игры по переписке <games@localhost>"  # MAIL_FROM's name
    assert english["From"] == "Correspondence games <games@localhost>"
    body = russian.get_body(("plain",)).get_content()
    assert "Здравствуйте, Аня!" in body and "Ваша секретная ссылка на партию" in body
    assert "Отписаться от писем о ходах этой партии" in body
    assert '<html lang="ru">' in russian.get_body(("html",)).get_content()
    assert english["Subject"].startswith("Game started — Mastery")
    assert "Hello Bob," in english.get_body(("plain",)).get_content()
    # the settings page changes the seat's language: Bob's next email is in Russian
    bob = path_of(created.json["seats"][1]["url"])
    field = f"notify-{created.json['id']}-1"
    saved = client.post(bob + "/email", data={field: "each", f"language-{field}": "ru"})
    assert saved.status_code == 303
    anya = path_of(created.json["seats"][0]["url"])
    client.post(anya + "/move", data={"move": next(iter(
        client.get(created.json["seats"][0]["api"]).json["legal_moves"])), "ply": 0})
    rows = list(connect(app.config["DATABASE"]).query(
        "SELECT subject, body FROM outbox WHERE recipient = 'bob@example.org' AND kind = 'turn'"))
    assert rows and rows[0]["subject"].startswith("Ваш ход — Mastery")
    assert "Сделайте ход здесь:" in rows[0]["body"]


def test_a_russian_digest_writes_its_day_in_russian(app, client, db):
    created = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Аня", "email": "anya@example.org", "language": "ru"},
        {"name": "Bob", "email": "bob@example.org"}]}).json
    db.execute("UPDATE seats SET notify = 'digest' WHERE game_id = ?", [created["id"]])
    assert scheduler.send_digests(app, datetime(2026, 11, 26, 8, tzinfo=timezone.utc)) == 1
    digest = db.execute("SELECT subject, body FROM outbox WHERE kind = 'digest'").fetchone()
    assert re.fullmatch(r"1 партия ждёт вашего хода \(26 ноября 2026\sг\.\)", digest["subject"])
    assert re.search(r"Сегодня \(26 ноября 2026\sг\.\) вас ждёт 1 партия:", digest["body"])


def test_a_takeback_request_reaches_a_russian_seat_in_russian(app, client, db):
    """The takeback email and the notice on the page, composed in the seat's language."""
    created = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Bob", "email": "bob@example.org"},
        {"name": "Аня", "email": "anya@example.org", "language": "ru"}]}).json
    bob = created["seats"][0]["api"]
    api_move(client, bob, client.get(bob).json["legal_moves"][0])
    assert client.post(f"{bob}/takeback").status_code == 202
    email = db.execute("SELECT subject, body FROM outbox WHERE recipient = ? AND kind = ?",
                       ["anya@example.org", "takeback_offer"]).fetchone()
    assert email["subject"].startswith("Просьба вернуть ход — Mastery")
    assert "Bob (Тёмные): просьба вернуть последний ход в партии «Mastery»" in email["body"]
    page = client.get(path_of(created["seats"][1]["url"]),
                      headers={"Accept-Language": "ru"}).text
    assert "Bob просит вернуть свой последний ход: примите или отклоните просьбу." in page
    english = client.get(path_of(created["seats"][1]["url"]),
                         headers={"Accept-Language": "en"}).text
    assert "Bob asks to take back their last move: accept or decline it." in english


def resigned_game_of_anya_and_bob(client) -> list[str]:
    """A game of Mastery that Аня (Russian emails) resigned to Bob: its seats' API links."""
    created = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Аня", "email": "anya@example.org", "language": "ru"},
        {"name": "Bob", "email": "bob@example.org"}]}).json
    apis = [seat["api"] for seat in created["seats"]]
    assert client.post(f"{apis[0]}/resign", json={}).status_code == 200
    return apis


def test_a_rematch_keeps_each_players_language(client, db):
    apis = resigned_game_of_anya_and_bob(client)
    assert client.post(f"{apis[0]}/rematch").status_code == 202
    rematch = client.post(f"{apis[1]}/rematch").json["id"]  # Bob now plays the first seat
    rows = db.execute("SELECT seat, language FROM seats WHERE game_id = ? ORDER BY seat",
                      [rematch]).fetchall()
    assert [tuple(row) for row in rows] == [(0, "en"), (1, "ru")]
    started = db.execute("SELECT subject FROM outbox WHERE recipient = ? AND game_id = ? "
                         "AND kind = 'start'", ["anya@example.org", rematch]).fetchone()
    assert started["subject"].startswith("Партия началась")


def test_a_seat_taken_from_a_russian_page_gets_russian_emails(client, db):
    created = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Ann", "email": "ann@example.org"}, {"open": True}]}).json
    joined = client.post(path_of(created["seats"][1]["join"]),
                         data={"name": "Борис", "email": "boris@example.org"},
                         headers={"Accept-Language": "ru"})
    assert joined.status_code == 303
    started = db.execute("SELECT recipient, subject FROM outbox WHERE kind = 'start' AND "
                         "recipient = ?", ["boris@example.org"]).fetchone()
    assert started["subject"].startswith("Партия началась")


def test_the_new_game_form_sets_each_seats_language(client, db):
    form = client.get("/new/mastery", headers={"Accept-Language": "ru"}).text
    assert re.search(r'<select name="language1">.*<option value="ru" lang="ru" selected>', form)
    created = client.post("/new/mastery", data={
        "players": "2", "name0": "Ann", "email0": "ann@example.org", "language0": "en",
        "name1": "Борис", "email1": "boris@example.org", "language1": "ru"})
    assert created.status_code == 303
    rows = db.execute("SELECT seat, language FROM seats ORDER BY seat").fetchall()
    assert [tuple(row) for row in rows] == [(0, "en"), (1, "ru")]


def test_a_players_emails_are_in_the_players_language(client, db):
    """Emails to a player rather than a seat (sign-in links, "Your games") are in the
    language of the page the player first signed in from, whatever page asks for them
    later, until the player chooses another; an address with no player gets the page's."""

    def last_email(recipient: str, kind: str) -> tuple[str, str]:
        row = db.execute("SELECT subject, body FROM outbox WHERE recipient = ? AND kind = ? "
                         "ORDER BY id DESC", [recipient, kind]).fetchone()
        return row["subject"], row["body"]

    client.set_cookie("lang", "ru")
    key = path_of(sign_up(client, db, "Anya"))
    client.delete_cookie("lang")
    assert client.get(key).json["language"] == "ru"
    # a seat that is the player's by their key speaks it too, unless its entry says otherwise
    created = client.post("/api/games", json={"game": "mastery", "players": [
        {"key": key}, {"key": key, "language": "en"}]}).json
    rows = db.execute("SELECT language FROM seats WHERE game_id = ? ORDER BY seat",
                      [created["id"]]).fetchall()
    assert [row[0] for row in rows] == ["ru", "en"]
    challenge = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Bob", "email": "bob@example.org"}, {"open": True}]}).json
    joined = client.post(path_of(challenge["seats"][1]["join"]), json={"key": key},
                         headers={"Accept-Language": "en"})
    assert joined.status_code in (200, 201), joined.json
    assert db.execute("SELECT language FROM seats WHERE game_id = ? AND seat = 1",
                      [challenge["id"]]).fetchone()[0] == "ru"
    english = {"Accept-Language": "en"}
    client.post("/api/sign-in", json={"email": "anya@example.org"}, headers=english)
    subject, body = last_email("anya@example.org", "sign_in")
    assert subject == "Вход на сайт" and body.startswith("Здравствуйте!")
    assert "Кто-то (надеемся, вы) попросил войти с этим адресом" in body
    client.post("/home", data={"email": "anya@example.org"}, headers=english)
    subject, body = last_email("anya@example.org", "home")
    assert subject == "Ваши партии" and "запросил список партий, сыгранных с этим адресом" in body
    # no player: the language of the page that asked
    client.post("/api/sign-in", json={"email": "new@example.org"},
                headers={"Accept-Language": "ru"})
    assert last_email("new@example.org", "sign_in")[0] == "Вход на сайт"
    # the player's notifications page changes it
    page = client.get("/me/notifications", headers=english).text
    assert re.search(r'<select name="language">.*<option value="ru" lang="ru" selected>', page)
    assert client.post("/me/notifications", data={"language": "en"}).status_code == 303
    assert client.get(key).json["language"] == "en"
    client.post("/api/sign-in", json={"email": "anya@example.org"},
                headers={"Accept-Language": "ru"})
    subject, body = last_email("anya@example.org", "sign_in")
    assert subject == "Sign in" and body.startswith("Hello,")


@pytest.mark.one_database
@pytest.mark.parametrize("game", ["mastery", "the-right-moves", "magnetic-field", "magnet"])
def test_every_rules_page_in_russian_with_every_diagram(client, game):
    """The Russian page of a game's rules shows as many diagrams, and every notation."""
    english = client.get(f"/rules/{game}", headers={"Accept-Language": "en"}).text
    russian = client.get(f"/rules/{game}", headers={"Accept-Language": "ru"})
    assert russian.status_code == 200 and '<html lang="ru">' in russian.text
    assert "Правила игры" in russian.text and "Правила игры" not in english
    assert russian.text.count('<figure class="diagram">') == english.count(
        '<figure class="diagram">')
    notation = re.compile(r"<code>[^<]*</code>")  # moves keep their notation
    assert set(notation.findall(english)) <= set(notation.findall(russian.text))


@pytest.mark.one_database
def test_a_russian_page_refuses_and_explains_in_russian(client, new_game):
    """An illegal move's reason, a stale page's refusal and the result, on a page whose
    language is Russian; the move keeps its notation."""
    game = new_game("mastery", names=["Аня", "Bob"])
    russian = {"Accept-Language": "ru"}
    illegal = client.post(game.urls[0] + "/move", data={"move": "d4-d6", "ply": 0},
                          headers=russian)
    assert illegal.status_code == 422
    assert "d4-d6: Пешка на d4 не может пойти на d6. Её ходы: " in illegal.text
    english = client.post(game.urls[0] + "/move", data={"move": "d4-d6", "ply": 0})
    assert "d4-d6: the Pawn on d4 cannot go to d6. It can go: " in english.text
    assert client.post(game.urls[0] + "/move", data={"move": "d4xc5", "ply": 0}).status_code \
        == 303
    stale = client.post(game.urls[1] + "/move", data={"move": "b6xc5", "ply": 0},
                        headers=russian)
    assert stale.status_code == 409
    assert "Партия ушла вперёд с тех пор, как вы открыли страницу (вы видели полуход 0, а " \
           "сейчас полуход 1)." in stale.text
    assert client.post(game.urls[1] + "/resign", data={"confirm": "yes", "ply": 1}) \
        .status_code == 303
    over = client.get(game.urls[0], headers=russian).text
    assert "Победа: Аня (Bob сдаётся)" in over
    refused = client.post(game.urls[1] + "/draw", data={"answer": "offer", "ply": 1},
                          headers=russian)
    assert "Партия окончена: Bob сдаётся." in refused.text
    assert "Player 1 won: Bob resigned" not in over  # nothing left in English
    assert "Аня won: Bob resigned" in client.get(game.urls[0]).text


@pytest.mark.one_database
def test_the_api_answers_errors_in_the_requests_language(client, new_game):
    """The ``error`` text follows Accept-Language (English without one); the status and the
    other fields stay as they are."""
    game = new_game("the-right-moves")
    move = f"{game.apis[0]}/moves"
    english = client.post(move, json={"move": "hello", "ply": 0})
    russian = client.post(move, json={"move": "hello", "ply": 0},
                          headers={"Accept-Language": "ru-RU,ru;q=0.9"})
    assert english.status_code == russian.status_code == 422
    assert english.json == {"error": "'hello' is not a move of The Right Moves. Write a step "
                            "or a skip as its start and destination, like 4b-3b or 1i-3k, and "
                            "a jump as its start and every landing space, like 4ex2e or "
                            "3ex3gx3i."}
    assert russian.json == {"error": "«hello»\u00a0— не ход The Right Moves. Шаг или скольжение "
                            "записываются полем начала и полем назначения, например 4b-3b или "
                            "1i-3k, а прыжок\u00a0— полем начала и каждым полем приземления, "
                            "например 4ex2e или 3ex3gx3i."}
    out_of_turn = client.post(f"{game.apis[1]}/moves", json={"move": "3j-2k", "ply": 0},
                              headers={"Accept-Language": "ru"})
    assert out_of_turn.status_code == 422 and out_of_turn.json["error"] == "Сейчас не ваш ход."
    bad = client.post(move, json={"move": 5, "ply": 0}, headers={"Accept-Language": "ru"})
    assert bad.status_code == 400
    assert bad.json["error"] == "'move' должно быть ходом в нотации игры."
    assert client.post("/api/games", json={"game": "chess"}, headers={
        "Accept-Language": "ru"}).json["error"] == "Игры 'chess' нет. Игры: " + ", ".join(
            ["mastery", "magnet", "the-right-moves", "magnetic-field"]) + "."


def test_a_russian_seat_reads_the_result_in_russian(client, db):
    """The email at the end and the rematch email give the result in the seat's language."""
    apis = resigned_game_of_anya_and_bob(client)
    assert client.post(f"{apis[1]}/rematch").status_code == 202

    def body(recipient: str, kind: str) -> str:
        return db.execute("SELECT body FROM outbox WHERE recipient = ? AND kind = ?",
                          [recipient, kind]).fetchone()["body"]

    assert "Победа: Bob (Аня сдаётся)." in body("anya@example.org", "end")
    assert "Bob won: Аня resigned." in body("bob@example.org", "end")
    assert "(Победа: Bob (Аня сдаётся))" in body("anya@example.org", "rematch")


# -- the boards' words ---------------------------------------------------------------------

# What a board says for players, on a page: every <title> and aria-label of its drawings,
# the move builder (its hints, what was clicked, its buttons, a preview of the turn), and
# the position in words; the confirm button and the typed-move form name a move in its
# notation, which no language translates
BOARD_WORDS = re.compile(r'<svg\b.*?</svg>|<section class="builder".*?</section>'
                         r'|<details class="position-words".*?</details>', re.S)
NOTATION = re.compile(r'<form [^>]*class="confirm">.*?</form>|<input [^>]*>', re.S)
TITLES = ("The Right Moves", "Mastery", "Magnet")  # a game's name is its name in Russian too
ENGLISH = re.compile(r"\b[A-Za-z]{2,}\b")
MAGNET_MARKS = re.compile(r"\b[RB](?:K|T[23]|[234?])\(\d\)")  # its text drawing's pieces


def board_words(html: str) -> str:
    """What the boards of ``html`` say to players, as text: notation and games' names out."""
    said = []
    for part in BOARD_WORDS.findall(NOTATION.sub("", html)):
        said += re.findall(r'(?:aria-label|title)="([^"]*)"', part)
        said.append(re.sub(r"<[^>]+>", " ", part))
    text = MAGNET_MARKS.sub("", unescape(" ".join(said)))
    for title in TITLES:
        text = text.replace(title, "")
    return text


def _pages_in_russian(client, url: str, paths: tuple[str, ...]) -> dict[str, str]:
    """The pages of ``paths``, and those of the builder's first link from the first page
    on, three clicks deep."""
    def page(href: str) -> str:
        return client.get(href, headers={"Accept-Language": "ru"}).get_data(as_text=True)

    pages = {path: page(url + (f"?path={path}" if path else "")) for path in paths}
    followed = pages[paths[0]]
    for _ in range(3):
        links = links_in(followed)
        if not links:
            break
        href = next(iter(links.values()))
        followed = pages[href] = page(href)
    return pages


def _to_move(client, game) -> int:
    return client.get(game.apis[0]).json["to_move"][0]


@pytest.mark.one_database
@pytest.mark.parametrize("game_id, moves, paths", [
    ("mastery", (), ("",)),
    ("the-right-moves", (), ("",)),
    ("magnet", (), ("", "K", "K.a2", "random")),
    ("magnet", ("random", "random"), ("", "f4", "f4.g3", "e3")),
    ("magnetic-field", (), ("",)),
    ("magnetic-field", ("pick K", "pick K", "pick D", "pick D", "K@e5 +e4:n"),
     ("", "K", "K.e6", "D", "%2Bn", "%2Bn.a1", "e7", "e7.e", "pass")),
])
def test_a_russian_play_page_says_the_boards_words_in_russian(client, new_game, game_id,
                                                               moves, paths):
    """Hints, the cells' and pieces' labels, the legends and the position in words of the
    page of each game's seat to move, for a Russian reader: no English word left, only
    notation. ("random": the arrangement Magnet's builder offers.)"""
    game = new_game(game_id)
    for move in moves:
        seat = _to_move(client, game)
        if move == "random":
            move = confirm_move(client.get(game.urls[seat] + "?path=random").text)
        api_move(client, game.apis[seat], move)
    pages = _pages_in_russian(client, game.urls[_to_move(client, game)], paths)
    for path, html in pages.items():
        said = board_words(html)
        assert re.search(r"[а-яё]{3}", said), (path, said[:300])
        assert not ENGLISH.findall(said), (path, ENGLISH.findall(said), said)
    # the builder went where the paths lead: its hints and buttons are among what was read
    assert any('class="hint"' in html or "<button" in html for html in pages.values())


@pytest.mark.parametrize("game_id, legend, english", [
    ("magnetic-field", "Поле пусто.", "The field is empty."),  # its start: the draft
    ("magnet", "R\u00a0— красные, B\u00a0— синие, затем ценность",
     "R Red, B Blue, then the value"),
])
def test_a_russian_seats_email_shows_the_board_in_russian(app, client, db, smtp, game_id,
                                                          legend, english):
    """The board of an email to a Russian seat: its text's legend and its pictures' alt
    texts (what a screen reader reads of them) in Russian; an English seat's in English."""
    created = client.post("/api/games", json={"game": game_id, "players": [
        {"name": "Аня", "email": "anya@example.org", "language": "ru"},
        {"name": "Bob", "email": "bob@example.org"}]})
    assert created.status_code == 201, created.json
    outbox.deliver_due(db, outbox.SMTPTransport("127.0.0.1", smtp.port, timeout=5),
                       app.config["MAIL_FROM"], app.config["PUBLIC_URL"])
    sent = {m["To"]: m for m in smtp.messages}
    russian, english_email = sent["anya@example.org"], sent["bob@example.org"]
    text = russian.get_body(("plain",)).get_content()
    assert legend in text and english not in text
    pictures = re.findall(r'<img [^>]*alt="([^"]*)"', russian.get_body(("html",)).get_content())
    assert pictures and all(re.search(r"[а-яё]{3}", alt) and not ENGLISH.search(
        alt.replace("Magnet", "")) for alt in pictures), pictures
    assert english in english_email.get_body(("plain",)).get_content()
    assert re.findall(r'<img [^>]*alt="([^"]*)"', english_email.get_body(("html",)).get_content(
    ))[0] in ("Magnet board", "Magnetic Field board")



def test_sides_are_named_in_the_readers_language(app, client, db, smtp):
    """A side's name on a Russian page and in a Russian seat's email; the API, which
    programs read, keeps the engine's."""
    created = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Аня", "email": "anya@example.org", "language": "ru"},
        {"name": "Bob", "email": "bob@example.org"}]}).json
    url, api = (path_of(created["seats"][0][key]) for key in ("url", "api"))
    page = client.get(url, headers={"Accept-Language": "ru"}).text
    players = re.search(r'<ul class="players">.*?</ul>', page, re.S)[0]
    assert "Тёмные" in players and "Светлые" in players
    assert re.search(r"<title>Mastery — Тёмные", page)
    assert not re.search(r"\b(?:Dark|Light)\b", page)
    english = client.get(url, headers={"Accept-Language": "en"}).text
    assert re.search(r"<title>Mastery — Dark", english) and "Light" in english
    assert [p["side"] for p in client.get(api).json["players"]] == ["Dark", "Light"]
    outbox.deliver_due(db, outbox.SMTPTransport("127.0.0.1", smtp.port, timeout=5),
                       app.config["MAIL_FROM"], app.config["PUBLIC_URL"])
    sent = {m["To"]: m.get_body(("plain",)).get_content() for m in smtp.messages}
    assert "Тёмные: Аня" in sent["anya@example.org"]
    assert "Ваша сторона: Тёмные;" in sent["anya@example.org"]
    assert "Dark" not in sent["anya@example.org"]
    assert "You play Light;" in sent["bob@example.org"]
