// Package coalesce makes identical reads that are in flight at the same
// time share one upstream call: the first caller's call is made, the others
// wait for it and get the same answer (each with its own id, which the
// ingress adds).
//
// It owns only the grouping and the key; it must not know about keys,
// plans, failover or transports: what is coalescable is the route's rule.
package coalesce
