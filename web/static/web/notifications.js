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

// A hidden tab lets go of its stream, and takes it up again when shown (sent the bell if
// it changed meanwhile): browsers keep a few connections per site for all its tabs, so
// tabs left open in the background must not hold them.
let source = null;
let version = document.getElementById("notifications")?.dataset.version || "";

function follow() {
  const bell = document.getElementById("notifications");
  if (source || !bell?.dataset.streamUrl || typeof EventSource !== "function") return;
  source = new EventSource(`${bell.dataset.streamUrl}?${new URLSearchParams({ after: version })}`);
  source.addEventListener("change", (event) => {
    const data = JSON.parse(event.data);
    version = String(data.version);
    const next = new DOMParser().parseFromString(data.html, "text/html").getElementById("notifications");
    const shown = document.getElementById("notifications");
    if (!next || !shown) return;
    prepare(next);
    next.open = shown.open;
    const focused = shown.contains(document.activeElement);
    shown.replaceWith(document.adoptNode(next));
    if (focused) next.querySelector("summary").focus();
  });
}

function letGo() {
  source?.close();
  source = null;
}

document.addEventListener("visibilitychange", () => (document.hidden ? letGo() : follow()));
if (!document.hidden) follow();

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
