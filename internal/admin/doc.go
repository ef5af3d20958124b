// Package admin is nodegate's management HTTP API, served on its own
// listener (127.0.0.1:8546 by default), never on the client listener. Every
// route requires the bearer token from the configuration; without a token
// configured it refuses everything. The one exception is the dashboard's
// page and assets (/dashboard/, embedded in the binary, dashboard.go),
// which hold no data: the page's script reads the JSON routes with the
// token the user gives it.
//
// It owns routing, the bearer check, JSON in and out (a store outage is a
// 503 with a generic message: the store's error, which may name its URL,
// only in the server log) and the dashboard. It
// must not hold business logic: key operations are keys.Manager's, and
// other features register their own routes with Server.Handle.
package admin
