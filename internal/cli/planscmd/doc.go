// Package planscmd is the `nodegate plans` subcommand: show the plans the
// key store holds (the fleet's), and push a configuration file's plans:
// to it, the one explicit operator action that changes them once a fleet
// has plans (a replica's own file only seeds an empty store:
// keys.SeedPlans).
//
// It owns flag parsing and output. What a plan is and how the store keeps
// plans are internal/plan's and internal/keys'.
package planscmd
