// Package nodediff compares nodegate's answers with the answers of the
// node behind it, for each of three nodes: anvil and Hardhat 3 (from npm,
// pinned by testdata's package-lock.json files, started by the test on
// loopback) and go-ethereum (the embedded node, serving HTTP on
// loopback). The test seeds a chain on each node (a contract that logs,
// stores and reverts with data), starts nodegate with that node as its one
// upstream, and sends docs/spec.md's nine EVM methods with valid, null,
// revert, unknown-block and malformed params, one by one and in a batch,
// over HTTP and WebSocket, to nodegate and to the node: the answers must be
// equal as JSON, except where docs/spec.md's table of nodegate's policies
// ("Where nodegate's answer differs from the node's") says otherwise.
//
// TestClientsBehindHardhat runs ethers v6, viem and web3.js (testdata/clients,
// pinned by its package-lock.json, under the same Node.js 22) against
// Hardhat 3 directly and through nodegate in front of it, over HTTP and
// WebSocket, and requires the same outcome of every read both ways.
//
// It holds tests only; nothing imports it.
package nodediff
