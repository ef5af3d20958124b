package familykind

// A Kind is what is known of a network family before any of its parts:
// the name a network's configuration gives it, the methods its pools ask
// their members with (the head block's number, the head block, the chain
// id, a transaction by hash), and the section of a network's
// configuration that is its own.
type Kind struct {
	// Name is the family's name in a network's configuration (family:).
	Name string
	// HeadMethod answers the head block's number, without params.
	HeadMethod string
	// ChainIDMethod answers the chain id, without params.
	ChainIDMethod string
	// HeadBlockMethod answers a block by number (params: "latest",
	// false) with its hash and parent hash; "" when the family's heads
	// are not followed by hash.
	HeadBlockMethod string
	// TxByHashMethod answers a transaction by its hash (null when the node
	// does not hold it): how a node that refused a signed transaction as
	// "nonce too low" is asked whether it holds that very one; "" when
	// the family's writes are not sent to every member.
	TxByHashMethod string
	// StateProbeMethod reads an account's state at a block (params: an
	// address and the block), LogsProbeMethod a block's receipts (params:
	// the block): the cheap reads with which pools probe how far back each
	// member serves state and logs (its floors); "" when the family has
	// no floors.
	StateProbeMethod, LogsProbeMethod string
	// Section is the key of the network configuration's section that only
	// a network of this family may set ("" none).
	Section string
}

// The families. A network that names none is of the first.
var (
	EVM = Kind{Name: "evm", HeadMethod: "eth_blockNumber", ChainIDMethod: "eth_chainId", HeadBlockMethod: "eth_getBlockByNumber", TxByHashMethod: "eth_getTransactionByHash",
		StateProbeMethod: "eth_getBalance", LogsProbeMethod: "eth_getBlockReceipts"}
	Starknet = Kind{Name: "starknet", HeadMethod: "starknet_blockNumber", ChainIDMethod: "starknet_chainId", Section: "starknet"}
)

// All are the families, the default first: the one list of them, which a
// new family is added to (internal/family gives each its parts, found by
// its name; TestKindsAreFamilies).
var All = []Kind{EVM, Starknet}

// Of is the family a network's configuration names ("" the default) and
// whether there is one of that name.
func Of(name string) (Kind, bool) {
	if name == "" {
		return All[0], true
	}
	for _, k := range All {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Names are the families' names, in All's order.
func Names() []string {
	out := make([]string, len(All))
	for i, k := range All {
		out[i] = k.Name
	}
	return out
}
