package probes

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/servicetest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// client is the probes' HTTP client: keep-alive, bounded per call.
var client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// answer is one JSON-RPC answer over HTTP.
type answer struct {
	status int
	took   time.Duration
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	err error
}

// ok is an answer with a result.
func (a answer) ok() bool {
	return a.err == nil && a.status == http.StatusOK && a.Error == nil && len(a.Result) > 0
}

func (a answer) String() string {
	switch {
	case a.err != nil:
		return a.err.Error()
	case a.Error != nil:
		return http.StatusText(a.status) + " " + a.Error.Message
	}
	return http.StatusText(a.status) + " " + string(a.Result)
}

// post sends body to url and reads its answer.
func post(ctx context.Context, url, body string) answer {
	start := time.Now()
	status, out, err := testenv.Post(ctx, client, url, body)
	a := answer{status: status, took: time.Since(start), err: err}
	if err == nil && status == http.StatusOK {
		if jerr := json.Unmarshal(out, &a); jerr != nil {
			a.err = jerr
		}
	}
	return a
}

// startService starts nodegate with the test's config edits.
func startService(t *testing.T, edit func(*config.Config)) *service.Service {
	t.Helper()
	cfg := servicetest.Config(t)
	if edit != nil {
		edit(&cfg)
	}
	return servicetest.Start(t, cfg)
}

// newKey makes an operator key on plan.
func newKey(t *testing.T, s *service.Service, name, plan string) string {
	t.Helper()
	c, err := s.KeyManager.Create(context.Background(), keys.CreateParams{Name: name, Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	return c.Key
}

// quantile is the q quantile (0..1) of ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// clip is s cut for a message.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
