// The home page's "Being played now" (docs/web.md): the list follows its push channel
// (GET /games/live, Server-Sent Events), each message the list rendered once on the server
// for every home page, and puts it in place. EventSource reconnects by itself, telling the
// server the list it shows (Last-Event-ID); without EventSource the list stays as loaded.

const list = document.getElementById("games-in-play");

if (list?.dataset.streamUrl && typeof EventSource === "function") {
  const query = new URLSearchParams({ after: list.dataset.version || "" });
  const source = new EventSource(`${list.dataset.streamUrl}?${query}`);
  source.addEventListener("change", (event) => {
    const { html } = JSON.parse(event.data);
    const parsed = new DOMParser().parseFromString(html, "text/html");
    const next = parsed.getElementById("games-in-play");
    if (next) document.getElementById("games-in-play").replaceWith(document.adoptNode(next));
  });
}
