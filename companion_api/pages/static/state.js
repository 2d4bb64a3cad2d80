// Hearthtop Companion: what the phone, the overlay and the spectator page share.
//
// connect(): the live game state over the WebSocket /ws, reconnecting by itself with
// backoff (and noticing a silent socket: the server resends the state every 5 s).
// renderSides(): both sides of the table (heroes and minions) drawn from a state, updated
// in place so that a change can be animated (a number that changes flashes; a minion fades
// in and out). Plain ES module, no build step, nothing from outside this server.

export const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };
export const PLAYERS = ["p1", "p2"];
const SILENT_MS = 12000; // no message for this long: the socket is dead, open another
const BACKOFF_MS = [250, 500, 1000, 2000, 3000, 5000];

// --- the live connection ---------------------------------------------------------------

export function connect({ onState, onStatus, path = "/ws" }) {
  let socket = null;
  let attempt = 0;
  let retry = null;
  let watchdog = null;
  let status = "connecting";
  let lastText = "";
  let first = true; // the first state on a new socket is taken whatever its version

  const setStatus = (next, detail) => {
    if (next !== status || detail) {
      status = next;
      onStatus?.(next, detail);
    }
  };
  const arm = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => socket?.close(), SILENT_MS);
  };
  const open = () => {
    clearTimeout(retry);
    retry = null;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}${path}`);
    socket = ws;
    first = true;
    arm();
    ws.onmessage = (message) => {
      if (ws !== socket) return;
      arm();
      let data;
      try {
        data = JSON.parse(message.data);
      } catch {
        return;
      }
      if (data.type !== "state") return;
      attempt = 0;
      setStatus("online");
      if (message.data === lastText && !first) return; // the 5-second resend
      lastText = message.data;
      onState(data.state, { fresh: first });
      first = false;
    };
    ws.onclose = () => {
      if (ws !== socket) return;
      clearTimeout(watchdog);
      const delay = BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]
        * (0.8 + 0.4 * Math.random());
      attempt += 1;
      setStatus("offline", { retryInMs: delay, attempt });
      retry = setTimeout(open, delay);
    };
    ws.onerror = () => ws.close();
  };
  const now = () => {
    // the network came back or the page was shown again: do not wait for the backoff
    if (retry !== null) open();
  };
  window.addEventListener("online", now);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") now();
  });
  open();
  return {
    get status() { return status; },
    // a state that came another way (the answer to a POST) is shown at once
    seen(text) { lastText = `{"type":"state","state":${text}}`; },
    reconnect() { socket?.close(); },
  };
}

// --- small DOM helpers ----------------------------------------------------------------

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key === "html") el.innerHTML = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "testid") el.dataset.testid = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// Restart a CSS animation: `cls` is removed and put back on the next frame.
export function flash(el, cls = "bump") {
  el.classList.remove(cls, "up", "down");
  void el.offsetWidth; // reflow, so that the animation starts again
  el.classList.add(cls);
}

// Set a number; when it changed (not on first draw), flash it up or down.
export function setNumber(el, value, { flashOn = true } = {}) {
  const old = el.dataset.value;
  const text = String(value);
  if (old === text) return false;
  el.textContent = text;
  el.dataset.value = text;
  if (old !== undefined && flashOn) {
    flash(el);
    const delta = Number(value) - Number(old);
    if (!Number.isNaN(delta)) el.classList.add(delta > 0 ? "up" : "down");
  }
  return old !== undefined;
}

// A "-3" or "+2" that rises from `el` and fades (a hero's health changing).
export function floatDelta(el, delta) {
  if (!delta) return;
  const bubble = h("span", { class: `delta ${delta < 0 ? "minus" : "plus"}` },
    delta < 0 ? `−${-delta}` : `+${delta}`);
  el.append(bubble);
  setTimeout(() => bubble.remove(), 1400);
}

export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

// --- words about cards and players ------------------------------------------------------

export function cardParts(id) {
  if (id === "JK") return { rank: "Coin", suit: null };
  if (!id || /^T\d+$/.test(id) || !SUIT[id.slice(-1)]) return { rank: id || "", suit: null };
  return { rank: id.slice(0, -1), suit: id.slice(-1) };
}

// "10♥" with the suit coloured (a span), or a token id as it is.
export function cardLabel(id) {
  const { rank, suit } = cardParts(id);
  const span = h("span", { class: "cid" }, rank);
  if (suit) span.append(h("span", { class: `suit suit-${suit}` }, SUIT[suit]));
  return span;
}

export function cardText(id) {
  if (id === "JK") return "The Coin";
  const { rank, suit } = cardParts(id);
  return suit ? rank + SUIT[suit] : rank;
}

export function shortName(side) {
  return (side?.name || "").split(" ")[0] || "";
}

// "Jaina" (or "Jaina (p1)" when both play the same hero).
export function playerName(state, player) {
  const players = state?.players || {};
  const side = players[player];
  if (!side) return player;
  const other = players[player === "p1" ? "p2" : "p1"];
  const name = shortName(side);
  return other && shortName(other) === name ? `${name} (${player})` : name;
}

// What an id on the board is, in words: a hero's name or a minion's card and name.
// A character as players name it: a hero by its name; a minion by its card and its name
// ("8♥ Taunt", "9♠ Searing Totem"), a token by its name and stats ("Silver Hand Recruit
// (1/1)", and its place in the row when its side has more than one alike). Never an id.
export function characterName(state, id) {
  if (PLAYERS.includes(id)) return playerName(state, id);
  for (const [player, side] of Object.entries(state?.players || {})) {
    const minion = side.minions.find((m) => m.id === id);
    if (!minion) continue;
    if (minion.card) {
      const name = minionName(minion, side.hero);
      return name ? `${cardText(minion.card)} ${name}` : cardText(minion.card);
    }
    const token = `${minion.name} (${minion.attack}/${minion.health})`;
    const alike = side.minions.filter((m) => !m.card && m.name === minion.name);
    if (alike.length < 2) return token;
    const at = side.minions.indexOf(minion);
    return `${token}, ${ORDINAL[at] || `${at + 1}th`} in ${playerName(state, player)}'s row`;
  }
  return cardText(id);
}

// Tokens named in a text by their ids ("T3 attacks 2♣"), by name where they are in play.
function tokensIn(state, text) {
  return text.replace(/\bT\d+\b/g, (id) => {
    const named = characterName(state, id);
    return named === cardText(id) ? "a token" : named;
  });
}

// Card ids in a text with their suits: "copy of 8C" -> "copy of 8♣".
export function cardsIn(text) {
  return String(text).replace(/\b(10|[2-9JQKA])([SHDC])\b/g, (_, rank, suit) => rank + SUIT[suit]);
}

const ORDINAL = ["1st", "2nd", "3rd", "4th", "5th", "6th", "7th"];

// Where a card lies on the table now, in the players' words ("in Anduin's row, 2nd of 4",
// "as Jaina's weapon"); a card played and no longer in play lies on the discard pile.
export function whereOnTable(state, card) {
  for (const player of PLAYERS) {
    const side = state?.players?.[player];
    if (!side) continue;
    const at = side.minions.findIndex((m) => m.card === card);
    if (at >= 0) {
      const count = side.minions.length;
      return `in ${playerName(state, player)}'s row` + (count > 1
        ? `, ${ORDINAL[at] || at + 1} of ${count}` : " (its only minion)");
    }
    if (side.weapon?.card === card) return `as ${playerName(state, player)}'s weapon`;
  }
  return "on the discard pile";
}

// The cards a question's options name, each with where it lies now: what to look at.
export function whereToLook(state, options) {
  const cards = new Set();
  for (const option of options) {
    for (const event of option.events || []) {
      for (const key of ["card", "attacker", "target"]) {
        if (typeof event[key] === "string" && cardParts(event[key]).suit) cards.add(event[key]);
      }
    }
  }
  return [...cards].map((card) => `${cardText(card)} ${whereOnTable(state, card)}`);
}

// A line of narration for people: p1 and p2 by their heroes' names, cards with suits.
export function prettify(state, text) {
  const players = state?.players;
  if (/^new game:/.test(text) && players?.p1 && players?.p2) {
    return `New game: ${players.p1.name} goes first, ${players.p2.name} second`;
  }
  return cardsIn(tokensIn(state, String(text))
    .replace(/\b(p[12])\b/g, (_, p) => (state?.players?.[p] ? playerName(state, p) : p)))
    .replace(/\bJK\b/g, "The Coin")
    .replace(/\b([^\s,]+)(?:, \1\b)+/g, (run, item) => `${item} ×${run.split(", ").length}`);
}

// The narration lines of the state, with their "[turn  3] " prefix taken apart.
export function recentLines(state) {
  return (state?.recent || []).map((line) => {
    const match = /^\[turn\s*(\d+)\]\s*(.*)$/.exec(line);
    const [turn, text] = match ? [Number(match[1]), match[2]] : [null, line];
    return { turn, text: prettify(state, text), raw: text };
  });
}

// What the players must know now about the table's machinery, in words: the camera's
// condition when it is not ok, and a game the server cannot save. [] when all is well.
const CAMERA_TROUBLE = {
  lost: "Camera lost: no picture. Play on; the score catches up when it is back.",
  frozen: "Camera frozen: the picture has stopped. Play on; check the camera's cable.",
  covered: "Camera covered: it cannot see the table. Play on; clear its view.",
  moved: "Camera moved: finding the table's markers again.",
};

// The trouble as lines in `box` (an alert), hidden when there is none.
export function showTrouble(box, state) {
  const trouble = tableTrouble(state);
  box.hidden = !trouble.length;
  box.replaceChildren(...trouble.map((t) => h("div", { "data-kind": t.kind }, t.text)));
}

function tableTrouble(state) {
  const trouble = [];
  if (CAMERA_TROUBLE[state.camera]) {
    trouble.push({ kind: `camera-${state.camera}`, text: CAMERA_TROUBLE[state.camera] });
  }
  if (state.unsaved) {
    trouble.push({ kind: "unsaved", text: `Not saved: the server's disk says “${state.unsaved}”.`
      + " Play on; the game is saved as soon as there is room." });
  }
  return trouble;
}

// The end of the deck, in words, or null: {text, level: "warn" | "danger"}.
export function deckWarning(state, nearly = 3) {
  if (!state?.players?.p1 || state.over) return null;
  if (state.deck_empty) {
    return { level: "danger",
      text: "The deck is empty: the game ends after this turn (higher health wins)." };
  }
  if (state.phase !== "mulligan" && state.deck <= nearly) {
    return { level: "warn", text: state.deck === 0
      ? "The deck is out: the next draw or marker ends the game after that turn."
      : `The deck is nearly out: ${state.deck} card${state.deck === 1 ? "" : "s"} left.` };
  }
  return null;
}

export function resultText(state) {
  if (!state?.over) return "";
  if (state.winner === "draw") return "The game is a draw";
  return `${playerName(state, state.winner)} wins`;
}

// --- icons (inline SVG: no font or network needed) ---------------------------------------

const ICONS = {
  heart: '<path d="M12 21s-7.5-4.6-9.6-9.2C.9 8.4 3 4.5 6.6 4.5c2.1 0 3.6 1.2 4.4 2.6.8-1.4 2.3-2.6 4.4-2.6 3.6 0 5.7 3.9 4.2 7.3C19.5 16.4 12 21 12 21z"/>',
  shield: '<path d="M12 2l8 3v6c0 5.2-3.4 9.4-8 11-4.6-1.6-8-5.8-8-11V5z"/>',
  gem: '<path d="M12 2l8 7-8 13L4 9z"/>',
  sword: '<path d="M19.5 2.5l2 2-9.7 9.7 1.6 1.6-1.4 1.4-1.6-1.6-3 3 .9.9-1.4 1.4-3.7-3.7 1.4-1.4.9.9 3-3-1.6-1.6 1.4-1.4 1.6 1.6z"/>',
  hand: '<rect x="5" y="3" width="11" height="16" rx="2"/><rect x="9" y="6" width="11" height="16" rx="2" opacity=".6"/>',
  secret: '<circle cx="12" cy="12" r="10"/><text x="12" y="17" text-anchor="middle" font-size="14" font-weight="700" fill="#111">?</text>',
  lock: '<rect x="5" y="10" width="14" height="11" rx="2"/><path d="M8 10V7a4 4 0 0 1 8 0v3" fill="none" stroke="currentColor" stroke-width="2.4"/>',
  deck: '<rect x="4" y="5" width="12" height="16" rx="2" opacity=".55"/><rect x="7" y="3" width="12" height="16" rx="2"/>',
  snow: '<path d="M11 2h2v20h-2zM2 11h20v2H2zM4.2 5.6l1.4-1.4 14.2 14.2-1.4 1.4zM18.4 4.2l1.4 1.4L5.6 19.8l-1.4-1.4z"/>',
};

export function icon(name, cls = "") {
  const span = document.createElement("span");
  span.className = `icon icon-${name} ${cls}`;
  span.innerHTML = `<svg viewBox="0 0 24 24" aria-hidden="true" fill="currentColor">${ICONS[name]}</svg>`;
  return span;
}

// --- the board ------------------------------------------------------------------------------

const CLASS_LETTERS = {
  mage: "Ma", hunter: "Hu", warrior: "Wa", paladin: "Pa", priest: "Pr", rogue: "Ro",
  shaman: "Sh", warlock: "Wl", druid: "Dr",
};

function stat(name, testid, extra = "") {
  const value = h("span", { class: "value", testid });
  return { el: h("span", { class: `stat stat-${name} ${extra}` }, icon(name), value), value };
}

// One side's skeleton: the hero panel and the row of minions, filled in by updateSide.
function buildSide(player) {
  const refs = {};
  refs.portrait = h("div", { class: "portrait" });
  refs.name = h("div", { class: "hero-name", testid: `name-${player}` });
  refs.sub = h("div", { class: "hero-sub" });
  refs.turnTag = h("span", { class: "turn-tag", testid: `turn-tag-${player}` }, "to play");
  refs.health = h("span", { class: "value", testid: `health-${player}` });
  refs.healthBox = h("div", { class: "health" }, icon("heart"), refs.health);
  refs.armor = h("span", { class: "value", testid: `armor-${player}` });
  refs.armorBox = h("div", { class: "armor" }, icon("shield"), refs.armor);
  const mana = stat("gem", `mana-${player}`, "stat-mana");
  refs.mana = mana.value;
  refs.gems = h("span", { class: "gems", "aria-hidden": "true" });
  mana.el.append(refs.gems);
  refs.manaBox = mana.el;
  refs.overload = h("span", { class: "chip chip-overload", testid: `overload-${player}` });
  refs.weapon = h("div", { class: "weapon", testid: `weapon-${player}` });
  const hand = stat("hand", `hand-${player}`, "stat-hand");
  refs.hand = hand.value;
  hand.el.append(h("small", { class: "caption" }, "in hand"));
  const secrets = stat("secret", `secrets-${player}`, "stat-secrets");
  refs.secrets = secrets.value;
  refs.secretsBox = secrets.el;
  refs.chips = h("span", { class: "chips", testid: `chips-${player}` });
  refs.hero = h("div", { class: "hero", testid: `hero-${player}`, "data-target": player },
    refs.portrait,
    h("div", { class: "hero-who" }, h("div", { class: "hero-title" }, refs.name), refs.sub),
    h("div", { class: "hero-vitals" }, refs.armorBox, refs.healthBox),
    h("div", { class: "hero-line" }, refs.manaBox, refs.overload, hand.el, secrets.el,
      refs.weapon, refs.chips));
  refs.minions = h("div", { class: "minions", testid: `minions-${player}` });
  refs.empty = h("div", { class: "no-minions" }, "no minions");
  refs.minions.append(refs.empty);
  refs.root = h("section", { class: `side side-${player}`, testid: `side-${player}`,
    "data-player": player }, refs.turnTag, refs.hero, refs.minions);
  return refs;
}

function chip(text, cls, title) {
  return h("span", { class: `chip ${cls}`, title: title || text }, text);
}

function updateSide(refs, player, side, state, moved) {
  const root = refs.root;
  const active = state.phase === "play" && state.active === player && !state.over;
  if (refs.game !== state.game) { // a new game is drawn afresh: no "+21" from the last one
    refs.game = state.game;
    for (const el of root.querySelectorAll("[data-value]")) delete el.dataset.value;
  }
  root.classList.toggle("active", active);
  root.classList.toggle("winner", state.over && state.winner === player);
  root.classList.toggle("loser", state.over && state.winner !== player
    && state.winner !== "draw");
  refs.turnTag.textContent = state.over
    ? (state.winner === player ? "wins" : state.winner === "draw" ? "draw" : "")
    : "to play";
  refs.portrait.className = `portrait class-${side.class}`;
  setText(refs.portrait, CLASS_LETTERS[side.class] || side.class.slice(0, 2));
  setText(refs.name, playerName(state, player));
  setText(refs.sub, `${player} · ${side.class}${player === "p1" ? " · first" : ""}`);
  const health = Math.max(0, side.health); // a hero below 0 is dead, not "−1"
  const before = Number(refs.health.dataset.value);
  if (setNumber(refs.health, health, { flashOn: moved }) && moved) {
    floatDelta(refs.healthBox, health - before);
  }
  refs.healthBox.classList.toggle("low", side.health <= 5);
  setNumber(refs.armor, side.armor, { flashOn: moved });
  refs.armorBox.classList.toggle("none", side.armor === 0);
  setNumber(refs.mana, `${side.mana}/${side.crystals}`, { flashOn: moved });
  refs.gems.replaceChildren(...Array.from({ length: side.crystals }, (_, i) =>
    h("i", { class: i < side.mana ? "full" : i >= side.crystals - side.overload_locked
      ? "locked" : "spent" })));
  refs.overload.hidden = !(side.overload || side.overload_locked);
  setText(refs.overload, side.overload_locked ? `${side.overload_locked} locked`
    : `overload ${side.overload}`);
  setNumber(refs.hand, side.hand, { flashOn: moved });
  setNumber(refs.secrets, side.secrets, { flashOn: moved });
  refs.secretsBox.hidden = side.secrets === 0;
  const weapon = side.weapon;
  refs.weapon.hidden = !weapon;
  if (weapon) {
    const key = `${weapon.card}|${weapon.attack}|${weapon.durability}`;
    if (refs.weapon.dataset.key !== key) {
      const changed = refs.weapon.dataset.key !== undefined;
      refs.weapon.dataset.key = key;
      refs.weapon.replaceChildren(icon("sword"),
        h("b", { class: "weapon-stats" }, `${weapon.attack}/${weapon.durability}`),
        h("span", { class: "weapon-name" }, weapon.name));
      if (changed) flash(refs.weapon);
    }
  } else {
    delete refs.weapon.dataset.key;
  }
  const chips = [];
  if (side.attack > 0) chips.push(chip(`${side.attack} attack`, "chip-attack"));
  if (side.frozen) chips.push(chip("frozen", "chip-frozen"));
  if (side.spell_damage > 0) chips.push(chip(`spell +${side.spell_damage}`, "chip-spell"));
  if (side.hero_power_used && active) chips.push(chip("power used", "chip-used"));
  const chipKey = chips.map((c) => c.textContent).join("|");
  if (refs.chips.dataset.key !== chipKey) {
    refs.chips.dataset.key = chipKey;
    refs.chips.replaceChildren(...chips);
  }
  updateMinions(refs, side.minions, side.hero, active, moved);
  if (side.minions.some((m) => m.card?.endsWith("S")) && !state.over) learnSpade(player, side.hero);
}

function buildMinion(minion) {
  const refs = {};
  refs.card = h("div", { class: "m-card" });
  refs.name = h("div", { class: "m-name" });
  refs.tags = h("div", { class: "m-tags" });
  refs.attack = h("span", { class: "m-attack", testid: `attack-${minion.id}` });
  refs.health = h("span", { class: "m-health", testid: `mhealth-${minion.id}` });
  refs.damage = h("span", { class: "m-damage", testid: `damage-${minion.id}` });
  refs.root = h("div", { class: "minion entering", testid: `minion-${minion.id}`,
    "data-target": minion.id, "data-id": minion.id },
  h("div", { class: "m-top" }, refs.card, refs.damage), refs.name, refs.tags,
  h("div", { class: "m-stats" }, refs.attack, refs.health));
  refs.root.addEventListener("animationend", () => refs.root.classList.remove("entering"),
    { once: true });
  return refs;
}

const KEYWORDS = [
  ["taunt", "Taunt"], ["stealth", "Stealth"], ["frozen", "Frozen"],
  ["exhausted", "Asleep"], ["attacked", "Attacked"],
];

// A ♠ minion is named by its hero's ability (asked of the server once a hero); a token
// carries its own name; ♥ ♦ ♣ minions need none: their keyword shows as a tag.
const spadeNames = {}; // hero key -> name of its ♠ minions, or null while asked
const rendered = new Map(); // the last renderSides of each board, repeated once a name is known

export function minionName(m, hero) {
  if (m.name && m.name !== m.id && m.name !== m.card) return cardsIn(m.name);
  const suit = (m.card || "").slice(-1);
  if (suit === "S") return spadeNames[hero] || "♠ minion";
  return suit && SUIT[suit] ? "" : m.name;
}

function learnSpade(player, hero) {
  if (hero in spadeNames) return;
  spadeNames[hero] = null;
  fetch(`/api/moves?card=2S&player=${player}`).then((r) => r.json()).then((info) => {
    if (!info?.name) throw new Error("no name");
    spadeNames[hero] = info.name;
    for (const again of rendered.values()) again();
  }).catch(() => { delete spadeNames[hero]; });
}

// Asleep or attacked matters on its owner's turn only: dimmed through the opponent's turn, a
// minion looks spent when it is not.
const OWN_TURN_ONLY = new Set(["exhausted", "attacked"]);

function shown(m, key, ownTurn) {
  return Boolean(m[key]) && (ownTurn || !OWN_TURN_ONLY.has(key));
}

function updateMinion(refs, m, hero, ownTurn, moved) {
  const el = refs.root;
  for (const [key] of KEYWORDS) el.classList.toggle(key, shown(m, key, ownTurn));
  el.classList.toggle("spell-damage", m.spell_damage > 0);
  el.classList.toggle("damaged", m.health < m.max_health);
  el.classList.toggle("token", !m.card);
  const cardKey = m.card || m.id;
  if (refs.card.dataset.key !== cardKey) {
    refs.card.dataset.key = cardKey;
    refs.card.replaceChildren(cardLabel(m.card || m.id));
  }
  setText(refs.name, minionName(m, hero));
  setNumber(refs.attack, m.attack, { flashOn: moved });
  setNumber(refs.health, m.health, { flashOn: moved });
  refs.health.title = `${m.health} of ${m.max_health} health`;
  refs.damage.hidden = m.damage === 0;
  setText(refs.damage, m.damage ? `−${m.damage}` : "");
  refs.damage.title = `${m.damage} damage marker${m.damage === 1 ? "" : "s"}`;
  const tags = KEYWORDS.filter(([key]) => shown(m, key, ownTurn) && key !== "attacked")
    .map(([, t]) => t);
  if (m.spell_damage > 0) tags.push(`Spell +${m.spell_damage}`);
  const key = tags.join("|");
  if (refs.tags.dataset.key !== key) {
    refs.tags.dataset.key = key;
    refs.tags.replaceChildren(...tags.map((t) => h("span", { class: `tag tag-${t.split(" ")[0].toLowerCase()}` }, t)));
  }
}

function updateMinions(refs, minions, hero, ownTurn, moved) {
  refs.byId ??= new Map();
  const seen = new Set();
  let before = refs.minions.firstChild;
  for (const minion of minions) {
    seen.add(minion.id);
    let entry = refs.byId.get(minion.id);
    if (!entry) {
      entry = buildMinion(minion);
      refs.byId.set(minion.id, entry);
    }
    updateMinion(entry, minion, hero, ownTurn, moved);
    // keep the table's order, skipping minions on their way out
    while (before && (before === refs.empty || before.classList.contains("leaving"))) {
      before = before.nextSibling;
    }
    if (entry.root !== before) refs.minions.insertBefore(entry.root, before);
    else before = before.nextSibling;
    fitName(entry.name);
  }
  for (const [id, entry] of refs.byId) {
    if (seen.has(id)) continue;
    refs.byId.delete(id);
    const el = entry.root;
    el.classList.add("leaving");
    el.removeAttribute("data-testid");
    el.removeAttribute("data-target");
    setTimeout(() => {
      el.remove();
      refs.empty.hidden = refs.minions.querySelector(".minion") !== null;
    }, 450);
  }
  refs.empty.hidden = refs.minions.querySelector(".minion") !== null;
  refs.minions.dataset.count = String(minions.length);
}

// Whether `state` follows `old` by new events at the end of the same history: only then do
// the changes animate (a health that falls shows its −3). An undo, a new game, the camera
// telling the game again (an event rewritten) or a first look draws the numbers as they are:
// an undone Fireblast is no heal.
function followsOn(old, state) {
  if (!old || old.game !== state.game || !(state.events > old.events)) return false;
  const lastOf = (s) => {
    const at = (s.recent_events || []).findIndex((e) => e.index === old.events - 1);
    return at < 0 ? undefined : s.recent?.[at];
  };
  return lastOf(old) === lastOf(state);
}

const drawn = new WeakMap(); // a board's first slot -> the state last drawn in it

// A minion's name wraps at its spaces only, never inside a word ("Stoneclaw / Totem", not
// "Stonecla / w Totem"); a name whose longest word or lines do not fit its box at the page's
// size is drawn smaller, a step at a time, down to 70 % (asked again once laid out, and when
// the window changes size).
export function fitText(el) {
  el.style.fontSize = "";
  if (!el.clientWidth) return false; // not laid out (hidden, or empty): fitted when shown
  const size = parseFloat(getComputedStyle(el).fontSize);
  const over = () => el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight + 1;
  for (let step = 1; step <= 6 && over(); step += 1) {
    el.style.fontSize = `${(size * (1 - step * 0.05)).toFixed(2)}px`;
  }
  return true;
}

function fitName(el) {
  const key = `${el.textContent}|${window.innerWidth}`;
  if (el.dataset.fit !== key && fitText(el)) el.dataset.fit = key;
}

window.addEventListener("resize", () => {
  for (const el of document.querySelectorAll(".m-name")) fitName(el);
});

// Each side drawn into its own container: `slots` maps p1 and p2 to an element.
export function renderSides(slots, state) {
  const players = state?.players || {};
  const first = Object.values(slots)[0];
  const moved = followsOn(drawn.get(first), state);
  drawn.set(first, state);
  rendered.set(first, () => renderSides(slots, state));
  for (const [player, slot] of Object.entries(slots)) {
    let refs = slot._side;
    if (!players[player]) {
      refs?.root.remove();
      slot._side = null;
      continue;
    }
    if (!refs) {
      refs = buildSide(player);
      slot._side = refs;
      slot.append(refs.root);
    }
    updateSide(refs, player, players[player], state, moved);
  }
}

export function alertLabel(alert) {
  // unsure: a rule break the camera may have misread, asked on the phone rather than flagged
  return { illegal: "Illegal", unsure: "Camera unsure" }[alert.severity] || "Check the table";
}
