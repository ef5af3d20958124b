package evmnode

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
)

// Do sends a raw JSON-RPC body (one request or a batch) to the node in
// process and returns the raw response body. No TCP, no re-encoding.
func (n *Node) Do(ctx context.Context, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build in-process request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = int64(len(body))
	w := &recorder{header: make(http.Header, 2)}
	n.server.ServeHTTP(w, req)
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
