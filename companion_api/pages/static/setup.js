// The camera setup page: asks the server to check the camera's latest frame about once a
// second, shows that frame with the check drawn on it, what to do, and the figures.

import { h } from "./state.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 1000;
let shown = 0; // pictures asked for: each one a new address, never a cached picture

async function poll() {
  try {
    const response = await fetch("/api/setup", { cache: "no-store" });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      showError(body.detail || `the server answered ${response.status}`);
    } else {
      show(body);
    }
  } catch {
    showError("The server does not answer: is `hearthtop-companion run` still running?");
  }
  setTimeout(poll, POLL_MS);
}

function showError(text) {
  $("error").hidden = false;
  $("error").textContent = text.charAt(0).toUpperCase() + text.slice(1);
  $("problems").replaceChildren();
  $("ready").hidden = true;
  verdict("no camera", "");
}

function verdict(text, cls) {
  $("verdict").textContent = text;
  $("verdict").className = `s-verdict ${cls}`;
}

function show(check) {
  $("error").hidden = true;
  const problems = check.problems || [];
  $("problems").replaceChildren(...problems.map((text) => h("li", {}, text)));
  $("ready").hidden = !check.ready;
  verdict(check.ready ? "ready" : `${problems.length} to fix`, check.ready ? "ready" : "todo");
  if (check.picture) {
    shown += 1;
    $("picture").src = `/api/setup/picture.jpg?n=${shown}`;
  }
  $("picture").hidden = !check.picture;
  $("no-picture").hidden = Boolean(check.picture);
  $("checks").replaceChildren(...(check.picture ? figures(check) : []));
}

// Each figure beside its limit: [label, text, good?]
function figures(check) {
  const limits = check.limits;
  const found = check.markers.filter((m) => m.found).length;
  const rows = [
    ["Markers", `${found} of 4 found`
      + check.markers.filter((m) => !m.found)
        .map((m) => ` · ${m.corner} ${m.missing || "missing"}`).join(""), found === 4],
  ];
  if (check.card_px) {
    rows.push(["Card size", `${Math.round(check.card_px[0])}–${Math.round(check.card_px[1])} px `
      + `wide (${limits.min_card_px} needed)`, check.card_px[0] >= limits.min_card_px]);
  }
  if (check.tilt_deg !== null && check.tilt_deg !== undefined) {
    rows.push(["Tilt", `${Math.round(check.tilt_deg)}° from straight above (up to `
      + `${limits.max_tilt_deg}°)`, check.tilt_deg <= limits.max_tilt_deg]);
  }
  rows.push(["Light", `${Math.round(check.brightness)} of 255 `
    + `(${limits.dark} at least), ${Math.round(100 * check.clipped_share)} % washed out`,
  check.brightness >= limits.dark && check.clipped_share <= limits.clipped_share]);
  if (check.edge_px !== null && check.edge_px !== undefined) {
    rows.push(["Focus", `edges ${check.edge_px.toFixed(1)} px (sharp up to `
      + `${limits.blurred_edge_px})`, check.edge_px <= limits.blurred_edge_px]);
  }
  rows.push(["Picture", `${check.size[0]} × ${check.size[1]}, ${check.age_s} s old`,
    check.camera === "ok"]);
  return rows.flatMap(([label, text, good]) => [
    h("dt", {}, label),
    h("dd", { class: good ? "good" : "bad", testid: `check-${label.toLowerCase()
      .replace(" ", "-")}` }, `${good ? "✓" : "✗"} ${text}`),
  ]);
}

poll();
