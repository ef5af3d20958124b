package methods

// The starknet family (docs/spec.md's rollup family). Its own starknet_ methods
// are forwarded to the node; rollup_pendingTransactions and its upstream
// name starknet_pendingTransactions take no params and are answered by
// internal/starknet. devnet_ methods exist only on a network whose node is
// the embedded devnet (EnableDevnet).

// noArgs is a params list that must be empty: any element is -32602
// "too many arguments, want at most 0".
var noArgs = []arg{}

// starknetAllowedPrefixes are forwarded by default on a starknet network.
var starknetAllowedPrefixes = []string{"starknet_"}

// namedParams are the families whose methods take params by name (a JSON
// object) as well as by position (Rule.checkNamed).
var namedParams = map[Family]bool{FamilyStarknet: true}

// starknetRules are the starknet methods with entries of their own: writes
// are not idempotent, cheap reads cost less.
var starknetRules = []Rule{
	{Name: "starknet_pendingTransactions", Family: FamilyStarknet, Args: noArgs, Idempotent: true, Credits: 80},
	{Name: "starknet_addInvokeTransaction", Family: FamilyStarknet, Credits: 250},
	{Name: "starknet_addDeclareTransaction", Family: FamilyStarknet, Credits: 250},
	{Name: "starknet_addDeployAccountTransaction", Family: FamilyStarknet, Credits: 250},
	{Name: "starknet_chainId", Family: FamilyStarknet, Idempotent: true, Credits: 5, Block: BlockChain},
	{Name: "starknet_specVersion", Family: FamilyStarknet, Idempotent: true, Credits: 5, Block: BlockChain},
	{Name: "starknet_syncing", Family: FamilyStarknet, Idempotent: true, Credits: 5},
	// What starknet.js's standard flow asks for besides: reads, retried
	// like any read; the two that run code on a real node cost more.
	{Name: "starknet_getNonce", Family: FamilyStarknet, Idempotent: true, Credits: 80},
	{Name: "starknet_getTransactionStatus", Family: FamilyStarknet, Idempotent: true, Credits: 80},
	{Name: "starknet_getTransactionReceipt", Family: FamilyStarknet, Idempotent: true, Credits: 80},
	{Name: "starknet_getBlockWithTxHashes", Family: FamilyStarknet, Idempotent: true, Credits: 80},
	{Name: "starknet_getBlockWithReceipts", Family: FamilyStarknet, Idempotent: true, Credits: 160},
	{Name: "starknet_estimateFee", Family: FamilyStarknet, Idempotent: true, Credits: 240, Executes: true},
	{Name: "starknet_call", Family: FamilyStarknet, Idempotent: true, Credits: 160, Executes: true},
}

// devnetRules are the embedded devnet's own methods.
var devnetRules = []Rule{
	{Name: "devnet_createBlock", Family: FamilyStarknet, Args: noArgs, Credits: 80},
	// Params: none, or with_balance (which the devnet refuses).
	{Name: "devnet_getPredeployedAccounts", Family: FamilyStarknet, Credits: 5},
}

// EnableDevnet admits the devnet_ methods of this table's family (the
// Starknet devnet's, on a starknet table); a table of another family is
// left as it is.
func (t *Table) EnableDevnet() {
	for i := range devnetRules {
		r := devnetRules[i]
		if r.Family != t.family {
			continue
		}
		r.Validated = r.Args != nil
		t.rules[r.Name] = &r
	}
}
