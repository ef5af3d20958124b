package jsonrpc

import (
	"encoding/json"
	"testing"
)

func TestNotification(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, result, want string
	}{
		{"object", `{"number":"0x1"}`, `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0xab","result":{"number":"0x1"}}}`},
		{"string", `"0xdead"`, `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0xab","result":"0xdead"}}`},
		{"empty", ``, `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0xab","result":null}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := NewNotification(json.RawMessage(tc.result))
			got := n.AppendTo(nil, "0xab")
			if string(got) != tc.want || n.Len("0xab") != len(tc.want) {
				t.Fatalf("got %s (len %d), want %s", got, n.Len("0xab"), tc.want)
			}
			spliced := append(append(append([]byte(nil), NotificationHead()...), "0xab"...), n.Tail()...)
			if string(spliced) != tc.want {
				t.Fatalf("head+id+tail %s, want %s", spliced, tc.want)
			}
			if !json.Valid(got) {
				t.Fatalf("not JSON: %s", got)
			}
		})
	}
}
