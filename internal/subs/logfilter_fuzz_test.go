package subs

import (
	"encoding/json"
	"testing"
)

// FuzzParseBlockLogs: any eth_getLogs answer is read or refused with an
// error, never a panic; each log read is turned into its removed form, as
// JSON that says removed: true.
func FuzzParseBlockLogs(f *testing.F) {
	f.Add([]byte(`[{"address":"0x00000000000000000000000000000000000000aa","topics":["0x01"],"blockNumber":"0x5","removed":false}]`))
	f.Add([]byte(`[{"address":"0xaa","topics":[],"blockNumber":"0x5"}]`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[{"removed" : false}]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		logs, err := parseBlockLogs(raw)
		if err != nil {
			return
		}
		for _, l := range logs {
			out, err := removedLog(l.raw)
			if err != nil {
				continue
			}
			var v struct{ Removed bool }
			if json.Unmarshal(out, &v) == nil && !v.Removed {
				t.Fatalf("removed form of %s is %s", l.raw, out)
			}
		}
	})
}

// FuzzHeaderOf: any block answer gives a header without the block's body,
// or an error.
func FuzzHeaderOf(f *testing.F) {
	f.Add([]byte(`{"number":"0x1","hash":"0x01","parentHash":"0x00","transactions":[],"uncles":[],"size":"0x1"}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[1]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, err := headerOf(raw)
		if err != nil {
			return
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(out, &fields); err != nil {
			t.Fatalf("header %s: %v", out, err)
		}
		for _, k := range blockOnlyFields {
			if _, ok := fields[k]; ok {
				t.Fatalf("header %s keeps %s", out, k)
			}
		}
	})
}
