// The stream overlay: read-only, driven by the WebSocket; every change animates briefly.

import {
  alertLabel, cardText, connect, deckWarning, h, playerName, prettify, renderSides, resultText,
  showTrouble,
} from "./state.js";

const $ = (id) => document.getElementById(id);
const FADE_ALERT_MS = 12000; // a new alert stands out this long, then stays, quieter
let lastAlertKey; // undefined until the first state: its alerts are old news
let quietTimer = null;

function render(state) {
  const inGame = Boolean(state.players?.p1);
  renderSides({ p1: $("slot-p1"), p2: $("slot-p2") }, state);
  $("topline").hidden = !inGame;
  if (inGame) {
    $("tl-turn").textContent = state.phase === "mulligan" ? "Mulligan" : `Turn ${state.turn}`;
    $("tl-active").textContent = state.over ? resultText(state)
      : state.phase === "mulligan" ? "" : `${playerName(state, state.active)} to play`;
    $("tl-active").classList.toggle("over", state.over);
    const deck = $("tl-deck");
    if (deck.textContent !== String(state.deck)) deck.textContent = state.deck;
  }
  const warning = deckWarning(state);
  $("deckline").hidden = !warning;
  $("deckline").textContent = warning?.text || "";
  $("deckline").className = `deckline ${warning?.level || ""}`;
  showTrouble($("trouble"), state);
  showAlert(state);
  showSecrets(state);
}

// The secrets set, face up, under each side: only when the server was started with
// `run --overlay-secrets` (a stream with a delay), as the page it served says; asked again
// when the count changes.
let secretsShown = document.querySelector('meta[name="overlay-secrets"]')?.content === "on";
let secretsKey = "";
async function showSecrets(state) {
  const key = `${state.game}:${state.players?.p1?.secrets}:${state.players?.p2?.secrets}`;
  if (!secretsShown || key === secretsKey) return;
  secretsKey = key;
  let secrets;
  try {
    const response = await fetch("/api/overlay/secrets");
    if (response.status === 404) {
      secretsShown = false;
      return;
    }
    secrets = await response.json();
  } catch {
    secretsKey = ""; // asked again at the next state
    return;
  }
  for (const player of ["p1", "p2"]) {
    const box = $(`secrets-${player}`);
    const list = secrets[player] || [];
    box.hidden = !list.length;
    box.replaceChildren(...list.map((s) => h("span", { class: "ov-secret" },
      `${cardText(s.card)} ${s.name || ""}`.trim())));
  }
}

function showAlert(state) {
  const box = $("last-alert");
  // the camera's doubts are for the players' phones, not the stream
  const alert = state.alerts.filter((a) => a.severity !== "unsure").at(-1);
  const key = alert ? `${state.game}:${alert.event}:${alert.code}` : null;
  if (key === lastAlertKey) return;
  const first = lastAlertKey === undefined;
  lastAlertKey = key;
  box.hidden = !alert;
  if (!alert) return;
  $("la-kind").textContent = alertLabel(alert);
  $("la-text").textContent = prettify(state, alert.message);
  box.className = `last-alert ${alert.severity}`;
  if (first) {
    box.classList.add("quiet"); // an alert from before the overlay was opened
    return;
  }
  void box.offsetWidth;
  box.classList.add("fresh");
  clearTimeout(quietTimer);
  quietTimer = setTimeout(() => box.classList.replace("fresh", "quiet"), FADE_ALERT_MS);
}

connect({
  onState: render,
  onStatus: (status) => { $("offline").hidden = status === "online"; },
});
