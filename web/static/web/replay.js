// The replay's keys and quick steps (docs/web.md, "Replay"). Without this script the page
// works the same through its links; with it, ← → step back and forth, Home and End go to
// the first and the last step, and a step is fetched and put in place of the page's
// <main> instead of loading the whole page (the address follows, so Back works).

const KEYS = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };

const current = () => document.getElementById("content");
let wanted = Number(current().dataset.step); // the step asked for last (keys run ahead of the page)
let asked = 0; // the number of the last request: only its answer is shown

function stepUrl(step) {
  const url = new URL(window.location.href);
  url.searchParams.set("step", String(step));
  return url;
}

async function show(step, { push = true, focus = null } = {}) {
  const last = Number(current().dataset.lastStep);
  wanted = Math.min(Math.max(step, 0), last);
  const url = stepUrl(wanted);
  const number = ++asked;
  try {
    const response = await fetch(url, { headers: { Accept: "text/html" }, credentials: "same-origin" });
    if (!response.ok) throw new Error(`status ${response.status}`);
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = page.getElementById("content");
    if (!fresh) throw new Error("no page");
    if (number !== asked) return; // a later step was asked for meanwhile
    current().replaceWith(fresh);
    document.title = page.title;
    if (push) window.history.pushState({ step: wanted }, "", url);
    if (focus) fresh.querySelector(focus)?.focus();
  } catch {
    window.location.assign(url); // the plain link's way
  }
}

document.addEventListener("keydown", (event) => {
  const nav = KEYS[event.key];
  if (!nav || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  if (event.target.closest("input, textarea, select, [contenteditable]")) return;
  const last = Number(current().dataset.lastStep);
  const step = { prev: wanted - 1, next: wanted + 1, first: 0, last }[nav];
  if (step < 0 || step > last || step === wanted) return;
  event.preventDefault();
  show(step);
});

document.addEventListener("click", (event) => {
  const link = event.target.closest("#content a[data-step]");
  if (!link || event.button !== 0 || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  event.preventDefault();
  // Keep the focus on the control clicked (the page's <main> is replaced).
  const section = link.closest("section")?.classList[1];
  const focus = link.dataset.nav
    ? `[data-nav="${link.dataset.nav}"]`
    : `${section ? `section.${section} ` : ""}a[data-step="${link.dataset.step}"]`;
  show(Number(link.dataset.step), { focus });
});

window.addEventListener("popstate", () => {
  const step = Number(new URL(window.location.href).searchParams.get("step") || 0);
  show(step, { push: false });
});
