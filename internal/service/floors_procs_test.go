package service

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestFloorsServed: upstreams' configured floors are what /admin/upstreams
// and the metrics show, and a call naming a block below every upstream's
// state floor is answered 4444 with why, without reaching a node.
func TestFloorsServed(t *testing.T) {
	node := startNode(t, "", "127.0.0.1:0")
	cfg := testConfig(t)
	cfg.Node.ChainDir = ""
	cfg.NoStarknet = true
	five, three, seven := uint64(5), uint64(3), uint64(7)
	cfg.Networks = []config.Network{{Name: "main", Upstreams: []config.Upstream{
		{Name: "full", URL: node.url(), StateFrom: &five, LogsFrom: &three},
		{Name: "recent", URL: node.url(), StateFrom: &seven, LogsFrom: &three},
	}}}
	s := start(t, cfg)
	got := testenv.Call(t, s.URL()+"/v3/"+s.GeneratedKey, "eth_getBalance", `["0x00000000000000000000000000000000000000aa","0x0"]`)
	if got.Error == nil || got.Error.Code != 4444 || got.Error.Message != "no upstream serves state at block 0x0 (earliest 0x5)" {
		t.Fatalf("answer %s %+v, want 4444 no upstream serves state at block 0x0 (earliest 0x5)", got.Result, got.Error)
	}
	floors := map[string][2]uint64{}
	for _, n := range adminUpstreams(t, s) {
		for _, m := range n.Upstreams {
			floors[m.Name] = [2]uint64{m.StateFrom, m.LogsFrom}
		}
	}
	if floors["full"] != [2]uint64{5, 3} || floors["recent"] != [2]uint64{7, 3} {
		t.Fatalf("/admin/upstreams floors (state, logs): %v", floors)
	}
	rec := httptest.NewRecorder()
	s.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, want := range []string{
		`nodegate_upstream_floor_block{kind="state",network="main",upstream="full"} 5`,
		`nodegate_upstream_floor_block{kind="logs",network="main",upstream="recent"} 3`,
		`nodegate_upstream_floor_refused_total{kind="state",network="main"} 1`,
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
