// Package admin is nodegate's management HTTP API, served on its own
// listener (127.0.0.1:8546 by default), never on the client listener. Every
// route requires the bearer token from the configuration; without a token
// configured it refuses everything.
//
// It owns routing, the bearer check and JSON in and out. It must not hold
// business logic: key operations are keys.Manager's, and other features
// register their own routes with Server.Handle.
package admin
