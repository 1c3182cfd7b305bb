// The service worker, served at /sw.js so that its scope is the whole site: it shows the
// push notifications of pbem/mail/push.py, opens the game when one is clicked, and shows
// the offline page when a page cannot be fetched.
"use strict";

const CACHE = "pbem-offline-1";
const OFFLINE = "/offline";

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE)
    .then((cache) => cache.addAll([OFFLINE, "/static/style.css", "/static/icon-192.png"]))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== CACHE)
      .map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

// Pages always come from the network (they hold the game as it is now); only when there
// is none does the offline page stand in, in the language of the last page shown. A
// navigation the worker could not fetch again is left to the browser: Back to a form's
// answer is a POST that may be answered only from the browser's cache (where no page is
// kept), and fetching it here would fail, online or not.
self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.mode !== "navigate" || request.method !== "GET"
      || request.cache === "only-if-cached") { return; }
  event.respondWith(fetch(request).then((response) => {
    event.waitUntil(keepOfflinePageIn(response.headers.get("Content-Language")));
    return response;
  }).catch(() => caches.match(OFFLINE)));  // the network failed
});

// The offline page kept is fetched again when a page comes in another language: with the
// same cookie and browser languages as that page, so it is in that page's language.
async function keepOfflinePageIn(language) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(OFFLINE);
  if (language && kept && kept.headers.get("Content-Language") !== language) {
    await cache.add(OFFLINE);
  }
}

// The message is JSON {title, body, url, tag}: url is the seat's own link, tag the seat's,
// so that a newer notification of the same seat replaces the older one.
self.addEventListener("push", (event) => {
  let message = {};
  try { message = event.data ? event.data.json() : {}; } catch (error) { message = {}; }
  event.waitUntil(self.registration.showNotification(message.title || "Correspondence games", {
    body: message.body || "", tag: message.tag, renotify: Boolean(message.tag),
    icon: "/static/icon-192.png", data: { url: message.url || "/", tag: message.tag },
  }));
});

// Which game a window shows: its play page answers with its seat's tag (app.js).
function tagOf(client) {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = (event) => resolve(event.data && event.data.tag);
    client.postMessage({ ask: "push-tag" }, [channel.port2]);
    setTimeout(() => resolve(null), 1000);  // a window without app.js never answers
  });
}

// The open window of the seat's game, if there is one.
async function gameWindow(tag) {
  if (!tag) { return undefined; }
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const tags = await Promise.all(windows.map(tagOf));
  return windows.find((client, i) => tags[i] === tag);
}

async function openGame(data) {
  const open = await gameWindow(data.tag);
  return open ? open.focus() : self.clients.openWindow(data.url);
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openGame(event.notification.data || {}));
});
