package upstreamtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
)

// HTTPMembers are pool members that reach the test nodes at urls over
// HTTP, in urls' order, with the member's defaults (priority 0, named by
// its upstream).
func HTTPMembers(t testing.TB, urls ...string) []upstream.MemberConfig {
	t.Helper()
	members := make([]upstream.MemberConfig, 0, len(urls))
	for _, u := range urls {
		h, err := transport.NewHTTP(u)
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, upstream.MemberConfig{Upstream: h})
	}
	return members
}

// BlockHash is the hash the fakes give block n of fork f: f in the first
// byte, n in the rest, so that a test reads both from a hash.
func BlockHash(n uint64, f byte) string { return fmt.Sprintf("0x%02x%062x", f, n) }

// Request is one JSON-RPC call as a fake node reads it.
type Request struct {
	ID     json.RawMessage   `json:"id"`
	Method string            `json:"method"`
	Params []json.RawMessage `json:"params"`
}

// ReadRequest reads the one call in r's body.
func ReadRequest(r *http.Request) (Request, error) {
	var req Request
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return req, fmt.Errorf("read a fake node's request: %w", err)
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return req, fmt.Errorf("decode a fake node's request: %w", err)
	}
	return req, nil
}
