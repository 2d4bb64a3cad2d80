// The phone scorekeeper: the live table, and the players' actions back into the event log.
//
// Every action is built from the server's own lists (GET /api/moves): the legal moves are
// offered, anything else needs a deliberate confirmation (or the "any action" switch), and
// the engine records it with an alert. The hand is hidden from the engine, so the phone
// names each card played.

import {
  alertLabel, cardLabel, cardText, characterName, connect, deckWarning, h, playerName, PLAYERS,
  prettify, recentLines, renderSides, resultText, showTrouble, SUIT, whereToLook,
} from "./state.js";

const $ = (id) => document.getElementById(id);
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const SUITS = ["S", "H", "D", "C"];
const TOKEN_KEY = "hearthtop.token";
const HEROES_KEY = "hearthtop.heroes";
const AWAKE_KEY = "hearthtop.keepAwake"; // "off": the screen may dim and lock mid-game
const NEARLY_OUT = 3;

const app = {
  state: null,
  moves: null, // GET /api/moves for the state shown
  movesFor: "",
  heroes: [],
  token: null,
  any: false, // "any action": illegal moves offered too
  mode: null, // a target being picked: see pickTargets()
  busy: false,
  seenAlerts: null, // game id and alert count last shown, so that only new ones toast
  fixing: null, // the camera event whose fix sheet is open: { index, line }
  // what the camera missed is being recorded after an event: { index, text, player (whose turn) }
  missedAfter: null,
};

// --- the token: from the address once, then kept on this phone -------------------------------

// A first token is taken as it comes. One that differs from the token already kept here is
// only offered (see askAboutToken): a link with a wrong token, sent by anyone on the Wi-Fi,
// must not quietly replace the good one and leave the phone unable to keep the score. Either
// way the address loses its token. Answers the offered token, or null.
function readToken() {
  const params = new URLSearchParams(location.search);
  const given = params.get("token")?.trim() || null;
  const kept = localStorage.getItem(TOKEN_KEY) || null;
  let offered = null;
  if (params.has("token")) {
    if (given && !kept) localStorage.setItem(TOKEN_KEY, given);
    else if (given && given !== kept) offered = given;
    params.delete("token");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest ? `?${rest}` : "") + location.hash);
  }
  app.token = localStorage.getItem(TOKEN_KEY) || null;
  return offered;
}

// The server has no way to try a token without a write (GET /api/state takes none), so the
// phone asks; keeping the token it has is the default (the first button, Escape).
async function askAboutToken(offered) {
  const asked = confirmBox("Replace the token?",
    "This link carries a different table token. Use it instead of the one on this phone?",
    "Use the new one", "Keep mine");
  $("confirm-no").focus({ preventScroll: true }); // Enter, too, keeps the token
  const use = await asked;
  if (!use) {
    toast("The token on this phone is kept.", "info");
    return;
  }
  localStorage.setItem(TOKEN_KEY, offered);
  app.token = offered;
  app.tokenRefused = false; // the new token has not been refused yet
  $("token-problem").hidden = true;
  render();
  toast("This phone now uses the link's token.", "info");
}

// --- talking to the server -------------------------------------------------------------------

class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (app.token) headers.Authorization = `Bearer ${app.token}`;
  let response;
  try {
    response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError("The server cannot be reached; check the Wi-Fi.", 0);
  }
  let data = null;
  try {
    data = await response.json();
  } catch { /* no JSON body */ }
  if (!response.ok) {
    throw new ApiError(data?.detail || `The server answered ${response.status}.`,
      response.status);
  }
  return data;
}

// A change to the game: one at a time; the answer's state is shown at once.
async function write(path, body, { quiet = false } = {}) {
  if (app.busy) return null;
  app.busy = true;
  document.body.classList.add("busy");
  renderActions(); // its buttons wait for the answer
  try {
    const answer = await api("POST", path, body);
    if (answer?.state) acceptState(answer.state, { fromWrite: true });
    return answer;
  } catch (error) {
    if (error.status === 401 || error.status === 403) tokenRefused(error.message);
    if (!quiet) toast(error.message, "error", "Not recorded");
    throw error;
  } finally {
    app.busy = false;
    document.body.classList.remove("busy");
    renderActions();
  }
}

async function send(event, options) {
  try {
    return await write(...eventRequest(event), options);
  } catch {
    return null;
  }
}

// Where an event goes: after the event the players picked, when it is what the camera missed
// there; else to the log (with a camera: what it missed just now, or the phone's own).
const MISSABLE = ["play", "attack", "hero_power", "secret_revealed"];
function eventRequest(event) {
  const after = app.missedAfter;
  if (after && MISSABLE.includes(event.type)) {
    app.missedAfter = null;
    renderActions();
    return [`/api/events/${after.index}/fix`, { missed: event }];
  }
  return ["/api/events", event];
}

function tokenRefused(message) {
  const problem = $("token-problem");
  problem.textContent = message;
  problem.hidden = false;
  app.tokenRefused = true;
  render();
}

async function refreshMoves() {
  const state = app.state;
  if (!state || !state.players?.p1) { // (a game over still has moves: the secret the
    app.moves = null; //                   blow that ended it set off, which may stop it)
    app.movesFor = "";
    delete document.body.dataset.moves;
    return;
  }
  const key = `${state.game}:${state.version}:${state.events}`;
  if (app.movesFor === key) return;
  app.movesFor = key;
  app.moves = null; // the old list is for another position: nothing is offered meanwhile
  delete document.body.dataset.moves;
  try {
    const moves = await api("GET", "/api/moves");
    if (app.movesFor !== key) return; // a newer state asked again meanwhile
    app.moves = moves;
    // the events the buttons' moves are for: what a test (or a person) may wait on
    document.body.dataset.moves = String(state.events);
    render();
  } catch {
    app.movesFor = ""; // asked again shortly: the buttons wait for this list
    clearTimeout(app.movesRetry);
    app.movesRetry = setTimeout(refreshMoves, 1500);
  }
}

function cardMoves(card, player) {
  const query = new URLSearchParams({ card });
  if (player) query.set("player", player);
  return api("GET", `/api/moves?${query}`);
}

// --- state in --------------------------------------------------------------------------------

function acceptState(state, { fresh = false, fromWrite = false } = {}) {
  const old = app.state;
  if (old && !fresh && !fromWrite && old.game === state.game && state.version < old.version) {
    return; // an older state overtaken by a write's answer
  }
  app.state = state;
  if (fromWrite) live?.seen(JSON.stringify(state));
  if (app.mode && (!old || old.version !== state.version)) {
    // the board moved under a half-made action: it may no longer make sense
    if (!fromWrite) cancelMode("The table changed; start the action again.");
  }
  toastNewAlerts(old, state);
  if (!old || old.game !== state.game || old.version !== state.version) forgetCardInfo();
  const fixed = app.fixing && lineAt(state, app.fixing.index);
  if (app.fixing && fixed !== null && fixed !== app.fixing.line) {
    // the camera explained that view again: the options shown are for what it was
    closeSheet();
    toast("The camera changed that event; tap it again to fix it.", "info");
  }
  refreshMoves(); // first: it puts the last position's moves away before drawing
  render();
}

function toastNewAlerts(old, state) {
  const seen = app.seenAlerts;
  app.seenAlerts = { game: state.game, count: state.alerts.length };
  if (!seen || seen.game !== state.game) return; // the first look: old alerts are listed
  for (const alert of state.alerts.slice(seen.count)) {
    toast(prettify(state, alert.message), alert.severity === "illegal" ? "illegal" : "warning",
      alertLabel(alert), 8000);
  }
}

// --- drawing ---------------------------------------------------------------------------------

function render() {
  const state = app.state;
  document.body.classList.toggle("can-write", canWrite());
  $("readonly").hidden = canWrite() && !app.tokenRefused;
  $("any-badge").hidden = !app.any;
  if (!state) return;
  document.body.dataset.events = state.events; // what a test (or a person) may wait on
  keepAwake();
  document.body.dataset.camera = state.camera || "none"; // with a live source: its condition
  const inGame = Boolean(state.players?.p1);
  $("turn").textContent = !inGame ? "Hearthtop"
    : state.phase === "mulligan" ? "Mulligan" : `Turn ${state.turn}`;
  $("active-line").textContent = !inGame ? "no game yet"
    : state.over ? resultText(state)
      : state.phase === "mulligan" ? "set cards aside, then draw"
        : `${playerName(state, state.active)} to play`;
  $("active-line").className = `active-line ${inGame && !state.over ? `who-${state.active}` : ""}`;

  $("board").hidden = !inGame;
  $("alerts-panel").hidden = !inGame;
  $("log-panel").hidden = !inGame;
  renderSetup();
  if (inGame) {
    renderSides({ p1: $("slot-p1"), p2: $("slot-p2") }, state);
    renderMiddle(state);
  }
  showTrouble($("trouble"), state);
  if (state.camera && state.camera !== "ok") {
    $("trouble").append(h("a", { class: "trouble-link", testid: "trouble-setup", href: "/setup" },
      "Camera setup ›"));
  }
  renderQuestions(state);
  renderDeck(state);
  renderAlerts(state);
  renderRecent(state);
  renderActions();
  renderTargets();
}

// With a camera and a registered deck: whether the deck reads the cards, or the table
// shows another deck and the general recogniser reads them
function renderDeck(state) {
  const line = $("camera-deck");
  const deck = state.registered_deck;
  line.hidden = !deck;
  if (!deck) return;
  line.textContent = deck.in_use ? `Camera reads your deck “${deck.name}”`
    : `The cards on the table are not your deck “${deck.name}”: read without it`;
  line.classList.toggle("warn", !deck.in_use);
}

function canWrite() {
  return Boolean(app.token);
}

function renderMiddle(state) {
  $("deck-num").textContent = state.deck;
  $("discard").textContent = `${state.discard} discarded`;
  const warning = $("deck-warning");
  const found = deckWarning(state, NEARLY_OUT);
  const text = found?.text || "";
  const level = found?.level || "";
  warning.hidden = !text;
  warning.textContent = text;
  warning.className = `deck-warning ${level}`;
  $("middle").classList.toggle("deck-low", Boolean(text));
  const result = $("result");
  result.hidden = !state.over;
  result.textContent = resultText(state);
  const lines = recentLines(state);
  const last = lines[lines.length - 1];
  const lastAlerts = state.alerts.filter((a) => a.event === state.events - 1);
  const lastLine = $("last-line");
  lastLine.replaceChildren();
  if (last) {
    lastLine.append(h("span", { class: "last-label" }, "Last:"), ` ${last.text}`);
  }
  if (lastAlerts.length) {
    lastLine.append(h("span", { class: `last-alert ${lastAlerts[0].severity}` },
      `${lastAlerts.length} alert${lastAlerts.length > 1 ? "s" : ""}`));
  }
}

function renderAlerts(state) {
  const list = $("alerts");
  const alerts = [...state.alerts].reverse();
  $("alerts-count").textContent = alerts.length;
  $("alerts-count").classList.toggle("has", alerts.length > 0);
  $("alerts-empty").hidden = alerts.length > 0 || !state.players?.p1;
  const key = alerts.map((a) => `${a.event}${a.code}`).join(",");
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(...alerts.slice(0, 30).map((alert) => h("li",
    { class: `alert alert-${alert.severity}`, testid: "alert-item", "data-code": alert.code },
    h("span", { class: "alert-kind" }, alertLabel(alert)),
    h("span", { class: "alert-message" }, prettify(state, alert.message)),
    h("span", { class: "alert-event" }, `event ${alert.event}`))));
}

// The last events, newest first; with the token, each the camera read can be tapped to fix.
function renderRecent(state) {
  const list = $("recent");
  const where = state.recent_events || [];
  const lines = recentLines(state).map((line, k) => ({ ...line, ...where[k] })).reverse();
  const faceDown = PLAYERS.map((p) => state.players?.[p]?.secrets || 0);
  const key = JSON.stringify([lines, state.events, canWrite(), faceDown]);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(...lines.map((line) => {
    const fixable = line.camera && canWrite();
    // "hold to peek" while that player has a secret face down now, not once it is revealed
    const set = canWrite() && /^(p[12]) sets a secret$/.exec(line.raw || "");
    const secret = set && state.players?.[set[1]]?.secrets > 0 ? set : null;
    const el = h("li", fixable ? { class: "fixable", testid: `recent-${line.index}`,
      role: "button", tabindex: "0", onclick: () => openFix(line.index) } : {},
    line.turn !== null ? h("span", { class: "recent-turn" }, `T${line.turn}`) : null,
    h("span", { class: "recent-text" }, line.text),
    secret ? h("small", { class: "peek-hint" }, "hold to peek") : null,
    fixable ? h("span", { class: "fix-chip" }, "Fix") : null);
    if (secret) onLongPress(el, () => peekSecrets(secret[1]));
    return el;
  }));
}

// A press held 600 ms (a tap is not enough: the phone may be in the other player's hands).
function onLongPress(el, action) {
  let timer = null;
  const stop = () => clearTimeout(timer);
  el.addEventListener("pointerdown", () => { stop(); timer = setTimeout(action, 600); });
  for (const type of ["pointerup", "pointerleave", "pointercancel"]) {
    el.addEventListener(type, stop);
  }
  el.addEventListener("contextmenu", (event) => event.preventDefault());
}

// The secrets a player set, face up, after a warning: the phone lies between the players.
async function peekSecrets(player) {
  const name = playerName(app.state, player);
  const ok = await confirmBox(`Only ${name} should look`,
    `Show ${name}'s secrets? Hand the phone to ${name} first.`, "Show", "Cancel");
  if (!ok) return;
  let peek;
  try {
    peek = await api("GET", `/api/secrets/${player}`);
  } catch (error) {
    toast(error.message, "error");
    return;
  }
  openSheet([
    sheetHead(`${name}'s secrets`, "peek"),
    h("div", { class: "secret-list", testid: "peek-list" }, peek.secrets.length
      ? peek.secrets.map((s) => h("div", { class: "peek-card" }, cardLabel(s.card), ` ${s.name}`))
      : h("i", {}, "none set now")),
  ], "peek-sheet");
}

// The newest question in full; the older ones folded under it, so that the questions
// never push the table off the screen (play goes on while they wait).
function renderQuestions(state) {
  const box = $("questions");
  const pending = [...(state.pending || [])].reverse();  // the newest first
  box.hidden = pending.length === 0;
  const key = JSON.stringify(pending) + canWrite();
  if (box.dataset.key === key) return;
  const open = box.querySelector("details")?.open || false;
  box.dataset.key = key;
  const [newest, ...older] = pending.map((question) => renderQuestion(state, question));
  box.replaceChildren(...(newest ? [newest] : []), ...(older.length ? [h("details",
    { class: "earlier", testid: "earlier-questions", open },
    h("summary", {}, `${older.length} earlier question${older.length > 1 ? "s" : ""}`),
    ...older)] : []));
}

function renderQuestion(state, question) {
  return h("div", { class: "question", testid: `question-${question.id}` },
    h("div", { class: "question-prompt" }, h("b", {}, "The camera asks: "), question.prompt),
    h("div", { class: "question-options" }, question.options.map((option, index) => h("button", {
      class: `btn ${index === question.default ? "btn-primary" : ""}`,
      testid: `answer-${question.id}-${index}`,
      disabled: !canWrite(),
      onclick: () => write(`/api/questions/${question.id}`, { option: index }).catch(() => {}),
    }, prettify(state, option.label),
    index === question.default ? h("small", {}, " likely") : null))),
    lookAt(state, question.options, `where-${question.id}`));
}

// Where the cards the options name lie now, so that the players know where to look.
function lookAt(state, options, testid) {
  const where = whereToLook(state, options);
  return where.length ? h("div", { class: "question-where", testid },
    `Look at: ${where.join(" · ")}`) : null;
}

// --- fixing what the camera read -------------------------------------------------------------
//
// Any event the camera read may be put right: one of the other ways its view could have come
// about, "nothing happened", or (for a play) the card named by hand. The fix goes to the
// camera's tracker, which rewrites the log from there; the state follows over the socket.

async function openFix(index) {
  let offer;
  try {
    offer = await api("GET", `/api/events/${index}/fixes`);
  } catch (error) {
    toast(error.message, "error", "Cannot fix");
    return;
  }
  const state = app.state;
  if (lineAt(state, index) === undefined) return; // gone while the server answered
  const nothing = offer.options.findIndex((o) => o.events.length === 0);
  const option = (o, k) => h("button", {
    class: `btn big fix-option ${o.chosen ? "current" : ""} ${k === nothing ? "nothing" : ""}`,
    testid: `fix-option-${k}`,
    onclick: () => (o.chosen ? closeSheet() : sendFix(index, { option: k })),
  }, h("span", {}, ...optionWords(prettify(state, o.label)),
    o.chosen ? h("small", { class: "now" }, "in the score now") : null));
  openSheet([
    sheetHead("What really happened?", "fix"),
    h("p", { class: "sheet-text" }, "The camera read: ",
      h("b", { testid: "fix-now" }, prettify(state, offer.now))),
    lookAt(state, offer.options.filter((o) => o.chosen), "fix-where"),
    h("div", { class: "fix-options", testid: "fix-options" },
      offer.options.map((o, k) => (k === nothing ? null : option(o, k)))),
    offer.name_card ? h("button", { class: "btn big fix-name", testid: "fix-name-card",
      onclick: () => nameCard(index, offer) },
    h("span", {}, h("b", {}, "Name the card"), h("small", {}, "the camera misread it"))) : null,
    h("button", { class: "btn big fix-missed", testid: "fix-missed",
      onclick: () => recordMissed(index, prettify(state, offer.now), offer.turn_of) },
    h("span", {}, h("b", {}, "It missed something after this"),
      h("small", {}, "record it with the buttons below"))),
    nothing >= 0 ? option(offer.options[nothing], nothing) : null,
  ], "fix-sheet");
  app.fixing = { index, line: lineAt(state, index) };
}

// The history's line for event `index`; null once it has left the history, undefined when
// the log no longer has it.
function lineAt(state, index) {
  if (index >= state.events) return undefined;
  const at = (state.recent_events || []).findIndex((e) => e.index === index);
  return at < 0 ? null : state.recent[at];
}

// An option's words: what happened in bold, the rules it breaks on a quieter line below.
function optionWords(label) {
  const mark = " (against the rules: ";
  const said = [];
  const broken = [];
  for (const part of label.split("; ")) { // each event: "WHAT (against the rules: WHY)"
    const at = part.indexOf(mark);
    said.push(at < 0 ? part : part.slice(0, at));
    if (at >= 0) broken.push(part.slice(at + mark.length).replace(/\)$/, ""));
  }
  return [h("b", {}, said.join("; ")),
    broken.length ? h("small", { class: "why" }, `against the rules: ${broken.join("; ")}`)
      : null];
}

// The picker, for the card the camera misread: the rank, then the suit.
function nameCard(index, offer) {
  const read = offer.options.find((o) => o.chosen)?.events.find((e) => e.type === "play");
  picker.player = read?.player || app.state.active;
  picker.rank = null;
  picker.purpose = "name";
  picker.fix = { index, read: read?.card };
  drawPicker();
}

// The next play, attack, hero power or secret recorded goes right after event `index`.
function recordMissed(index, text, player) {
  closeSheet();
  app.missedAfter = { index, text, player };
  renderActions();
}

async function sendFix(index, body) {
  closeSheet();
  try {
    await write(`/api/events/${index}/fix`, body);
    toast("Sent to the camera: the score follows in a moment.", "info");
  } catch { /* toasted */ }
}

// --- the action bar --------------------------------------------------------------------------

function hasMulligans() {
  return Boolean(app.moves?.moves.some((m) => m.type === "mulligan"));
}

function legalMoves(type) {
  return app.moves?.moves.filter((m) => m.type === type) || [];
}

function renderActions() {
  const bar = $("actions");
  const state = app.state;
  const inGame = Boolean(state?.players?.p1);
  bar.hidden = !canWrite() || !inGame;
  document.body.classList.toggle("has-actions", !bar.hidden);
  if (bar.hidden) return;
  const key = JSON.stringify([state.game, state.version, app.moves?.moves?.length,
    app.movesFor, app.any, app.heroes.length, app.busy, app.mode?.key, app.mode?.picked, state.over,
    app.missedAfter?.index]);
  if (bar.dataset.key === key) return;
  bar.dataset.key = key;

  if (app.mode) {
    bar.replaceChildren(modeBar());
    return;
  }
  if (state.over) {
    // the blow that ended the game set a secret off ("Ice Barrier!"): it may still stop it
    const late = legalMoves("secret_revealed").length ? bigButton(h("span", {},
      h("b", {}, "Secret"), h("small", {}, "revealed")), "btn-secret", "btn-secret",
    startSecret) : null;
    bar.replaceChildren(h("div", { class: "action-row" },
      bigButton("New game", "btn-new-game", "btn-primary wide", openNewGame), late,
      bigButton("Undo", "btn-undo", "", askUndo)));
    return;
  }
  if (state.phase === "mulligan" && (hasMulligans() || !app.moves)) {
    bar.replaceChildren(mulliganBar());
    return;
  }
  const active = actor();
  const side = state.players[active];
  const power = legalMoves("hero_power");
  const attacks = legalMoves("attack");
  const secrets = legalMoves("secret_revealed");
  // whenever the waiting player has a secret set, whatever the rules allow now (Vaporize,
  // with no enemy minion to answer, allows no reveal: it is still lying there)
  const waiting = PLAYERS.find((p) => p !== active);
  const secretSet = secrets.length > 0 || state.players[waiting].secrets > 0;
  const heroInfo = app.heroes.find((x) => x.key === side.hero);
  const powerName = heroInfo?.power || "Hero power";
  const rows = [
    keypad(),
    h("div", { class: "action-row" },
      bigButton(h("span", {}, h("b", {}, "Play a card"),
        h("small", {}, `${playerName(state, active)} · ${side.mana} mana`)),
      "btn-play", "btn-primary wide", openPicker),
      bigButton(h("span", {}, h("b", {}, powerName), h("small", {},
        side.hero_power_used ? "used" : "2 mana")), "btn-power",
      power.length ? "btn-power" : "", startPower, !power.length && !anyMove())),
    h("div", { class: "action-row" },
      bigButton(h("span", {}, h("b", {}, "Attack"), h("small", {},
        attacks.length ? `${new Set(attacks.map((a) => a.attacker)).size} can attack`
          : "none ready")), "btn-attack", attacks.length ? "btn-attack" : "",
      startAttack, !attacks.length && !anyMove()),
      secretSet || anyMove() ? bigButton(h("span", {}, h("b", {}, "Secret"),
        h("small", {}, "revealed")), "btn-secret", secretSet ? "btn-secret" : "",
      startSecret) : null,
      endTurnButton(state, attacks),
      bigButton(h("span", { class: "undo-label" }, "↶", h("small", {}, "Undo")), "btn-undo",
        "btn-undo", askUndo)),
  ];
  if (app.missedAfter) rows.unshift(missedBanner());
  bar.replaceChildren(...rows);
}

// A card's rank a tap away: the picker opens at its suits (a rank of one spell in every
// suit plays at once). Ranks with no legal card now are dimmed, still tappable.
function keypad() {
  const legal = legalCards(actor());
  return h("div", { class: "keypad", testid: "keypad" }, ["A", ...RANKS.slice(0, -1), "Coin"]
    .map((rank) => h("button", {
      class: `btn key ${app.moves && !rankLegal(legal, rank) ? "not-legal" : ""}`,
      testid: `key-${rank}`, disabled: app.busy,
      onclick: () => { openPicker(); pickRank(rank); },
    }, rank === "Coin" ? h("span", { class: "coin" }, "Coin") : rank)));
}

// The cards `player` may play now by the rules, as the server's moves say (none known when
// the moves are another player's).
function legalCards(player) {
  return new Set(app.moves?.player === player ? app.moves.cards : []);
}

function rankLegal(legal, rank) {
  return rank === "Coin" ? legal.has("JK") : SUITS.some((suit) => legal.has(rank + suit));
}

// End turn, saying what the turn leaves unused (mana, minions ready to attack), amber then:
// a turn ended with a Fireball's mana in hand is usually a slip.
function endTurnButton(state, attacks) {
  const left = [];
  const mana = state.players[state.active].mana;
  if (mana > 0) left.push(`${mana} mana left`);
  const ready = new Set(attacks.map((a) => a.attacker)).size;
  if (ready) left.push(`${ready} can attack`);
  return bigButton(h("span", {}, h("b", {}, "End turn"),
    left.length ? h("small", { testid: "end-turn-left" }, left.join(" · ")) : null),
  "btn-end-turn", `btn-end ${left.length ? "something-left" : ""}`, endTurn);
}

// While what the camera missed is recorded: after what, and a way out.
function missedBanner() {
  return h("div", { class: "missed-banner", testid: "missed-banner" },
    h("span", {}, h("b", {}, "What did the camera miss?"),
      h("small", {}, `It goes right after “${app.missedAfter.text}”.`)),
    h("button", { class: "btn", testid: "missed-cancel", onclick: () => {
      app.missedAfter = null;
      renderActions();
    } }, "Cancel"));
}

// Every move offered, legal now or not: "any action" is on, or what the camera missed earlier
// is being recorded (the moves legal now say little of then).
function anyMove() {
  return app.any || recordingMissed();
}

// What the camera missed earlier is being recorded: as it happened, the rules of now aside.
function recordingMissed() {
  return Boolean(app.missedAfter);
}

// Whose move is being recorded: the player to play, or whose turn it was when the camera
// missed something.
function actor() {
  return app.missedAfter?.player || app.state.active;
}

function bigButton(content, testid, cls, onclick, disabled = false) {
  return h("button", { class: `btn big ${cls} ${app.busy && !disabled ? "waiting" : ""}`,
    testid, onclick, disabled: disabled || app.busy }, content);
}

function mulliganBar() {
  const state = app.state;
  const rows = [h("div", { class: "mulligan-title" },
    "Mulligan: how many cards does each player set aside?")];
  for (const player of PLAYERS) {
    const counts = legalMoves("mulligan").filter((m) => m.player === player)
      .map((m) => m.count);
    const done = app.moves && counts.length === 0;
    rows.push(h("div", { class: "mulligan-row", testid: `mulligan-${player}` },
      h("span", { class: "mulligan-who" }, playerName(state, player),
        h("small", {}, done ? "done" : player === "p2"
          ? `${state.players[player].hand - 1} cards + Coin`
          : `${state.players[player].hand} cards`)),
      done ? h("span", { class: "mulligan-done" }, "✓")
        : h("span", { class: "mulligan-buttons" }, counts.map((count) => h("button", {
          class: `btn ${count === 0 ? "btn-primary" : ""}`,
          testid: `mull-${player}-${count}`,
          disabled: app.busy,
          onclick: () => send({ type: "mulligan", player, count }),
        }, count === 0 ? "Keep" : String(count))))));
  }
  rows.push(h("div", { class: "action-row small-row" },
    bigButton("Undo", "btn-undo", "btn-undo", askUndo)));
  return h("div", { class: "mulligan" }, rows);
}

// --- picking targets on the board ------------------------------------------------------------
//
// app.mode = { key, title, hint, picked: [], need, distinct, split, legal(picked) -> Set,
//              reason(id, picked) -> text, allowNone, finish(picked) }

function pickTargets(mode) {
  closeSheet();
  app.mode = { picked: [], need: 1, key: String(Math.random()), ...mode };
  document.body.classList.add("picking");
  render();
}

function cancelMode(message) {
  if (!app.mode) return;
  app.mode = null;
  document.body.classList.remove("picking");
  if (message) toast(message, "info");
  render();
}

function modeBar() {
  const mode = app.mode;
  const left = mode.need - mode.picked.length;
  const dots = mode.need > 1 ? h("span", { class: "dots" }, Array.from({ length: mode.need },
    (_, i) => h("i", { class: i < mode.picked.length ? "on" : "" }))) : null;
  return h("div", { class: "mode" },
    h("div", { class: "mode-title", testid: "mode-title" }, mode.title, dots),
    mode.detail ? h("div", { class: "mode-detail" }, mode.detail) : null,
    h("div", { class: "mode-hint", testid: "mode-hint" },
      mode.hint || (left > 1 ? `Tap ${left} more targets` : "Tap the target on the board"),
      h("span", { class: "legend" }, h("i", { class: "ok" }), " allowed ",
        h("i", { class: "no" }), " against the rules")),
    h("div", { class: "action-row" },
      bigButton("Cancel", "mode-cancel", "", () => cancelMode()),
      mode.allowNone ? bigButton(mode.noneLabel || "No target", "mode-none", "",
        () => finishMode([])) : null,
      mode.picked.length ? bigButton("Back", "mode-back", "", () => {
        mode.picked.pop();
        mode.key += "'";
        render();
      }) : null));
}

function renderTargets() {
  const mode = app.mode;
  const board = $("board");
  board.classList.toggle("picking", Boolean(mode));
  const legal = mode ? mode.legal(mode.picked) : new Set();
  for (const el of board.querySelectorAll("[data-target]")) {
    const id = el.dataset.target;
    const times = mode ? mode.picked.filter((p) => p === id).length : 0;
    const candidate = mode && (!mode.only || mode.only.has(id));
    el.classList.toggle("target-ok", Boolean(candidate && legal.has(id)));
    el.classList.toggle("target-no", Boolean(candidate && !legal.has(id)));
    el.classList.toggle("target-off", Boolean(mode && !candidate));
    el.classList.toggle("picked", times > 0);
    if (times > 1 || (mode?.split && times)) el.dataset.times = `×${times}`;
    else delete el.dataset.times;
  }
}

async function boardTap(event) {
  const el = event.target.closest("[data-target]");
  if (!el || !canWrite()) return;
  const id = el.dataset.target;
  const mode = app.mode;
  if (!mode) {
    idleTap(id);
    return;
  }
  if (mode.only && !mode.only.has(id)) return;
  if (mode.distinct && mode.picked.includes(id)) return;
  const legal = mode.legal(mode.picked);
  if (!legal.has(id) && !mode.noConfirm) {
    const ok = await confirmBox("Against the rules",
      `${mode.reason ? mode.reason(id, mode.picked) : ""} Record it anyway? It will be `
      + "kept with an alert.");
    if (!ok || app.mode !== mode) return;
  }
  mode.picked.push(id);
  mode.key += ".";
  if (mode.picked.length >= mode.need) finishMode(mode.picked);
  else render();
}

function finishMode(picked) {
  const mode = app.mode;
  app.mode = null;
  document.body.classList.remove("picking");
  render();
  mode.finish(picked);
}

// A tap on a character with nothing under way: an attack from it, if it may attack; else
// why not (pointing to Attack only when someone may attack).
async function idleTap(id) {
  const state = app.state;
  if (!state || state.over || state.phase === "setup") return;
  const attackers = new Set(legalMoves("attack").map((m) => m.attacker));
  if (attackers.has(id) || anyMove()) {
    chooseAttackTarget(id);
    return;
  }
  const others = attackers.size ? " Tap “Attack” to see who can." : "";
  let why = whyNoAttack(state, id);
  if (!why) { // the server's rule: what every attack of it would break
    try {
      const info = await api("GET", `/api/moves?${new URLSearchParams({ attacker: id })}`);
      const said = info.options.flatMap((o) => o.alerts)[0];
      why = said ? `${prettify(state, said)}.` : null;
    } catch { /* said without the rule */ }
    if (app.state !== state) return; // the table changed meanwhile
  }
  toast(`${why || `${characterName(state, id)} may not attack now.`}${others}`, "info");
}

// Why a character may not attack now, in the players' words ("4♣ is asleep: it was played
// this turn"), from the state; the server's rule where the state says nothing of it.
function whyNoAttack(state, id) {
  const name = characterName(state, id);
  const owner = PLAYERS.find((p) => ownCharacters(state, p).includes(id));
  if (owner && owner !== state.active) {
    return `${name} is ${playerName(state, owner)}'s: it is ${playerName(state, state.active)}'s `
      + "turn.";
  }
  const side = state.players[owner] || {};
  const minion = side.minions?.find((m) => m.id === id);
  const it = minion || side;
  if (it.frozen) return `${name} is frozen: it may not attack this turn.`;
  if (minion?.exhausted) return `${name} is asleep: it was played this turn.`;
  if (minion?.attacked) return `${name} has attacked this turn.`;
  if (!minion && !(side.attack > 0)) return `${name} has no attack: no weapon, no Attack this turn.`;
  if (minion && minion.attack <= 0) return `${name} has no attack.`;
  return null;
}

// --- playing a card --------------------------------------------------------------------------

const picker = { player: null, rank: null, infos: {}, purpose: "play", fix: null, loading: false };
const COSTS = { J: 1, Q: 2, K: 3, A: 4, Coin: 0, 6: 1, 7: 2, 8: 3, 9: 4, 10: 5 };

function rankCost(rank) {
  return COSTS[rank] ?? Number(rank);
}

function openPicker() {
  if (!app.state) return;
  picker.player = actor();
  picker.rank = null;
  picker.purpose = "play";
  drawPicker();
}

function drawPicker() {
  const state = app.state;
  const purpose = picker.purpose;
  const known = purpose === "play" && picker.player === app.moves?.player;
  const playable = known ? legalCards(picker.player) : new Set();
  const naming = purpose === "name"; // the card the camera misread: its play stays as it was
  const who = h("div", { class: "picker-who" },
    purpose === "secret" ? "Secret revealed by" : "Played by",
    PLAYERS.map((player) => h("button", {
      class: `btn seg ${picker.player === player ? "on" : ""}`,
      testid: `picker-player-${player}`,
      disabled: player !== picker.player && (naming || (!anyMove() && purpose === "play")),
      onclick: () => { picker.player = player; picker.rank = null; drawPicker(); },
    }, playerName(state, player))));
  const ranks = h("div", { class: "ranks", testid: "ranks" },
    [...RANKS, ...(purpose !== "secret" ? ["Coin"] : [])].map((rank) => h("button", {
      class: `btn rank ${picker.rank === rank ? "on" : ""} ${
        known && !rankLegal(playable, rank) ? "not-legal" : ""}`,
      testid: `rank-${rank}`,
      onclick: () => pickRank(rank),
    }, rank === "Coin" ? h("span", { class: "coin" }, "Coin") : rank,
    h("small", { class: "rank-cost" }, String(rankCost(rank))))));
  const title = { secret: "Which secret was revealed?", name: "Which card was it?" };
  const body = [sheetHead(title[purpose] || "Which card?", "picker"), who, ranks];
  if (naming) {
    body.splice(1, 0, h("p", { class: "sheet-text" }, "The camera read ",
      h("b", {}, cardText(picker.fix.read)), ". Tap the card that was really played: the "
      + "camera takes it for that card from now on."));
  }
  if (picker.rank && picker.rank !== "Coin") {
    body.push(h("div", { class: "suits", testid: "suits", "data-loading": picker.loading },
      SUITS.map((suit) => {
        const card = picker.rank + suit;
        const info = picker.infos[`${picker.player}:${card}`];
        const legal = info ? info.options.some((o) => o.legal) : null;
        const misread = naming && card === picker.fix.read;
        return h("button", {
          class: `btn suit-btn ${(known && !playable.has(card)) || misread ? "not-legal" : ""}`,
          testid: `suit-${suit}`, disabled: picker.loading,
          onclick: () => pickCard(card),
        }, h("span", { class: `suit-big suit-${suit}` }, SUIT[suit]),
        h("span", { class: "suit-info" },
          h("b", {}, info ? info.name || cardText(card) : "…"),
          h("small", {}, info ? `${info.cost} mana · ${info.kind}` : ""),
          misread ? h("small", { class: "place" }, "what the camera read")
            : naming ? null // where a card lies now says nothing of where it lay then
              : info?.place ? h("small", { class: "place" }, placeWords(info.place))
                : info && purpose === "play" && !legal
                  ? h("small", { class: "why" }, shortWhy(info)) : null));
      })));
  }
  if (purpose === "play") {
    body.push(h("p", { class: "picker-note" },
      "Greyed cards break a rule now; they can still be recorded."));
  }
  openSheet(body, "picker-sheet");
}

// Why a card may not be played now, in a few words.
function shortWhy(info) {
  const text = info.options.flatMap((o) => o.alerts)[0] || "";
  const mana = /\((\d+) mana\) with (\d+) mana/.exec(text);
  if (mana) return `needs ${mana[1]} mana, ${mana[2]} left`;
  return text ? prettify(app.state, text) : "against the rules now";
}

function placeWords(place) {
  if (place.startsWith("play:")) return `on the table (${place.slice(5)})`;
  if (place.startsWith("hand:")) return `in ${place.slice(5)}'s hand`;
  if (place === "discard") return "in the discard pile";
  if (place === "deck") return "in the deck";
  if (place.startsWith("secret:")) return `a secret of ${place.slice(7)}`;
  return place;
}

// What a card would do and cost is true of one position only: each change of the state (mana
// spent, a minion laid, a new game) asks again, and an open picker is redrawn with the answers.
function forgetCardInfo() {
  picker.infos = {};
  if (pickerOpen() && picker.rank && picker.rank !== "Coin") {
    pickRank(picker.rank, { refresh: true });
  }
}

async function pickRank(rank, { refresh = false } = {}) {
  if (rank === "Coin") {
    pickCard("JK");
    return;
  }
  picker.rank = rank;
  const player = picker.player;
  // the suits wait, untappable, for what each card is: the rank may need no suit at all
  picker.loading = SUITS.some((suit) => !picker.infos[`${player}:${rank}${suit}`]);
  drawPicker();
  await Promise.all(SUITS.map(async (suit) => {
    const key = `${player}:${rank}${suit}`;
    if (picker.infos[key]) return;
    try {
      picker.infos[key] = await cardMoves(rank + suit, player);
    } catch { /* drawn without details */ }
  }));
  if (picker.rank !== rank || picker.player !== player || !pickerOpen()) return;
  picker.loading = false;
  const same = !refresh && picker.purpose === "play" && sameInEverySuit(player, rank);
  if (same) pickCard(same);
  else drawPicker();
}

function pickerOpen() {
  return !$("sheet-layer").hidden && $("sheet").classList.contains("picker-sheet");
}

// A rank whose four suits are one card (a spell: Fireball is Fireball in any suit) needs no
// suit: it is recorded by its rank alone ("Q"), one of that rank's cards that nobody named,
// never a guessed suit that would later stand in the way of the real one. With a camera the
// suit is asked: the camera reads the card itself, by its suit.
function sameInEverySuit(player, rank) {
  if (app.state?.camera) return null;
  const infos = SUITS.map((suit) => picker.infos[`${player}:${rank}${suit}`]);
  if (infos.some((i) => !i) || new Set(infos.map((i) => JSON.stringify(
    [i.name, i.kind, i.text, i.cost]))).size > 1) return null;
  return rank;
}

async function pickCard(card) {
  if (picker.purpose === "name") {
    sendFix(picker.fix.index, { card });
    return;
  }
  const player = picker.player;
  const key = `${player}:${card}`;
  let info = picker.infos[key];
  if (!info) {
    try {
      info = await cardMoves(card, player);
      picker.infos[key] = info;
    } catch (error) {
      toast(error.message, "error");
      return;
    }
  }
  if (picker.purpose === "secret") {
    revealSecret(player, card, info);
    return;
  }
  const legal = recordingMissed() || info.options.some((o) => o.legal);
  if (!legal) {
    const why = [...new Set(info.options.flatMap((o) => o.alerts))].slice(0, 2)
      .map((text) => `${prettify(app.state, text)}.`).join(" ");
    const ok = await confirmBox(`${cardText(card)} ${info.name || ""} is against the rules now`,
      `${why} Record it anyway? It will be kept with an alert.`);
    if (!ok) return;
  }
  closeSheet();
  resolveOptions(info.options, {
    title: `${cardText(card)} ${info.name || ""}`.trim(),
    text: info.text,
    confirmed: !legal || recordingMissed(),
  });
}

// From every way to play a card (or use a power): the choice, then the targets, then send.
async function resolveOptions(options, { title, text, confirmed = false }) {
  let pool = options;
  const choices = [...new Set(pool.map((o) => o.event.choice).filter(Boolean))];
  if (choices.length > 1) {
    const choice = await chooseOne(title, text, pool);
    if (!choice) return;
    pool = pool.filter((o) => o.event.choice === choice);
  }
  const targetsOf = (o) => o.event.target === undefined || o.event.target === null ? []
    : Array.isArray(o.event.target) ? o.event.target : [o.event.target];
  const base = { ...pool.find((o) => o.legal)?.event || pool[0].event };
  delete base.target;
  const targeted = pool.filter((o) => targetsOf(o).length);
  if (!targeted.length) {
    send(base);
    return;
  }
  const lists = targeted.map(targetsOf);
  const split = lists.some((l) => l.length > 1 && new Set(l).size < l.length)
    || (lists.every((l) => l.length > 1) && lists.some((l) => new Set(l).size === 1));
  const need = lists[0].length;
  const legalLists = targeted.filter((o) => o.legal || confirmed).map(targetsOf);
  const legal = (picked) => {
    const found = new Set();
    for (const list of legalLists) {
      if (split) list.forEach((t) => found.add(t));
      else if (picked.every((p) => list.includes(p))) {
        list.filter((t) => !picked.includes(t)).forEach((t) => found.add(t));
      }
    }
    return found;
  };
  const reason = (id, picked) => {
    const match = targeted.find((o) => {
      const list = targetsOf(o);
      return [...picked, id].every((t) => list.includes(t));
    });
    const why = match?.alerts?.[0];
    return why ? `${prettify(app.state, why)}.`
      : `${characterName(app.state, id)} is not a target the rules allow here.`;
  };
  const allowNone = pool.some((o) => !targetsOf(o).length);
  pickTargets({
    title,
    detail: text,
    hint: split ? `Tap a target for each of the ${need} points of damage`
      : need > 1 ? `Tap ${need} different targets` : null,
    need,
    split,
    distinct: !split,
    legal,
    reason,
    allowNone,
    noneLabel: "No target",
    noConfirm: confirmed,
    finish: (picked) => {
      const event = { ...base };
      if (picked.length) event.target = need > 1 || split ? picked : picked[0];
      send(event);
    },
  });
}

function chooseOne(title, text, pool) {
  const parts = (text || "").replace(/^Choose One:\s*/i, "").split(/;\s*or\s+/i);
  return new Promise((resolve) => {
    const pick = (choice) => { closeSheet(); resolve(choice); };
    openSheet([
      sheetHead(`${title}: choose one`, "choose", () => resolve(null)),
      h("div", { class: "choices" }, [1, 2].map((choice) => {
        const legal = pool.some((o) => o.event.choice === choice && o.legal);
        return h("button", {
          class: `btn big choice ${legal ? "" : "not-legal"}`,
          testid: `choice-${choice}`,
          onclick: () => pick(choice),
        }, h("b", {}, String(choice)), h("span", {}, parts[choice - 1] || `option ${choice}`));
      })),
    ], "choose-sheet", () => resolve(null));
  });
}

// --- hero power, attacks, secrets, turns -----------------------------------------------------

async function startPower() {
  const state = app.state;
  const player = actor();
  const heroInfo = app.heroes.find((x) => x.key === state.players[player].hero);
  const title = heroInfo?.power || "Hero power";
  let info;
  try {
    info = await api("GET", `/api/moves?${new URLSearchParams({ power: "true", player })}`);
  } catch (error) {
    toast(error.message, "error");
    return;
  }
  const legal = recordingMissed() || info.options.some((o) => o.legal);
  if (!legal) {
    const why = [...new Set(info.options.flatMap((o) => o.alerts))].slice(0, 2)
      .map((text) => `${prettify(state, text)}.`).join(" ");
    const ok = await confirmBox(`${title} is against the rules now`,
      `${why} Record it anyway? It will be kept with an alert.`);
    if (!ok) return;
  }
  // once confirmed (or for what the camera missed earlier), every target may be picked
  const anyTarget = !legal || recordingMissed();
  const options = anyTarget ? info.options.map((o) => ({ ...o, legal: true })) : info.options;
  resolvePower(options, title, heroInfo, anyTarget);
}

function resolvePower(options, title, heroInfo, confirmed = false) {
  const targeted = options.some((o) => o.event.target);
  const send0 = async (event) => {
    try {
      await write(...eventRequest(event), { quiet: true });
    } catch (error) {
      if (/revealed/i.test(error.message)) openReveal(event, title);
      else toast(error.message, "error", "Not recorded");
    }
  };
  if (!targeted) {
    send0(options.find((o) => o.legal)?.event || options[0].event);
    return;
  }
  const legalTargets = new Set(options.filter((o) => o.legal).map((o) => o.event.target));
  pickTargets({
    title,
    detail: heroInfo?.power_text,
    legal: () => legalTargets,
    reason: (id) => targetRule(title, id, options.find((o) => o.event.target === id)),
    allowNone: options.some((o) => !o.event.target),
    noConfirm: confirmed,
    finish: (picked) => {
      const event = { ...options[0].event };
      delete event.target;
      if (picked.length) event.target = picked[0];
      send0(event);
    },
  });
}

// The rule a target breaks, in the server's words put the players' way round: "4♣ is in
// Stealth: Fireblast may not target it" (the server says "Fireblast: 4C is in Stealth").
function targetRule(title, id, option) {
  const state = app.state;
  const why = option?.alerts?.[0];
  if (!why) return `${title} may not target ${characterName(state, id)} now.`;
  const said = prettify(state, why);
  const rule = said.startsWith(`${title}: `) ? said.slice(title.length + 2) : said;
  return `${rule}: ${title} may not target it.`;
}

// Totemic Call with a deck the engine cannot see: which cards were turned over?
function openReveal(event, title) {
  const turned = [];
  const draw = () => {
    openSheet([
      sheetHead(`${title}: the cards turned over`, "reveal"),
      h("p", { class: "sheet-text" },
        "Tap each card turned over from the top of the deck, in order (the last is the totem)."),
      h("div", { class: "reveal-list", testid: "reveal-list" },
        turned.length ? turned.map((c) => cardLabel(c)) : h("i", {}, "none yet")),
      h("div", { class: "reveal-grid" }, RANKS.flatMap((rank) => SUITS.map((suit) => h("button", {
        class: `btn mini ${turned.includes(rank + suit) ? "on" : ""}`,
        testid: `reveal-${rank}${suit}`,
        onclick: () => {
          const card = rank + suit;
          const at = turned.indexOf(card);
          if (at >= 0) turned.splice(at, 1);
          else turned.push(card);
          draw();
        },
      }, cardLabel(rank + suit))))),
      h("div", { class: "action-row" },
        bigButton("Record", "reveal-done", "btn-primary wide", () => {
          closeSheet();
          send({ ...event, revealed: turned });
        }, turned.length === 0)),
    ], "reveal-sheet");
  };
  draw();
}

function allCharacters(state) {
  return PLAYERS.flatMap((p) => [p, ...state.players[p].minions.map((m) => m.id)]);
}

function ownCharacters(state, player) {
  return [player, ...state.players[player].minions.map((m) => m.id)];
}

function startAttack() {
  const state = app.state;
  const attacks = legalMoves("attack");
  const attackers = new Set(attacks.map((m) => m.attacker));
  const own = new Set(anyMove() ? allCharacters(state) : ownCharacters(state, actor()));
  pickTargets({
    title: "Attack",
    hint: "Tap the minion or hero that attacks",
    legal: () => attackers,
    only: own,
    reason: (id) => `${characterName(state, id)} may not attack now.`,
    noConfirm: recordingMissed(),
    finish: ([attacker]) => chooseAttackTarget(attacker, true),
  });
}

function chooseAttackTarget(attacker, confirmed = false) {
  const state = app.state;
  const targets = new Set(legalMoves("attack").filter((m) => m.attacker === attacker)
    .map((m) => m.target));
  const owner = PLAYERS.find((p) => ownCharacters(state, p).includes(attacker));
  // the rule each target would break, in the server's words, for the confirm to say why
  const why = {};
  api("GET", `/api/moves?${new URLSearchParams({ attacker })}`).then((info) => {
    for (const o of info.options) why[o.event.target] = o.alerts[0];
  }).catch(() => { /* the confirm says it without the rule */ });
  pickTargets({
    title: `${characterName(state, attacker)} attacks`,
    hint: "Tap what it attacks",
    legal: () => targets,
    only: new Set(allCharacters(state).filter((id) => id !== attacker
      && (anyMove() || !ownCharacters(state, owner).includes(id)))),
    reason: (id) => why[id] ? `${prettify(state, why[id])}.`
      : targets.size ? `${characterName(state, id)} is not a target it may attack.`
        : `${characterName(state, attacker)} may not attack now.`,
    noConfirm: (confirmed && !targets.size) || recordingMissed(),
    finish: ([target]) => send({ type: "attack", attacker, target }),
  });
}

// The Secret button. The secrets the last event set off are being turned face up: listed at
// once, in the order they go off. Any other reveal would show the opponent which cards lie
// face down (Vaporize "at 4♣" when nothing attacked), so the sheet names none until the
// player who set them says to, as the peek does.
async function startSecret() {
  const state = app.state;
  const secrets = legalMoves("secret_revealed");
  const holder = secrets[0]?.player || PLAYERS.find((p) => p !== actor());
  if (!secrets.length && !state.players[holder]?.secrets) { // any action: name it
    picker.player = holder;
    picker.rank = null;
    picker.purpose = "secret";
    drawPicker();
    return;
  }
  if (app.moves?.secrets_due === true && secrets.length) {
    listSecrets("Which secret was revealed?", holder, secrets, []);
    return;
  }
  const name = playerName(state, holder);
  const why = app.moves?.secrets_due === false
    ? "Nothing on the table set a secret off just now, so the phone keeps them face down. " : "";
  openSheet([
    sheetHead(`Which secret did ${name} turn over?`, "secret"),
    h("p", { class: "sheet-text secret-warning", testid: "secret-warning" },
      h("b", {}, `Only ${name} should look. `), `${why}Hand the phone to ${name} first.`),
    h("div", { class: "action-row" }, bigButton(`Show ${name}'s secrets`, "secret-show",
      "btn-secret wide", () => showSecrets(holder, secrets))),
  ], "secret-sheet");
}

// After the warning: the reveals the rules allow, and any secret set that none of them
// names (it is revealed with its target picked on the board).
async function showSecrets(player, secrets) {
  let set = [];
  try {
    set = (await api("GET", `/api/secrets/${player}`)).secrets;
  } catch (error) {
    toast(error.message, "error");
    return;
  }
  const listed = new Set(secrets.map((s) => s.card));
  listSecrets(`${playerName(app.state, player)}'s secrets: which was turned over?`, player,
    secrets, set.filter((s) => !listed.has(s.card)));
}

async function listSecrets(title, player, secrets, others) {
  const names = Object.fromEntries(others.map((s) => [s.card, s.name]));
  await Promise.all([...new Set(secrets.map((s) => `${s.player}:${s.card}`))].map(async (k) => {
    const [who, card] = k.split(":");
    try {
      names[card] = (await cardMoves(card, who)).name;
    } catch { names[card] = ""; }
  }));
  openSheet([
    sheetHead(title, "secret"),
    h("div", { class: "secret-list", testid: "secret-list" }, secrets.map((secret, index) =>
      h("button", {
        class: "btn big", testid: `secret-${index}`,
        onclick: () => { closeSheet(); send(secret); },
      }, cardLabel(secret.card), ` ${names[secret.card] || ""}`,
      secret.target ? h("small", { class: "secret-at" },
        `at ${characterName(app.state, secret.target)}`) : null)),
    others.map((s) => h("button", {
      class: "btn big", testid: `secret-card-${s.card}`,
      onclick: () => revealSecret(player, s.card, s),
    }, cardLabel(s.card), ` ${s.name || ""}`,
    h("small", { class: "secret-at" }, "pick what it answers")))),
  ], "secret-sheet");
}

function revealSecret(player, card, info) {
  closeSheet();
  pickTargets({
    title: `${playerName(app.state, player)} reveals ${cardText(card)} ${info.name || ""}`,
    hint: "Tap the minion it answers, or no target",
    legal: () => new Set(allCharacters(app.state)),
    allowNone: true,
    noConfirm: true,
    finish: (picked) => send({ type: "secret_revealed", player, card,
      ...(picked.length ? { target: picked[0] } : {}) }),
  });
}

function endTurn() {
  send({ type: "end_turn" });
}

async function askUndo() {
  const lines = app.state?.recent || [];
  const last = recentLines(app.state).at(-1);
  const ok = await confirmBox("Undo the last event?", last ? `“${last.text}” will be taken `
    + "back, as if it never happened." : "The last event will be taken back.", "Undo");
  if (!ok) return;
  try {
    await write("/api/undo");
    if (lines.length) toast(`Undone: ${last.text}`, "info");
  } catch { /* toasted */ }
}

async function concede(player) {
  const ok = await confirmBox(`${playerName(app.state, player)} concedes?`,
    "The game ends and the other player wins.", "Concede");
  if (ok) send({ type: "concede", player });
}

// --- a new game ------------------------------------------------------------------------------

function heroChoices() {
  // the hero list names each hero under its file name and its class: show each once
  const seen = new Map();
  for (const hero of app.heroes) {
    const prior = seen.get(hero.name);
    if (!prior || (prior.key === prior.class && hero.key !== hero.class)) seen.set(hero.name, hero);
  }
  return [...seen.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function newGameForm(onDone) {
  const choices = heroChoices();
  let kept = {};
  try { kept = JSON.parse(localStorage.getItem(HEROES_KEY) || "{}"); } catch { kept = {}; }
  const select = (player, fallback) => {
    const el = h("select", { testid: `ng-${player}` }, // in its label: no id (two forms may show)
      choices.map((hero) => h("option", { value: hero.key },
        `${hero.name} — ${hero.class}`)));
    const wanted = choices.find((c) => c.key === kept[player]) || choices[fallback];
    if (wanted) el.value = wanted.key;
    return el;
  };
  const first = select("p1", 0);
  const second = select("p2", Math.min(1, choices.length - 1));
  const power = (el) => {
    const hero = choices.find((c) => c.key === el.value);
    return hero ? `${hero.power}: ${hero.power_text}` : "";
  };
  const note1 = h("small", { class: "power-note" }, power(first));
  const note2 = h("small", { class: "power-note" }, power(second));
  const refresh = () => { note1.textContent = power(first); note2.textContent = power(second); };
  first.addEventListener("change", refresh);
  second.addEventListener("change", refresh);
  const swap = () => { [first.value, second.value] = [second.value, first.value]; refresh(); };
  const start = async () => {
    const heroes = { p1: first.value, p2: second.value };
    localStorage.setItem(HEROES_KEY, JSON.stringify(heroes));
    try {
      await write("/api/new-game", { heroes });
      onDone?.();
      toast("New game: shuffle, deal 4 and 5 cards, then mulligan.", "info");
    } catch { /* toasted */ }
  };
  return h("div", { class: "new-game", testid: "new-game" },
    h("label", { class: "ng-field" }, h("span", {}, "Goes first (p1, 4 cards)"), first, note1),
    h("div", { class: "ng-middle" },
      h("button", { class: "btn", testid: "ng-swap", onclick: swap }, "⇅ Swap"),
      h("button", { class: "btn", testid: "ng-random", onclick: () => {
        if (Math.random() < 0.5) swap();
        toast(`${choices.find((c) => c.key === first.value)?.name} goes first.`, "info");
      } }, "Random first")),
    h("label", { class: "ng-field" }, h("span", {}, "Goes second (p2, 5 cards + the Coin)"),
      second, note2),
    h("button", { class: "btn big btn-primary wide", testid: "ng-start", onclick: start },
      "Start the game"));
}

function renderSetup() {
  const box = $("setup");
  const state = app.state;
  const show = state && !state.players?.p1;
  box.hidden = !show;
  if (!show) {
    box.dataset.key = "";
    return;
  }
  const key = `${canWrite()}:${app.heroes.length}`;
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren(h("h1", {}, canWrite() ? "New game" : "No game yet"),
    h("p", { class: "lead" }, canWrite()
      ? "Pick the two heroes. Shuffle the deck (jokers out); the first player gets 4 cards, "
        + "the second 5 and then the Coin."
      : "The table shows here as soon as a game starts."),
    ...(canWrite() && app.heroes.length ? [newGameForm()] : []));
}

async function openNewGame() {
  const state = app.state;
  if (state?.players?.p1 && !state.over) {
    const ok = await confirmBox("Start a new game?",
      "The game on the table stops here; its log stays in the data folder.", "New game");
    if (!ok) return;
  }
  openSheet([sheetHead("New game", "new-game"), newGameForm(closeSheet)], "ng-sheet");
}

// --- the menu --------------------------------------------------------------------------------

function openMenu() {
  const state = app.state;
  const inGame = Boolean(state?.players?.p1);
  const item = (text, testid, onclick, cls = "") => h("button", {
    class: `menu-item ${cls}`, testid, onclick: () => { closeSheet(); onclick(); },
  }, text);
  const link = (text, testid, href, extra = {}) =>
    h("a", { class: "menu-item", testid, href, ...extra }, text);
  openSheet([
    sheetHead("Menu", "menu"),
    canWrite() ? h("label", { class: "switch-row", testid: "toggle-any-row" },
      h("span", {}, h("b", {}, "Any action"),
        h("small", {}, "Offer moves the rules do not allow, to record what really happened.")),
      h("input", { type: "checkbox", class: "switch", testid: "toggle-any", checked: app.any,
        onchange: (e) => {
          app.any = e.target.checked;
          render();
          toast(app.any ? "Any action: every move is offered; illegal ones get an alert."
            : "Only legal moves are offered.", "info");
        } })) : null,
    awakeSwitch(),
    canWrite() ? item("New game…", "menu-new-game", openNewGame) : null,
    canWrite() && inGame && !state.over ? PLAYERS.map((p) =>
      item(`${playerName(state, p)} concedes…`, `menu-concede-${p}`, () => concede(p),
        "danger")) : null,
    canWrite() && inGame && !state.over && app.any
      ? item("Reveal a secret…", "menu-secret", startSecret) : null,
    // the token goes along: while a secret lies face down the log (which names it) needs it
    inGame ? link("Download the game log (.jsonl)", "menu-download", "/api/log.jsonl"
      + (canWrite() ? `?token=${encodeURIComponent(app.token)}` : ""),
      { download: "" }) : null,
    link("Spectator page", "menu-watch", "/watch", { target: "_blank" }),
    link("Stream overlay (OBS)", "menu-overlay", "/overlay", { target: "_blank" }),
    // always: with no camera yet (or its first picture still being read) the page says
    // how to connect one, rather than the item appearing only in a menu opened later
    link("Camera setup", "menu-setup", "/setup"),
    canWrite() ? item("Forget the token on this phone", "menu-forget", () => {
      localStorage.removeItem(TOKEN_KEY);
      app.token = null;
      render();
    }) : null,
  ], "menu-sheet");
}

// --- sheets, dialogs, toasts -----------------------------------------------------------------

let sheetClosed = null;

function sheetHead(title, testid, onClose) {
  return h("div", { class: "sheet-head" }, h("h2", {}, title),
    h("button", { class: "btn close", testid: `${testid}-close`, "aria-label": "Close",
      onclick: () => { closeSheet(); onClose?.(); } }, "✕"));
}

function openSheet(children, cls, onDismiss) {
  const sheet = $("sheet");
  sheet.className = `sheet ${cls || ""}`;
  sheet.replaceChildren(...children.flat().filter(Boolean));
  $("sheet-layer").hidden = false;
  sheetClosed = onDismiss || null;
}

function closeSheet() {
  app.fixing = null;
  $("sheet-layer").hidden = true;
  $("sheet").replaceChildren();
  sheetClosed = null;
}

let confirmResolve = null;

function confirmBox(title, text, yes = "Record it", no = "Cancel") {
  $("confirm-title").textContent = title;
  $("confirm-text").textContent = text;
  $("confirm-yes").textContent = yes;
  $("confirm-no").textContent = no;
  $("confirm-layer").hidden = false;
  confirmResolve?.(false);
  return new Promise((resolve) => { confirmResolve = resolve; });
}

function answerConfirm(value) {
  $("confirm-layer").hidden = true;
  const resolve = confirmResolve;
  confirmResolve = null;
  resolve?.(value);
}

// One toast at a time, over the top bar: the newest replaces the last, except that an
// alert is not pushed away by mere news before it has been seen for a moment.
let shownToast = null;

function toast(message, kind = "info", title = null, ms = 4500) {
  const box = $("toasts");
  const now = Date.now();
  if (shownToast?.el.isConnected && kind === "info"
      && ["illegal", "warning", "error"].includes(shownToast.kind) && now - shownToast.at < 2500) {
    return;
  }
  const el = h("div", { class: `toast toast-${kind}`, testid: "toast", role: "status",
    title: message, onclick: () => el.remove() },
  title ? h("b", {}, title) : null, h("span", {}, message));
  box.replaceChildren(el);
  placeToasts();
  shownToast = { el, kind, at: now };
  setTimeout(() => {
    el.classList.add("going");
    setTimeout(() => el.remove(), 400);
  }, ms);
}

// Toasts lie over the middle strip while it is in view (between the sides, above the action
// bar): the news of the last event, where the deck and the last event are told, covering
// neither hero's name nor health. Else (the board scrolled away, no game) under the top bar.
function placeToasts() {
  const box = $("toasts");
  const middle = !$("board").hidden && $("middle").getBoundingClientRect();
  const top = document.querySelector(".topbar").getBoundingClientRect().bottom;
  const bottom = $("actions").hidden ? innerHeight : $("actions").getBoundingClientRect().top;
  const over = middle && middle.height && middle.top >= top && middle.bottom <= bottom;
  box.style.top = over ? `${middle.top}px` : "";
  box.style.minHeight = over ? `${middle.height}px` : "";
}

// The action bar's height, for the page to end above it (and to scroll what is focused
// clear of it): --bar-h on the root, followed as the bar changes.
function followBarHeight() {
  const bar = $("actions");
  const set = () => {
    const height = bar.hidden ? 0 : bar.getBoundingClientRect().height;
    document.documentElement.style.setProperty("--bar-h", `${Math.ceil(height)}px`);
    placeToasts();
  };
  if (window.ResizeObserver) new ResizeObserver(set).observe(bar);
  addEventListener("resize", set);
  addEventListener("scroll", placeToasts, { passive: true });
  set();
}

// --- keeping the screen on ------------------------------------------------------------------
//
// While a game is on, the screen stays on (the Screen Wake Lock API): a phone lying on the
// table between two players must not dim and lock mid-game. The browser lets the lock go
// whenever the page is hidden, so it is asked for again when the page is shown. "Keep the
// screen on" in the menu turns it off, remembered on this phone. body data-wake-lock says
// what the browser answered: on, off (not wanted now, or let go), refused, unsupported.

const awake = { lock: null, asking: false, refused: false, asked: 0 };

function awakeWanted() {
  return localStorage.getItem(AWAKE_KEY) !== "off";
}

function setAwake(status) {
  document.body.dataset.wakeLock = status;
}

async function keepAwake() {
  if (!navigator.wakeLock) {
    setAwake("unsupported");
    return;
  }
  const state = app.state;
  const wanted = awakeWanted() && Boolean(state?.players?.p1) && !state.over
    && document.visibilityState === "visible";
  if (!wanted) {
    const lock = awake.lock;
    awake.lock = null;
    lock?.release().catch(() => {});
    if (!awake.asking) setAwake("off");
    return;
  }
  if (awake.lock || awake.asking || awake.refused) return;
  awake.asking = true;
  awake.asked += 1;
  document.body.dataset.wakeLockAsked = String(awake.asked);
  try {
    const lock = await navigator.wakeLock.request("screen");
    awake.lock = lock;
    setAwake("on");
    lock.addEventListener("release", () => {
      if (awake.lock === lock) awake.lock = null;
      if (!awake.lock) setAwake("off");
    });
  } catch {
    awake.refused = true; // asked again when the page is shown again, or the switch moves
    setAwake("refused");
  } finally {
    awake.asking = false;
  }
  keepAwake(); // wanted no longer meanwhile (the game over, the switch off): let go
}

document.addEventListener("visibilitychange", () => {
  awake.refused = false;
  keepAwake();
});

function awakeSwitch() {
  const why = { refused: "The browser refused: the screen may still lock.",
    unsupported: "This browser cannot keep the screen on." }[document.body.dataset.wakeLock];
  return h("label", { class: "switch-row", testid: "toggle-awake-row" },
    h("span", {}, h("b", {}, "Keep the screen on"),
      h("small", {}, why || "While a game is on, so that the phone does not dim and lock.")),
    h("input", { type: "checkbox", class: "switch on-green", testid: "toggle-awake",
      checked: awakeWanted(), onchange: (e) => {
        localStorage.setItem(AWAKE_KEY, e.target.checked ? "on" : "off");
        awake.refused = false;
        keepAwake();
      } }));
}

// --- connection status -----------------------------------------------------------------------

let everOnline = false;
let offlineTimer = null;

function onStatus(status, detail) {
  const banner = $("offline");
  if (status === "online") {
    everOnline = true;
    clearTimeout(offlineTimer);
    offlineTimer = null;
    banner.hidden = true;
    document.body.classList.remove("offline-now");
    return;
  }
  const show = () => {
    banner.hidden = false;
    document.body.classList.add("offline-now");
  };
  $("offline-detail").textContent = detail?.attempt > 1
    ? `attempt ${detail.attempt} · the score is safe on the server`
    : "the score is safe on the server";
  if (everOnline) show();
  else offlineTimer ??= setTimeout(show, 1500); // a first connection gets a moment
}

// --- start -----------------------------------------------------------------------------------

let live = null;

async function start() {
  const offered = readToken();
  $("menu-btn").addEventListener("click", openMenu);
  $("board").addEventListener("click", boardTap);
  $("confirm-yes").addEventListener("click", () => answerConfirm(true));
  $("confirm-no").addEventListener("click", () => answerConfirm(false));
  $("sheet-layer").addEventListener("click", (event) => {
    if (event.target === $("sheet-layer")) {
      const dismissed = sheetClosed;
      closeSheet();
      dismissed?.();
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    if (!$("confirm-layer").hidden) answerConfirm(false);
    else if (!$("sheet-layer").hidden) closeSheet();
    else cancelMode();
  });
  render();
  followBarHeight();
  if (offered) askAboutToken(offered);
  live = connect({ onState: (state, how) => acceptState(state, how), onStatus });
  try {
    app.heroes = await api("GET", "/api/heroes");
  } catch { app.heroes = []; }
  render();
}

start();
window.hearthtop = app; // for a curious person with the browser's console
