package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
)

// TestSeedThenRun seeds a real embedded dev node over its own HTTP, then
// loads it with the seeded hashes and the view contract: every call must
// answer without an error object.
func TestSeedThenRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	n := evmnodetest.StartHTTP(t)
	// Seal a block every 100 ms as well, so that the test does not depend
	// on how the dev chain seals on demand.
	sealer := time.NewTicker(100 * time.Millisecond)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-sealer.C:
				_ = n.Commit()
			}
		}
	}()
	t.Cleanup(func() { sealer.Stop(); close(stop); <-done })
	url := n.HTTPEndpoint()
	if !strings.HasPrefix(url, "http") {
		url = "http://" + url
	}
	res, err := Seed(ctx, SeedConfig{URL: url, Key: evmnode.DevAccounts(10)[9].Key, Count: 5, Wait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hashes) != 5 {
		t.Fatalf("%d hashes, want 5", len(res.Hashes))
	}
	tgt := defaultTarget()
	tgt.CallTo, tgt.CallData = res.Contract.Hex(), "0x"
	for _, h := range res.Hashes {
		tgt.Hashes = append(tgt.Hashes, h.Hex())
	}
	mix, _ := ParseMix("eth_getTransactionByHash=1,eth_getTransactionReceipt=1,eth_call=1")
	r, err := Run(ctx, Config{URL: url, Mix: mix, Target: tgt, Concurrency: 2, Requests: 30, Batch: 3})
	if err != nil {
		t.Fatal(err)
	}
	if r.Calls != 90 || r.Errors != (Errors{}) {
		t.Errorf("%d calls, errors %+v", r.Calls, r.Errors)
	}
	// A second seed continues from the account's nonce.
	again, err := Seed(ctx, SeedConfig{URL: url, Key: evmnode.DevAccounts(10)[9].Key, Count: 1, Wait: time.Minute})
	if err != nil {
		t.Fatalf("second seed: %v", err)
	}
	if again.Contract == res.Contract {
		t.Errorf("second seed deployed at the same address %s", res.Contract)
	}
}
