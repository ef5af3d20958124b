package devnet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/starknet/starknettest"
	"github.com/nodegate/nodegate/jsonrpc"
)

// batchOf is a batch of addInvokeTransaction requests, one per tx.
func batchOf(txs []string) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, tx := range txs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"starknet_addInvokeTransaction","params":[%s]}`, i, tx)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// answerCodes are the error codes of a batch's answers (0: a result).
func answerCodes(t *testing.T, out []byte) []int {
	t.Helper()
	var rs []rpcResult
	if err := json.Unmarshal(out, &rs); err != nil {
		t.Fatalf("answer %.200s: %v", out, err)
	}
	codes := make([]int, len(rs))
	for i, r := range rs {
		if r.Error != nil {
			codes[i] = r.Error.Code
		}
	}
	return codes
}

// TestFiveMegabyteRequestHashesBoundedWork: a 5 MB request of the
// costliest transactions (INVOKE v1 of 4,096 calldata felts, Pedersen,
// each from a sender of its own so that each would be accepted) sent over
// HTTP at the devnet's defaults hashes at most MaxRequestHashUnits: one
// transaction, not its 18 (about 13 CPU-seconds); the others answer
// -32005 unhashed.
func TestFiveMegabyteRequestHashesBoundedWork(t *testing.T) {
	d := newTestDevnet(t, Config{})
	srv := httptest.NewServer(d.Handler())
	t.Cleanup(srv.Close)
	var txs []string
	for size := 0; ; {
		tx := starknettest.BigV1(len(txs) + 1)
		if size+len(tx)+100 > d.cfg.MaxBodyBytes {
			break
		}
		size += len(tx) + 100
		txs = append(txs, tx)
	}
	body := batchOf(txs)
	t.Logf("request: %d transactions, %d bytes, each costing %d units", len(txs), len(body), 6*(4096+hashFixedFelts))
	resp, err := http.Post(srv.URL, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	codes := answerCodes(t, out)
	accepted, refused := 0, 0
	for _, c := range codes {
		switch c {
		case 0:
			accepted++
		case jsonrpc.CodeLimitExceeded:
			refused++
		default:
			t.Fatalf("answer codes %v", codes)
		}
	}
	hashed, units := d.HashWork()
	t.Logf("accepted %d, refused %d unhashed; hashed %d transactions, %d units", accepted, refused, hashed, units)
	if len(txs) < 15 || accepted != 1 || refused != len(txs)-1 {
		t.Fatalf("%d transactions: %d accepted, %d refused; want 1 and the rest", len(txs), accepted, refused)
	}
	if hashed != 1 || units > int64(d.cfg.MaxRequestHashUnits) {
		t.Fatalf("hashed %d transactions, %d units; want 1, at most %d", hashed, units, d.cfg.MaxRequestHashUnits)
	}
}

// caller is an account's call, as the gateway's context carries it.
type caller string

func (c caller) Account() string { return string(c) }

// TestAccountHashShare: an account that used its share of hashing has its
// next write refused unhashed while another account's write is hashed; a
// write that finds no hashing slot before its deadline is refused
// unhashed and gives its charge back.
func TestAccountHashShare(t *testing.T) {
	v1From := func(sender int) string {
		return strings.Replace(validV1, `"sender_address":"0x123"`, fmt.Sprintf(`"sender_address":"0x%x"`, sender), 1)
	}
	cost := int64(pedersenWeight * (2 + hashFixedFelts)) // validV1 has 2 calldata felts
	send := func(d *Devnet, ctx context.Context, sender int) rpcResult {
		out, err := d.Do(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"starknet_addInvokeTransaction","params":[%s]}`, v1From(sender)))
		if err != nil {
			t.Fatal(err)
		}
		var r rpcResult
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	cases := []struct {
		name string
		run  func(t *testing.T, d *Devnet)
	}{
		{"an account past its share is refused, another is not", func(t *testing.T, d *Devnet) {
			a := admission.WithCaller(context.Background(), caller("account:a"))
			b := admission.WithCaller(context.Background(), caller("account:b"))
			for i := range 5 {
				mustResult(t, send(d, a, 100+i))
			}
			_, before := d.HashWork()
			if r := send(d, a, 200); r.Error == nil || r.Error.Code != jsonrpc.CodeLimitExceeded || !strings.Contains(r.Error.Message, "share of hashing") {
				t.Fatalf("account a past its share: %s %+v, want -32005", r.Result, r.Error)
			}
			if _, after := d.HashWork(); after != before {
				t.Fatalf("the refused write hashed %d units", after-before)
			}
			mustResult(t, send(d, b, 300))
		}},
		{"no slot before the deadline", func(t *testing.T, d *Devnet) {
			for range cap(d.shares.slots) {
				d.shares.slots <- struct{}{}
			}
			ctx, cancel := context.WithTimeout(admission.WithCaller(context.Background(), caller("account:a")), 50*time.Millisecond)
			defer cancel()
			if r := send(d, ctx, 1); r.Error == nil || r.Error.Code != jsonrpc.CodeLimitExceeded || !strings.Contains(r.Error.Message, "slot") {
				t.Fatalf("no slot: %s %+v, want -32005", r.Result, r.Error)
			}
			if hashed, _ := d.HashWork(); hashed != 0 {
				t.Fatalf("%d hashed without a slot", hashed)
			}
			for range cap(d.shares.slots) {
				<-d.shares.slots
			}
			for i := range 5 { // the charge was given back: the whole share is there
				mustResult(t, send(d, admission.WithCaller(context.Background(), caller("account:a")), 10+i))
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Five writes' worth a burst, refilled too slowly to matter.
			tc.run(t, newTestDevnet(t, Config{MaxRequestHashUnits: int(5 * cost), HashUnitsPerSecond: 1}))
		})
	}
}
