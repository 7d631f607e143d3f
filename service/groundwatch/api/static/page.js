// groundwatch findings page: plain JS, no dependencies. Every value from the API is written
// with textContent (never innerHTML), so claim and evidence text cannot inject markup.
"use strict";

const state = { cursor: null };
const $ = (id) => document.getElementById(id);

function headers() {
  const token = sessionStorage.getItem("gw-token") || "";
  return token ? { Authorization: "Bearer " + token } : {};
}

function setStatus(text, isError) {
  const el = $("status");
  el.textContent = text;
  el.className = isError ? "error" : "";
}

async function getJSON(path) {
  const resp = await fetch(path, { headers: headers(), cache: "no-store" });
  if (!resp.ok) {
    throw new Error(path.split("?")[0] + ": HTTP " + resp.status);
  }
  return resp.json();
}

function cell(row, text, cls) {
  const td = document.createElement("td");
  td.textContent = text === null || text === undefined ? "—" : String(text);
  if (cls) td.className = cls;
  row.appendChild(td);
  return td;
}

function fmt(x, digits) {
  return x === null || x === undefined ? null : Number(x).toFixed(digits === undefined ? 3 : digits);
}

function sliceParams() {
  const raw = $("slice").value.trim();
  if (!raw) return "";
  return raw.split(/[\s,]+/).filter(Boolean)
    .map((s) => "&slice=" + encodeURIComponent(s)).join("");
}

async function loadWindows() {
  const data = await getJSON("v1/windows");
  const ref = data.reference === "pinned" && data.baseline
    ? "pinned baseline from " + new Date(data.baseline.pinned_at * 1000).toISOString()
    : "rolling reference";
  $("reference").textContent =
    "Drift reference: " + ref + "; values need at least " + data.min_samples + " samples.";
  const body = $("windows").querySelector("tbody");
  body.replaceChildren();
  for (const [name, rows] of Object.entries(data.windows)) {
    for (const r of rows) {
      const tr = document.createElement("tr");
      tr.dataset.window = name;
      tr.dataset.slice = r.slice_key + "=" + r.slice_value;
      cell(tr, name);
      cell(tr, r.slice_key === "all" ? "all" : r.slice_key + "=" + r.slice_value);
      cell(tr, r.traces.received, "num");
      cell(tr, r.traces.scored, "num");
      for (const m of ["faithfulness", "context_precision", "answer_relevance", "citation_support"]) {
        const v = r.means[m];
        cell(tr, fmt(v), "num" + (v !== null && v < 0.7 ? " low" : "")).dataset.metric = m;
      }
      cell(tr, fmt(r.rates.contradicted_per_trace), "num");
      cell(tr, fmt(r.rates.refusal), "num");
      body.appendChild(tr);
    }
  }
  const dbody = $("drift").querySelector("tbody");
  dbody.replaceChildren();
  if (data.drift.length === 0) {
    const tr = document.createElement("tr");
    cell(tr, "no drift values yet: current window or reference has fewer than " +
      data.min_samples + " samples").colSpan = 4;
    dbody.appendChild(tr);
  }
  for (const d of data.drift) {
    for (const [metric, value] of Object.entries(d.psi)) {
      const tr = document.createElement("tr");
      cell(tr, d.slice_key === "all" ? "all" : d.slice_key + "=" + d.slice_value);
      cell(tr, metric);
      cell(tr, fmt(value), "num" + (value > 0.25 ? " low" : ""));
      cell(tr, fmt(d.wasserstein[metric]), "num");
      dbody.appendChild(tr);
    }
  }
}

async function loadFindings(append) {
  const cursor = append && state.cursor ? "&cursor=" + encodeURIComponent(state.cursor) : "";
  const data = await getJSON("v1/findings?limit=50" + cursor + sliceParams());
  const body = $("findings").querySelector("tbody");
  if (!append) body.replaceChildren();
  for (const f of data.items) {
    const tr = document.createElement("tr");
    tr.className = "finding";
    cell(tr, f.time);
    const trace = cell(tr, "");
    const code = document.createElement("code");
    code.textContent = f.trace_id + "#" + f.claim_index;
    trace.appendChild(code);
    cell(tr, Object.entries(f.slices).map(([k, v]) => k + "=" + v).join(" "));
    cell(tr, f.claim, "claim");
    cell(tr, f.evidence, "evidence");
    cell(tr, f.judge_version);
    body.appendChild(tr);
  }
  state.cursor = data.next_cursor;
  $("more").hidden = !data.next_cursor;
  $("total").textContent = "(" + data.total + ")";
}

async function refresh() {
  setStatus("loading…", false);
  try {
    await Promise.all([loadWindows(), loadFindings(false)]);
    setStatus("updated " + new Date().toLocaleTimeString(), false);
  } catch (err) {
    setStatus(String(err.message || err), true);
  }
}

$("token").value = sessionStorage.getItem("gw-token") || "";
$("controls").addEventListener("submit", (ev) => {
  ev.preventDefault();
  sessionStorage.setItem("gw-token", $("token").value.trim());
  refresh();
});
$("more").addEventListener("click", () => {
  loadFindings(true).catch((err) => setStatus(String(err.message || err), true));
});
refresh();
setInterval(() => loadWindows().catch(() => {}), 30000);
