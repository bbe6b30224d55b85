// A tournament's page, live while it runs (docs/web.md "Tournaments"). The page is whole
// without this script. With it, the page follows the tournament's live stream
// (GET /api/v1/tournaments/{id}/live, Server-Sent Events): each change brings the live part
// as anyone sees it (the same template the page includes, rendered once on the server for
// every page), which is put in place with the viewer's own rows marked here. An
// organiser's page, whose live part carries the organiser's controls, asks for its own
// instead (GET /tournaments/{id}/live), on each change and when the round's deadline passes.
// Where EventSource is missing, or the stream fails without ever opening, the page asks for
// its live part every few seconds, with the ETag of the part shown (a 304 while it is
// unchanged).
// When the tournament's status or round changes (it starts, a round begins, it ends) the
// whole page is reloaded, so the entrants' and organisers' forms and your next game around
// the live part follow. Wide tables keep their scroll across updates.

const MAX_PAUSE_SECONDS = 60;
// Failed connections, none of them opened, before the page falls back to asking.
const STREAM_TRIES = 3;
// The longest setTimeout waits (about 24 days).
const LONGEST_TIMER_MS = 2 ** 31 - 1;

function livePart() {
  return document.getElementById("tournament-live");
}

const first = livePart();
const url = first?.dataset.liveUrl;
const streamUrl = first?.dataset.streamUrl;
const personal = first?.dataset.personal !== undefined;
const me = document.querySelector("[data-me]")?.dataset.me || "";
let pollSeconds = Number(first?.dataset.pollSeconds || 0);
let etag = first ? `"${first.dataset.version}"` : "";
let failures = 0;
let timer = null;
let deadlineTimer = null;
let busy = false;

function moved(status, round) {
  const shown = livePart();
  return status !== shown.dataset.status || String(round) !== shown.dataset.round;
}

function partIn(html) {
  const next = new DOMParser().parseFromString(html, "text/html").getElementById("tournament-live");
  if (!next) throw new Error("no live part in the answer");
  return document.adoptNode(next);
}

function put(next) {
  const shown = livePart();
  const scrolls = [...shown.querySelectorAll(".table-scroll")].map((box) => box.scrollLeft);
  shown.replaceWith(next);
  // Keep wide tables scrolled where the reader had them (phones).
  livePart()
    .querySelectorAll(".table-scroll")
    .forEach((box, i) => {
      box.scrollLeft = scrolls[i] || 0;
    });
  pollSeconds = Number(next.dataset.pollSeconds || 0);
}

// The live part as the viewer's own: the server's own part for an organiser, fetched.
async function refresh() {
  const response = await fetch(url, {
    credentials: "same-origin",
    cache: "no-store",
    headers: { "If-None-Match": etag },
  });
  if (response.status === 304) return;
  if (!response.ok) throw new Error(`live part: ${response.status}`);
  const next = partIn(await response.text());
  // A new round or status changes what is around the live part too (your table's game).
  if (moved(next.dataset.status, next.dataset.round)) {
    window.location.reload();
    return;
  }
  etag = response.headers.get("ETag") || `"${next.dataset.version}"`;
  put(next);
}

// --- Following the stream -------------------------------------------------------------------

// The part everyone gets marks nobody's rows: mark the viewer's, as the page does.
function markMine(part) {
  if (!me) return;
  part.querySelectorAll("[data-username]").forEach((row) => {
    if (row.dataset.username === me) row.classList.add("me");
  });
}

// An organiser's overdue tables can then be adjudicated: show the buttons on time.
function watchDeadline() {
  clearTimeout(deadlineTimer);
  const at = Date.parse(livePart().dataset.deadline || "");
  if (!personal || Number.isNaN(at)) return;
  const wait = at - Date.now() + 1000;
  if (wait > LONGEST_TIMER_MS) return;
  deadlineTimer = setTimeout(() => refresh().then(watchDeadline, () => {}), Math.max(0, wait));
}

function follow() {
  const query = new URLSearchParams({ after: first.dataset.tournamentVersion || "0" });
  if (!personal) query.set("fragment", "live");
  const source = new EventSource(`${streamUrl}?${query}`);
  let opened = false;
  let errors = 0;
  source.addEventListener("open", () => {
    opened = true;
  });
  source.addEventListener("change", (event) => {
    const data = JSON.parse(event.data);
    if (moved(data.status, data.round)) {
      source.close();
      window.location.reload();
      return;
    }
    if (personal || data.html === undefined) {
      refresh().then(watchDeadline, () => {});
      return;
    }
    const next = partIn(data.html);
    markMine(next);
    etag = `"${next.dataset.version}"`;
    put(next);
  });
  source.addEventListener("error", () => {
    // EventSource reconnects by itself (with Last-Event-ID) unless the server refused it.
    errors += 1;
    if (source.readyState === EventSource.CLOSED || (!opened && errors >= STREAM_TRIES)) {
      source.close();
      poll();
    }
  });
  watchDeadline();
}

// --- Asking every few seconds (the fallback) ------------------------------------------------

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

function poll() {
  clearTimeout(deadlineTimer);
  schedule(pollSeconds);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) tick();
  });
}

if (url && pollSeconds) {
  if (streamUrl && typeof EventSource === "function") follow();
  else poll();
}
