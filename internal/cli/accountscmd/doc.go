// Package accountscmd is `nodegate accounts`: the operator's commands on
// customer accounts (list, show, disable, enable, set-plan, invite) and on
// their requests for the custom tier (requests, grant, decline), against
// the configured key store, also while servers run.
//
// It owns parsing and printing; the rules are internal/accounts'.
package accountscmd
