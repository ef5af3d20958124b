package pipeline

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// batchingNetwork is a network whose pool takes upstream batches; its node
// is never asked (the collector's forward is the test's).
func batchingNetwork(name string) *Network {
	node := upstream.Func{ID: name, Fn: func(context.Context, []byte) ([]byte, error) { panic("not asked") }}
	return &Network{Name: name, Pool: upstream.NewPool(name, upstream.PoolConfig{}, upstream.MemberConfig{Upstream: node, BatchSize: 10})}
}

// TestCollector drives one batch's collector step by step, as the runner
// (start, idle) and the calls at the route (collect, release) do, and
// checks which upstream batches are sent and which calls go alone.
func TestCollector(t *testing.T) {
	idempotent := &methods.Rule{Idempotent: true}
	write := &methods.Rule{}
	n1, n2 := batchingNetwork("n1"), batchingNetwork("n2")
	type step struct {
		op   string // start, collect, release, idle, backstop, waiting (the count of calls waiting)
		call string
		n    int
	}
	tests := []struct {
		name  string
		calls map[string]*Call
		steps []step
		sent  []string // upstream batches, as the calls' methods joined by +
		alone []string // calls the batch did not answer: sent alone
	}{
		{
			name:  "the calls at the route go together once the runner waits",
			calls: map[string]*Call{"a": {Network: n1, Rule: idempotent}, "b": {Network: n1, Rule: idempotent}},
			steps: []step{{op: "start", call: "a"}, {op: "start", call: "b"}, {op: "collect", call: "a"}, {op: "collect", call: "b"},
				{op: "waiting", n: 2}, {op: "idle"}},
			sent: []string{"a+b"},
		},
		{
			name:  "a running call holds the batch until it leaves",
			calls: map[string]*Call{"a": {Network: n1, Rule: idempotent}, "b": {Network: n1, Rule: idempotent}, "c": {Network: n1, Rule: idempotent}},
			steps: []step{{op: "start", call: "a"}, {op: "start", call: "b"}, {op: "start", call: "c"}, {op: "idle"},
				{op: "collect", call: "a"}, {op: "collect", call: "b"}, {op: "waiting", n: 2}, {op: "release", call: "c"}},
			sent: []string{"a+b"},
		},
		{
			name:  "a call started later holds the batch again",
			calls: map[string]*Call{"a": {Network: n1, Rule: idempotent}, "b": {Network: n1, Rule: idempotent}, "c": {Network: n1, Rule: idempotent}},
			steps: []step{{op: "start", call: "a"}, {op: "start", call: "b"}, {op: "collect", call: "a"}, {op: "start", call: "c"},
				{op: "idle"}, {op: "collect", call: "b"}, {op: "waiting", n: 2}, {op: "collect", call: "c"}},
			sent: []string{"a+b+c"},
		},
		{
			name:  "a call alone at the route goes alone",
			calls: map[string]*Call{"a": {Network: n1, Rule: idempotent}, "b": {Network: n1, Rule: idempotent}},
			steps: []step{{op: "start", call: "a"}, {op: "start", call: "b"}, {op: "idle"}, {op: "collect", call: "a"}, {op: "release", call: "b"}},
			alone: []string{"a"},
		},
		{
			name:  "a write does not wait",
			calls: map[string]*Call{"a": {Network: n1, Rule: idempotent}, "w": {Network: n1, Rule: write}, "b": {Network: n1, Rule: idempotent}},
			steps: []step{{op: "start", call: "a"}, {op: "start", call: "w"}, {op: "start", call: "b"}, {op: "idle"},
				{op: "collect", call: "w"}, {op: "collect", call: "a"}, {op: "collect", call: "b"}},
			sent:  []string{"a+b"},
			alone: []string{"w"},
		},
		{
			name:  "one upstream batch per network",
			calls: map[string]*Call{"a": {Network: n1, Rule: idempotent}, "b": {Network: n1, Rule: idempotent}, "x": {Network: n2, Rule: idempotent}, "y": {Network: n2, Rule: idempotent}},
			steps: []step{{op: "start", call: "a"}, {op: "start", call: "x"}, {op: "start", call: "b"}, {op: "start", call: "y"}, {op: "idle"},
				{op: "collect", call: "a"}, {op: "collect", call: "b"}, {op: "collect", call: "x"}, {op: "collect", call: "y"}},
			sent: []string{"a+b", "x+y"},
		},
		{
			name:  "the backstop sends what waits while a call still runs",
			calls: map[string]*Call{"a": {Network: n1, Rule: idempotent}, "b": {Network: n1, Rule: idempotent}, "slow": {Network: n1, Rule: idempotent}},
			steps: []step{{op: "start", call: "a"}, {op: "start", call: "b"}, {op: "start", call: "slow"}, {op: "idle"},
				{op: "collect", call: "a"}, {op: "collect", call: "b"}, {op: "waiting", n: 2}, {op: "backstop"}},
			sent: []string{"a+b"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sent := make(chan string, 8)
			col := newCollector(context.Background())
			col.backstopAfter = time.Hour // the steps say when it fires
			col.forward = func(_ context.Context, _ *Network, calls []upstream.BatchCall) []upstream.BatchAnswer {
				names := make([]string, len(calls))
				out := make([]upstream.BatchAnswer, len(calls))
				for i, c := range calls {
					names[i] = c.Method
					out[i].Resp = &jsonrpc.Response{Result: []byte(`"` + c.Method + `"`)}
				}
				sent <- strings.Join(names, "+")
				return out
			}
			tokens := map[string]*token{}
			type collected struct {
				call   string
				answer *jsonrpc.Response
			}
			done := make(chan collected, len(tc.calls))
			collecting := 0
			for _, s := range tc.steps {
				switch s.op {
				case "start":
					tokens[s.call] = col.start()
				case "idle":
					col.wait()
				case "backstop":
					col.backstop()
				case "release":
					tokens[s.call].release()
				case "collect":
					c := tc.calls[s.call]
					c.Req.Method = s.call
					collecting++
					go func(name string, t *token) {
						resp, _, _ := t.collect(c)
						done <- collected{name, resp}
					}(s.call, tokens[s.call])
					testenv.WaitFor(t, 10*time.Second, s.call+" at the route", func() bool {
						col.mu.Lock()
						defer col.mu.Unlock()
						return tokens[s.call].state != tokenRunning
					})
				case "waiting":
					col.mu.Lock()
					got := len(col.waiting)
					col.mu.Unlock()
					if got != s.n {
						t.Fatalf("%d calls waiting, want %d", got, s.n)
					}
				}
			}
			var alone []string
			for range collecting {
				select {
				case c := <-done:
					switch {
					case c.answer == nil:
						alone = append(alone, c.call)
					case string(c.answer.Result) != `"`+c.call+`"`:
						t.Fatalf("%s answered %s", c.call, c.answer.Result)
					}
				case <-time.After(30 * time.Second):
					t.Fatal("a call still waits at the route")
				}
			}
			close(sent)
			var batches []string
			for b := range sent {
				batches = append(batches, b)
			}
			slices.Sort(batches)
			slices.Sort(alone)
			if !slices.Equal(batches, tc.sent) || !slices.Equal(alone, tc.alone) {
				t.Fatalf("sent %q and alone %q, want %q and %q", batches, alone, tc.sent, tc.alone)
			}
		})
	}
}
