// The room's screen (docs/web.md "The room pages"): it follows the tournament's live stream
// with the "screen" fragment, the screen's <main> rendered once on the server for every
// screen, and puts it in place; never reloads. Where the stream cannot be followed it asks
// for the same part every few seconds with the ETag of the version shown (304 meanwhile).

import { elementIn, fetchPart, followStream, pollEvery } from "./live_stream.js";

// How often the fallback asks, by the tournament's status (a finished one no more).
const POLL_SECONDS = { registering: 10, running: 4 };

const body = document.body;

function shown() {
  return document.getElementById("screen");
}

function put(next) {
  if (next.dataset.version === shown().dataset.version) return;
  shown().replaceWith(next);
}

async function refresh() {
  const answer = await fetchPart(body.dataset.liveUrl, `"${shown().dataset.version}"`);
  if (answer !== null) put(elementIn(answer.html, "screen"));
}

function poll() {
  pollEvery(refresh, () => POLL_SECONDS[shown().dataset.status] || 0);
}

if (shown().dataset.status !== "finished") {
  const query = new URLSearchParams({ after: shown().dataset.version, fragment: "screen" });
  followStream(`${body.dataset.streamUrl}?${query}`, {
    onChange: (data, source) => {
      put(elementIn(data.html, "screen"));
      if (data.status === "finished") source.close();
    },
    onFallback: poll,
  });
}
