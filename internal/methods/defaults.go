package methods

import (
	"encoding/json"

	"github.com/nodegate/nodegate/jsonrpc"
)

// latest is the block go-ethereum reads for an absent block param of the
// methods whose block is optional (docs/spec.md, "Methods").
var latest = json.RawMessage(`"latest"`)

// WithDefaults returns params with every absent or null optional param
// that has a default (eth_getStorageAt's and eth_estimateGas's block:
// "latest") set to it, so that each node behind nodegate is sent the
// param docs/spec.md promises, whatever its own default; it reports
// whether anything changed. parsed is what Check returned for params: its
// nil values are the absent and null params. Params given by name are
// left as they are.
func (r *Rule) WithDefaults(params json.RawMessage, parsed Parsed) (json.RawMessage, bool) {
	last := -1 // the last position a default fills
	for i, a := range r.Args {
		if a.fill != nil && i < len(parsed) && parsed[i] == nil {
			last = i
		}
	}
	if last < 0 || len(params) > 0 && params[0] == '{' {
		return params, false
	}
	out := make([]byte, 0, len(params)+len(latest)+8)
	out = append(out, '[')
	i := 0
	_ = jsonrpc.Elements(params, func(elem []byte) bool {
		if i > 0 {
			out = append(out, ',')
		}
		if i < len(r.Args) && r.Args[i].fill != nil && string(elem) == "null" {
			elem = r.Args[i].fill
		}
		out = append(out, elem...)
		i++
		return true
	})
	for ; i <= last; i++ {
		if i > 0 {
			out = append(out, ',')
		}
		fill := r.Args[i].fill
		if fill == nil {
			fill = json.RawMessage("null") // an absent optional param before a default
		}
		out = append(out, fill...)
	}
	return append(out, ']'), true
}
