package testenv

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Post sends body to url as an application/json POST through c
// (http.DefaultClient when nil) and returns the answer's status and body.
// header holds name, value pairs; a "Host" pair sets the request's Host.
// It is for callers that expect a failure or run off the test's goroutine.
func Post(ctx context.Context, c *http.Client, url, body string, header ...string) (int, []byte, error) {
	if len(header)%2 != 0 {
		return 0, nil, fmt.Errorf("post %s: header %q is not name, value pairs", url, header)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("post %s: %w", url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i < len(header); i += 2 {
		if strings.EqualFold(header[i], "Host") {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("post %s: %w", url, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, out, fmt.Errorf("post %s: reading the answer: %w", url, err)
	}
	return resp.StatusCode, out, nil
}

// PostJSON is Post with the default client, failing the test when the
// exchange fails.
func PostJSON(t testing.TB, url, body string, header ...string) (int, []byte) {
	t.Helper()
	status, out, err := Post(context.Background(), nil, url, body, header...)
	if err != nil {
		t.Fatal(err)
	}
	return status, out
}

// RPCBody is a JSON-RPC 2.0 request body with id 1; params is raw JSON
// (an empty string sends []).
func RPCBody(method, params string) string {
	if params == "" {
		params = "[]"
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
}
