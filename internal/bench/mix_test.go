package bench

import (
	"strings"
	"testing"
)

func TestParseMix(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		want    map[string]int // calls per method over 100 picks
		wantErr string
	}{
		{"one method", "eth_getTransactionByHash", map[string]int{"eth_getTransactionByHash": 100}, ""},
		{"weighted", "eth_getTransactionByHash=80, eth_call=20", map[string]int{"eth_getTransactionByHash": 80, "eth_call": 20}, ""},
		{"zero weight dropped", "eth_call=0,eth_chainId=3", map[string]int{"eth_chainId": 100}, ""},
		{"unknown method", "eth_foo=1", nil, "not a method the load tool"},
		{"bad weight", "eth_call=x", nil, "weight"},
		{"negative weight", "eth_call=-1", nil, "weight"},
		{"all zero", "eth_call=0", nil, "no method"},
		{"empty", "", nil, "no method"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseMix(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for n := range uint64(100) {
				got[m.Pick(n)]++
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s picked %d times of 100, want %d (all: %v)", k, got[k], v, got)
				}
			}
		})
	}
}

// TestMixIsSmooth: any window of ten picks of an 80/20 mix holds both methods.
func TestMixIsSmooth(t *testing.T) {
	m, err := ParseMix("eth_getTransactionByHash=80,eth_call=20")
	if err != nil {
		t.Fatal(err)
	}
	for start := range uint64(100) {
		calls := 0
		for n := start; n < start+10; n++ {
			if m.Pick(n) == "eth_call" {
				calls++
			}
		}
		if calls != 2 {
			t.Fatalf("window at %d has %d eth_call of 10, want 2", start, calls)
		}
	}
}
