package pipeline

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/limits"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/plan"
	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

func stageNames(stages []Stage) []string {
	out := make([]string, len(stages))
	for i, s := range stages {
		out[i] = s.Name()
	}
	return out
}

// TestFamilyStages: each family's chain, in THE order, with the names the
// traces use (docs/observability.md): the EVM family brings the eth_getLogs,
// filter and gas-cap limits and the execution bounds; the Starknet family
// the pending-transactions stage and none of the EVM limits. A network
// assembled without stages gets the EVM family's (internal/family gives
// every other network its family's).
func TestFamilyStages(t *testing.T) {
	evm := []string{"recoverStage", "methodRules", "allowStage", "getLogsLimits", "filterLimits", "gasCap", "executionLimits", "sessionStage", "blockFirst", "route"}
	sn := []string{"recoverStage", "methodRules", "allowStage", "executionLimits", "pendingTransactions", "sessionStage", "blockFirst", "route"}
	pending, err := starknet.NewPending(upstream.Func{ID: "unused"}, starknet.PendingForward)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		n    *Network
		want []string
	}{
		{"EVM assembled", &Network{Stages: EVM{Limits: limits.NewSet(plan.MethodLimits{}), Execution: admission.New(2)}.Stages()}, evm},
		{"without stages: EVM's", &Network{}, evm},
		{"Starknet assembled", &Network{Stages: Starknet{Pending: pending}.Stages()}, sn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := stageNames(order(tc.n.familyStages(), tc.n.route())); !slices.Equal(got, tc.want) {
				t.Fatalf("stages %v, want %v", got, tc.want)
			}
		})
	}
}

// TestWithLimits: a network given other limits (a reload) enforces them;
// the stages that hold no limits are the network's own, shared.
func TestWithLimits(t *testing.T) {
	var asked atomic.Int64
	n := &Network{Name: "test", Methods: methods.NewTable(methods.FamilyEVM),
		Upstream: upstream.Func{ID: "node", Fn: func(ctx context.Context, body []byte) ([]byte, error) {
			asked.Add(1)
			return []byte(`{"jsonrpc":"2.0","id":1,"result":[]}`), nil
		}},
		Stages: EVM{Limits: limits.NewSet(plan.MethodLimits{GetLogsMaxParams: 2}), Execution: admission.New(1)}.Stages(),
	}
	wider := n.WithLimits(limits.NewSet(plan.MethodLimits{GetLogsMaxParams: 5}))
	// Three addresses, one block: over 2 parameters, within 5.
	params := `[{"fromBlock":"0x1","toBlock":"0x1","address":["0x00000000000000000000000000000000000000a1","0x00000000000000000000000000000000000000a2","0x00000000000000000000000000000000000000a3"]}]`
	p := Build(Options{})
	for _, tc := range []struct {
		name     string
		n        *Network
		wantCode int
	}{
		{"old limits", n, jsonrpc.CodeLimitExceeded},
		{"new limits", wider, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := p.Serve(context.Background(), &Call{Req: jsonrpc.Request{ID: json.RawMessage("1"), Method: "eth_getLogs", Params: json.RawMessage(params)}, Network: tc.n})
			switch {
			case tc.wantCode == 0 && a.Err != nil:
				t.Fatalf("refused: %v", a.Err)
			case tc.wantCode != 0 && (a.Err == nil || a.Err.Code != tc.wantCode || !strings.Contains(a.Err.Message, "param")):
				t.Fatalf("answer %s %v, want code %d", a.Result, a.Err, tc.wantCode)
			}
		})
	}
	if asked.Load() != 1 {
		t.Fatalf("the node was asked %d times, want once (the call within the new limits)", asked.Load())
	}
	if wider.pool() != n.pool() || wider.route() != n.route() || wider.familyStages()[3] != n.familyStages()[3] {
		t.Fatal("the pool, the route and the execution stage must be shared")
	}
}
