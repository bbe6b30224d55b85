// A tournament's page, live while it runs (docs/web.md "Tournaments"). The page is whole
// without this script; with it, every few seconds the page asks the server for its live part
// (GET /tournaments/{id}/live, the same template the page includes) with the ETag of the
// part shown, and puts the answer in place when it changed (a 304 when it did not).
// When the tournament's status or round changes (it starts, a round begins, it ends) the
// whole page is reloaded, so the entrants' and organisers' forms and your next game around
// the live part follow.

const MAX_PAUSE_SECONDS = 60;

function livePart() {
  return document.getElementById("tournament-live");
}

const first = livePart();
const url = first?.dataset.liveUrl;
let pollSeconds = Number(first?.dataset.pollSeconds || 0);
let etag = first ? `"${first.dataset.version}"` : "";
let failures = 0;
let timer = null;
let busy = false;

async function refresh() {
  const shown = livePart();
  const response = await fetch(url, {
    credentials: "same-origin",
    cache: "no-store",
    headers: { "If-None-Match": etag },
  });
  if (response.status === 304) return;
  if (!response.ok) throw new Error(`live part: ${response.status}`);
  const html = await response.text();
  const next = new DOMParser().parseFromString(html, "text/html").getElementById("tournament-live");
  if (!next) throw new Error("no live part in the answer");
  // A new round or status changes what is around the live part too (your table's game).
  if (next.dataset.status !== shown.dataset.status || next.dataset.round !== shown.dataset.round) {
    window.location.reload();
    return;
  }
  etag = response.headers.get("ETag") || `"${next.dataset.version}"`;
  const scrolls = [...shown.querySelectorAll(".table-scroll")].map((box) => box.scrollLeft);
  shown.replaceWith(document.adoptNode(next));
  // Keep wide tables scrolled where the reader had them (phones).
  livePart()
    .querySelectorAll(".table-scroll")
    .forEach((box, i) => {
      box.scrollLeft = scrolls[i] || 0;
    });
  pollSeconds = Number(next.dataset.pollSeconds || 0);
}

function schedule(seconds) {
  clearTimeout(timer);
  if (!pollSeconds) return;
  timer = setTimeout(tick, seconds * 1000);
}

async function tick() {
  if (document.hidden || busy) return; // resumed by visibilitychange, or already asking
  busy = true;
  try {
    await refresh();
    failures = 0;
    schedule(pollSeconds);
  } catch (error) {
    failures += 1;
    schedule(Math.min(MAX_PAUSE_SECONDS, pollSeconds * 2 ** failures));
  } finally {
    busy = false;
  }
}

if (url && pollSeconds) {
  schedule(pollSeconds);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) tick();
  });
}
