// The coach (docs/web.md, "Learn"): on /learn it teaches the first game step by step; on a
// person's first games it gives hints. It reads nothing but the table the page shows, which
// the server made from the person's own seat view (table.js keeps it current), so it knows
// what the person knows and no more. Each step waits until the table shows the person did
// the thing, whatever the bots play.

const coach = document.querySelector('[data-testid="coach"]');
const lesson = coach?.dataset.mode === "lesson";
const done = document.querySelector('[data-testid="learn-done"]');
const stepList = document.querySelector(".coach-steps");

const SUITS = { C: "♣ clubs", D: "♦ diamonds", H: "♥ hearts", S: "♠ spades" };
const RANKS = "23456789TJQKA";
const RANK_NAMES = { T: "10", J: "jack", Q: "queen", K: "king", A: "ace" };

// What the lesson has seen the person do (names as in the steps' list).
const learnt = new Set();
// The card the person clicked to play, with what the table showed then; judged once the
// table shows it was played.
let pending = null;
// What the coach said about the person's last card (shown until their next turn).
let afterPlay = "";
// The hand the coach last looked at (what it said of the last card stays in its hand).
let shownHand = 1;

function cardName(code) {
  const rank = RANK_NAMES[code[0]] ?? code[0];
  return `${rank}${SUITS[code[1]].slice(0, 1)}`;
}

function suitName(suit) {
  return SUITS[suit];
}

function codes(elements) {
  return [...elements].map((e) => e.dataset.card).filter(Boolean);
}

function bySuit(cards) {
  const suits = {};
  for (const c of cards) (suits[c[1]] ??= []).push(c);
  for (const s of Object.keys(suits)) suits[s].sort((a, b) => RANKS.indexOf(b[0]) - RANKS.indexOf(a[0]));
  return suits;
}

// Everything the coach reads, from the table on the page.
function read() {
  const main = document.querySelector("main[data-game-id]");
  if (!main) return null;
  const seat = main.dataset.yourSeat;
  const you = main.querySelector(".seat.you");
  const slot = (pos) => main.querySelector(`.trick-slot.pos-${pos} [data-card]`)?.dataset.card ?? null;
  const stats = you ? [...you.querySelectorAll(".seat-stats b")].map((b) => b.textContent.trim()) : [];
  const hand = codes(main.querySelectorAll(".hand button.card"));
  const meta = main.querySelector(".game-meta")?.textContent ?? "";
  const resultRow = main.querySelector(`[data-testid="result"] tr[data-seat="${seat}"]`);
  const name = you?.querySelector(".seat-name")?.firstChild?.textContent.replace(/\s*\(you\)\s*$/, "").trim() ?? "";
  return {
    name,
    status: main.dataset.status,
    phase: main.dataset.phase,
    handNumber: Number(/hand (\d+)/.exec(meta)?.[1] ?? 1),
    yourTurn: main.querySelector('[data-testid="turn-alert"]:not([hidden])') !== null,
    trump: main.querySelector("[data-trump]")?.dataset.trump ?? null,
    role: you?.querySelector(".role")?.textContent.trim() ?? "",
    tricks: Number(stats[0] ?? 0),
    target: Number(stats[1]) || null,
    hand,
    playable: codes(main.querySelectorAll(".hand button.card[data-send]:not([disabled])")),
    calls: [...main.querySelectorAll("button[data-suit]")].map((b) => b.dataset.suit),
    choice: main.querySelector(".choice")?.dataset.choice ?? null,
    choiceCount: Number(main.querySelector(".choice")?.dataset.count ?? 0),
    giveTo: main.querySelector(".choice [data-give-to]")?.textContent.replace(/^to /, "").trim() ?? null,
    trick: { left: slot("left"), right: slot("right"), bottom: slot("bottom"), top: slot("top") },
    exchange: [...main.querySelectorAll(".exchange li")].map((li) => li.textContent.replace(/\s+/g, " ").trim()),
    previous: [...main.querySelectorAll('[aria-label="Hands played"] tbody tr')].length,
    rank: resultRow ? Number(resultRow.dataset.rank) : null,
    score: resultRow ? Number(resultRow.dataset.score) : null,
  };
}

// The card that was led to the trick the person must now play to (play moves to the left:
// the seat on the left plays before the one on the right), or null if the person leads.
function ledCard(s) {
  const { left, right, bottom, top } = s.trick;
  if (bottom) return null; // the trick shown is finished: the person leads the next
  return left ?? top ?? right;
}

function bestTrump(hand) {
  const suits = bySuit(hand);
  const strength = (s) => (suits[s] ?? []).reduce((n, c) => n + 1 + Math.max(0, RANKS.indexOf(c[0]) - 8) / 2, 0);
  return Object.keys(SUITS).sort((a, b) => strength(b) - strength(a))[0];
}

function weakest(hand, trump, count) {
  // Low cards of the shortest side suits first: a suit emptied lets you trump it later.
  const suits = bySuit(hand.filter((c) => c[1] !== trump));
  const order = Object.keys(suits).sort((a, b) => suits[a].length - suits[b].length);
  const cards = order.flatMap((s) => [...suits[s]].reverse().filter((c) => RANKS.indexOf(c[0]) < 10));
  return cards.slice(0, count);
}

function list(cards) {
  return cards.map(cardName).join(", ");
}

// --- What to say ------------------------------------------------------------------------------

function lessonMessage(s) {
  if (s.status === "finished") {
    const place = s.rank === 1 ? "first" : s.rank === 2 ? "second" : "third";
    return `That is the game: you finished ${place}, with a score of ${s.score}. ` +
      "A real game goes on, hand after hand, until someone takes 12 tricks in one hand. Ready for one?";
  }
  if (s.handNumber >= 2 && !learnt.has("exchange")) return exchangeMessage(s);
  if (!s.yourTurn) return waiting(s);
  if (s.calls.length) {
    const suit = bestTrump(s.hand);
    const count = bySuit(s.hand)[suit]?.length ?? 0;
    return `You are the dealer this hand, so your target is ${s.target ?? 8} tricks, the most at the table ` +
      `(the player on your left needs 5, the one on your right 3). The dealer names trumps: ` +
      `a trump beats any card of another suit. Choose your longest, strongest suit: you hold ${count} ` +
      `${suitName(suit)}. Click ${suitName(suit).slice(0, 1)} above your hand.`;
  }
  if (s.choice === "discard") {
    const suggest = weakest(s.hand, s.trump, s.choiceCount);
    return `Now the kitty: four face-down cards that only the dealer gets. First you put ${s.choiceCount} ` +
      "cards of your hand away, before you see the kitty (they count for nobody). Throw your weakest: " +
      `low cards of your shortest side suits, never trumps (say ${list(suggest)}). ` +
      "An empty suit is good: when it is led, you may trump. Click the cards, then Confirm.";
  }
  if (s.choice === "give") return exchangeMessage(s);
  if (s.playable.length) return playMessage(s);
  return waiting(s);
}

function playMessage(s) {
  const led = ledCard(s);
  const prefix = afterPlay ? `${afterPlay} ` : "";
  const need = s.target !== null ? ` You have ${s.tricks} of your ${s.target} tricks.` : "";
  if (!led) {
    return `${prefix}Your lead: play any card.${need} A high card that nobody can beat wins the trick ` +
      `(an ace, or a trump${s.trump ? ` — trumps are ${suitName(s.trump)}` : ""}); the winner leads the next.`;
  }
  const suit = led[1];
  const yours = s.hand.filter((c) => c[1] === suit);
  if (yours.length) {
    return `${prefix}${cardName(led)} was led, so you must follow suit: play a ${suitName(suit)} card ` +
      "(the others are greyed out). Play a higher one to try to win the trick, or your lowest to keep your " +
      `good cards for later.${need}`;
  }
  const trumps = s.trump ? s.hand.filter((c) => c[1] === s.trump) : [];
  if (trumps.length && suit !== s.trump) {
    return `${prefix}${cardName(led)} was led and you have no ${suitName(suit)}: you may play any card. ` +
      `Play a trump (${suitName(s.trump)}) and you win the trick unless someone plays a higher trump. ` +
      "That is trumping.";
  }
  return `${prefix}${cardName(led)} was led and you have none of that suit: you may play any card. ` +
    "You cannot win this one, so throw your least useful card.";
}

function exchangeMessage(s) {
  const intro = `New hand, and every hand after the first opens with the exchange: who took more ` +
    "tricks than their target last hand gives one card for each extra trick to who took fewer, " +
    "who gives back, for each card received, their highest card of that suit.";
  if (s.choice === "give") {
    return `${intro} You were up, so you give ${s.choiceCount} card${s.choiceCount > 1 ? "s" : ""}` +
      `${s.giveTo ? ` to ${s.giveTo}` : ""}. Give low cards of a suit you are short of high ones: ` +
      "what comes back is their best card of that suit. Click the cards, then Confirm.";
  }
  if (s.phase === "exchange") return `${intro} Wait while the others exchange.`;
  let what = " This time nobody was up, so no cards changed hands.";
  if (s.exchange.length) {
    const mine = s.exchange.filter((line) => s.name && line.includes(` to ${s.name}`));
    what = ` This time: ${s.exchange.join("; ")}.`;
    if (mine.length) {
      what += " You took fewer tricks than your target, so you were given cards and gave back your " +
        "highest card of each of their suits: the table does that part for you (see Exchange below).";
    }
  }
  const next = s.yourTurn && s.playable.length ? ` ${playMessage(s)}` : " Play this hand out the same way.";
  return `${intro}${what} The deal moved one seat to the left: you are ${s.role || "middle"} now, ` +
    `with a target of ${s.target ?? 3}.${next}`;
}

function waiting(s) {
  const prefix = afterPlay ? `${afterPlay} ` : "";
  if (s.phase === "trump" || s.phase === "discard") return `${prefix}The dealer is choosing.`;
  return `${prefix}Now the others play: watch the trick in the middle of the table.`;
}

function hintMessage(s) {
  if (s.status === "finished" || !s.yourTurn) return "";
  if (s.calls.length) return `Hint: name as trumps your longest strong suit (${suitName(bestTrump(s.hand))} here).`;
  if (s.choice === "discard") return `Hint: discard low cards of your short side suits (${list(weakest(s.hand, s.trump, s.choiceCount))}); keep your trumps.`;
  if (s.choice === "give") return "Hint: give low cards of a suit you are short of high ones: the best card of that suit comes back.";
  const led = ledCard(s);
  if (!led || !s.playable.length) return s.playable.length ? "Hint: lead a card nobody can beat, or one that makes the others spend their high cards." : "";
  if (s.hand.some((c) => c[1] === led[1])) return `Hint: follow suit (${suitName(led[1])}): higher to win, lowest to save your cards.`;
  if (s.trump && s.hand.some((c) => c[1] === s.trump)) return `Hint: no ${suitName(led[1])} left? A trump wins the trick.`;
  return "Hint: you cannot win this trick: throw your least useful card.";
}

// --- Checking what the person did -------------------------------------------------------------

function mark() {
  stepList?.querySelectorAll("[data-step]").forEach((li) => {
    const ok = learnt.has(li.dataset.step);
    if (li.classList.contains("done") === ok) return;
    li.classList.toggle("done", ok);
    li.querySelector(".tick").textContent = ok ? "✓" : "";
  });
}

function judge(s) {
  if (!pending || s.hand.includes(pending.card)) return;
  const { card, led, trump, hadSuit, handNumber } = pending;
  pending = null;
  // The exchange's explanation stays up until the person's first card of the new hand.
  if (handNumber >= 2) learnt.add("exchange");
  if (!led) {
    afterPlay = `You led the ${cardName(card)}.`;
  } else if (hadSuit) {
    learnt.add("follow");
    afterPlay = `Good: you followed suit with the ${cardName(card)}.`;
  } else if (trump && card[1] === trump && led[1] !== trump) {
    learnt.add("trump-trick");
    afterPlay = `You trumped ${cardName(led)} with the ${cardName(card)}: a trump beats every card of the other suits.`;
  } else {
    afterPlay = trump && s.hand.some((c) => c[1] === trump)
      ? `Allowed, but a trump would have won that trick; next time you have none of the suit led, try one.`
      : `You had none of the suit led, so any card was allowed.`;
  }
  mark();
}

function update() {
  const s = read();
  if (!s || !coach) return;
  if (s.handNumber !== shownHand) {
    shownHand = s.handNumber;
    afterPlay = "";
  }
  if (s.trump || s.handNumber > 1) learnt.add("trump");
  if (s.phase === "play" && s.handNumber === 1 && !learnt.has("kitty")) {
    afterPlay = "You took the kitty: its four cards are marked in your hand, and only you saw them.";
  }
  if (s.phase === "play" || s.handNumber > 1) learnt.add("kitty");
  judge(s);
  const text = lesson ? lessonMessage(s) : hintMessage(s);
  if (coach.textContent !== text) coach.textContent = text;
  if (coach.hidden !== (!lesson && !text)) coach.hidden = !lesson && !text;
  mark();
  if (lesson && s.status === "finished" && done) done.hidden = false;
}

function played(s, card) {
  const led = ledCard(s);
  const hadSuit = led ? s.hand.some((c) => c[1] === led[1]) : false;
  return { card, led, trump: s.trump, hadSuit, handNumber: s.handNumber };
}

// A card clicked to play: remember what the table showed, to judge the play once made.
document.addEventListener(
  "click",
  (event) => {
    const button = event.target.closest?.(".hand button.card[data-send]:not([disabled])");
    if (!button) return;
    const s = read();
    if (!s) return;
    pending = played(s, button.dataset.card);
    afterPlay = "";
  },
  true,
);
document.addEventListener("keydown", (event) => {
  // Enter, Space or a digit plays a card too: remember the focused or numbered one.
  const s = read();
  if (!s || !s.playable.length) return;
  let card = null;
  if (event.key === "Enter" || event.key === " ") card = document.activeElement?.dataset?.card ?? null;
  else if (/^[1-9]$/.test(event.key)) card = s.playable[Number(event.key) - 1] ?? null;
  if (!card || !s.playable.includes(card)) return;
  pending = played(s, card);
  afterPlay = "";
}, true);

if (coach) {
  // table.js puts each new table in place of the last: the page's children change.
  const page = document.querySelector(".game-page");
  if (page) new MutationObserver(update).observe(page, { childList: true });
  setInterval(update, 500);
  update();
}
