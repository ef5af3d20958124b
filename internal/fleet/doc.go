// Package fleet holds the fleet test (issue 14): three replicas of the
// built nodegate binary on PostgreSQL and Redis behind HAProxy, under load,
// restarted in turn, one killed, a key revoked, one key's budget shared.
// It has no code of its own; docs/deploy.md describes the topology.
package fleet
