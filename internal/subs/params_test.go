package subs

import (
	"encoding/json"
	"testing"
)

func TestParseSubscribe(t *testing.T) {
	for _, tc := range []struct {
		name, params string
		code         int
		key          string
	}{
		{"newHeads", `["newHeads"]`, 0, "newHeads"},
		{"newHeads with extra", `["newHeads",{}]`, -32602, ""},
		{"logs no filter", `["logs"]`, 0, `logs|{"BlockHash":null,"FromBlock":null,"ToBlock":null,"Addresses":[],"Topics":null}`},
		{"logs null filter", `["logs",null]`, 0, `logs|{"BlockHash":null,"FromBlock":null,"ToBlock":null,"Addresses":[],"Topics":null}`},
		{"logs bad address", `["logs",{"address":"0x12"}]`, -32602, ""},
		{"logs bad topic", `["logs",{"topics":["0x12"]}]`, -32602, ""},
		{"pending", `["newPendingTransactions"]`, 0, "newPendingTransactions"},
		{"pending full", `["newPendingTransactions",true]`, 0, "newPendingTransactions|full"},
		{"pending bad flag", `["newPendingTransactions","yes"]`, -32602, ""},
		{"unknown", `["syncing2"]`, -32601, ""},
		{"empty", `[]`, -32602, ""},
		{"not a string", `[1]`, -32602, ""},
		{"not an array", `{}`, -32602, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := parseSubscribe(json.RawMessage(tc.params))
			switch {
			case tc.code != 0 && (err == nil || err.Code != tc.code):
				t.Fatalf("want code %d, got %v", tc.code, err)
			case tc.code == 0 && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.code == 0 && req.key != tc.key:
				t.Fatalf("key %q, want %q", req.key, tc.key)
			}
		})
	}
}

func FuzzParseSubscribe(f *testing.F) {
	for _, s := range []string{`["newHeads"]`, `["logs",{"address":["0x00000000000000000000000000000000000000aa"],"topics":[null,["0x0000000000000000000000000000000000000000000000000000000000000001"]]}]`, `["newPendingTransactions",true]`, `[`, `["logs",{"fromBlock":"latest"}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := parseSubscribe(b)
		if err == nil && (req.key == "" || len(req.params) == 0) {
			t.Fatalf("accepted %q without a stream", b)
		}
		_, _ = parseUnsubscribe(b)
	})
}
