// Command nodegate is a self-hostable JSON-RPC access service for blockchain
// nodes. See README.md, or run `nodegate help`.
//
// The command owns its flags, the start banner, the subcommands' dispatch
// and the process's signals; what the service does lives in internal/
// (internal/service assembles it), and the command must not hold any of
// it.
package main
