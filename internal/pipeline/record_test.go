package pipeline

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// TestSubKeepsTheCall: a copy made by Sub is the call with other params:
// every other field the original's (a field added to Call and not to Sub
// fails here) and the original's record.
func TestSubKeepsTheCall(t *testing.T) {
	c := &Call{
		Req:     jsonrpc.Request{ID: json.RawMessage("7"), Method: "eth_call", Params: json.RawMessage(`[1]`)},
		Key:     &keys.Key{ID: "k"},
		Network: &Network{Name: "n"},
		Rule:    &methods.Rule{Name: "eth_call"},
		Parsed:  methods.Parsed{1},
		Client:  ClientInfo{Transport: "http"},
		Session: nil,
		Pos:     3,
	}
	c.SetCredits(80)
	sub := c.Sub(json.RawMessage(`[2]`))
	if string(sub.Req.Params) != `[2]` || string(c.Req.Params) != `[1]` {
		t.Fatalf("params %s (original %s), want [2] ([1])", sub.Req.Params, c.Req.Params)
	}
	if sub.rec != c.rec || sub.Credits() != 80 {
		t.Fatal("the copy has a record of its own")
	}
	want, got := reflect.ValueOf(c).Elem(), reflect.ValueOf(sub).Elem()
	for i := range want.NumField() {
		f := want.Type().Field(i)
		if !f.IsExported() || f.Name == "Req" {
			continue
		}
		if f.Name != "Session" && want.Field(i).IsZero() {
			t.Fatalf("Call.%s is not set in this test: set it here, and copy it in Sub", f.Name)
		}
		if !reflect.DeepEqual(want.Field(i).Interface(), got.Field(i).Interface()) {
			t.Errorf("Call.%s = %v in the copy, want %v", f.Name, got.Field(i), want.Field(i))
		}
	}
	sub.answered("node-a", true)
	if c.Member() != "node-a" || c.ForwardedTo() != "node-a" {
		t.Fatalf("the original reads member %q, forwarded to %q, want node-a", c.Member(), c.ForwardedTo())
	}
}
