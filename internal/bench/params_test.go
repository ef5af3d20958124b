package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func defaultTarget() Target {
	return Target{CallTo: DefaultCallTo, CallFrom: DefaultCallFrom, CallData: "0xabcd"}
}

// TestRequestsAreValid: every generated request is valid JSON with the
// expected params, and the hashes of a method's calls are distinct.
func TestRequestsAreValid(t *testing.T) {
	tgt := defaultTarget()
	for _, method := range supportedMethods() {
		t.Run(method, func(t *testing.T) {
			seen := map[string]bool{}
			for n := range uint64(50) {
				b := appendRequest(nil, n+1, method, &tgt, n)
				var req struct {
					JSONRPC string            `json:"jsonrpc"`
					ID      uint64            `json:"id"`
					Method  string            `json:"method"`
					Params  []json.RawMessage `json:"params"`
				}
				if err := json.Unmarshal(b, &req); err != nil {
					t.Fatalf("%s: %v", b, err)
				}
				if req.JSONRPC != "2.0" || req.ID != n+1 || req.Method != method {
					t.Fatalf("envelope %s", b)
				}
				if strings.HasPrefix(method, "eth_getTransaction") {
					h := string(req.Params[0])
					if !hashRe.MatchString(strings.Trim(h, `"`)) || seen[h] {
						t.Fatalf("hash %s is malformed or repeated", h)
					}
					seen[h] = true
				}
				if method == "eth_call" && !strings.Contains(string(b), `"data":"0xabcd"}`) {
					t.Fatalf("call object lost its data: %s", b)
				}
			}
		})
	}
}

func TestHashesFileCycles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.txt")
	h1 := "0x" + strings.Repeat("1", 64)
	h2 := "0x" + strings.Repeat("2", 64)
	if err := os.WriteFile(path, []byte("# seeded\n"+h1+"\n\n"+h2+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hs, err := ReadHashes(path)
	if err != nil {
		t.Fatal(err)
	}
	tgt := defaultTarget()
	tgt.Hashes = hs
	for n, want := range []string{h1, h2, h1} {
		b := hashParams(nil, &tgt, uint64(n))
		if string(b) != `["`+want+`"]` {
			t.Errorf("call %d: %s, want %s", n, b, want)
		}
	}
}

func TestTargetValidate(t *testing.T) {
	cases := []struct {
		name   string
		modify func(*Target)
		ok     bool
	}{
		{"defaults", func(*Target) {}, true},
		{"short address", func(t *Target) { t.CallTo = "0x1234" }, false},
		{"quote in data", func(t *Target) { t.CallData = `0x"` }, false},
		{"odd data", func(t *Target) { t.CallData = "0xabc" }, false},
		{"bad hash", func(t *Target) { t.Hashes = []string{"0x12"} }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tgt := defaultTarget()
			tc.modify(&tgt)
			if err := tgt.Validate(); (err == nil) != tc.ok {
				t.Errorf("Validate() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestReadHashesErrors(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{"empty": "", "not a hash": "0xzz\n"}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadHashes(path); err == nil {
				t.Error("no error")
			}
		})
	}
	if _, err := ReadHashes(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file: no error")
	}
}
