// The live table (docs/web.md). The server renders the table for the viewer; this module
// keeps it current and sends the viewer's actions:
// - it follows the game's push channel (GET /api/v1/games/{id}/live?fragment=table, Server-Sent
//   Events): each change brings the table freshly rendered for the viewer's seat (or for
//   spectators), which is put in place of the one shown. EventSource reconnects by itself
//   and sends the last message's id, so a dropped connection catches up without a reload;
// - where EventSource is missing, or the channel never opens (a proxy that breaks streams),
//   it long-polls the API's events of the game (GET /api/v1/games/{id}/events?wait=) and,
//   when the game has moved on, asks for the table (GET /games/{id}/table);
// - once the game has ended it asks for the table once more (the forms shown after the end
//   belong to the viewer's own request);
// - a click on an action's button posts it to the API (POST /api/v1/games/{id}/actions,
//   with the session cookie and the CSRF token: no API key in the page); resigning, after
//   its dialog, posts to POST /api/v1/games/{id}/resign the same way;
// - while it is the viewer's turn the title begins with "Your turn"; when the turn comes,
//   a tone (unless switched off) and, in a hidden tab, a notification if the person asked.

const POLL_SECONDS = 25;
const csrfToken = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
const connection = document.getElementById("connection");
const soundToggle = document.getElementById("sound-toggle");
const notifyToggle = document.getElementById("notify-toggle");
const resignDialog = document.getElementById("resign-dialog");

function table() {
  return document.querySelector("main[data-game-id]");
}

const gameId = table().dataset.gameId;
let lastSeq = null;
let refreshing = null;
let sending = false;

function shownVersion() {
  return Number(table().dataset.version);
}

function say(text) {
  if (connection) connection.textContent = text;
}

// --- Keeping the table current --------------------------------------------------------------

function parseTable(html) {
  const next = new DOMParser().parseFromString(html, "text/html").querySelector("main[data-game-id]");
  if (!next) throw new Error("no table in the answer");
  return next;
}

function showTable(next) {
  // An older table, or the state already shown: keep ours (and the cards the viewer has
  // picked for a discard or a give so far).
  const before = table();
  const same = next.dataset.version === before.dataset.version && next.dataset.status === before.dataset.status;
  if (Number(next.dataset.version) < shownVersion() || same) return false;
  const wasYourTurn = isYourTurn();
  const wasPlaying = before.dataset.status === "playing";
  const focused = document.activeElement?.dataset?.card;
  const gathered = before.querySelector('[data-testid="trick-gathered"]');
  before.replaceWith(document.adoptNode(next));
  // A completed trick still being shown stays until its time is up.
  const felt = table().querySelector(".felt");
  if (gathered && felt) {
    felt.append(gathered);
    felt.classList.add("gathering");
  }
  startClock();
  if (focused) table().querySelector(`.hand button[data-card="${focused}"]:not([disabled])`)?.focus();
  showTurn();
  if (table().dataset.status !== "playing") resignDialog?.close();
  if (!wasYourTurn && isYourTurn()) {
    chime();
    notify();
  }
  if (wasPlaying && table().dataset.status === "finished") showResult();
  return true;
}

async function fetchTable() {
  const response = await fetch(`/games/${gameId}/table`, { credentials: "same-origin", cache: "no-store" });
  if (!response.ok) throw new Error(`table ${response.status}`);
  return parseTable(await response.text());
}

async function refresh() {
  // The table after the viewer's own action, shown at once. One refresh at a time; a
  // second request for one while it runs waits for it.
  if (refreshing) return refreshing;
  refreshing = (async () => {
    const next = await fetchTable();
    // The viewer acted: what comes next waits only for a trick being shown.
    holdUntil = Math.min(holdUntil, firmUntil);
    showTable(next);
  })();
  try {
    await refreshing;
  } finally {
    refreshing = null;
  }
}

// --- Pacing: what a person can follow -------------------------------------------------------
// Changes come as fast as the players make them (a house bot answers in a fraction of a
// second, a table of bots a dozen moves a second). The page shows them in order: each
// completed trick stays on the table for about a second before it is gathered, the summary
// between two hands a little longer, other moves as they come; far behind (or in a hidden
// tab) it skips ahead to the newest table. The viewer's own turn waits at most for a trick
// being shown. The server is not slowed: this is the page's own queue.

const TRICK_MS = 1100;
const SUMMARY_MS = 2500;
const MAX_QUEUED = 6;
const MAX_BEHIND_MS = 3000;

const queue = []; // {main: a parsed table or null, events: [...], fetch: true to ask for our own}
let pumping = false;
let holdUntil = 0;
let firmUntil = 0; // until then a trick is shown: not cut short for the viewer's turn
let lastTrickSeq = 0;
let gatherTimer = null;

function enqueue(entry) {
  queue.push({ ...entry, at: performance.now() });
  pump();
}

function collapse() {
  // Skip ahead to the newest table, but not past the start of a hand (its summary is
  // shown): one entry with their events (of which only the last trick is shown).
  const shownHand = table().dataset.hand;
  let upTo = queue.findIndex((entry) => entry.main && entry.main.dataset.hand !== shownHand);
  if (upTo < 0) upTo = queue.length - 1;
  const skipped = queue.splice(0, upTo + 1);
  const events = skipped.flatMap((entry) => entry.events ?? []);
  const last = [...skipped].reverse().find((entry) => entry.main || entry.fetch) ?? {};
  const at = skipped[skipped.length - 1].at;
  queue.unshift({ main: last.main ?? null, fetch: Boolean(last.fetch) && !last.main, events, at });
}

function yourTurnQueued() {
  return queue.some((entry) => entry.main?.querySelector('[data-testid="turn-alert"]:not([hidden])'));
}

async function waitForHold() {
  while (!document.hidden && performance.now() < holdUntil) {
    if (performance.now() >= firmUntil && yourTurnQueued()) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, holdUntil - performance.now())));
  }
}

async function pump() {
  if (pumping) return;
  pumping = true;
  try {
    while (queue.length) {
      await waitForHold();
      const behind = performance.now() - queue[0].at > MAX_BEHIND_MS;
      if (document.hidden || behind || queue.length > MAX_QUEUED) collapse();
      const entry = queue.shift();
      const handBefore = table().dataset.hand;
      let main = entry.main;
      if (entry.fetch) main = await fetchTable().catch(() => null);
      ungather();
      unpin();
      if (main) showTable(main);
      const trick = (entry.events ?? []).filter((e) => e.type === "trick" && e.seq > lastTrickSeq).pop();
      const summary = table().dataset.hand !== handBefore && pin((trick ? TRICK_MS : 0) + SUMMARY_MS);
      const now = performance.now();
      firmUntil = trick ? now + TRICK_MS : 0;
      if (trick) {
        lastTrickSeq = trick.seq;
        gather(trick);
      }
      holdUntil = now + (trick ? TRICK_MS : 0) + (summary ? SUMMARY_MS : 0);
    }
  } finally {
    pumping = false;
  }
  if (table().dataset.status === "finished") lookForRating();
}

// The summary of the hand before, shown a while when a new hand begins, even if the table
// shown is already past its first card (the bots ran ahead).
let pinTimer = null;

function pin(duration) {
  const felt = table().querySelector(".felt");
  const summary = felt?.querySelector('[data-testid="hand-summary"]');
  if (!summary) return false;
  if (summary.hidden) summary.dataset.pinned = "true";
  summary.hidden = false;
  felt.classList.add("pinned");
  clearTimeout(pinTimer);
  pinTimer = setTimeout(unpin, duration);
  return true;
}

function unpin() {
  clearTimeout(pinTimer);
  const felt = table().querySelector(".felt");
  const summary = felt?.querySelector('[data-testid="hand-summary"][data-pinned]');
  if (summary) {
    summary.hidden = true;
    delete summary.dataset.pinned;
  }
  felt?.classList.remove("pinned");
}

// A completed trick, drawn over the trick being played until its time is up.
const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAMES = { T: "ten", J: "jack", Q: "queen", K: "king", A: "ace" };

function cardElement(code) {
  const [rank, suit] = code;
  const card = document.createElement("span");
  card.className = `card ${suit === "H" || suit === "D" ? "red" : "black"}`;
  card.dataset.card = code;
  card.setAttribute("role", "img");
  card.setAttribute("aria-label", `${RANK_NAMES[rank] ?? rank} of ${SUIT_NAMES[suit]}`);
  const shownRank = document.createElement("span");
  shownRank.className = "rank";
  shownRank.textContent = rank === "T" ? "10" : rank;
  const shownSuit = document.createElement("span");
  shownSuit.className = "suit";
  shownSuit.textContent = SUITS[suit];
  card.append(shownRank, shownSuit);
  return card;
}

function gather(trick) {
  const felt = table().querySelector(".felt");
  if (!felt) return;
  const players = Number(table().dataset.players);
  const seat = (s) => felt.querySelector(`.seat[data-seat="${s}"]`);
  const position = (s) => [...(seat(s)?.classList ?? [])].find((c) => c.startsWith("pos-")) ?? "";
  const shown = document.createElement("div");
  shown.className = "trick gathered";
  shown.dataset.testid = "trick-gathered";
  shown.dataset.seq = String(trick.seq);
  shown.dataset.winner = String(trick.winner);
  shown.setAttribute("role", "group");
  shown.setAttribute("aria-label", "The trick just completed");
  trick.cards.forEach((code, i) => {
    const s = (trick.leader + i) % players;
    const slot = document.createElement("div");
    slot.className = `trick-slot ${position(s)}${s === trick.winner ? " won" : ""}`;
    slot.append(cardElement(code));
    shown.append(slot);
  });
  const caption = document.createElement("p");
  caption.className = "gathered-by";
  caption.textContent = `won by ${seat(trick.winner)?.dataset.name ?? `seat ${trick.winner}`}`;
  shown.append(caption);
  felt.append(shown);
  felt.classList.add("gathering");
  clearTimeout(gatherTimer);
  gatherTimer = setTimeout(ungather, TRICK_MS);
}

function ungather() {
  clearTimeout(gatherTimer);
  const felt = table().querySelector(".felt");
  felt?.querySelector('[data-testid="trick-gathered"]')?.remove();
  felt?.classList.remove("gathering");
}

// --- The end: the result in view, the rating change once the worker has made it ---------------

function showResult() {
  const result = table().querySelector('[data-testid="result"]');
  if (!result) return;
  const box = result.getBoundingClientRect();
  if (box.top < 0 || box.top > window.innerHeight * 0.5) result.scrollIntoView({ block: "start" });
}

let ratingLooks = 0;

async function lookForRating() {
  // A rated game's rating is updated by the worker after the end: ask for the result box a
  // few times (sooner first) until it carries the change, for a minute or two at most.
  const pending = () => table().querySelector('[data-testid="result-me"][data-rating-pending]');
  if (!pending() || ratingLooks) return;
  for (const seconds of [1, 1, 2, 2, 3, 5, 5, 10, 10, 20, 30, 30]) {
    ratingLooks += 1;
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    try {
      const response = await fetch(`/games/${gameId}/result`, { credentials: "same-origin", cache: "no-store" });
      if (!response.ok) continue;
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html").querySelector('[data-testid="result"]');
      const shown = table().querySelector('[data-testid="result"]');
      if (!fresh || !shown || fresh.querySelector("[data-rating-pending]")) continue;
      shown.replaceWith(document.adoptNode(fresh));
      return;
    } catch (error) {
      // Looked again at the next step.
    }
    if (!pending()) return;
  }
}

async function events(after, wait) {
  const url = `/api/v1/games/${gameId}/events?after=${after}&wait=${wait}`;
  const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
  if (!response.ok) throw new Error(`events ${response.status}`);
  return response.json();
}

async function followByPolling() {
  let pause = 1000;
  for (;;) {
    try {
      if (lastSeq === null) {
        // Where the game's events stand now: nothing before it is needed, the table is shown.
        const now = await events(2 ** 31 - 1, 0);
        lastSeq = now.last_seq;
        lastTrickSeq = Math.max(lastTrickSeq, now.last_seq);
        if (now.version !== shownVersion()) enqueue({ main: await fetchTable(), events: [] });
      }
      if (table().dataset.status === "finished") {
        say("");
        return;
      }
      const data = await events(lastSeq, POLL_SECONDS);
      if (data.events.length) lastSeq = data.events[data.events.length - 1].seq;
      if (data.version !== shownVersion() || data.status !== table().dataset.status) {
        enqueue({ main: await fetchTable(), events: data.events });
      }
      if (pause > 1000) say("Connected again.");
      pause = 1000;
    } catch (error) {
      say("Connection lost; trying again…");
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 10000);
      lastSeq = null; // start again from where the game is then
    }
  }
}

function followLive() {
  // Only the game's state from now on: the table shown is the page's own.
  const source = new EventSource(`/api/v1/games/${gameId}/live?fragment=table&after=${2 ** 31 - 1}`);
  let opened = false;
  let lost = false;
  source.addEventListener("open", () => {
    opened = true;
    if (lost) say("Connected again.");
    lost = false;
  });
  source.addEventListener("change", (message) => {
    const data = JSON.parse(message.data);
    enqueue({ main: data.html ? parseTable(data.html) : null, events: data.events ?? [] });
    if (data.status === "finished") {
      source.close();
      say("");
      // The table once more, the viewer's own (its forms), after what is queued is shown.
      enqueue({ main: null, events: [], fetch: true });
    }
  });
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CLOSED) {
      // Refused (or told the game has ended): poll instead, which sorts out which.
      source.close();
      if (table().dataset.status !== "finished") followByPolling();
    } else if (!opened) {
      source.close(); // it never opened: something on the way breaks streams
      followByPolling();
    } else {
      lost = true;
      say("Connection lost; trying again…"); // EventSource reconnects by itself
    }
  });
}

function follow() {
  if (table().dataset.status === "finished") {
    lookForRating();
    return;
  }
  if ("EventSource" in window) followLive();
  else followByPolling();
}

// --- The move clock ---------------------------------------------------------------------------

let clockTimer = null;

function startClock() {
  clearInterval(clockTimer);
  const clock = table().querySelector(".clock[data-seconds-left]");
  if (!clock) return;
  // Counted from the time left when the server rendered the table (the browser's own clock
  // may be wrong); the page was rendered a moment ago.
  const deadline = performance.now() + Number(clock.dataset.secondsLeft) * 1000;
  const tick = () => {
    const left = Math.max(0, Math.round((deadline - performance.now()) / 1000));
    const minutes = Math.floor(left / 60);
    clock.textContent = `${minutes}:${String(left % 60).padStart(2, "0")}`;
    clock.classList.toggle("low", left <= 10);
  };
  tick();
  clockTimer = setInterval(tick, 250);
}

// --- Acting -------------------------------------------------------------------------------------

function showError(text) {
  const box = table().querySelector(".action-error");
  if (box) {
    box.textContent = text;
    box.hidden = !text;
  }
}

async function send(action) {
  if (sending) return;
  sending = true;
  const shown = table();
  const disabled = [...shown.querySelectorAll(".controls button:not([disabled]), .hand button:not([disabled])")];
  disabled.forEach((b) => (b.disabled = true));
  try {
    const response = await fetch(`/api/v1/games/${gameId}/actions`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken },
      body: JSON.stringify({ ...action, expected_version: shownVersion() }),
    });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      await refresh();
      const code = body?.error?.code;
      const movedOn = code === "version_conflict" || code === "not_your_turn" || code === "game_finished";
      showError(
        movedOn
          ? "The game moved on before your move arrived (another tab, or the clock): here it is now."
          : body?.error?.message ?? `The move was not accepted (${response.status}).`,
      );
      return;
    }
    await refresh();
  } catch (error) {
    showError("The move could not be sent; check the connection and try again.");
    await refresh().catch(() => {});
  } finally {
    // A refused move leaves the table as it was (the same version is not shown again).
    if (table() === shown) disabled.forEach((b) => (b.disabled = false));
    sending = false;
  }
}

function choiceRow() {
  return table().querySelector(".choice");
}

function pickedCards() {
  return [...table().querySelectorAll('.hand button.pick[aria-pressed="true"]')].map((b) => b.dataset.card);
}

function chosenTarget(row) {
  const pressed = row.querySelector('button[data-to][aria-pressed="true"]');
  if (pressed) return { to: Number(pressed.dataset.to), count: Number(pressed.dataset.count) };
  const only = row.querySelector("[data-give-to]");
  if (only) return { to: Number(only.dataset.giveTo), count: Number(row.dataset.count) };
  return null;
}

function updateChoice() {
  const row = choiceRow();
  if (!row) return;
  const picked = pickedCards().length;
  const target = row.dataset.choice === "give" ? chosenTarget(row) : null;
  const needed = target ? target.count : Number(row.dataset.count);
  row.querySelector(".picked-count").textContent = String(picked);
  const ready = picked === needed && (row.dataset.choice !== "give" || target !== null);
  row.querySelector('[data-action="confirm"]').disabled = !ready;
}

function confirmChoice() {
  const row = choiceRow();
  if (!row) return;
  const cards = pickedCards();
  if (row.dataset.choice === "discard") {
    send({ type: "discard", cards });
  } else {
    const target = chosenTarget(row);
    if (target) send({ type: "give", to: target.to, cards });
  }
}

document.addEventListener("click", (event) => {
  const button = event.target.closest("main[data-game-id] button");
  if (!button || button.disabled) return;
  if (button.classList.contains("pick")) {
    button.setAttribute("aria-pressed", button.getAttribute("aria-pressed") === "true" ? "false" : "true");
    updateChoice();
  } else if (button.dataset.to !== undefined) {
    choiceRow().querySelectorAll("button[data-to]").forEach((b) => b.setAttribute("aria-pressed", String(b === button)));
    updateChoice();
  } else if (button.dataset.action === "confirm") {
    confirmChoice();
  } else if (button.dataset.action === "resign") {
    showResignError("");
    resignDialog?.showModal();
  } else if (button.dataset.send) {
    send(JSON.parse(button.dataset.send));
  }
});

// --- Resigning (after its dialog: "Keep playing" just closes it) -----------------------------

function showResignError(text) {
  const box = resignDialog?.querySelector(".resign-error");
  if (box) {
    box.textContent = text;
    box.hidden = !text;
  }
}

resignDialog?.querySelector('[data-action="resign-confirm"]')?.addEventListener("click", async (event) => {
  const button = event.currentTarget;
  button.disabled = true;
  try {
    const response = await fetch(`/api/v1/games/${gameId}/resign`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken },
    });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      showResignError(body?.error?.message ?? `Resigning was not accepted (${response.status}).`);
      return;
    }
    resignDialog.close();
    await refresh();
  } catch (error) {
    showResignError("Resigning could not be sent; check the connection and try again.");
  } finally {
    button.disabled = false;
  }
});

// --- Keyboard play --------------------------------------------------------------------------

function playableCards() {
  return [...table().querySelectorAll(".hand button:not([disabled])")];
}

document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, select, textarea") || event.altKey || event.ctrlKey || event.metaKey) return;
  const cards = playableCards();
  const index = cards.indexOf(document.activeElement);
  if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
    if (!cards.length) return;
    const step = event.key === "ArrowRight" ? 1 : -1;
    const next = index < 0 ? (step > 0 ? 0 : cards.length - 1) : (index + step + cards.length) % cards.length;
    cards[next].focus();
    event.preventDefault();
  } else if (/^[1-9]$/.test(event.key)) {
    cards[Number(event.key) - 1]?.click();
  } else if (event.key === "c" || event.key === "C") {
    const confirm = table().querySelector('[data-action="confirm"]');
    if (confirm && !confirm.disabled) confirm.click();
  }
});

// --- Told when it is your turn -----------------------------------------------------------------

const baseTitle = document.title.replace(/^Your turn · /, "");

function isYourTurn() {
  return table().querySelector('[data-testid="turn-alert"]:not([hidden])') !== null;
}

function showTurn() {
  document.title = isYourTurn() ? `Your turn · ${baseTitle}` : baseTitle;
}

// Sound: on unless the person switched it off (remembered in the browser). Browsers let a
// page play sound only after a click or a key on it, so the audio is made at the first one.
const SOUND_KEY = "sm-sound";
let soundOn = localStorage.getItem(SOUND_KEY) !== "off";
let audio = null;

function startAudio() {
  if (!audio && "AudioContext" in window) audio = new AudioContext();
  if (audio?.state === "suspended") audio.resume().catch(() => {});
}

function showSound() {
  if (!soundToggle) return;
  soundToggle.setAttribute("aria-pressed", String(soundOn));
  soundToggle.textContent = soundOn ? "Sound: on" : "Sound: off";
}

function chime() {
  if (!soundOn || !audio) return;
  // Two short rising tones, made on the spot (no sound file).
  const now = audio.currentTime;
  for (const [offset, pitch] of [[0, 660], [0.16, 880]]) {
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.frequency.value = pitch;
    volume.gain.setValueAtTime(0.15, now + offset);
    volume.gain.exponentialRampToValueAtTime(0.001, now + offset + 0.25);
    tone.connect(volume).connect(audio.destination);
    tone.start(now + offset);
    tone.stop(now + offset + 0.25);
  }
}

for (const gesture of ["click", "keydown"]) {
  document.addEventListener(gesture, () => soundOn && startAudio(), { capture: true });
}

soundToggle?.addEventListener("click", () => {
  soundOn = !soundOn;
  localStorage.setItem(SOUND_KEY, soundOn ? "on" : "off");
  showSound();
  if (soundOn) {
    startAudio();
    chime(); // what it will sound like
  }
});

// Notifications: asked for only when the person clicks "Notify me"; shown while the tab is
// hidden. Once allowed, the same button turns them off and on (remembered in the browser).
const NOTIFY_KEY = "sm-notify";

function notifyOn() {
  return "Notification" in window && Notification.permission === "granted" && localStorage.getItem(NOTIFY_KEY) !== "off";
}

function showNotify() {
  if (!notifyToggle || !("Notification" in window)) return;
  notifyToggle.hidden = false;
  const blocked = Notification.permission === "denied";
  notifyToggle.disabled = blocked;
  notifyToggle.setAttribute("aria-pressed", String(notifyOn()));
  notifyToggle.textContent = blocked ? "Notifications blocked" : notifyOn() ? "Notify me: on" : "Notify me";
}

function notify() {
  if (!notifyOn() || !document.hidden) return;
  const text = table().querySelector('[data-testid="turn-alert"]')?.textContent.trim() ?? "Your turn";
  try {
    const note = new Notification(`${text} · Game #${gameId}`, { tag: `game-${gameId}` });
    note.addEventListener("click", () => {
      window.focus();
      note.close();
    });
  } catch (error) {
    // Some browsers show notifications only from a service worker: the title still says it.
  }
}

notifyToggle?.addEventListener("click", async () => {
  if (Notification.permission === "default") {
    const answer = await Notification.requestPermission();
    if (answer === "granted") localStorage.setItem(NOTIFY_KEY, "on");
  } else if (Notification.permission === "granted") {
    localStorage.setItem(NOTIFY_KEY, notifyOn() ? "off" : "on");
  }
  showNotify();
});

showNotify();
showTurn();
showSound();
startClock();
follow();
