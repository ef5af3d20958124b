package evmnode

import (
	"bytes"
	"context"
	"fmt"
	"net/http"

	"github.com/nodegate/nodegate/internal/admission"
)

// Do sends a raw JSON-RPC body (one request or a batch) to the node in
// process and returns the raw response body. No TCP, no re-encoding.
//
// At most Config.MaxConcurrent bodies are served at once: the node runs
// on this process's CPUs and memory, and more at once would only share
// them thinner (an eth_getLogs of a block of large logs takes about five
// times its answer's size while it runs). A body waits for its turn
// within ctx; ctx's end also stops a running eth_call or eth_estimateGas
// (go-ethereum cancels the EVM). A chain past its budget takes no more
// transactions, nor an account past its share of it (chainshare.go: the
// account is the one ctx's call is counted for, admission.AccountOf).
func (n *Node) Do(ctx context.Context, body []byte) ([]byte, error) {
	serve := func(b []byte) ([]byte, error) { return n.do(ctx, b) }
	if out, ok, err := n.budgetWrites(admission.AccountOf(ctx), body, serve); ok {
		return out, err
	}
	return serve(body)
}

func (n *Node) do(ctx context.Context, body []byte) ([]byte, error) {
	select {
	case n.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the embedded node: %w", ctx.Err())
	}
	defer func() { <-n.slots }()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build in-process request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = int64(len(body))
	w := &recorder{header: make(http.Header, 2)}
	n.server.ServeHTTP(w, req)
	if err := ctx.Err(); err != nil {
		// The call's deadline passed while the node ran it: its runs were
		// cancelled (cancel_runs.go), and what a cancelled run answers is
		// not the node's answer (eth_createAccessList gives the access
		// list and gas of a run cut short as if it had ended).
		return nil, fmt.Errorf("embedded node: the call's deadline passed while it ran: %w", err)
	}
	if w.status != 0 && w.status != http.StatusOK {
		return nil, fmt.Errorf("embedded node answered HTTP %d: %s", w.status, bytes.TrimSpace(w.body.Bytes()))
	}
	return w.body.Bytes(), nil
}

// recorder is the smallest http.ResponseWriter that keeps the body.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) { return r.body.Write(p) }

func (r *recorder) Flush() {}
