package methods

// Labels for method names that are not known: a client chooses method
// names, so anything that keeps a name beyond one call (usage rows, metric
// labels, log fields) must take it through Label, which maps every name
// outside a fixed list to one of these two values.
const (
	// LabelUnknown stands for a well-formed name that is not a known method.
	LabelUnknown = "(unknown)"
	// LabelInvalid stands for a call that has no usable method name at all
	// (not a string, empty, or characters no real method name has).
	LabelInvalid = "(invalid)"
)

// standardNames are the methods of the standard APIs that have no rule of
// their own: refused by their namespace (the signing methods), or left to
// the node unlisted (the Starknet subscriptions). With the rules of every
// family they make the fixed set of names Label keeps.
var standardNames = []string{
	// Ethereum execution API.
	"eth_sendTransaction", "eth_sign", "eth_signTransaction", "eth_signTypedData",
	// Starknet JSON-RPC API.
	"starknet_subscribeEvents", "starknet_subscribeNewHeads", "starknet_subscribePendingTransactions",
	"starknet_subscribeTransactionStatus", "starknet_unsubscribe",
}

// known is the fixed set Label keeps: every rule of every family (by
// name, for the facts a caller needs before a network's table is at hand:
// LargeAnswer) and the standard names (nil: no rule of their own).
var known = func() map[string]*Rule {
	out := make(map[string]*Rule, len(standardNames)+len(spec)+len(forwarded)+len(starknetRules)+len(devnetRules)+len(standardReads)+len(standardExecutions))
	for _, n := range standardNames {
		out[n] = nil
	}
	for _, list := range [][]Rule{spec, forwarded, starknetRules, devnetRules, standardReads, standardExecutions} {
		for i := range list {
			out[list[i].Name] = &list[i]
		}
	}
	return out
}()

// Label is the name under which a call of method is counted, logged or
// recorded: the method itself when it is a known method, LabelInvalid when
// it could not be a method name, and LabelUnknown for anything else. The
// set of values it returns is fixed at build time, whatever clients send.
func Label(method string) string {
	if _, ok := known[method]; ok {
		return method
	}
	if !ValidName(method) {
		return LabelInvalid
	}
	return LabelUnknown
}
