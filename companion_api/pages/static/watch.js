// The spectator page: the same table, read-only, with what happened and the alerts.

import {
  alertLabel, connect, deckWarning, h, playerName, prettify, recentLines, renderSides,
  resultText,
} from "./state.js";

const $ = (id) => document.getElementById(id);
let everOnline = false;

function render(state) {
  const inGame = Boolean(state.players?.p1);
  $("w-empty").hidden = inGame;
  $("w-middle").hidden = !inGame;
  $("w-side").hidden = !inGame;
  renderSides({ p1: $("slot-p1"), p2: $("slot-p2") }, state);
  $("w-turn").textContent = !inGame ? "" : state.phase === "mulligan" ? "Mulligan"
    : `Turn ${state.turn}`;
  $("w-active").textContent = !inGame ? "waiting for a game" : state.over ? resultText(state)
    : state.phase === "mulligan" ? "the players set cards aside"
      : `${playerName(state, state.active)} to play`;
  $("w-active").classList.toggle("playing", inGame && !state.over);
  if (inGame) {
    $("w-deck").textContent = state.deck;
    $("w-discard").textContent = `${state.discard} discarded`;
    $("w-result").hidden = !state.over;
    $("w-result").textContent = resultText(state);
    const warning = deckWarning(state);
    $("w-warning").hidden = !warning;
    $("w-warning").textContent = warning?.text || "";
    $("w-warning").className = `w-warning ${warning?.level || ""}`;
  }
  $("w-recent").replaceChildren(...recentLines(state).reverse().map((line) => h("li", {},
    line.turn !== null ? h("span", { class: "w-t" }, `T${line.turn}`) : null, line.text)));
  const alerts = [...state.alerts].reverse();
  $("w-count").textContent = alerts.length;
  $("w-count").classList.toggle("has", alerts.length > 0);
  $("w-no-alerts").hidden = alerts.length > 0;
  $("w-alerts").replaceChildren(...alerts.slice(0, 50).map((alert) => h("li",
    { class: `w-alert ${alert.severity}`, testid: "alert-item", "data-code": alert.code },
    h("b", {}, alertLabel(alert)), " ", prettify(state, alert.message))));
}

connect({
  onState: render,
  onStatus: (status) => {
    if (status === "online") everOnline = true;
    $("offline").hidden = status === "online" || !everOnline;
    $("live-dot").classList.toggle("off", status !== "online");
  },
});
