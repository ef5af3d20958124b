package service_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
)

// TestWebSocketNotificationsSpendDailyCredits: each newHeads notification
// costs credits; when the key's daily credits are spent, the connection is
// closed with 1008 and the daily message as its reason.
func TestWebSocketNotificationsSpendDailyCredits(t *testing.T) {
	s := start(t, nil)
	ctx := context.Background()
	daily := int64(5 + 3*10) // the subscribe call (5) and three notifications (10 each)
	created, err := s.KeyManager.Create(ctx, keys.CreateParams{Name: "ws-credits", Plan: config.PlanTeam, Settings: keys.Patch{DailyCredits: &daily}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Keys.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	conn, _, err := websocket.DefaultDialer.Dial(s.WSURL()+"/ws/v3/"+created.Key, http.Header{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, msg, err := conn.ReadMessage(); err != nil || !strings.Contains(string(msg), `"result":"0x`) {
		t.Fatalf("subscribe: %s %v", msg, err)
	}
	notes := 0
	for range 6 {
		if err := s.Node.Commit(); err != nil {
			t.Fatal(err)
		}
		_, msg, err := conn.ReadMessage()
		if err != nil {
			ce, ok := err.(*websocket.CloseError)
			if !ok || ce.Code != websocket.ClosePolicyViolation || ce.Text != "daily request count exceeded, request rate limited" {
				t.Fatalf("after %d notifications: %v, want close 1008 with the daily message", notes, err)
			}
			if notes != 3 {
				t.Fatalf("closed after %d notifications, want 3 (the credits for them)", notes)
			}
			return
		}
		if !strings.Contains(string(msg), `"eth_subscription"`) {
			t.Fatalf("unexpected message %s", msg)
		}
		notes++
	}
	t.Fatalf("%d notifications and no close: the daily credits were not spent", notes)
}
