package ratelimit

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

const testKey = "0123456789abcdef0123456789abcdef"

// keyOn is a config key on a plan with the given limits.
func keyOn(t *testing.T, rate float64, daily int64) *keys.Key {
	t.Helper()
	plans := map[string]keys.Plan{"p": {Name: "p", RatePerSecond: rate, DailyCredits: daily}}
	c, err := keys.NewCache(context.Background(), nil, plans, "p", []string{testKey}, keys.CacheOptions{})
	if err != nil {
		t.Fatal(err)
	}
	k, _ := c.Lookup(testKey)
	return k
}

func calls(ms ...string) []Call {
	out := make([]Call, len(ms))
	for i, m := range ms {
		out[i] = Call{Method: m}
	}
	return out
}

func TestMeterPricesAndRefuses(t *testing.T) {
	n := Network{Name: "mainnet", Methods: methods.NewTable(methods.FamilyEVM)}
	costs := NewCosts(map[string]int{"eth_getLogs": 300, "eth_blockNumber": 0})
	cases := []struct {
		method string
		want   int64
	}{
		{"eth_chainId", 5}, {"eth_call", 80}, {"eth_getTransactionReceipt", 80}, {"eth_estimateGas", 300},
		{"eth_getLogs", 300}, {"eth_blockNumber", 0}, {"eth_somethingNew", 80}, {"debug_traceCall", 80},
	}
	for _, tc := range cases {
		t.Run(tc.method, func(t *testing.T) {
			if got := costs.Of(n.Methods, tc.method); got != tc.want {
				t.Fatalf("cost %d, want %d", got, tc.want)
			}
		})
	}
	lim, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := &Meter{Limiter: lim, Costs: NewCosts(nil)}
	k := keyOn(t, 100, 0)
	batch := calls("eth_call", "eth_chainId", "eth_chainId") // 90 credits
	if e := m.Admit(context.Background(), k, n, batch, 0); e != nil {
		t.Fatalf("first batch refused: %v", e)
	}
	if batch[0].Credits != 80 || batch[1].Credits != 5 {
		t.Fatalf("credits not set on calls: %d %d", batch[0].Credits, batch[1].Credits)
	}
	e := m.Admit(context.Background(), k, n, calls("eth_call"), 0)
	if e == nil {
		t.Fatal("over the rate: admitted")
	}
	if e.Status != http.StatusTooManyRequests || e.Code != -32005 || e.Message != "API key request rate exceeded" || e.Header.Get("Retry-After") != "1" {
		t.Fatalf("refusal = %+v", e)
	}
	var data struct {
		Allowed float64 `json:"allowed_rps"`
		Current float64 `json:"current_rps"`
		Backoff float64 `json:"backoff_seconds"`
	}
	if err := json.Unmarshal(e.Data, &data); err != nil || data.Allowed != 100 || data.Current < 170 || data.Backoff <= 0 || data.Backoff > 1 {
		t.Fatalf("data %s: %+v %v", e.Data, data, err)
	}

	daily := keyOn(t, 0, 100)
	lim2, _ := New(Options{}) // the same config key: a fresh budget
	m2 := &Meter{Limiter: lim2, Costs: NewCosts(nil)}
	if e := m2.Admit(context.Background(), daily, n, calls("eth_call"), 0); e != nil {
		t.Fatal(e)
	}
	e = m2.Admit(context.Background(), daily, n, calls("eth_call"), 0)
	if e == nil || e.Status != 429 || e.Message != "daily request count exceeded, request rate limited" || e.Header.Get("Retry-After") == "" {
		t.Fatalf("daily refusal = %+v", e)
	}
}

// flaky fails its first flushes, then passes them to the store.
type flaky struct {
	fails int
	UsageSink
}

func (f *flaky) AddUsage(ctx context.Context, rows []keys.UsageRow) error {
	if f.fails > 0 {
		f.fails--
		return errors.New("store down")
	}
	return f.UsageSink.AddUsage(ctx, rows)
}

func TestUsageCountsAndSurvivesFailedFlush(t *testing.T) {
	ctx := context.Background()
	store, err := keys.OpenSQLite(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	u := NewUsage(&flaky{fails: 1, UsageSink: store}, time.Hour)
	n := Network{Name: "mainnet", Methods: methods.NewTable(methods.FamilyEVM)}
	lim, _ := New(Options{})
	m := &Meter{Limiter: lim, Costs: NewCosts(nil), Usage: u, now: func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }}
	k := keyOn(t, 0, 0)
	cs := calls("eth_call", "eth_call", "eth_nope", "eth_getLogs")
	if e := m.Admit(ctx, k, n, cs, 0); e != nil {
		t.Fatal(e)
	}
	answers := []*jsonrpc.Response{
		{Result: json.RawMessage(`"0x"`)},
		jsonrpc.ErrorResponse(jsonrpc.DecodeError([]byte(`{"code":3,"message":"execution reverted"}`))),
		jsonrpc.ErrorResponse(jsonrpc.DecodeError([]byte(`{"code":-32601,"message":"the method eth_nope does not exist/is not available"}`))),
		jsonrpc.ErrorResponse(&jsonrpc.Error{Code: -32005, Message: "query returned more than 10000 results"}),
	}
	m.Record(k, n, cs, answers, 1)
	if err := u.Flush(ctx); err == nil {
		t.Fatal("first flush should fail")
	}
	m.Record(k, n, cs[:1], answers[:1], 0) // counted while the store was down
	if err := u.Close(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := store.Usage(ctx, k.ID, "2025-01-02")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]keys.UsageRow{}
	for _, r := range rows {
		got[r.Method] = r
	}
	want := map[string]keys.UsageRow{
		"eth_call":    {Requests: 3, Credits: 240, Errors: keys.UsageErrors{Node: 1}},
		"eth_getLogs": {Requests: 1, Credits: 255, Errors: keys.UsageErrors{Limit: 1}},
		MethodUnknown: {Requests: 1, Credits: 80, Errors: keys.UsageErrors{Invalid: 1}},
		MethodInvalid: {Requests: 1, Credits: 5, Errors: keys.UsageErrors{Invalid: 1}}, // the cheapest method's credits
	}
	if len(got) != len(want) {
		t.Fatalf("rows %+v", rows)
	}
	for method, w := range want {
		g := got[method]
		if g.Requests != w.Requests || g.Credits != w.Credits || g.Errors != w.Errors || g.Network != "mainnet" || g.Day != "2025-01-02" {
			t.Fatalf("%s: got %+v, want %+v", method, g, w)
		}
	}
}
