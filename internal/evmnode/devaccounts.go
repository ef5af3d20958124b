package evmnode

// DevAccounts returns the first n funded accounts of the dev chain (the
// same on every start), for tools that sign transactions on it, such as
// the load tool's seed command.
func DevAccounts(n int) []Account { return devAccounts(n) }
