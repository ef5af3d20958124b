package starknet_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/internal/starknet/devnet"
	"github.com/nodegate/nodegate/internal/starknet/starknettest"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

func newTestDevnet(t *testing.T, cfg devnet.Config) *devnet.Devnet {
	t.Helper()
	d, err := devnet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// TestPendingDetectsDevnet is TestPendingDetect's rows for the embedded
// devnet run on its own, which speaks 0.10 on its default path and 0.8 at
// /rpc/v0_8: auto reads its block being built, by the tag of each.
func TestPendingDetectsDevnet(t *testing.T) {
	for _, tc := range []struct {
		name, path       string
		wantPreConfirmed bool
	}{{"0.10", "", true}, {"0.8", "/rpc/v0_8", false}} {
		t.Run(tc.name, func(t *testing.T) {
			dev := newTestDevnet(t, devnet.Config{})
			p, err := starknet.NewPending(starknet.StartNode(t, dev.Handler(), tc.path), starknet.PendingAuto)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Detect(context.Background())
			if err != nil || p.Mode() != starknet.PendingFromBlock || starknet.PreConfirmed(p) != tc.wantPreConfirmed {
				t.Fatalf("Detect: %v, mode %s, pre_confirmed %v", err, p.Mode(), starknet.PreConfirmed(p))
			}
		})
	}
}

// TestPendingOverDevnet: the pending-pool reader in front of the embedded
// devnet answers rollup_pendingTransactions with the docs/spec.md objects of
// real transactions, in both versions it speaks. auto reads its block
// being built (pre_confirmed on 0.10, pending on 0.8); forward uses its
// starknet_pendingTransactions extension. All give the same objects.
func TestPendingOverDevnet(t *testing.T) {
	for _, version := range []string{"0.10", "0.8"} {
		for _, tc := range []struct {
			mode, want starknet.PendingMode
		}{{starknet.PendingAuto, starknet.PendingFromBlock}, {starknet.PendingForward, starknet.PendingForward}} {
			t.Run(version+"/"+string(tc.mode), func(t *testing.T) { testPendingOverDevnet(t, version, tc.mode, tc.want) })
		}
	}
}

func testPendingOverDevnet(t *testing.T, version string, mode, wantMode starknet.PendingMode) {
	dev := newTestDevnet(t, devnet.Config{ChainID: "SN_MAIN"})
	do := dev.Do
	if version == "0.8" {
		do = dev.Do08
	}
	p, err := starknet.NewPending(upstream.Func{ID: "embedded-starknet", Fn: do}, mode)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	hashes, _ := starknettest.SubmitMainnetVectors(t, func(tx string) string {
		out, err := dev.Do(ctx, jsonrpc.AppendRequest(nil, 3, "starknet_addInvokeTransaction", json.RawMessage("["+tx+"]")))
		if err != nil {
			t.Fatal(err)
		}
		_, resp, err := jsonrpc.DecodeResponse(out)
		if err != nil || resp.Err != nil {
			t.Fatalf("add %s: %s %v", tx, out, err)
		}
		return string(resp.Result)
	})
	res, e := p.Serve(ctx, starknet.MethodRollupPending, json.RawMessage("[]"))
	if e != nil {
		t.Fatal(e)
	}
	var objs []map[string]json.RawMessage
	if err := json.Unmarshal(res, &objs); err != nil || len(objs) != len(hashes) {
		t.Fatalf("%d objects (%v): %s", len(objs), err, res)
	}
	for i, o := range objs {
		starknet.CheckPendingObject(t, o)
		if starknettest.Unquote(t, o["transaction_hash"]) != hashes[i] {
			t.Fatalf("object %d hash %s", i, o["transaction_hash"])
		}
	}
	if p.Mode() != wantMode {
		t.Fatalf("mode %s against the %s devnet, want %s", p.Mode(), version, wantMode)
	}
	if _, e := p.Serve(ctx, starknet.MethodRollupPending, json.RawMessage(`[1]`)); e == nil || e.Code != -32602 {
		t.Fatalf("params: %v", e)
	}
}
