// The quick-play waiting page (docs/web.md, "The lobby"): it asks for its own address again
// every few moments and, once that answers with a move elsewhere (seated: the game; the seek
// over: the lobby, with a message), loads the page again to follow it. Meanwhile the page stays
// put, so a screen reader is not taken back to its top at every look. Without scripts, the
// page's <noscript> refresh does the looking.
const seconds = Number(document.querySelector("[data-look-seconds]")?.dataset.lookSeconds ?? 1);

async function look() {
  try {
    const response = await fetch(location.href, { redirect: "manual", cache: "no-store", credentials: "same-origin" });
    if (response.type === "opaqueredirect") {
      location.reload();
      return;
    }
  } catch (error) {
    // A dropped connection: look again later.
  }
  setTimeout(look, seconds * 1000);
}

setTimeout(look, seconds * 1000);
