package upstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/verify"
)

// TestVerifyMore: a check that asks the member more (the receipts root)
// quarantines a member whose answer disagrees with what it answers to the
// check's call, and the call is answered by another; a member the check
// could not ask has its answer given unconfirmed, not taken for a liar.
func TestVerifyMore(t *testing.T) {
	t.Parallel()
	errMute := errors.New("could not ask")
	// The check asks the member its name: "liar" fails it, "mute" cannot
	// be asked.
	check := func(ctx context.Context, c upstream.Call, result json.RawMessage, ask upstream.Ask) error {
		got, err := ask(ctx, "eth_getCode", json.RawMessage(`["0x01","latest"]`))
		switch {
		case err != nil:
			return err
		case string(got) == `"liar"`:
			return &verify.Failure{Check: verify.CheckReceiptsRoot, Reason: "disagrees"}
		case string(got) == `"mute"`:
			return errMute
		}
		return nil
	}
	cases := []struct {
		name, first     string
		wantWho         string
		wantQuarantined bool
	}{
		{"a member whose answer disagrees is quarantined", "liar", "honest", true},
		{"a member the check cannot ask answers unconfirmed", "mute", "mute", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			first, second := newStallNode(t, tc.first, 0), newStallNode(t, "honest", 0)
			fm, sm := httpMember(t, first.srv.URL), httpMember(t, second.srv.URL)
			fm.Name, sm.Name, sm.Priority = tc.first, "honest", 1
			p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour, Quarantine: time.Hour, VerifyMore: check,
				Hedge: upstream.HedgeConfig{Off: true}}, fm, sm)
			_, who := hedgeSend(t, context.Background(), p, hedgeRule(t, "eth_getBalance"), true, "0x01")
			if who != tc.wantWho {
				t.Fatalf("answered by %s, want %s", who, tc.wantWho)
			}
			st := p.Status()[0]
			if quarantined := st.VerifyFailures == 1 && !st.QuarantinedUntil.IsZero(); quarantined != tc.wantQuarantined {
				t.Fatalf("%s quarantined %v, want %v: %+v", tc.first, quarantined, tc.wantQuarantined, st)
			}
		})
	}
}
