package service

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestReloadKeepsFilters: a filter installed before a reload is still its
// key's after it, whether the reload changed only credits (a new
// generation over the same network) or the limits too (the network then
// takes other limits).
func TestReloadKeepsFilters(t *testing.T) {
	cfg := testConfig(t)
	s := start(t, cfg)
	url := s.URL() + "/v3/" + s.GeneratedKey
	rpc := func(method, params string) (json.RawMessage, *struct{ Message string }) {
		t.Helper()
		var a struct {
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		_, raw := testenv.PostJSON(t, url, testenv.RPCBody(method, params))
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatalf("%s: %s", method, raw)
		}
		return a.Result, a.Error
	}
	id, e := rpc("eth_newBlockFilter", "[]")
	if e != nil {
		t.Fatalf("eth_newBlockFilter: %s", e.Message)
	}
	for _, tc := range []struct {
		name string
		edit func(*config.Config)
	}{
		{"credits only", func(c *config.Config) { c.Credits = map[string]int{"eth_blockNumber": 3} }},
		{"limits too", func(c *config.Config) { c.Limits.GetLogsMaxResults = 1234 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := cfg
			tc.edit(&next)
			if err := s.Reload(context.Background(), next); err != nil {
				t.Fatal(err)
			}
			cfg = next
			if _, e := rpc("eth_getFilterChanges", "["+string(id)+"]"); e != nil {
				t.Fatalf("eth_getFilterChanges after the reload: %s", e.Message)
			}
		})
	}
}
