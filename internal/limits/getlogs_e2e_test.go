package limits_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
)

// TestGetLogsExactlyAtLimit: 10,000 matching logs come back whole, byte for
// byte as the node returns them, whether nodegate asks in one call or
// splits a wide range into sub-ranges.
func TestGetLogsExactlyAtLimit(t *testing.T) {
	c := testChain(t)
	proxy, seen := countingProxy(t, c.url)
	gw := gateway(t, proxy, nil)
	tests := []struct {
		name   string
		params string
		split  bool
	}{
		{"two blocks, one call", filter(hexn(c.blockA), hexn(c.blockB), topicDense), false},
		{"whole chain, split", filter("0x0", "latest", topicSpread), true},
		{"earliest to finalized", filter("earliest", "finalized", topicDense), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(seen.logRanges())
			got := call(t, gw, "eth_getLogs", tc.params)
			if n := logs(t, got); n != 10_000 {
				t.Fatalf("got %d logs, want 10000", n)
			}
			direct := call(t, c.url, "eth_getLogs", tc.params)
			if !bytes.Equal(got.Result, direct.Result) {
				t.Fatalf("result differs from the node's own answer (%d vs %d bytes)", len(got.Result), len(direct.Result))
			}
			if calls := len(seen.logRanges()) - before; (calls > 1) != tc.split {
				t.Fatalf("%d eth_getLogs calls upstream, split=%v wanted", calls, tc.split)
			}
		})
	}
}

// TestGetLogsOverLimit: one log more is -32005, with a range starting at
// fromBlock that really returns at most the limit.
func TestGetLogsOverLimit(t *testing.T) {
	c := testChain(t)
	proxy, seen := countingProxy(t, c.url)
	gw := gateway(t, proxy, nil)
	tests := []struct {
		name     string
		params   string
		from, to uint64
		// upstream is the most eth_getLogs calls nodegate may make.
		upstream int
	}{
		{"three blocks, one call", filter(hexn(c.blockA), hexn(c.blockC), topicDense), c.blockA, c.blockB, 1},
		{"0x0 to latest: stops in the first sub-range", filter("0x0", "latest", topicDense), 0, c.blockB, 1},
		{"no topic, earliest to latest", filter("earliest", "latest", nil), 0, c.blockB, 1},
		{"spread logs, from a block with none", `[{"fromBlock":"0x5","topics":[null],"address":"` + c.emitter.Hex() + `","toBlock":"latest"}]`, 5, c.head - 1, 40},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(seen.logRanges())
			e := call(t, gw, "eth_getLogs", tc.params).err(t)
			if e.Code != -32005 || e.Message != "query returned more than 10000 results" {
				t.Fatalf("got %d %q", e.Code, e.Message)
			}
			want := fmt.Sprintf(`{"from":"0x%x","to":"0x%x","limit":10000}`, tc.from, tc.to)
			if string(e.Data) != want {
				t.Fatalf("data %s, want %s", e.Data, want)
			}
			if calls := len(seen.logRanges()) - before; calls > tc.upstream {
				t.Fatalf("%d eth_getLogs calls upstream (%v), want at most %d", calls, seen.logRanges()[before:], tc.upstream)
			}
			// The suggested range, with the same filter, fits.
			var r struct{ From, To string }
			_ = json.Unmarshal(e.Data, &r)
			var p []map[string]any
			_ = json.Unmarshal([]byte(tc.params), &p)
			p[0]["fromBlock"], p[0]["toBlock"] = r.From, r.To
			next, _ := json.Marshal(p)
			if n := logs(t, call(t, gw, "eth_getLogs", string(next))); n > 10_000 || n == 0 {
				t.Fatalf("suggested range returns %d logs", n)
			}
		})
	}
}

// TestGetLogsNoRangeFits: when the first block alone holds more logs than
// the limit, no block range can fit and data says only the limit.
func TestGetLogsNoRangeFits(t *testing.T) {
	c := testChain(t)
	gw := gateway(t, c.url, func(cfg *config.Config) {
		cfg.Limits.Plans = config.PlanLimits{"team": {GetLogsMaxResults: 5000}}
	})
	hash := blockHash(t, c, c.blockA)
	for _, params := range []string{
		fmt.Sprintf(`[{"blockHash":"%s"}]`, hash),
		filter(hexn(c.blockA), hexn(c.blockC), topicDense),
	} {
		e := call(t, gw, "eth_getLogs", params).err(t)
		if e.Code != -32005 || e.Message != "query returned more than 5000 results" || string(e.Data) != `{"limit":5000}` {
			t.Fatalf("%s: got %d %q %s", params, e.Code, e.Message, e.Data)
		}
	}
	// The same block by hash, under the network's limit, is the node's answer.
	gw10k := gateway(t, c.url, nil)
	p := fmt.Sprintf(`[{"blockHash":"%s"}]`, hash)
	if got, direct := call(t, gw10k, "eth_getLogs", p), call(t, c.url, "eth_getLogs", p); !bytes.Equal(got.Result, direct.Result) || logs(t, got) != denseA {
		t.Fatalf("blockHash query differs from the node's answer")
	}
}

func blockHash(t testing.TB, c *chain, n uint64) string {
	t.Helper()
	var b struct{ Hash string }
	if err := json.Unmarshal(call(t, c.url, "eth_getBlockByNumber", fmt.Sprintf(`["0x%x",false]`, n)).Result, &b); err != nil {
		t.Fatal(err)
	}
	return b.Hash
}

// TestGetLogsTagsAndDefaults: tags, defaults and blockHash answer what the
// node answers (results and errors alike), through the split path too.
func TestGetLogsTagsAndDefaults(t *testing.T) {
	c := testChain(t)
	gw := gateway(t, c.url, nil)
	tests := []struct {
		name   string
		params string
		logs   int // -1: an error is expected
	}{
		{"no range is latest..latest", fmt.Sprintf(`[{"topics":["%s"]}]`, topicLast), 5},
		{"toBlock absent", filter(hexn(c.spread[9]), "", nil), 1005},
		{"finalized to safe", filter("finalized", "safe", topicSpread), 5 * spreadLogs},
		{"safe to latest", filter("safe", "latest", topicSpread), 6 * spreadLogs},
		{"earliest to safe, no topic", filter("earliest", "safe", topicSpread), 5 * spreadLogs},
		{"blockHash", fmt.Sprintf(`[{"blockHash":"%s"}]`, blockHash(t, c, c.spread[3])), spreadLogs},
		{"hex range", filter(hexn(c.spread[0]), hexn(c.spread[2]), nil), 3 * spreadLogs},
		{"pending is the node's to answer", filter("pending", "pending", nil), -1},
		{"from after to", filter("0x10", "0x5", nil), -1},
		{"range beyond the head", filter(hexn(c.head-100), hexn(c.head+1000), nil), -1},
		{"unknown block hash", `[{"blockHash":"0x` + strings.Repeat("ab", 32) + `"}]`, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, direct := call(t, gw, "eth_getLogs", tc.params), call(t, c.url, "eth_getLogs", tc.params)
			if tc.logs < 0 {
				if got.Error == nil || !bytes.Equal(got.Error, direct.Error) {
					t.Fatalf("error %s, node says %s", got.Error, direct.Error)
				}
				return
			}
			if n := logs(t, got); n != tc.logs {
				t.Fatalf("%d logs, want %d", n, tc.logs)
			}
			if !bytes.Equal(got.Result, direct.Result) {
				t.Fatalf("result differs from the node's own answer")
			}
		})
	}
}

// TestGetLogsBlockHashWithRange: go-ethereum's -32602, before any node call.
func TestGetLogsBlockHashWithRange(t *testing.T) {
	gw := gateway(t, newLoopbackServer(t, nil), nil) // no node needed: refused at the gateway
	for _, f := range []string{`"fromBlock":"0x1"`, `"toBlock":"latest"`} {
		e := call(t, gw, "eth_getLogs", `[{"blockHash":"0x`+strings.Repeat("01", 32)+`",`+f+`}]`).err(t)
		if e.Code != -32602 || e.Message != "invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other" {
			t.Fatalf("got %d %q", e.Code, e.Message)
		}
	}
}

// TestGetLogsParams: 5,000 parameters pass, 5,001 do not, however they are
// spread over addresses and topic positions; wildcards are not counted.
func TestGetLogsParams(t *testing.T) {
	c := testChain(t)
	gw := gateway(t, c.url, nil)
	hashes := func(n, seed int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf(`"0x%064x"`, seed*100_000+i)
		}
		return "[" + strings.Join(s, ",") + "]"
	}
	addrs := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf(`"0x%040x"`, i+1)
		}
		s[0] = `"` + c.emitter.Hex() + `"`
		return "[" + strings.Join(s, ",") + "]"
	}
	topics := func(sizes ...int) string {
		s := make([]string, len(sizes))
		for i, n := range sizes {
			s[i] = hashes(n, i)
		}
		return "[" + strings.Join(s, ",") + "]"
	}
	rng := fmt.Sprintf(`"fromBlock":"0x%x","toBlock":"0x%x"`, c.blockA, c.blockA)
	tests := []struct {
		name   string
		filter string
		ok     bool
	}{
		{"5000 addresses", `{` + rng + `,"address":` + addrs(5000) + `}`, true},
		{"5001 addresses", `{` + rng + `,"address":` + addrs(5001) + `}`, false},
		{"1000 addresses, 4x1000 topics", `{` + rng + `,"address":` + addrs(1000) + `,"topics":` + topics(1000, 1000, 1000, 1000) + `}`, true},
		{"1001 addresses, 4x1000 topics", `{` + rng + `,"address":` + addrs(1001) + `,"topics":` + topics(1000, 1000, 1000, 1000) + `}`, false},
		{"4999 addresses, wildcard and 1 topic", `{` + rng + `,"address":` + addrs(4999) + `,"topics":[null,"0x` + strings.Repeat("00", 32) + `"]}`, true},
		{"4999 addresses, 2 topics", `{` + rng + `,"address":` + addrs(4999) + `,"topics":[["0x` + strings.Repeat("00", 32) + `"],"0x` + strings.Repeat("00", 32) + `"]}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := call(t, gw, "eth_getLogs", "["+tc.filter+"]")
			if !tc.ok {
				if e := got.err(t); e.Code != -32005 || e.Message != "query exceeds max parameters (5000)" {
					t.Fatalf("got %d %q", e.Code, e.Message)
				}
				return
			}
			direct := call(t, c.url, "eth_getLogs", "["+tc.filter+"]")
			if got.Error != nil || !bytes.Equal(got.Result, direct.Result) {
				t.Fatalf("got %s %.100s, node says %s %.100s", got.Error, got.Result, direct.Error, direct.Result)
			}
		})
	}
}
