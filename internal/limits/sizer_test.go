package limits

import (
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/plan"
)

func TestSizer(t *testing.T) {
	t.Run("first sub-range", func(t *testing.T) {
		z := newSizer()
		if got := z.next(10_001); got != firstSpan {
			t.Fatalf("got %d", got)
		}
	})
	t.Run("empty stretches grow geometrically up to maxSpan", func(t *testing.T) {
		z := newSizer()
		span := z.next(10_001)
		for range 20 {
			z.observe(span, 0)
			next := z.next(10_001)
			if next != min(span*growth, maxSpan) {
				t.Fatalf("after %d empty blocks: %d", span, next)
			}
			span = next
		}
		if span != maxSpan {
			t.Fatalf("never reached maxSpan: %d", span)
		}
	})
	t.Run("dense: aimed at chunkLogs", func(t *testing.T) {
		z := newSizer()
		z.observe(z.next(10_001), 64*100) // 100 logs a block
		if got := z.next(10_001); got != chunkLogs/100 {
			t.Fatalf("got %d, want %d", got, chunkLogs/100)
		}
	})
	t.Run("near the limit: aimed at what is still wanted", func(t *testing.T) {
		z := newSizer()
		z.observe(z.next(10_001), 64) // 1 log a block
		if got := z.next(3); got != 3 {
			t.Fatalf("got %d, want 3", got)
		}
	})
	t.Run("denser than one block", func(t *testing.T) {
		z := newSizer()
		z.observe(z.next(10_001), 64*20_000)
		if got := z.next(10); got != 1 {
			t.Fatalf("got %d, want 1", got)
		}
	})
	t.Run("sparse: growth is bounded", func(t *testing.T) {
		z := newSizer()
		z.observe(z.next(10_001), 1)
		if got := z.next(10_001); got != firstSpan*growth {
			t.Fatalf("got %d, want %d", got, firstSpan*growth)
		}
	})
}

func TestErrTooManyResults(t *testing.T) {
	if e := ErrTooManyResults(10_000, 0, 0x1f, true); e.Code != -32005 || e.Message != "query returned more than 10000 results" || string(e.Data) != `{"from":"0x0","to":"0x1f","limit":10000}` {
		t.Fatalf("got %d %q %s", e.Code, e.Message, e.Data)
	}
	if e := ErrTooManyResults(5, 7, 6, false); string(e.Data) != `{"limit":5}` {
		t.Fatalf("got %s", e.Data)
	}
	if e := ErrTooManyParams(5000); e.Code != -32005 || e.Message != "query exceeds max parameters (5000)" {
		t.Fatalf("got %d %q", e.Code, e.Message)
	}
	if e := ErrTimeout(); e.Code != -32005 || e.Message != "query timeout exceeded" {
		t.Fatalf("got %d %q", e.Code, e.Message)
	}
}

func TestSet(t *testing.T) {
	s := NewSet(plan.MethodLimits{GetLogsMaxResults: 500})
	plans := map[string]plan.Plan{
		"team":       {Name: "team"},
		"developer":  {Name: "developer", MethodLimits: plan.MethodLimits{GetLogsTimeout: time.Second}},
		"enterprise": {Name: "enterprise", MethodLimits: plan.MethodLimits{GasCapFactor: 50, GetLogsMaxParams: 20_000}},
	}
	tests := []struct {
		plan string
		want Values
	}{
		{"", Values{500, 5000, 10 * time.Second, 10}},
		{"team", Values{500, 5000, 10 * time.Second, 10}},
		{"developer", Values{500, 5000, time.Second, 10}},
		{"enterprise", Values{500, 20_000, 10 * time.Second, 50}},
	}
	for _, tc := range tests {
		if got := s.For(plans[tc.plan].MethodLimits); got != tc.want {
			t.Errorf("plan %q: got %+v, want %+v", tc.plan, got, tc.want)
		}
	}
	if s.MaxGasCapFactor(plans) != 50 {
		t.Errorf("max factor %d", s.MaxGasCapFactor(plans))
	}
	var none *Set
	if none.For(plan.MethodLimits{}) != Spec() || none.MaxGasCapFactor(nil) != 10 {
		t.Errorf("a nil set is not docs/spec.md's")
	}
}

func FuzzParseLogBlock(f *testing.F) {
	for _, s := range []string{`{"blockNumber":"0x10"}`, `{"blockNumber":null}`, `{"blockNumber":"0x"}`, `[]`, `{"BLOCKNUMBER":"0xffffffffffffffff"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		_, _ = parseLogBlock(raw)
		_, _ = parseBlockNumber(raw)
		_, _ = parseQuantity(raw)
	})
}
