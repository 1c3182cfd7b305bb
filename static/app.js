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
  current.replaceWith(fresh);
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
  swapGame(href, walking).catch(() => { window.location.href = href; });
});

document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, textarea, select") || event.altKey || event.ctrlKey || event.metaKey) { return; }
  const rel = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[event.key];
  const link = rel && document.querySelector(`#game .plies a[rel="${rel}"]`);
  if (link) {
    event.preventDefault();
    swapGame(link.href, true).catch(() => { window.location.href = link.href; });
  }
});

window.addEventListener("popstate", () => { swapGame(window.location.href, false).catch(() => window.location.reload()); });
