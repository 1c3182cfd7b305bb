"""The installable app in a real headless Chromium: the service worker's push handler shows
a message the server really sent (decrypted by the loopback push service of test_push.py,
then delivered to the service worker through the DevTools protocol's
``ServiceWorker.deliverPushMessage``), and its click goes to the game; the offline page
and notice; the manifest a phone installs from.

What is driven and what is not: Chromium lets a service worker focus or open a window only
inside a notification click that Chromium itself dispatches, and neither the DevTools
protocol nor Playwright can click a notification. So the click's two halves are checked
apart: the service worker's own ``gameWindow`` (what its click handler focuses) finds the
open tab of the notified seat's game and no other, and the notification's URL (what the
handler opens when no tab shows the game) opens the seat's game. A real subscription
needs the browser maker's push service (on the internet), so the "Notify me on this
device" switch is checked up to asking for one.
"""
from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from helpers import api_move, path_of
from test_push import PushService, deliver, subscribe

pytestmark = pytest.mark.browser

TIMEOUT_MS = 10_000


@pytest.fixture
def context(browser, live_server):
    context = browser.new_context()
    context.set_default_timeout(TIMEOUT_MS)
    context.grant_permissions(["notifications"], origin=live_server)
    yield context
    context.close()


def service_worker_domain(context, page, site: str):
    """A DevTools session with its ServiceWorker domain enabled, and the id it gives the
    service worker registration of ``site`` (the domain lists those of the browser's other
    windows too, kept open from earlier tests for other servers)."""
    cdp = context.new_cdp_session(page)
    found: list[str] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda event: found.extend(
        r["registrationId"] for r in event["registrations"]
        if not r["isDeleted"] and r["scopeURL"] == site + "/"))
    cdp.send("ServiceWorker.enable")
    for _ in range(50):
        if found:
            return cdp, found[0]
        page.wait_for_timeout(100)
    raise AssertionError("no service worker registration")


def test_a_push_shows_the_notification_and_its_click_goes_to_the_game(
        app, client, new_game, live_server, context):
    game = new_game("mastery")
    # what the server sends Light's devices when its turn begins, as a device decrypts it
    app.config["PUSH_ALLOW_PRIVATE"] = True
    service = PushService(client.get("/api/push").json["public_key"])
    try:
        subscribe(client, game.apis[1], service.device("light"))
        api_move(client, game.apis[0], client.get(game.apis[0]).json["legal_moves"][0])
        deliver(app)
    finally:
        service.server.shutdown()
    [message] = service.payloads("light")

    light = context.new_page()
    light.goto(live_server + game.urls[1])
    light.evaluate("navigator.serviceWorker.ready.then(() => true)")
    other = context.new_page()  # another game's page, open as well
    other.goto(live_server + new_game("mastery").urls[0])
    cdp, registration = service_worker_domain(context, light, live_server)
    cdp.send("ServiceWorker.deliverPushMessage", {
        "origin": live_server, "registrationId": registration, "data": json.dumps(message)})
    shown = light.evaluate("""async (tries) => {
        const registration = await navigator.serviceWorker.ready;
        for (let i = 0; i < tries; i++) {
            const shown = await registration.getNotifications();
            if (shown.length) { return shown.map((n) => (
                {title: n.title, body: n.body, tag: n.tag, data: n.data})); }
            await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return [];
    }""", TIMEOUT_MS // 100)  # as long as any other wait of the tests
    assert shown == [{"title": message["title"], "body": message["body"],
                      "tag": message["tag"], "data": {"url": message["url"],
                                                      "tag": message["tag"]}}]
    assert shown[0]["title"] == "Your move — Mastery"

    # the click focuses the open tab of the seat's game: the service worker finds it
    [worker] = context.service_workers
    found = worker.evaluate("tag => gameWindow(tag).then(client => client && client.url)",
                            message["tag"])
    assert found == light.url
    light.close()
    assert worker.evaluate("tag => gameWindow(tag).then(client => client && client.url)",
                           message["tag"]) is None
    # ... and without one it opens the notification's URL: the seat's own game
    opened = context.new_page()
    opened.goto(message["url"].replace("http://localhost", live_server))
    expect(opened).to_have_title("Mastery — Light")
    assert path_of(message["url"]) != game.urls[1]  # a fresh link to the same seat


def test_the_switch_offline_page_and_manifest(app, new_game, live_server, context):
    game = new_game("mastery")
    page = context.new_page()
    page.goto(live_server + game.urls[0])
    switch = page.locator("aside .email-link + .push-switch")  # by the notification settings
    expect(switch).to_be_visible()  # this browser has Web Push
    expect(switch.get_by_label("Notify me on this device")).not_to_be_checked()
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    # subscribing needs Chromium's push service, on the internet: the switch says it failed,
    # in the page's words (not the browser's, which are English and name its internals)
    for language, label, failed in (
            ("ru", "Уведомлять на этом устройстве", "Не получилось: этот браузер не смог"),
            ("en", "Notify me on this device", "Not done: this browser could not subscribe")):
        page.goto(f"{live_server}{game.urls[0]}?lang={language}")
        switch.get_by_label(label).click()  # it may fail at once
        expect(switch.locator(".push-status")).to_have_text(re.compile(f"^{failed}"))
        expect(switch.get_by_label(label)).not_to_be_checked()
    # a move's page swapped in by a click on the board has its switch working too
    page.locator(".board-area a.cell").first.click()
    expect(page).to_have_url(re.compile(r"\?path="))
    switch.get_by_label("Notify me on this device").click()
    expect(switch.locator(".push-status")).to_contain_text("Not done")

    # a phone installs the site from its manifest
    manifest = page.evaluate("fetch(document.querySelector('link[rel=manifest]').href)"
                             ".then(r => r.json())")
    assert manifest["display"] == "standalone" and {i["sizes"] for i in manifest["icons"]} \
        == {"192x192", "512x512"}
    for icon in manifest["icons"]:
        assert page.evaluate("src => fetch(src).then(r => r.headers.get('content-type'))",
                             icon["src"]) == "image/png"

    # offline: the open page says so, and a page asked for then is the offline page
    context.set_offline(True)
    expect(page.locator(".offline-notice")).to_be_visible()
    page.goto(live_server + game.urls[0])
    expect(page.get_by_role("heading", name="You are offline")).to_be_visible()
    context.set_offline(False)
    page.reload()
    expect(page.get_by_role("heading", name="Mastery")).to_be_visible()
    expect(page.locator(".offline-notice")).to_be_hidden()

    # in the language of the last page shown: once the switch chose Russian, so is it
    page.goto(live_server + game.urls[0] + "?lang=ru")
    kept_in = "caches.match('/offline').then(kept => kept.headers.get('Content-Language'))"
    for _ in range(50):  # the service worker fetches it again after the page
        if page.evaluate(kept_in) == "ru":
            break
        page.wait_for_timeout(100)
    context.set_offline(True)
    page.goto(live_server + game.urls[0])
    expect(page.get_by_role("heading", name="Нет связи")).to_be_visible()
    context.set_offline(False)
