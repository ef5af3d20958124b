// nodegate dashboard: reads the admin JSON routes with the admin token.
// No libraries; charts are plain SVG.
"use strict";

const TOKEN_KEY = "nodegate.admin.token";
const ERROR_KINDS = ["rate_limited", "daily_exceeded", "invalid", "forbidden", "limit", "upstream", "node"];
const $ = (sel) => document.querySelector(sel);
let selectedKey = null;

function token() { return sessionStorage.getItem(TOKEN_KEY) || ""; }

// A #token=… in the URL logs in (and #key=ID chooses the key shown); the
// fragment is then removed from the address bar.
function tokenFromHash() {
  const t = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  const k = /(?:^#|&)key=([^&]*)/.exec(location.hash);
  if (k) { selectedKey = decodeURIComponent(k[1]); }
  if (t) { sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(t[1])); }
  if (t || k) { history.replaceState(null, "", location.pathname + location.search); }
}

async function api(path) {
  const resp = await fetch(path, { headers: { Authorization: "Bearer " + token() }, cache: "no-store" });
  if (resp.status === 401) { throw new AuthError(); }
  if (!resp.ok) { throw new Error(path + ": HTTP " + resp.status); }
  return resp.json();
}

class AuthError extends Error { constructor() { super("the admin token was refused"); } }

function status(msg, isError) {
  const el = $("#status");
  el.textContent = msg;
  el.className = isError ? "error" : "";
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) { e.setAttribute(k, v); }
  for (const c of children) { e.append(c instanceof Node ? c : document.createTextNode(String(c))); }
  return e;
}

function num(n) { return Number(n || 0).toLocaleString("en-US"); }

function showLogin(msg) {
  $("#app").hidden = true;
  $("#logout").hidden = true;
  $("#login").hidden = false;
  status(msg || "", !!msg);
}

async function load() {
  if (!token()) { showLogin(); return; }
  try {
    status("loading…");
    const [keys, ups] = await Promise.all([api("/admin/keys"), api("/admin/upstreams")]);
    $("#login").hidden = true;
    $("#app").hidden = false;
    $("#logout").hidden = false;
    renderKeys(keys.keys || []);
    renderUpstreams(ups || []);
    if (typeof loadAccounts === "function") { await loadAccounts(); } // accounts.js
    const first = selectedKey || (keys.keys && keys.keys.length ? keys.keys[0].id : null);
    if (first) { await selectKey(first, keys.keys); }
    status("updated " + new Date().toISOString().slice(11, 19) + " UTC");
  } catch (e) {
    if (e instanceof AuthError) { sessionStorage.removeItem(TOKEN_KEY); showLogin(e.message); return; }
    status(e.message, true);
  }
}

function renderKeys(keys) {
  const body = $("#keys tbody");
  body.replaceChildren();
  for (const k of keys) {
    const tr = el("tr", { class: "key", "data-id": k.id },
      el("td", {}, k.name || "(no name)"), el("td", {}, el("code", {}, k.id)), el("td", {}, k.plan),
      el("td", { class: "status-" + k.status }, k.status), el("td", {}, k.last_used_at ? k.last_used_at.slice(0, 19).replace("T", " ") : "never"));
    tr.addEventListener("click", () => selectKey(k.id, keys));
    body.append(tr);
  }
}

async function selectKey(id, keys) {
  selectedKey = id;
  for (const tr of document.querySelectorAll("#keys tbody tr")) { tr.classList.toggle("selected", tr.dataset.id === id); }
  const k = (keys || []).find((x) => x.id === id);
  $("#usage-key").textContent = k ? (k.name || k.id) : id;
  const data = await api("/admin/keys/" + encodeURIComponent(id) + "/usage?days=" + $("#days").value);
  renderUsage(data.usage || [], Number($("#days").value));
  $("#usage").hidden = false;
}

function errorsOf(row) { return ERROR_KINDS.reduce((s, kind) => s + Number((row.errors || {})[kind] || 0), 0); }

function renderUsage(rows, days) {
  // By day (every day of the range, oldest first, zero when idle).
  const byDay = new Map();
  const today = new Date();
  for (let i = days - 1; i >= 0; i--) {
    const d = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - i));
    byDay.set(d.toISOString().slice(0, 10), { requests: 0, errors: 0 });
  }
  const byMethod = new Map();
  for (const r of rows) {
    const d = byDay.get(r.day) || { requests: 0, errors: 0 };
    d.requests += r.requests; d.errors += errorsOf(r);
    byDay.set(r.day, d);
    const m = byMethod.get(r.method) || { requests: 0, errors: 0 };
    m.requests += r.requests; m.errors += errorsOf(r);
    byMethod.set(r.method, m);
  }
  drawColumns($("#chart-days"), [...byDay.entries()].sort((a, b) => a[0].localeCompare(b[0])));
  drawBars($("#chart-methods"), [...byMethod.entries()].sort((a, b) => b[1].requests - a[1].requests).slice(0, 10));

  const body = $("#usage-table tbody");
  body.replaceChildren();
  const total = { requests: 0, credits: 0, errors: {} };
  for (const r of rows) {
    const cells = [el("td", {}, r.day), el("td", {}, r.network), el("td", {}, el("code", {}, r.method)),
      el("td", { class: "num" }, num(r.requests)), el("td", { class: "num" }, num(r.credits))];
    for (const kind of ERROR_KINDS) {
      cells.push(el("td", { class: "num" }, num((r.errors || {})[kind])));
      total.errors[kind] = (total.errors[kind] || 0) + Number((r.errors || {})[kind] || 0);
    }
    total.requests += r.requests; total.credits += r.credits;
    body.append(el("tr", { class: "usage-row" }, ...cells));
  }
  if (!rows.length) { body.append(el("tr", {}, el("td", { colspan: 11 }, "no usage in this range"))); }
  const foot = $("#usage-table tfoot");
  foot.replaceChildren(el("tr", {}, el("th", { colspan: 3 }, "Total"), el("th", { class: "num", id: "total-requests" }, num(total.requests)),
    el("th", { class: "num", id: "total-credits" }, num(total.credits)), ...ERROR_KINDS.map((k) => el("th", { class: "num" }, num(total.errors[k])))));
}

const SVG = "http://www.w3.org/2000/svg";
function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) { e.setAttribute(k, v); }
  if (text !== undefined) { e.textContent = text; }
  return e;
}

// drawColumns: one column per day, requests in blue with errors in red at its foot.
function drawColumns(svg, entries) {
  svg.replaceChildren();
  const W = 600, H = 220, pad = { l: 48, r: 8, t: 12, b: 28 };
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const max = Math.max(1, ...entries.map(([, v]) => v.requests));
  const cw = (W - pad.l - pad.r) / Math.max(1, entries.length);
  const y = (v) => H - pad.b - (v / max) * (H - pad.t - pad.b);
  svg.append(svgEl("text", { x: 4, y: pad.t + 4 }, num(max)), svgEl("text", { x: 4, y: H - pad.b }, "0"),
    svgEl("line", { x1: pad.l, y1: H - pad.b, x2: W - pad.r, y2: H - pad.b, stroke: "#9aa3b5" }));
  entries.forEach(([day, v], i) => {
    const x = pad.l + i * cw + cw * 0.15, w = cw * 0.7;
    const bar = svgEl("rect", { class: "bar", x, y: y(v.requests), width: w, height: H - pad.b - y(v.requests) });
    bar.append(svgEl("title", {}, `${day}: ${v.requests} requests, ${v.errors} errors`));
    svg.append(bar);
    if (v.errors) { svg.append(svgEl("rect", { class: "bar-err", x, y: y(v.errors), width: w, height: H - pad.b - y(v.errors) })); }
    svg.append(svgEl("text", { x: x + w / 2, y: H - 10, "text-anchor": "middle" }, day.slice(5)));
  });
}

// drawBars: one horizontal bar per method.
function drawBars(svg, entries) {
  svg.replaceChildren();
  const W = 600, H = 220, pad = { l: 210, r: 60, t: 8, b: 8 };
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  if (!entries.length) { svg.append(svgEl("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, "no calls")); return; }
  const max = Math.max(1, ...entries.map(([, v]) => v.requests));
  const bh = (H - pad.t - pad.b) / entries.length;
  entries.forEach(([method, v], i) => {
    const yy = pad.t + i * bh + bh * 0.15, h = bh * 0.7;
    const w = (v.requests / max) * (W - pad.l - pad.r);
    svg.append(svgEl("text", { x: pad.l - 6, y: yy + h * 0.75, "text-anchor": "end" }, method));
    svg.append(svgEl("rect", { class: "bar", x: pad.l, y: yy, width: Math.max(w, 1), height: h }));
    if (v.errors) { svg.append(svgEl("rect", { class: "bar-err", x: pad.l, y: yy, width: Math.max((v.errors / max) * (W - pad.l - pad.r), 1), height: h })); }
    svg.append(svgEl("text", { x: pad.l + w + 4, y: yy + h * 0.75 }, num(v.requests)));
  });
}

// upstreamState is an upstream's state as the table says it: in service,
// out, or quarantined (an answer failed verification) until a time.
function upstreamState(u) {
  if (u.quarantined_until && Date.parse(u.quarantined_until) > Date.now()) {
    return "quarantined until " + new Date(u.quarantined_until).toLocaleTimeString();
  }
  return u.healthy ? "in service" : "out";
}

function renderUpstreams(nets) {
  const body = $("#upstreams tbody");
  body.replaceChildren();
  for (const n of nets) {
    const members = (n.upstreams || []).map((u) => [u, ""]).concat((n.partners || []).map((u) => [u, " (partner)"]));
    for (const [u, suffix] of members) {
      body.append(el("tr", {}, el("td", {}, n.network), el("td", {}, u.name + suffix),
        el("td", { class: u.healthy ? "up" : "down" }, upstreamState(u)),
        el("td", { class: "num" }, num(u.head)), el("td", { class: "num" }, num(u.lag)),
        el("td", { class: "num" }, u.latency_ms), el("td", { class: "num" }, u.in_flight),
        el("td", { class: "num floor" }, num(u.state_from)), el("td", { class: "num floor" }, num(u.logs_from)),
        el("td", { class: "num" }, num(u.verify_failures || 0)), el("td", {}, u.last_error || "")));
    }
  }
}

document.addEventListener("DOMContentLoaded", () => {
  tokenFromHash();
  $("#login-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $("#token").value.trim());
    $("#token").value = "";
    load();
  });
  $("#logout").addEventListener("click", () => { sessionStorage.removeItem(TOKEN_KEY); showLogin(); });
  $("#days").addEventListener("change", () => selectedKey && selectKey(selectedKey));
  window.addEventListener("hashchange", () => { tokenFromHash(); load(); });
  load();
  setInterval(() => { if (token() && !document.hidden) { load(); } }, 15000);
});
