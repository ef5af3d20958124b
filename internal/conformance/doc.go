// Package conformance replays the Ethereum execution-apis fixtures (and
// nodegate's own, for eth_getUncleByBlockNumberAndIndex) through a running
// gateway and compares the answers the way hive does.
//
// It holds the fixture reader and comparer; the tests in this package
// start nodegate on the fixtures' chain.
package conformance
