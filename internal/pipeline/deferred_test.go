package pipeline

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzReplaceParam: the element at i becomes v, every other element keeps
// its bytes, and the result is a JSON array whenever params is one.
func FuzzReplaceParam(f *testing.F) {
	for _, s := range []string{`["0xaa","0xzz","latest"]`, `[ 1 , {"a":[2]} ,"x" ]`, `[]`, `[1`, `{}`} {
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, params []byte, i uint8) {
		if !json.Valid(params) {
			return
		}
		out, ok := replaceParam(params, int(i), []byte(`"0x0"`))
		var in []json.RawMessage
		if json.Unmarshal(params, &in) != nil || int(i) >= len(in) {
			if ok {
				t.Fatalf("replaced element %d of %q", i, params)
			}
			return
		}
		var got []json.RawMessage
		if !ok || json.Unmarshal(out, &got) != nil || len(got) != len(in) {
			t.Fatalf("%q -> %q (%v)", params, out, ok)
		}
		for j := range in {
			want := in[j]
			if j == int(i) {
				want = json.RawMessage(`"0x0"`)
			}
			if !bytes.Equal(bytes.TrimSpace(got[j]), bytes.TrimSpace(want)) {
				t.Fatalf("element %d: %s, want %s", j, got[j], want)
			}
		}
	})
}
