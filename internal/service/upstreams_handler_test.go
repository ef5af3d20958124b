package service

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
)

func TestUpstreamsHandler(t *testing.T) {
	cfg := config.Ephemeral(t.TempDir())
	cfg.Node.ChainDir = chainDir
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	svc, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close(context.Background())

	tests := []struct {
		name   string
		method string
		status int
	}{
		{"get", http.MethodGet, http.StatusOK},
		{"post refused", http.MethodPost, http.StatusMethodNotAllowed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			svc.UpstreamsHandler().ServeHTTP(rec, httptest.NewRequest(tc.method, "/admin/upstreams", nil))
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d", rec.Code, tc.status)
			}
			if tc.status != http.StatusOK {
				return
			}
			var got []networkStatus
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[0].Network != "default" || len(got[0].Upstreams) != 1 || got[1].Network != "starknet" {
				t.Fatalf("unexpected status: %s", rec.Body)
			}
			u := got[0].Upstreams[0]
			if u.Name != "embedded" || !u.Healthy || u.Head != 54 || got[0].BestHead != 54 {
				t.Fatalf("embedded upstream: %+v", u)
			}
		})
	}
}
