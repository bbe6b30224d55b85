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

import { elementIn, fetchPart, followStream, pollEvery } from "./live_stream.js";

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
let deadlineTimer = null;

function moved(status, round) {
  const shown = livePart();
  return status !== shown.dataset.status || String(round) !== shown.dataset.round;
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
  const answer = await fetchPart(url, etag);
  if (answer === null) return;
  const next = elementIn(answer.html, "tournament-live");
  // A new round or status changes what is around the live part too (your table's game).
  if (moved(next.dataset.status, next.dataset.round)) {
    window.location.reload();
    return;
  }
  etag = answer.etag || `"${next.dataset.version}"`;
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

function onChange(data, source) {
  if (moved(data.status, data.round)) {
    source.close();
    window.location.reload();
    return;
  }
  if (personal || data.html === undefined) {
    refresh().then(watchDeadline, () => {});
    return;
  }
  const next = elementIn(data.html, "tournament-live");
  markMine(next);
  etag = `"${next.dataset.version}"`;
  put(next);
}

// Asking every few seconds (the fallback).
function poll() {
  clearTimeout(deadlineTimer);
  pollEvery(refresh, () => pollSeconds);
}

if (url && pollSeconds) {
  if (streamUrl) {
    const query = new URLSearchParams({ after: first.dataset.tournamentVersion || "0" });
    if (!personal) query.set("fragment", "live");
    if (followStream(`${streamUrl}?${query}`, { onChange, onFallback: poll })) watchDeadline();
  } else poll();
}
