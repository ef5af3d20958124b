package service_test

import (
	"bytes"
	"context"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/servicetest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// holdWrites is a proxy to a node that holds each eth_sendRawTransaction
// until released: a member slow to take writes.
func holdWrites(t *testing.T, target string) (proxyURL string, release func()) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte("eth_sendRawTransaction")) {
			<-gate
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(release) // runs first: the held requests end before the server closes
	return srv.URL, release
}

// TestBroadcastCountsInFlight: a key's signed transactions are answered
// by the member that takes them first, and their deliveries to a slow
// member still count among the key's calls in flight: with max_in_flight
// 2, two writes pending at the slow member leave the key no room until
// they end, so that a key cannot pile up writes at a slow node.
func TestBroadcastCountsInFlight(t *testing.T) {
	node := evmnodetest.StartHTTP(t)
	slowURL, release := holdWrites(t, node.HTTPEndpoint())
	cfg := servicetest.Config(t)
	cfg.NoStarknet = true
	cfg.Plans["writer"] = config.Plan{MaxInFlight: 2}
	cfg.Networks = []config.Network{{Name: "mainnet", Family: "evm",
		Upstreams: []config.Upstream{{Name: "fast", URL: node.HTTPEndpoint()}, {Name: "slow", URL: slowURL}},
		Pool:      config.Pool{AttemptTimeout: time.Minute, HeadInterval: 200 * time.Millisecond}}}
	s := servicetest.Start(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	created, err := s.KeyManager.Create(ctx, keys.CreateParams{Name: "sender", Plan: "writer"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Keys.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	endpoint := s.URL() + "/v3/" + created.Key
	from := node.Accounts()[0]
	to := common.HexToAddress("0xaa")
	signer := types.LatestSignerForChainID(new(big.Int).SetUint64(node.ChainID()))
	for nonce := range uint64(2) {
		tx, err := types.SignNewTx(from.Key, signer, &types.DynamicFeeTx{ChainID: signer.ChainID(), Nonce: nonce,
			GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(1e11), Gas: 21000, To: &to, Value: big.NewInt(1)})
		if err != nil {
			t.Fatal(err)
		}
		bin, _ := tx.MarshalBinary()
		if a := testenv.Call(t, endpoint, "eth_sendRawTransaction", `["`+hexutil.Encode(bin)+`"]`); a.Error != nil || a.Status != http.StatusOK {
			t.Fatalf("write %d: HTTP %d %v", nonce, a.Status, a.Error)
		}
	}
	if a := testenv.Call(t, endpoint, "eth_chainId", ""); a.Status != http.StatusTooManyRequests || a.Error == nil || a.Error.Code != -32005 {
		t.Fatalf("with two writes pending at the slow member: HTTP %d %s %v, want 429 -32005 (too many calls in flight)", a.Status, a.Result, a.Error)
	}
	release()
	testenv.WaitFor(t, 20*time.Second, "the key's calls in flight to come back once the slow member took the writes", func() bool {
		return testenv.Call(t, endpoint, "eth_chainId", "").Status == http.StatusOK
	})
}
