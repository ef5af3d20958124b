// Package customer is the customer dashboard: the pages at /dashboard/ on
// the client listener where customers sign up and in, make and manage
// their keys, watch their usage and change their plan (docs/dashboard.md).
//
// It owns the HTTP side of accounts: routing, the session cookie, CSRF
// tokens, who may use each route (handler.go: routeTable, every route
// with its access, checked against the session's role), the one-time flash a POST leaves for the page its redirect
// opens (flash.go: POST-redirect-GET, a reload repeats nothing), the per-account cap on dashboard requests (pagecap.go: least
// recently seen subjects evicted, addresses grouped as
// accounts.AddressSubject groups them), the analytics pages with their
// CSV and API routes (analytics.go), form parsing (413 over maxForm) and the
// pages (html/template, embedded with their stylesheet: no script, no CDN,
// a strict Content-Security-Policy; charts are SVG drawn on the server).
//
// It also serves the customers' JSON API under /dashboard/api/v1/
// (api.go): bearer API tokens only, never a cookie, each route in one
// table with its access, answered with the same accounts calls as the
// pages.
//
// It must not hold account rules (internal/accounts does) nor key rules
// (internal/keys does): it turns forms into their calls and their answers
// and errors into pages.
package customer
