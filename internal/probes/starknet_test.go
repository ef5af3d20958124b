package probes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/starknet/devnet"
	"github.com/nodegate/nodegate/internal/starknet/starknettest"
)

// probeStarknetWrites is probe (f), issue 29's Starknet finding: one key
// sends a 5 MB batch of the costliest writes (INVOKE v1 of 4,096
// calldata felts, each from a sender of its own) to the embedded devnet
// through the gateway. The devnet hashes at most its account's share (a
// burst of MaxRequestHashUnits, one such transaction, and what refilled
// while the request ran) and refuses the others unhashed; another key's write is hashed right after. The rule is
// internal/starknet/devnet's (devnet_hashshare.go;
// TestFiveMegabyteRequestHashesBoundedWork over its own listener).
func probeStarknetWrites(t *testing.T, f *figures) {
	s := startService(t, func(c *config.Config) {
		c.Plans[config.PlanTeam] = config.Plan{} // no rate limits: only the devnet's bound is probed
	})
	url := s.NetworkURL("starknet")
	if url == "" || s.Devnet == nil {
		t.Fatal("the embedded default has no Starknet devnet listener")
	}
	attacker, other := newKey(t, s, "attacker", config.PlanTeam), newKey(t, s, "other", config.PlanTeam)
	var b bytes.Buffer
	b.WriteByte('[')
	n := 0
	for b.Len() < 5<<20-300_000 {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"starknet_addInvokeTransaction","params":[%s]}`, n, starknettest.BigV1(0x1000+n))
	}
	b.WriteByte(']')
	hashed0, units0 := s.Devnet.HashWork()
	start := time.Now()
	resp, err := http.Post(url+"/v3/"+attacker, "application/json", bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	elapsed := time.Since(start)
	var answers []struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &answers); err != nil {
		t.Fatalf("%d %s: %v", resp.StatusCode, clip(string(out)), err)
	}
	accepted, refused := 0, 0
	for _, a := range answers {
		switch {
		case a.Error == nil:
			accepted++
		case a.Error.Code == -32005:
			refused++
		}
	}
	hashed, units := s.Devnet.HashWork()
	hashed, units = hashed-hashed0, units-units0
	o := post(context.Background(), url+"/v3/"+other, `{"jsonrpc":"2.0","id":1,"method":"starknet_addInvokeTransaction","params":[`+
		strings.Replace(starknettest.ValidV1, `"0x123"`, `"0x99"`, 1)+`]}`)
	f.add("f 5 MB Starknet write request", "%d bytes, %d writes in %v: %d accepted, %d refused unhashed; hashed %d transactions, %d units (unbounded: %d units); another key's write: %s",
		b.Len(), n, elapsed.Round(time.Millisecond), accepted, refused, hashed, units, n*6*(4096+16), map[bool]string{true: "accepted", false: "refused"}[o.ok()])
	// The gateway sends each write to the devnet on its own, so what
	// bounds them together is the key's share: its burst, and what it
	// refilled while the request ran.
	bound := int64(devnet.DefaultMaxRequestHashUnits + devnet.DefaultHashUnitsPerSecond*elapsed.Seconds())
	if units > bound || accepted+refused != n {
		t.Fatalf("a 5 MB request of %d writes in %v hashed %d transactions (%d units), want at most the key's share: %d units", n, elapsed, hashed, units, bound)
	}
	if !o.ok() {
		t.Fatalf("another key's write after the flood: %s", o)
	}
}
