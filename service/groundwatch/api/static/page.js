// groundwatch findings page. The server renders <main> (findings, trend, windows, drift) with
// every value HTML-escaped; this script only adds the bearer token the user pastes (kept in
// sessionStorage) and refreshes <main> from /page/main with the same filters.
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
      setStatus("page/main: HTTP " + resp.status + (resp.status === 401 ? " (token?)" : ""), true);
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

$("token").value = sessionStorage.getItem("gw-token") || "";
$("controls").addEventListener("submit", (ev) => {
  ev.preventDefault();
  sessionStorage.setItem("gw-token", $("token").value.trim());
  refresh();
});
if ($("need-token") && sessionStorage.getItem("gw-token")) refresh();
setInterval(() => { if (!$("need-token")) refresh(); }, 30000);
