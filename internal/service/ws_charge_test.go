package service_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fmt"
	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/ratelimit"
	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestNotificationChargesMatchDeliveries: 40 subscribers of one key on
// newHeads, with the limits in memory and in Redis, usage kept in SQLite.
// After three heads, the usage rows and the key's daily spend equal the
// notifications received, exactly. The budget then pays for 25 more
// notifications: exactly 25 more arrive, across all subscribers, before
// every connection is closed with the daily message; usage and spend
// still match.
func TestNotificationChargesMatchDeliveries(t *testing.T) {
	for _, backend := range []string{"memory", "redis"} {
		t.Run(backend, func(t *testing.T) {
			const subscribers, first, extra, cost = 40, 3, 25, 10
			daily := int64(subscribers*5 + (subscribers*first+extra)*cost) // the eth_subscribe calls (5 each) and the notifications
			s := start(t, func(cfg *config.Config) {
				if backend == "redis" {
					c := redistest.Require(t)
					cfg.RateLimit.RedisURL = "redis://" + redistest.Addr() + "/0"
					cfg.RateLimit.RedisPrefix = redistest.Prefix(t, c)
				}
			})
			if backend == "redis" && !s.Limiter.Shared() {
				t.Fatal("the limiter is not on Redis")
			}
			ctx := context.Background()
			created, err := s.KeyManager.Create(ctx, keys.CreateParams{Name: "charges", Plan: config.PlanTeam, Settings: keys.Patch{DailyCredits: &daily}})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Keys.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
			var got atomic.Int64
			subs := make([]*counter, subscribers)
			for i := range subs {
				subs[i] = subscribeHeads(t, s.WSURL()+"/ws/v3/"+created.Key, &got)
			}
			for range first {
				if err := s.Node.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			testenv.WaitFor(t, 60*time.Second, "every subscriber has its first heads", func() bool { return got.Load() == subscribers*first })
			checkCharged(t, s, created.ID, daily, got.Load())

			// The budget now pays for `extra` notifications, not one more:
			// after each head, every subscriber has it or is closed.
			for head := int64(first + 1); ; head++ {
				if err := s.Node.Commit(); err != nil {
					t.Fatal(err)
				}
				open := 0
				testenv.WaitFor(t, 60*time.Second, "every subscriber has the head or is closed", func() bool {
					open = 0
					for _, c := range subs {
						if c.isClosed() {
							continue
						}
						if c.n.Load() < head {
							return false
						}
						open++
					}
					return true
				})
				if open == 0 {
					break
				}
			}
			if n := got.Load(); n != subscribers*first+extra {
				t.Fatalf("%d notifications, want %d: the budget paid for %d after the first heads", n, subscribers*first+extra, extra)
			}
			for i, c := range subs {
				if c.err != nil {
					t.Fatalf("subscriber %d: %v, want close 1008 with the daily message", i, c.err)
				}
			}
			checkCharged(t, s, created.ID, daily, got.Load())
		})
	}
}

// checkCharged flushes the notification counts and checks that key's
// usage rows and daily spend count exactly notes notifications. A
// notification is counted once its write returns, which may be a moment
// after the client has read it: the check flushes again until the count
// stops short of notes no more (a few seconds at most), then asserts.
func checkCharged(t *testing.T, s *service.Service, keyID string, daily, notes int64) {
	t.Helper()
	ctx := context.Background()
	var row keys.UsageRow
	testenv.WaitFor(t, 10*time.Second, fmt.Sprintf("%d notifications in the usage rows", notes), func() bool {
		s.Notes.Flush(ctx)
		if err := s.Usage.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		rows, err := s.KeyManager.Usage(ctx, keyID, 1)
		if err != nil {
			t.Fatal(err)
		}
		row = keys.UsageRow{}
		for _, r := range rows {
			if r.Method == ratelimit.NotificationMethod {
				row = r
			}
		}
		return row.Requests >= notes
	})
	if row.Requests != notes || row.Credits != notes*10 {
		t.Fatalf("usage %d notifications, %d credits; received %d (%d credits)", row.Requests, row.Credits, notes, notes*10)
	}
	if d := s.Limiter.Take(ctx, keyID, 0, ratelimit.Limits{Daily: daily}, ratelimit.Spend); d.DailyUsed != 40*5+notes*10 {
		t.Fatalf("daily spend %d, want %d (40 subscribe calls and %d notifications)", d.DailyUsed, 40*5+notes*10, notes)
	}
}

// counter is one subscriber that counts its newHeads notifications and
// remembers how its connection ended.
type counter struct {
	n    atomic.Int64
	done chan struct{}
	err  error // nil: closed with 1008 and the daily message
}

func (c *counter) isClosed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func subscribeHeads(t *testing.T, url string, got *atomic.Int64) *counter {
	t.Helper()
	conn, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, msg, err := conn.ReadMessage(); err != nil || !strings.Contains(string(msg), `"result":"0x`) {
		t.Fatalf("subscribe: %s %v", msg, err)
	}
	_ = conn.SetReadDeadline(time.Time{})
	c := &counter{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for {
			_, msg, err := conn.ReadMessage()
			if err != nil {
				var ce *websocket.CloseError
				if !errors.As(err, &ce) || ce.Code != websocket.ClosePolicyViolation || ce.Text != ratelimit.DailyCloseReason {
					c.err = err
				}
				return
			}
			if strings.Contains(string(msg), `"eth_subscription"`) {
				c.n.Add(1)
				got.Add(1)
			}
		}
	}()
	return c
}
