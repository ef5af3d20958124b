package faultproxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/jsonrpc"
)

// Config says how a proxy misbehaves. Zero: it passes every call through.
type Config struct {
	// LieEvery: one answer in LieEvery that can be corrupted (Ways) is,
	// each time in the next of the ways that apply to its method.
	LieEvery int64
	// Ways are the corruptions told (default AllWays).
	Ways []string
	// StallEvery: one client call in StallEvery is held for Stall before
	// it is sent on (or until the caller gives up).
	StallEvery int64
	Stall      time.Duration
}

// Proxy is a running proxy.
type Proxy struct {
	URL    string
	target string
	cfg    Config
	client *http.Client

	// Calls counts the client calls seen (not the pool's own: see
	// clientCall); Stalled the calls held.
	Calls, Stalled atomic.Int64
	n              atomic.Int64 // answers that could be corrupted
	mu             sync.Mutex
	lies           map[string]int64           // by way
	last           map[string]json.RawMessage // the last honest result of each method ("another")
}

// Start runs a proxy in front of the node at target until t ends.
func Start(t testing.TB, target string, cfg Config) *Proxy {
	t.Helper()
	if len(cfg.Ways) == 0 {
		cfg.Ways = AllWays
	}
	p := &Proxy{target: target, cfg: cfg, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}},
		lies: map[string]int64{}, last: map[string]json.RawMessage{}}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// Lies are the lies told, by way.
func (p *Proxy) Lies() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int64, len(p.lies))
	for k, v := range p.lies {
		out[k] = v
	}
	return out
}

// Told is how many lies were told, every way together.
func (p *Proxy) Told() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n int64
	for _, v := range p.lies {
		n += v
	}
	return n
}

// clientCall reports whether a call is a client's rather than the pool's
// own (head polls at a tag, the genesis block, the chain id).
func clientCall(method string, params json.RawMessage) bool {
	if method == "eth_chainId" || method == "eth_blockNumber" || method == "net_version" {
		return false
	}
	s := string(params)
	return !strings.Contains(s, `"latest"`) && !strings.Contains(s, `"finalized"`) && !strings.Contains(s, `"safe"`) &&
		!strings.HasPrefix(s, `["0x0",`)
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	single := json.Unmarshal(body, &req) == nil
	client := single && clientCall(req.Method, req.Params)
	if client {
		k := p.Calls.Add(1)
		if p.cfg.StallEvery > 0 && k%p.cfg.StallEvery == 0 {
			p.Stalled.Add(1)
			t := time.NewTimer(p.cfg.Stall)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
	}
	resp, err := p.client.Post(p.target, "application/json", bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if client && p.cfg.LieEvery > 0 {
		out = p.maybeLie(req.Method, out)
	}
	_, _ = w.Write(out)
}

// maybeLie corrupts out, an answer to method, when its turn comes.
func (p *Proxy) maybeLie(method string, out []byte) []byte {
	ways := waysFor(method, p.cfg.Ways)
	id, resp, err := jsonrpc.DecodeResponse(out)
	if len(ways) == 0 || err != nil || resp.Err != nil || string(resp.Result) == "null" || string(resp.Result) == "[]" {
		return out
	}
	p.mu.Lock()
	prev := p.last[method]
	p.last[method] = resp.Result
	p.mu.Unlock()
	k := p.n.Add(1)
	if k%p.cfg.LieEvery != 0 {
		return out
	}
	way := ways[(k/p.cfg.LieEvery)%int64(len(ways))]
	bad := Corrupt(resp.Result, way, prev)
	if bad == nil {
		return out
	}
	p.mu.Lock()
	p.lies[way]++
	p.mu.Unlock()
	return jsonrpc.AppendResponse(nil, id, &jsonrpc.Response{Result: bad})
}
