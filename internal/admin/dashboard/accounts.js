// nodegate dashboard: customer accounts and their requests for the custom
// tier (the admin routes of /admin/accounts and /admin/plan-requests).
"use strict";

async function adminPost(path, body) {
  const resp = await fetch(path, {
    method: "POST", cache: "no-store",
    headers: { Authorization: "Bearer " + token(), "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : "",
  });
  const data = await resp.json().catch(() => ({}));
  if (!resp.ok) { throw new Error(data.error || (path + ": HTTP " + resp.status)); }
  return data;
}

// act runs an operator's action, then reloads the page's data.
async function act(fn) {
  try { await fn(); await load(); } catch (e) { status(e.message, true); }
}

function button(label, cls, fn) {
  const b = el("button", { type: "button", class: cls }, label);
  b.addEventListener("click", () => act(fn));
  return b;
}

async function loadAccounts() {
  const [accts, reqs] = await Promise.all([api("/admin/accounts"), api("/admin/plan-requests?status=open")]);
  const body = $("#accounts tbody");
  body.replaceChildren();
  for (const a of accts.accounts || []) {
    const id = encodeURIComponent(a.id);
    const toggle = a.status === "active"
      ? button("disable", "danger", () => adminPost("/admin/accounts/" + id + "/disable"))
      : button("enable", "", () => adminPost("/admin/accounts/" + id + "/enable"));
    body.append(el("tr", { class: "account", "data-id": a.id },
      el("td", {}, a.email), el("td", {}, el("code", {}, a.id)), el("td", {}, a.plan),
      el("td", { class: "status-" + a.status }, a.status),
      el("td", {}, a.last_login_at ? a.last_login_at.slice(0, 19).replace("T", " ") : "never"), el("td", {}, toggle)));
  }
  const rbody = $("#requests tbody");
  rbody.replaceChildren();
  for (const r of reqs.requests || []) {
    const id = encodeURIComponent(r.id);
    rbody.append(el("tr", { class: "request", "data-id": r.id },
      el("td", {}, r.email), el("td", {}, r.plan), el("td", {}, r.created_at.slice(0, 19).replace("T", " ")),
      el("td", { class: "message" }, r.message),
      el("td", {}, button("grant", "", () => adminPost("/admin/plan-requests/" + id + "/grant")), " ",
        button("decline", "danger", () => adminPost("/admin/plan-requests/" + id + "/decline")))));
  }
  $("#no-requests").hidden = (reqs.requests || []).length > 0;
}

document.addEventListener("DOMContentLoaded", () => {
  $("#invite-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const email = $("#invite-email").value.trim();
    act(async () => {
      const out = await adminPost("/admin/invites", { email });
      $("#invite-link").textContent = out.invite.url + (out.invite.mailed ? " (mailed)" : "");
      $("#invite-email").value = "";
    });
  });
});
