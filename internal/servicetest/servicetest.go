package servicetest

import (
	"context"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/service"
)

// Config is the embedded default on loopback, with its own data dir.
func Config(t testing.TB) config.Config { return config.Ephemeral(t.TempDir()) }

// Start starts a service and closes it when the test ends.
func Start(t testing.TB, cfg config.Config) *service.Service {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := service.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("start nodegate: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Close(ctx)
	})
	return s
}
