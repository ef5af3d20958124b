package observe_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/servicetest"
	"github.com/nodegate/nodegate/internal/testenv"
	dto "github.com/prometheus/client_model/go"
)

const adminToken = "observe-test-admin-token"

// start runs the embedded default with a token, a metrics listener and no
// rate limits, edited by edit.
func start(t *testing.T, edit func(*config.Config)) *service.Service {
	t.Helper()
	cfg := servicetest.Config(t)
	cfg.NoStarknet = true
	cfg.Admin.Token = adminToken
	cfg.Metrics.Listen = "127.0.0.1:0"
	cfg.Plans["team"] = config.Plan{Failover: true}
	if edit != nil {
		edit(&cfg)
	}
	return servicetest.Start(t, cfg)
}

// post sends body to /v3/<key> and returns the status and answer.
func post(t *testing.T, url, body string, hdr map[string]string) (int, string) {
	t.Helper()
	var pairs []string
	for k, v := range hdr {
		pairs = append(pairs, k, v)
	}
	status, b := testenv.PostJSON(t, url, body, pairs...)
	return status, string(b)
}

// get fetches url with an optional bearer token.
func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// family gathers one metric family from the service's registry.
func family(t *testing.T, s *service.Service, name string) *dto.MetricFamily {
	t.Helper()
	fams, err := s.Metrics.Gatherer().Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return f
		}
	}
	return nil
}

// value is the value of the series of name whose labels include want
// (summed over the others); -1 when there is none.
func value(t *testing.T, s *service.Service, name string, want map[string]string) float64 {
	t.Helper()
	f := family(t, s, name)
	if f == nil {
		return -1
	}
	total, found := 0.0, false
	for _, m := range f.GetMetric() {
		if !matches(m, want) {
			continue
		}
		found = true
		switch {
		case m.Counter != nil:
			total += m.Counter.GetValue()
		case m.Gauge != nil:
			total += m.Gauge.GetValue()
		case m.Histogram != nil:
			total += float64(m.Histogram.GetSampleCount())
		}
	}
	if !found {
		return -1
	}
	return total
}

func matches(m *dto.Metric, want map[string]string) bool {
	n := 0
	for _, lp := range m.GetLabel() {
		if v, ok := want[lp.GetName()]; ok {
			if v != lp.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(want)
}
