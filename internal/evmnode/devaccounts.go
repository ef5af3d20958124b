package evmnode

import "github.com/ethereum/go-ethereum/core"

// DevAccounts returns the first n funded accounts of the dev chain (the
// same on every start), for tools that sign transactions on it, such as
// the load tool's seed command.
func DevAccounts(n int) []Account { return devAccounts(n) }

// DevGenesis is the dev chain's genesis with its first n funded accounts
// (the same on every start: Start's default is 10), for tools that start
// other nodes on the same chain, such as the reorg harness's members.
func DevGenesis(n int) *core.Genesis { return devGenesis(devAccounts(n)) }
