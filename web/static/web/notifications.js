// The notification bell, kept current (docs/web.md "The notification bell"): the page follows
// GET /notifications/live (Server-Sent Events), which carries the signed-in person's own
// bell only, rendered once on the server for all of that person's pages, and puts it in
// place, open if it was open. It is rendered without a request, so its forms get the page's
// CSRF token and return path here. Without EventSource the bell stays as loaded. Escape, or a
// click elsewhere, closes it.

const csrf = document.querySelector('meta[name="csrf-token"]')?.content;

function prepare(bell) {
  const here = location.pathname + location.search;
  bell.querySelectorAll("input[name=next]").forEach((input) => {
    input.value = here;
  });
  if (!csrf) return;
  bell.querySelectorAll("form[method=post]").forEach((form) => {
    if (form.querySelector("input[name=csrfmiddlewaretoken]")) return;
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = "csrfmiddlewaretoken";
    input.value = csrf;
    form.prepend(input);
  });
}

const first = document.getElementById("notifications");
if (first?.dataset.streamUrl && typeof EventSource === "function") {
  const query = new URLSearchParams({ after: first.dataset.version || "" });
  const source = new EventSource(`${first.dataset.streamUrl}?${query}`);
  source.addEventListener("change", (event) => {
    const { html } = JSON.parse(event.data);
    const next = new DOMParser().parseFromString(html, "text/html").getElementById("notifications");
    const shown = document.getElementById("notifications");
    if (!next || !shown) return;
    prepare(next);
    next.open = shown.open;
    const focused = shown.contains(document.activeElement);
    shown.replaceWith(document.adoptNode(next));
    if (focused) next.querySelector("summary").focus();
  });
}

document.addEventListener("keydown", (event) => {
  const bell = document.getElementById("notifications");
  if (event.key !== "Escape" || !bell?.open) return;
  bell.open = false;
  bell.querySelector("summary").focus();
});
document.addEventListener("click", (event) => {
  const bell = document.getElementById("notifications");
  if (bell?.open && !bell.contains(event.target)) bell.open = false;
});
