package deadline

import (
	"context"
	"testing"
	"time"
)

func TestExpired(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	past, cancelPast := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancelPast()
	future, cancelFuture := context.WithTimeout(context.Background(), time.Hour)
	defer cancelFuture()
	cases := []struct {
		name string
		ctx  context.Context
		want bool
	}{
		{"no deadline", context.Background(), false},
		{"cancelled", cancelled, true},
		{"deadline passed", past, true},
		{"deadline ahead", future, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Expired(tc.ctx); got != tc.want {
				t.Fatalf("Expired = %v, want %v", got, tc.want)
			}
		})
	}
}
