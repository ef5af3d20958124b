package devnet

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nodegate/nodegate/internal/starknet"
)

// The Starknet JSON-RPC versions the devnet speaks. Do answers
// SpecVersion (what starknet.js 10 detects with RpcProvider.create); Do08
// answers SpecVersion08 for older clients (starknet.js 7), which the
// gateway serves at /v3/<key>/rpc/v0_8. Both versions see the same pool,
// blocks, nonces and accounts.
const (
	SpecVersion   = "0.10.0"
	SpecVersion08 = "0.8.1"
)

// StarknetVersion is the Starknet version blocks claim on SpecVersion (the
// one of JSON-RPC 0.10), StarknetVersion08 on SpecVersion08 (the one of
// JSON-RPC 0.8: three resource bounds in every v3 hash).
const (
	StarknetVersion   = "0.14.0"
	StarknetVersion08 = "0.13.4"
)

// spec is what differs between the versions the devnet speaks.
type spec struct {
	version         string // starknet_specVersion
	starknetVersion string // blocks' starknet_version
	// pendingTag names the block being built: "pending" (0.8) or
	// "pre_confirmed" (0.9 and later).
	pendingTag string
	// preConfirmed: the block being built is a PRE_CONFIRMED block (its
	// number, no parent_hash); its transactions are PRE_CONFIRMED and have
	// receipts (without block_hash); headers carry the commitments and
	// counts of 0.9 and later. Else (0.8) a pending transaction is
	// RECEIVED, has no receipt, and the pending block has a parent_hash.
	preConfirmed bool
	// l1Tag is the tag of the latest block accepted on L1 ("l1_accepted"
	// from 0.9 on; "" none). The devnet has no L1: it names no block.
	l1Tag string
}

var (
	spec010 = &spec{version: SpecVersion, starknetVersion: StarknetVersion, pendingTag: "pre_confirmed", preConfirmed: true, l1Tag: "l1_accepted"}
	spec08  = &spec{version: SpecVersion08, starknetVersion: StarknetVersion08, pendingTag: "pending"}
)

// tags lists the block tags of the version, for error messages.
func (s *spec) tags() string {
	t := []string{`"latest"`, `"` + s.pendingTag + `"`}
	if s.l1Tag != "" {
		t = append(t, `"`+s.l1Tag+`"`)
	}
	return strings.Join(t, ", ")
}

// parseBlockID reads a BLOCK_ID of the version: one of its tags, a number
// or a hash. The tag of the block being built is kept as "pending".
func (s *spec) parseBlockID(raw json.RawMessage) (blockID, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var tag string
		if err := json.Unmarshal(raw, &tag); err != nil {
			return blockID{}, s.errBlockID("")
		}
		switch tag {
		case "latest":
			return blockID{tag: "latest"}, nil
		case s.pendingTag:
			return blockID{tag: "pending"}, nil
		case s.l1Tag:
			if s.l1Tag != "" {
				return blockID{tag: "l1_accepted"}, nil
			}
		}
		return blockID{}, s.errBlockID(fmt.Sprintf("; got %q", starknet.Clip(tag)))
	}
	return parseBlockSelector(raw, s.errBlockID)
}

func (s *spec) errBlockID(got string) error {
	return fmt.Errorf(`block_id must be one of %s, {"block_number": n} or {"block_hash": "0x..."}%s`, s.tags(), got)
}
