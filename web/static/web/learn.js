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
// Cards are named as the table draws them: rank, then suit (A♣, 10♦).
const RANK_NAMES = { T: "10" };

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
    players: Number(main.dataset.players ?? 3),
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

function rank(card) {
  return RANKS.indexOf(card[0]);
}

function lowest(cards) {
  return [...cards].sort((a, b) => rank(a) - rank(b))[0];
}

function weakest(hand, trump, count) {
  // Empty the shortest side suits first (a suit emptied lets you trump it later; an ace is
  // kept, as it wins its trick), then the lowest cards of the next ones.
  const suits = bySuit(hand.filter((c) => c[1] !== trump));
  const hasAce = (s) => suits[s].some((c) => c[0] === "A");
  const order = Object.keys(suits).sort((a, b) => suits[a].length - suits[b].length || hasAce(a) - hasAce(b));
  const chosen = [];
  for (const suit of order) {
    const cards = [...suits[suit]].reverse().filter((c) => c[0] !== "A");
    chosen.push(...cards.slice(0, count - chosen.length));
    if (chosen.length >= count) break;
  }
  return chosen;
}

function toGive(hand, trump, count) {
  // What comes back is the other's best card of the suit given: give the low cards of the
  // suits whose best card you lack.
  const suits = bySuit(hand.filter((c) => c[1] !== trump));
  const order = Object.keys(suits).sort((a, b) => rank(suits[a][0]) - rank(suits[b][0]));
  return order.map((suit) => lowest(suits[suit])).slice(0, count);
}

// The card winning a trick so far: the highest trump, else the highest of the suit led.
function winning(cards, trump) {
  let best = null;
  for (const c of cards) {
    if (!best) best = c;
    else if (c[1] === trump && best[1] !== trump) best = c;
    else if (c[1] === best[1] && rank(c) > rank(best)) best = c;
  }
  return best;
}

function beats(card, best, trump) {
  if (card[1] === best[1]) return rank(card) > rank(best);
  return card[1] === trump;
}

// What to play to a trick: the cheapest card that wins it, or the lowest card.
function advice(s, cards) {
  const best = winning(cards, s.trump);
  const trumped = best[1] === s.trump && cards[0][1] !== s.trump ? " (a trump)" : "";
  const winners = s.playable.filter((c) => beats(c, best, s.trump));
  const later = cards.length < s.players - 1 ? " (the player after you may still beat it)" : "";
  if (winners.length) {
    const sideWinners = winners.filter((c) => c[1] !== s.trump);
    const cheapest = lowest(sideWinners.length ? sideWinners : winners);
    return `The ${cardName(best)}${trumped} is winning so far. Your ${cardName(cheapest)} beats it${later}: play it ` +
      `to take the trick, or play low to keep it for later.`;
  }
  const side = s.playable.filter((c) => c[1] !== s.trump);
  return `You cannot beat the ${cardName(best)}${trumped}: play your lowest card, the ${cardName(lowest(side.length ? side : s.playable))}, ` +
    "and keep your good ones.";
}

function list(cards) {
  return cards.map(cardName).join(", ");
}

// --- What to say ------------------------------------------------------------------------------

function lessonMessage(s) {
  if (s.status === "finished") {
    const place = s.rank === 1 ? "first" : s.rank === 2 ? "second" : "third";
    const early = s.handNumber < 2
      ? " It ended after one hand, as someone took 12 tricks. Had it gone on, the next hand would have " +
        "opened with the exchange: who took more tricks than their target gives a card for each extra " +
        "trick to who took fewer, who gives back their highest card of each suit received."
      : "";
    return `That is the game: you finished ${place}, with a score of ${s.score}.${early} ` +
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
      "cards of your hand away, before you see the kitty (they count for nobody). Empty your shortest " +
      "side suit if you can: when a suit you have none of is led, you may trump it. Then throw low " +
      `cards, never trumps (say ${list(suggest)}). Click the cards, then Confirm.`;
  }
  if (s.choice === "give") return exchangeMessage(s);
  if (s.playable.length) return playMessage(s);
  return waiting(s);
}

function leadAdvice(s) {
  const side = s.hand.filter((c) => c[1] !== s.trump);
  const aces = side.filter((c) => c[0] === "A");
  if (aces.length) {
    return `Lead your ${cardName(aces[0])}: nobody can beat it unless they have no ${suitName(aces[0][1])} and trump it.`;
  }
  const trumps = s.hand.filter((c) => c[1] === s.trump);
  if (trumps.length >= 4) {
    return `With many trumps, lead a high one (the ${cardName(trumps[0])}): it draws the others' trumps, so your ` +
      "other cards are safer later.";
  }
  return `Lead your lowest card (the ${cardName(lowest(side.length ? side : s.hand))}) and let the others spend ` +
    "their high cards.";
}

function playMessage(s) {
  const led = ledCard(s);
  const prefix = afterPlay ? `${afterPlay} ` : "";
  const need = s.target !== null ? ` You have ${s.tricks} of your ${s.target} tricks.` : "";
  if (!led) {
    return `${prefix}Your lead: any card may start the trick, and the winner leads the next.${need} ${leadAdvice(s)}`;
  }
  const cards = [s.trick.left, s.trick.top, s.trick.right].filter(Boolean);
  const suit = led[1];
  if (s.hand.some((c) => c[1] === suit)) {
    return `${prefix}${cardName(led)} was led, so you must follow suit: only your ${suitName(suit)} are ` +
      `playable (the others are greyed out).${need} ${advice(s, cards)}`;
  }
  const trumps = s.trump ? s.hand.filter((c) => c[1] === s.trump) : [];
  if (trumps.length && suit !== s.trump) {
    const best = winning(cards, s.trump);
    if (best[1] === s.trump && !trumps.some((c) => rank(c) > rank(best))) {
      return `${prefix}${cardName(led)} was led and you have no ${suitName(suit)}: you may play any card. ` +
        `Normally you would play a trump to win it, but the ${cardName(best)} is a higher trump than yours: ` +
        `${advice(s, cards)}`;
    }
    const cheapest = lowest(trumps.filter((c) => beats(c, best, s.trump)));
    return `${prefix}${cardName(led)} was led and you have no ${suitName(suit)}: you may play any card. ` +
      `Play a trump (${suitName(s.trump)}) and it beats every card of the other suits: that is trumping. ` +
      `Your ${cardName(cheapest)} is enough to win it.${need}`;
  }
  return `${prefix}${cardName(led)} was led and you have none of that suit: you may play any card, but ` +
    `only a card of the suit led or a trump can win. ${advice(s, cards)}`;
}

function exchangeMessage(s) {
  const intro = `New hand, and every hand after the first opens with the exchange: who took more ` +
    "tricks than their target last hand gives one card for each extra trick to who took fewer, " +
    "who gives back, for each card received, their highest card of that suit.";
  if (s.choice === "give") {
    return `${intro} You were up, so you give ${s.choiceCount} card${s.choiceCount > 1 ? "s" : ""}` +
      `${s.giveTo ? ` to ${s.giveTo}` : ""}. Give low cards of the suits whose top cards you lack: ` +
      "what comes back is their best card of that suit " +
      `(say ${list(toGive(s.hand, s.trump, s.choiceCount))}). Click the cards, then Confirm.`;
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
  if (s.calls.length) return `Hint: name trumps in the suit where you are strongest, by number and height (${suitName(bestTrump(s.hand))} here).`;
  if (s.choice === "discard") return `Hint: discard low cards of your short side suits (${list(weakest(s.hand, s.trump, s.choiceCount))}); keep your trumps.`;
  if (s.choice === "give") return `Hint: give low cards of suits whose top cards you lack (${list(toGive(s.hand, s.trump, s.choiceCount))}): their best card of that suit comes back.`;
  if (!s.playable.length) return "";
  const led = ledCard(s);
  if (!led) return `Hint: ${leadAdvice(s)}`;
  const cards = [s.trick.left, s.trick.top, s.trick.right].filter(Boolean);
  if (s.hand.some((c) => c[1] === led[1])) return `Hint: follow suit (${suitName(led[1])}). ${advice(s, cards)}`;
  if (s.trump && led[1] !== s.trump && s.hand.some((c) => c[1] === s.trump)) {
    return `Hint: no ${suitName(led[1])}: a trump can win it. ${advice(s, cards)}`;
  }
  return `Hint: no ${suitName(led[1])}, no trump. ${advice(s, cards)}`;
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
