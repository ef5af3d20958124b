// Package familykind names the network families: each one's configuration name,
// the methods its pools ask members with (head, head block, chain id, a
// transaction by hash, the cheap reads that probe how far back a member
// serves state and logs), and its own configuration section. It is a
// leaf (it imports nothing of nodegate) so that internal/config can
// validate a network's family against it; the family's parts (method
// table, members, stages) are internal/family's, which adds them to each
// Kind.
//
// It must not import anything of nodegate: config imports it.
package familykind
