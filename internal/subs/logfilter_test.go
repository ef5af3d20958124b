package subs

import (
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestLogFilter: a logs subscription's filter is checked as go-ethereum
// checks one, and matches logs by block range, address and topics.
func TestLogFilter(t *testing.T) {
	addr, other := common.HexToAddress("0xaa"), common.HexToAddress("0xbb")
	t1, t2 := common.HexToHash("0x01"), common.HexToHash("0x02")
	log := &chainLog{number: 10, address: addr, topics: []common.Hash{t1, t2}}
	tests := []struct {
		name    string
		filter  string
		refused string
		matches bool
	}{
		{"every log", `{}`, "", true},
		{"its address", `{"address":"0x00000000000000000000000000000000000000aa"}`, "", true},
		{"another address", `{"address":"` + other.Hex() + `"}`, "", false},
		{"a wildcard then its second topic", `{"topics":[null,"` + t2.Hex() + `"]}`, "", true},
		{"its first topic in second place", `{"topics":[null,"` + t1.Hex() + `"]}`, "", false},
		{"more positions than its topics", `{"topics":[null,null,null]}`, "", false},
		{"from a later block", `{"fromBlock":"0xb"}`, "", false},
		{"up to its block", `{"fromBlock":"0x1","toBlock":"0xa"}`, "", true},
		{"pending", `{"fromBlock":"pending"}`, "pending logs are not supported", false},
		{"a backwards range", `{"fromBlock":"0xb","toBlock":"0xa"}`, "invalid block range params", false},
		{"from latest to a number", `{"fromBlock":"latest","toBlock":"0xa"}`, "invalid block range params", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, perr := parseSubscribe(json.RawMessage(`["logs",` + tt.filter + `]`))
			if perr != nil {
				t.Fatalf("parse: %v", perr)
			}
			f, err := checkLogFilter(req.filter)
			switch {
			case tt.refused != "" && (err == nil || err.Message != tt.refused):
				t.Fatalf("check: %v, want %q", err, tt.refused)
			case tt.refused == "" && err != nil:
				t.Fatalf("check: %v", err)
			case tt.refused == "" && f.matches(log) != tt.matches:
				t.Fatalf("matches %v, want %v", !tt.matches, tt.matches)
			}
		})
	}
}
