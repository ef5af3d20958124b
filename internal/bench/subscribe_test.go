package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// headServer is a WebSocket server that answers eth_subscribe and then
// sends each head, one every interval, to every subscriber, except that
// the second subscriber never gets head 5 and the third gets head 6 twice.
type headServer struct {
	epoch    time.Time // head n is sent at epoch + n×interval
	interval time.Duration
	subs     atomic.Int64
}

func (h *headServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	up := websocket.Upgrader{}
	c, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer c.Close()
	if _, msg, err := c.ReadMessage(); err != nil || !strings.Contains(string(msg), `"eth_subscribe"`) {
		return
	}
	me := h.subs.Add(1)
	if err := c.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"result":"0xabc"}`)); err != nil {
		return
	}
	for num := int(time.Since(h.epoch)/h.interval) + 1; ; num++ {
		time.Sleep(time.Until(h.epoch.Add(time.Duration(num) * h.interval)))
		if me == 2 && num == 5 {
			continue
		}
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0xabc","result":{"parentHash":"0x00","number":"0x%x","hash":"0x01"}}}`, num)
		times := 1
		if me == 3 && num == 6 {
			times = 2
		}
		for range times {
			if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
				return
			}
		}
	}
}

func TestSubscribeCountsSpreadMissedAndDuplicated(t *testing.T) {
	srv := httptest.NewServer(&headServer{epoch: time.Now(), interval: 100 * time.Millisecond})
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	r, err := Subscribe(context.Background(), SubscribeConfig{URL: url, Subscribers: 4, Duration: time.Second,
		Settle: 50 * time.Millisecond, Grace: 300 * time.Millisecond, DialConcurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *r)
	if r.Heads < 8 || r.Heads > 12 {
		t.Fatalf("%d heads measured in 1s of a head every 100ms", r.Heads)
	}
	if r.Complete != r.Heads-1 {
		t.Fatalf("%d of %d heads complete, want all but head 5", r.Complete, r.Heads)
	}
	if r.Missed != 1 || r.Duplicated != 1 {
		t.Fatalf("missed %d, duplicated %d; want 1 and 1", r.Missed, r.Duplicated)
	}
	if r.Spread.Max <= 0 || r.Spread.P50 > r.Spread.Max {
		t.Fatalf("spread %+v", r.Spread)
	}
	if r.Notifications < int64(4*r.Heads-1) {
		t.Fatalf("%d notifications for %d heads to 4 subscribers", r.Notifications, r.Heads)
	}
}

func TestSubscribeRefusedUpgrade(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":"too many WebSocket connections"}}`))
	}))
	defer srv.Close()
	_, err := Subscribe(context.Background(), SubscribeConfig{URL: "ws" + strings.TrimPrefix(srv.URL, "http"), Subscribers: 2, Duration: time.Second})
	if err == nil || !strings.Contains(err.Error(), "HTTP 429") || !strings.Contains(err.Error(), "too many WebSocket connections") {
		t.Fatalf("error %v, want the HTTP status and body", err)
	}
}

func TestParseNotification(t *testing.T) {
	for _, tc := range []struct {
		name, kind, msg string
		unit, block     uint64
		ok              bool
	}{
		{"head", KindNewHeads, `{"params":{"result":{"number":"0x1f","hash":"0x00"}}}`, 0x1f, 0x1f, true},
		{"head without number", KindNewHeads, `{"params":{"result":{"hash":"0x00"}}}`, 0, 0, false},
		{"head bad number", KindNewHeads, `{"params":{"result":{"number":"0xzz"}}}`, 0, 0, false},
		{"log", KindLogs, `{"params":{"result":{"blockNumber":"0x10","logIndex":"0x2"}}}`, 0x10<<20 | 2, 0x10, true},
		{"log without index", KindLogs, `{"params":{"result":{"blockNumber":"0x10"}}}`, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unit, block, ok := newMeter(tc.kind).parse([]byte(tc.msg))
			if ok != tc.ok || ok && (unit != tc.unit || block != tc.block) {
				t.Fatalf("parse = %d %d %v, want %d %d %v", unit, block, ok, tc.unit, tc.block, tc.ok)
			}
		})
	}
}

func FuzzParseNotification(f *testing.F) {
	f.Add([]byte(`{"number":"0x1","blockNumber":"0x2","logIndex":"0x3"}`))
	f.Add([]byte(`"number":"0x`))
	f.Fuzz(func(t *testing.T, msg []byte) {
		for _, kind := range []string{KindNewHeads, KindLogs} {
			_, _, _ = newMeter(kind).parse(msg)
		}
	})
}

func TestParseVmRSS(t *testing.T) {
	for _, tc := range []struct {
		name, status string
		mib          float64
		ok           bool
	}{
		{"present", "Name:\tx\nVmRSS:\t  2048 kB\nVmData: 1 kB\n", 2, true},
		{"missing", "Name:\tx\n", 0, false},
		{"not kB", "VmRSS:\t2048 MB\n", 0, false},
		{"not a number", "VmRSS:\tlots kB\n", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseVmRSS([]byte(tc.status))
			if (err == nil) != tc.ok || got != tc.mib {
				t.Fatalf("parseVmRSS = %v, %v; want %v (ok %v)", got, err, tc.mib, tc.ok)
			}
		})
	}
}

func FuzzParseVmRSS(f *testing.F) {
	f.Add([]byte("VmRSS:\t 1 kB\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := parseVmRSS(b); err == nil && v < 0 {
			t.Fatalf("negative RSS %v", v)
		}
	})
}
