// groundwatch findings page. The server renders <main> (findings, trend, windows, drift) with
// every value HTML-escaped; this script only adds the bearer token the user pastes (kept in
// sessionStorage), refreshes <main> from /page/main with the same filters, and fetches the
// "Download as eval cases" link (/v1/findings/cases with those filters) with the token, saving
// the response as a file: a plain link cannot send the bearer header. The label buttons of a
// finding POST its label (right / wrong / unsure, the corrected verdict and the note of its
// row) to /v1/findings/{id}/label with the token (a group of identical findings: all of their
// ids to /v1/findings/labels), and show what the server stored.
"use strict";

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

async function refresh() {
  try {
    const resp = await fetch("page/main" + window.location.search, {
      headers: headers(),
      cache: "no-store",
    });
    if (!resp.ok) {
      httpError("page/main", resp.status);
      return;
    }
    const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
    const fresh = doc.getElementById("main");
    if (fresh) $("main").replaceWith(document.adoptNode(fresh));
    setStatus("updated " + new Date().toLocaleTimeString(), false);
  } catch (err) {
    setStatus(String(err.message || err), true);
  }
}

function httpError(what, status) {
  setStatus(what + ": HTTP " + status + (status === 401 ? " (token?)" : ""), true);
}

function attachmentName(resp, fallback) {
  const disposition = resp.headers.get("Content-Disposition") || "";
  const match = /filename="?([^";]+)"?/i.exec(disposition);
  return match ? match[1] : fallback;
}

async function downloadCases(link) {
  try {
    const resp = await fetch(link.href, { headers: headers(), cache: "no-store" });
    if (!resp.ok) {
      httpError("download", resp.status);
      return;
    }
    const url = URL.createObjectURL(await resp.blob());
    const save = document.createElement("a");
    save.href = url;
    save.download = attachmentName(resp, "groundwatch-findings-cases.jsonl");
    save.hidden = true;
    document.body.appendChild(save);
    save.click();
    save.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
    setStatus("downloaded " + save.download, false);
  } catch (err) {
    setStatus("download: " + String(err.message || err), true);
  }
}

function groupIds(cell) {
  try {
    const ids = JSON.parse(cell.dataset.findings || "[]");
    return Array.isArray(ids) && ids.length ? ids : [cell.dataset.finding];
  } catch (err) {
    return [cell.dataset.finding];
  }
}

function labelText(stored, count) {
  let text = stored.label || "unlabelled";
  if (stored.corrected_verdict) text += " (" + stored.corrected_verdict.replace("_", " ") + ")";
  return count > 1 ? text + " (all " + count + ")" : text;
}

async function labelFinding(button) {
  const cell = button.closest("td.label");
  if (!cell) return;
  const ids = groupIds(cell);
  const corrected = cell.querySelector(".label-corrected");
  const note = cell.querySelector(".label-note");
  const body = { label: button.dataset.label };
  if (body.label === "wrong" && corrected && corrected.value) {
    body.corrected_verdict = corrected.value;
  }
  if (note && note.value.trim()) body.note = note.value.trim();
  // One finding: its own route (the answer is the stored finding); a group: one request.
  const single = ids.length === 1;
  const url = single
    ? "v1/findings/" + encodeURIComponent(ids[0]) + "/label"
    : "v1/findings/labels";
  if (!single) body.ids = ids;
  try {
    const resp = await fetch(url, {
      method: "POST",
      headers: Object.assign({ "Content-Type": "application/json" }, headers()),
      body: JSON.stringify(body),
      cache: "no-store",
    });
    if (!resp.ok) {
      httpError("label", resp.status);
      return;
    }
    const answer = await resp.json();
    const stored = single ? answer.label || {} : body;
    const count = single ? 1 : answer.labelled.length;
    const text = labelText(stored, count);
    cell.querySelector(".label-state").textContent = text;
    cell.querySelectorAll(".label-btn").forEach((b) => {
      b.setAttribute("aria-pressed", String(b.dataset.label === body.label));
    });
    const missing = single ? 0 : answer.missing.length;
    setStatus("labelled " + ids[0] + (single ? "" : " and its group") + " " + text +
      (missing ? " (" + missing + " no longer kept)" : ""), false);
  } catch (err) {
    setStatus("label: " + String(err.message || err), true);
  }
}

$("token").value = sessionStorage.getItem("gw-token") || "";
// <main> is replaced on refresh: listen on the document for the download link and labels.
document.addEventListener("click", (ev) => {
  const target = ev.target instanceof Element ? ev.target : null;
  const button = target ? target.closest(".label-btn") : null;
  if (button) {
    ev.preventDefault();
    labelFinding(button);
    return;
  }
  const link = target ? target.closest("#download-cases") : null;
  if (!link) return;
  ev.preventDefault();
  downloadCases(link);
});
$("controls").addEventListener("submit", (ev) => {
  ev.preventDefault();
  sessionStorage.setItem("gw-token", $("token").value.trim());
  refresh();
});
if ($("need-token") && sessionStorage.getItem("gw-token")) refresh();
setInterval(() => { if (!$("need-token")) refresh(); }, 30000);
