// The chat panel of a game's page and a tournament's (web/templates/web/chat/_panel.html).
// - One room at a time: its live stream (/api/v1/.../chat/live, Server-Sent Events) brings
//   its newest messages first (`reset`), then each message posted or deleted; EventSource
//   resumes by itself with Last-Event-ID. Without EventSource, or once it gives up, the room
//   is read every 5 s.
// - Text is put in as text, never as HTML; a message whose `links` is true (its author's
//   account was a day old) shows its http(s) links as links, rel="nofollow noopener".
// - Muted authors' messages are hidden here (the stream carries every message); the API's
//   lists leave them out. Staff get a delete button on each message.
// - A player's spectators' room opens once the game is over: its tab is shown when the
//   table (table.js's, which this script does not touch) says the game has finished.
// - Requests go with the session cookie and the CSRF token: no API key in the page.

const panel = document.querySelector('[data-testid="chat"]');
const csrfToken = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
const KEPT = 200; // messages kept on the page, the newest
const POLL_MS = 5000;
const LINK = /(https?:\/\/[^\s<>"']+)/;

function setUp(panel) {
  const log = panel.querySelector(".chat-log");
  const about = panel.querySelector(".chat-about");
  const write = panel.querySelector(".chat-write");
  const refusal = panel.querySelector(".chat-refusal");
  const error = panel.querySelector(".chat-error");
  const input = panel.querySelector('[data-testid="chat-input"]');
  const mutedList = panel.querySelector(".chat-muted-list");
  const me = panel.dataset.me;
  const staff = panel.hasAttribute("data-staff");
  const muted = new Set(JSON.parse(document.getElementById("chat-muted")?.textContent ?? "[]"));
  const rooms = [...panel.querySelectorAll("template.chat-room")].map((t) => ({ ...t.dataset }));
  let room = null;
  let source = null;
  let poll = null;

  function say(text) {
    error.textContent = text;
    error.hidden = !text;
  }

  function textWithLinks(node, text, links) {
    const parts = links ? text.split(LINK) : [text];
    parts.forEach((part, index) => {
      if (index % 2 === 1) {
        const a = document.createElement("a");
        a.href = part;
        a.textContent = part;
        a.rel = "nofollow noopener noreferrer";
        a.target = "_blank";
        node.append(a);
      } else if (part) {
        node.append(document.createTextNode(part));
      }
    });
  }

  function button(label, action, value, name) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "chat-action";
    b.dataset.action = action;
    b.dataset.value = String(value);
    b.textContent = label;
    b.setAttribute("aria-label", name);
    return b;
  }

  function add(message) {
    if (log.querySelector(`li[data-id="${message.id}"]`)) return;
    const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    const li = document.createElement("li");
    li.setAttribute("data-testid", "chat-message");
    li.dataset.id = message.id;
    li.dataset.author = message.author;
    li.hidden = muted.has(message.author);
    const author = document.createElement("strong");
    author.className = "chat-author";
    author.textContent = message.author;
    const text = document.createElement("span");
    text.className = "chat-text";
    textWithLinks(text, message.text, message.links);
    li.append(author, " ", text);
    const tools = document.createElement("span");
    tools.className = "chat-tools";
    if (message.author !== me) {
      tools.append(button("Mute", "mute", message.author, `Mute ${message.author}`));
    }
    if (staff) tools.append(button("Delete", "delete", message.id, `Delete this message of ${message.author}`));
    if (tools.childNodes.length) li.prepend(tools); // floated right, beside the first line
    log.append(li);
    while (log.children.length > KEPT) log.firstElementChild.remove();
    if (atBottom || message.author === me) log.scrollTop = log.scrollHeight;
  }

  function apply(data) {
    if (data.reset) log.replaceChildren();
    data.messages.forEach(add);
    data.deleted.forEach((id) => log.querySelector(`li[data-id="${id}"]`)?.remove());
  }

  function showMuted() {
    mutedList.replaceChildren();
    mutedList.hidden = muted.size === 0;
    if (!muted.size) return;
    mutedList.append("Muted: ");
    [...muted].sort().forEach((name) => {
      mutedList.append(name, " ", button("unmute", "unmute", name, `Unmute ${name}`), " ");
    });
  }

  function hideMuted() {
    log.querySelectorAll("li[data-author]").forEach((li) => {
      li.hidden = muted.has(li.dataset.author);
    });
    showMuted();
  }

  async function readOnce() {
    const response = await fetch(room.api, { credentials: "same-origin", cache: "no-store" });
    if (!response.ok) {
      const refused = await response.json().catch(() => null);
      say(refused?.error?.message ?? "");
      return;
    }
    const body = await response.json();
    apply({ reset: true, messages: body.results.slice().reverse(), deleted: [] });
  }

  function readEvery() {
    readOnce();
    return setInterval(readOnce, POLL_MS);
  }

  function open(name) {
    room = rooms.find((r) => r.room === name) ?? rooms[0];
    source?.close();
    clearInterval(poll);
    log.replaceChildren();
    about.textContent = room.about;
    refusal.textContent = room.refusal ?? "";
    refusal.hidden = !room.refusal;
    write.hidden = Boolean(room.refusal);
    say("");
    panel.querySelectorAll(".chat-tabs button").forEach((b) => {
      b.setAttribute("aria-pressed", String(b.dataset.room === room.room));
    });
    if ("EventSource" in window) {
      const opened = new EventSource(room.live);
      source = opened;
      opened.addEventListener("chat", (event) => apply(JSON.parse(event.data)));
      // Refused, or a proxy that breaks streams: EventSource gives up; read the room instead.
      opened.addEventListener("error", () => {
        if (opened.readyState === EventSource.CLOSED && source === opened) poll = readEvery();
      });
    } else {
      poll = readEvery();
    }
  }

  async function call(method, url, body) {
    const response = await fetch(url, {
      method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = response.status === 204 ? null : await response.json().catch(() => null);
    if (!response.ok) throw new Error(answer?.error?.message ?? `Refused (${response.status}).`);
    return answer;
  }

  async function send(text) {
    if (!text.trim()) return;
    try {
      add(await call("POST", room.api, { text }));
      say("");
      return true;
    } catch (refused) {
      say(refused.message);
      return false;
    }
  }

  panel.addEventListener("click", async (event) => {
    const target = event.target.closest("button");
    if (!target) return;
    if (target.dataset.phrase) {
      send(target.dataset.phrase);
    } else if (target.dataset.room) {
      open(target.dataset.room);
    } else if (target.dataset.action) {
      const value = target.dataset.value;
      try {
        if (target.dataset.action === "mute") {
          await call("PUT", `/api/v1/chat/mutes/${encodeURIComponent(value)}`);
          muted.add(value);
          hideMuted();
        } else if (target.dataset.action === "unmute") {
          await call("DELETE", `/api/v1/chat/mutes/${encodeURIComponent(value)}`);
          muted.delete(value);
          hideMuted();
        } else if (target.dataset.action === "delete") {
          await call("DELETE", `/api/v1/chat/messages/${value}`);
          log.querySelector(`li[data-id="${value}"]`)?.remove();
        }
      } catch (refused) {
        say(refused.message);
      }
    }
  });

  panel.querySelector(".chat-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value;
    if (await send(text)) input.value = "";
  });

  // A room offered once the game is over: shown when the table's status says so.
  const tabs = panel.querySelector(".chat-tabs");
  if (panel.querySelector("template[data-after-the-game]")) {
    const ended = () => document.querySelector("main[data-game-id]")?.dataset.status === "finished";
    const offer = () => {
      if (!ended()) return false;
      tabs.querySelectorAll("button[hidden]").forEach((b) => { b.hidden = false; });
      tabs.hidden = false;
      return true;
    };
    if (!offer()) {
      const watcher = new MutationObserver(() => { if (offer()) watcher.disconnect(); });
      watcher.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-status"] });
    }
  }

  showMuted();
  open(rooms[0].room);
}

if (panel && panel.querySelector("template.chat-room")) setUp(panel);
