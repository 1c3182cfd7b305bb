// Progressive enhancement for game pages. Everything works without this file: board clicks
// are plain links and moves are plain forms. With it, a click fetches the next page and
// swaps the game in place (no reload, no scroll jump), and arrow keys walk the history.
"use strict";

async function swapGame(url, push) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) { window.location.href = url; return; }
  const page = new DOMParser().parseFromString(await response.text(), "text/html");
  const fresh = page.getElementById("game");
  const current = document.getElementById("game");
  if (!fresh || !current) { window.location.href = url; return; }
  // a board wider than a phone pans in its frame: keep it where the player left it
  const panned = [...current.querySelectorAll(".board-frame")].map(
    (frame) => (frame.scrollWidth > frame.clientWidth ? frame.scrollLeft : null));
  // a chat message or notes being typed survive a click on the board
  for (const area of current.querySelectorAll("textarea[id]")) {
    const twin = fresh.querySelector(`textarea#${area.id}`);
    if (twin && area.value !== area.defaultValue) { twin.value = area.value; }
  }
  current.replaceWith(fresh);
  fresh.querySelectorAll(".board-frame").forEach((frame, i) => { pan(frame, panned[i] ?? null); });
  setUpPushSwitch();  // the page's switch was swapped with the game
  document.title = page.title;
  if (push) { history.pushState({ game: true }, "", url); } else { history.replaceState({ game: true }, "", url); }
}

document.addEventListener("click", (event) => {
  const link = event.target.closest("#game .board-area a, #game .builder a, #game .plies a, #game .moves a");
  if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) { return; }
  event.preventDefault();
  // an SVG <a> has no string href property: resolve its attribute
  const href = new URL(link.getAttribute("href"), document.baseURI).href;
  const walking = link.closest(".plies, .moves") !== null;
  const place = placeOf(link);
  swapGame(href, walking).then(() => { keepPlace(place); uncover(); })
    .catch(() => { window.location.href = href; });
});

// On a phone the move being chosen stays at the bottom of the screen, over the page
// (style.css): scroll the board's lower edge (in Mastery, the mover's own pieces off the
// board, which a resurrection brings back) up above it, its upper edge staying in view.
function uncover() {
  const panel = document.querySelector("#game .builder");
  const board = document.querySelector("#game .board-area svg.board");
  if (!panel || !board || getComputedStyle(panel).position !== "fixed") { return; }
  const edges = board.getBoundingClientRect();
  const hidden = edges.bottom - panel.getBoundingClientRect().top;
  if (hidden > 0) { window.scrollBy(0, Math.min(hidden, edges.top)); }
}
uncover();

// The swap replaces the element that had the focus: without this, focus falls back to
// <body> and a keyboard or screen-reader user starts again from the top after every click.
function placeOf(link) {
  return { rel: link.getAttribute("rel"), step: link.closest(".moves") && link.getAttribute("href") };
}

function keepPlace(place) {
  const game = document.getElementById("game");
  let next;
  if (place.rel) {
    next = game.querySelector(`.plies a[rel="${place.rel}"]`);
  } else if (place.step) {
    next = [...game.querySelectorAll(".moves a")].find((a) => a.getAttribute("href") === place.step);
  } else {  // a board click: the first thing to click next, on the board, else in the builder
    next = game.querySelector(".board-area svg a") || game.querySelector(".builder a.choice, #confirm-move");
  }
  if (next) { next.focus(); }
}

document.addEventListener("keydown", (event) => {
  // (a board's frame that has the focus scrolls with them)
  if (event.target.closest("input, textarea, select") || event.target.matches(".board-frame") || event.altKey || event.ctrlKey || event.metaKey) { return; }
  const rel = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[event.key];
  const link = rel && document.querySelector(`#game .plies a[rel="${rel}"]`);
  if (link) {
    event.preventDefault();
    swapGame(link.href, true).catch(() => { window.location.href = link.href; });
  }
});

// A board zoomed wider than the screen (The Right Moves on a phone, on its player's turn)
// shows its centre first, or its start (Magnetic Field's field, whose ranks are at its left
// edge: data-pan="start"), then stays where its player panned it. Its frame, which
// scrolls, is then a region the keyboard reaches too (its arrow keys scroll it), named by
// the hint under it, even when the board has nothing to click.
function pan(frame, panned) {
  const centre = frame.dataset.pan === "start" ? 0 : (frame.scrollWidth - frame.clientWidth) / 2;
  frame.scrollLeft = panned ?? centre;
  if (frame.scrollWidth > frame.clientWidth) {
    frame.tabIndex = 0;
    frame.setAttribute("role", "region");
    frame.setAttribute("aria-labelledby", "pan-hint");
  }
}

for (const frame of document.querySelectorAll("#game .board-frame")) { pan(frame, null); }

window.addEventListener("popstate", () => { swapGame(window.location.href, false).catch(() => window.location.reload()); });

// Magnet's setup: a piece of the tray (or one already placed) may be dragged onto a start
// vertex. Its link picks the piece up and a click on the vertex puts it down, so a drop
// follows the dragged piece's link with the vertex added to its click path.
let magnetDrag = null;
let magnetDropped = false;

document.addEventListener("dragstart", (event) => {
  if (event.target.closest && event.target.closest("#game [data-drag]")) { event.preventDefault(); }
});

document.addEventListener("pointerdown", (event) => {
  const source = event.target.closest("#game [data-drag]");
  if (!source || event.button !== 0) { return; }
  magnetDrag = { source, x: event.clientX, y: event.clientY, ghost: null };
});

document.addEventListener("pointermove", (event) => {
  if (!magnetDrag) { return; }
  if (!magnetDrag.ghost) {
    if (Math.hypot(event.clientX - magnetDrag.x, event.clientY - magnetDrag.y) < 6) { return; }
    const ghost = document.createElement("div");
    ghost.className = "mg-drag-ghost";
    const value = magnetDrag.source.querySelector(".value");
    ghost.textContent = value ? value.textContent : "";
    document.body.appendChild(ghost);
    magnetDrag.ghost = ghost;
  }
  magnetDrag.ghost.style.left = `${event.clientX}px`;
  magnetDrag.ghost.style.top = `${event.clientY}px`;
  event.preventDefault();
});

function endMagnetDrag(event, drop) {
  const drag = magnetDrag;
  magnetDrag = null;
  if (!drag || !drag.ghost) { return; }
  drag.ghost.remove();
  magnetDropped = true;  // the click that may follow the drag is not a click
  setTimeout(() => { magnetDropped = false; }, 0);
  const under = drop && document.elementFromPoint(event.clientX, event.clientY);
  const target = under && under.closest("#game [data-drop]");
  if (!target) { return; }
  const url = new URL(drag.source.getAttribute("href"), document.baseURI);
  const path = url.searchParams.get("path");
  url.searchParams.set("path", path ? `${path}.${target.dataset.cell}` : target.dataset.cell);
  swapGame(url.href, false).catch(() => { window.location.href = url.href; });
}

document.addEventListener("pointerup", (event) => endMagnetDrag(event, true));
document.addEventListener("pointercancel", (event) => endMagnetDrag(event, false));
document.addEventListener("click", (event) => {
  if (magnetDropped) { event.preventDefault(); event.stopImmediatePropagation(); magnetDropped = false; }
}, true);

// Live updates. While a running game's page is visible, ask every few seconds (its
// data-poll-ms, the server's LIVE_UPDATE_SECONDS) whether the game moved on: one conditional
// request for the event count the page was drawn at (its data-events), answered 304 Not
// Modified until something happens. Then redraw the page in place, unless the player is in
// the middle of a move: a notice offers the refresh instead.
let pollTimer = null;

function pollsGame() { return document.querySelector("#game[data-version]") !== null; }

function schedulePoll(now = false) {
  clearTimeout(pollTimer);
  pollTimer = document.hidden || !pollsGame() ? null
    : setTimeout(pollGame, now ? 0 : Number(document.getElementById("game").dataset.pollMs));
}

function buildingMove() {
  if (magnetDrag || new URL(window.location.href).searchParams.has("path")) { return true; }
  // (the notification switch is no part of a move)
  return Array.from(document.querySelectorAll("#game input, #game select, #game textarea")).some((field) =>
    !field.closest(".push-switch") && field === document.activeElement
    || (field.type === "checkbox" ? field.checked !== field.defaultChecked : field.value !== field.defaultValue));
}

function showMovedNotice() {
  if (document.getElementById("moved-on")) { return; }
  const notice = document.createElement("p");
  notice.id = "moved-on";
  notice.className = "notice";
  notice.setAttribute("role", "status");
  const refresh = document.createElement("a");
  refresh.href = window.location.href;
  const words = document.getElementById("announcer").dataset;  // in the page's language
  refresh.textContent = words.refresh;
  notice.append(`${words.movedOn} — `, refresh, ".");
  document.getElementById("status").after(notice);
}

// A screen reader hears what changed without leaving its place: the last move (if it is
// new) and the page's status line ("Your turn.").
function announce(saidBefore) {
  const game = document.getElementById("game");
  const status = document.getElementById("status");
  const said = game.dataset.said !== saidBefore ? game.dataset.said : "";
  const words = [said, status ? status.textContent : document.querySelector("#game .game-over")?.textContent]
    .map((text) => (text || "").replace(/\s+/g, " ").trim()).filter(Boolean);
  document.getElementById("announcer").textContent = words.join(". ");
}

async function pollGame() {
  pollTimer = null;
  if (!pollsGame()) { return; }  // a page swapped in meanwhile shows a finished game
  const game = document.getElementById("game");
  try {
    const response = await fetch(game.dataset.version, {
      credentials: "same-origin", cache: "no-store", headers: { "If-None-Match": `"${game.dataset.events}"` },
    });
    if (response.status === 200) {
      if (buildingMove()) { showMovedNotice(); } else { await swapGame(window.location.href, false); }
      announce(game.dataset.said);
    }
  } catch (error) {
    // offline, or the server restarting: ask again at the next turn of the timer
  }
  if (pollTimer === null) { schedulePoll(); }
}

document.addEventListener("visibilitychange", () => schedulePoll(true));
schedulePoll();

// -- the installable app: the service worker (static/sw.js), the offline notice, and the
// "Notify me on this device" switch of a seat's page ------------------------------------

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch(() => {});  // the site works without it
  // the service worker asks which seat's game this window shows, to focus it on a click
  navigator.serviceWorker.addEventListener("message", (event) => {
    if (event.data && event.data.ask === "push-tag" && event.ports[0]) {
      const pushSwitch = document.querySelector(".push-switch");  // the dashboard's has none
      event.ports[0].postMessage({ tag: pushSwitch ? pushSwitch.dataset.tag : null });
    }
  });
  navigator.serviceWorker.startMessages();
}

function showOnline() {
  const notice = document.querySelector(".offline-notice");
  if (notice) { notice.hidden = navigator.onLine; }
}
window.addEventListener("online", showOnline);
window.addEventListener("offline", showOnline);
showOnline();

function base64urlBytes(text) {
  const raw = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

// Why the switch could not be turned, in the page's words (the browser's own errors are
// in the browser's language, and name its internals)
class Refusal extends Error {}

async function setPush(pushSwitch, on) {
  const registration = await navigator.serviceWorker.ready;
  let subscription = await registration.pushManager.getSubscription();
  if (on) {
    if (await Notification.requestPermission() !== "granted") {
      throw new Refusal(pushSwitch.dataset.denied);
    }
    if (!subscription) {
      const key = (await (await fetch(pushSwitch.dataset.key)).json()).public_key;
      subscription = await registration.pushManager.subscribe(
        { userVisibleOnly: true, applicationServerKey: base64urlBytes(key) });
    }
  } else if (!subscription) {
    return;
  }
  // the device's one subscription serves every game it follows: off tells the server only
  const response = await fetch(pushSwitch.dataset.api, {
    method: on ? "PUT" : "DELETE", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(on ? subscription.toJSON() : { endpoint: subscription.endpoint }),
  });
  if (!response.ok) {
    throw new Refusal((await response.json()).error);  // the server's, in the page's language
  }
}

// its words, in the page's language, are the switch's data attributes (channels.html)
function setUpPushSwitch() {
  const notifySwitch = document.querySelector(".push-switch");
  if (!notifySwitch || !("serviceWorker" in navigator && "PushManager" in window)) { return; }
  const box = notifySwitch.querySelector("input");
  const status = notifySwitch.querySelector(".push-status");
  const remembered = `push:${notifySwitch.dataset.tag || "player"}`;
  box.checked = localStorage.getItem(remembered) === "on";
  notifySwitch.hidden = false;
  box.addEventListener("change", () => {
    const on = box.checked;
    status.textContent = on ? notifySwitch.dataset.asking : "";
    setPush(notifySwitch, on).then(() => {
      localStorage.setItem(remembered, on ? "on" : "off");
      status.textContent = on ? notifySwitch.dataset.on : notifySwitch.dataset.off;
    }).catch((error) => {
      box.checked = !on;
      const why = error instanceof Refusal ? error.message : notifySwitch.dataset.unavailable;
      status.textContent = `${notifySwitch.dataset.failed} ${why}`;
    });
  });
}
setUpPushSwitch();
