// The Challenges page's lists, kept current (docs/web.md "Challenges"): the page follows its
// push channel (GET /challenges/live, Server-Sent Events), which carries the signed-in
// person's own challenges only, each message the lists rendered once on the server for all
// of that person's pages, and puts them in place. They are rendered without a request, so
// their forms get the page's own CSRF token here. EventSource reconnects by itself, telling
// the server the lists it shows (Last-Event-ID); without EventSource the lists stay as loaded.

const lists = document.getElementById("challenge-lists");
const token = document.querySelector("#create-challenge input[name=csrfmiddlewaretoken]");

function withToken(part) {
  if (!token) return;
  part.querySelectorAll("form[method=post]").forEach((form) => {
    if (!form.querySelector("input[name=csrfmiddlewaretoken]")) {
      form.prepend(token.cloneNode());
    }
  });
}

if (lists?.dataset.streamUrl && typeof EventSource === "function") {
  const query = new URLSearchParams({ after: lists.dataset.version || "" });
  const source = new EventSource(`${lists.dataset.streamUrl}?${query}`);
  source.addEventListener("change", (event) => {
    const { html } = JSON.parse(event.data);
    const parsed = new DOMParser().parseFromString(html, "text/html");
    const next = parsed.getElementById("challenge-lists");
    if (!next) return;
    withToken(next);
    document.getElementById("challenge-lists").replaceWith(document.adoptNode(next));
  });
}
