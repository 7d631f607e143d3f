// groundwatch findings page. The server renders <main> (findings, trend, windows, drift) with
// every value HTML-escaped; this script only adds the bearer token the user pastes (kept in
// sessionStorage), refreshes <main> from /page/main with the same filters, and fetches the
// "Download as eval cases" link (/v1/findings/cases with those filters) with the token, saving
// the response as a file: a plain link cannot send the bearer header.
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

$("token").value = sessionStorage.getItem("gw-token") || "";
// <main> is replaced on refresh: listen on the document for the download link.
document.addEventListener("click", (ev) => {
  const link = ev.target instanceof Element ? ev.target.closest("#download-cases") : null;
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
