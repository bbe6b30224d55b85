// Following a live stream, shared by the pages that do (the tournament page, the room's
// screen). A stream is Server-Sent Events: each "change" message's JSON goes to the page.
// Where EventSource is missing, where the server refuses the stream, or where it fails
// STREAM_TRIES times without ever opening, the page falls back to asking every few seconds
// (pollEvery), paused while the page is hidden and slower after failures.

const MAX_PAUSE_SECONDS = 60;
// Failed connections, none of them opened, before the page falls back to asking.
const STREAM_TRIES = 3;

// Follows the stream at `url`: onChange(data, source) for each change; onFallback() once,
// when the page should ask instead.
export function followStream(url, { onChange, onFallback }) {
  if (typeof EventSource !== "function") {
    onFallback();
    return null;
  }
  const source = new EventSource(url);
  let opened = false;
  let errors = 0;
  source.addEventListener("open", () => {
    opened = true;
  });
  source.addEventListener("change", (event) => onChange(JSON.parse(event.data), source));
  source.addEventListener("error", () => {
    // EventSource reconnects by itself (with Last-Event-ID) unless the server refused it.
    errors += 1;
    if (source.readyState === EventSource.CLOSED || (!opened && errors >= STREAM_TRIES)) {
      source.close();
      onFallback();
    }
  });
  return source;
}

// Calls refresh() (a promise) every seconds() seconds while that is not 0.
export function pollEvery(refresh, seconds) {
  let timer = null;
  let busy = false;
  let failures = 0;

  function schedule(wait) {
    clearTimeout(timer);
    if (!seconds()) return;
    timer = setTimeout(tick, wait * 1000);
  }

  async function tick() {
    if (document.hidden || busy) return; // resumed by visibilitychange, or already asking
    busy = true;
    try {
      await refresh();
      failures = 0;
      schedule(seconds());
    } catch (error) {
      failures += 1;
      schedule(Math.min(MAX_PAUSE_SECONDS, seconds() * 2 ** failures));
    } finally {
      busy = false;
    }
  }

  schedule(seconds());
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) tick();
  });
}

// The element `id` of a page's `html`, made part of this document.
export function elementIn(html, id) {
  const found = new DOMParser().parseFromString(html, "text/html").getElementById(id);
  if (!found) throw new Error(`no #${id} in the answer`);
  return document.adoptNode(found);
}

// Asks `url` for a part of the page with the ETag of the part shown: null while unchanged
// (304), else {html, etag}.
export async function fetchPart(url, etag) {
  const response = await fetch(url, {
    credentials: "same-origin",
    cache: "no-store",
    headers: { "If-None-Match": etag },
  });
  if (response.status === 304) return null;
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return { html: await response.text(), etag: response.headers.get("ETag") };
}
