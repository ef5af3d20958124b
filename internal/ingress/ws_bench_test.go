package ingress_test

import (
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/ingress"
)

// BenchmarkWebSocketCalls measures eth_chainId through the gateway (auth,
// pipeline, embedded node: gatewaytest's, not a whole service) over 1 and
// 100 connections, each keeping
// a few calls outstanding. It reports calls/s and the p99 latency.
func BenchmarkWebSocketCalls(b *testing.B) {
	g := startOwnGateway(b, ingress.WSLimits{})
	for _, tc := range []struct{ conns, depth int }{{1, 1}, {1, 32}, {100, 1}, {100, 4}} {
		b.Run(fmt.Sprintf("conns=%d/depth=%d", tc.conns, tc.depth), func(b *testing.B) {
			lat := runLoad(b, g.WSURL()+"/ws/v3/"+g.GeneratedKey, tc.conns, tc.depth, b.N)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			b.ReportMetric(float64(p99(lat).Microseconds()), "p99-µs")
		})
	}
}

func p99(lat []time.Duration) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return lat[len(lat)*99/100]
}

// runLoad sends total calls spread over conns connections to url and
// returns each call's latency.
func runLoad(b *testing.B, url string, conns, depth, total int) []time.Duration {
	b.Helper()
	cs := make([]*websocket.Conn, conns)
	for i := range cs {
		c, _, err := websocket.DefaultDialer.Dial(url, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		cs[i] = c
	}
	per := (total + conns - 1) / conns
	var (
		mu  sync.Mutex
		all = make([]time.Duration, 0, total)
		wg  sync.WaitGroup
	)
	b.ResetTimer()
	for _, c := range cs {
		wg.Go(func() {
			lat := oneConn(b, c, depth, per)
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		})
	}
	wg.Wait()
	b.StopTimer()
	return all
}

// oneConn keeps depth calls outstanding on c until n are answered.
func oneConn(b *testing.B, c *websocket.Conn, depth, n int) []time.Duration {
	sent := make([]time.Time, n)
	lat := make([]time.Duration, 0, n)
	slots := make(chan struct{}, depth)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range n {
			_, msg, err := c.ReadMessage()
			if err != nil {
				b.Error(err)
				return
			}
			var id int
			if _, err := fmt.Sscanf(string(msg), `{"jsonrpc":"2.0","id":%d`, &id); err != nil || id >= n {
				b.Errorf("answer %s", msg)
				return
			}
			lat = append(lat, time.Since(sent[id]))
			<-slots
		}
	}()
	for i := range n {
		slots <- struct{}{}
		sent[i] = time.Now()
		if err := c.WriteMessage(websocket.TextMessage, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"eth_chainId","params":[]}`, i)); err != nil {
			b.Error(err)
			break
		}
	}
	<-done
	return lat
}
