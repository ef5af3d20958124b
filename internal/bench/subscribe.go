package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
)

// The subscription kinds the subscribe mode measures.
const (
	KindNewHeads = "newHeads"
	KindLogs     = "logs"
)

// SubscribeConfig is one subscription fan-out measurement: Subscribers
// WebSockets each subscribe once to Kind, and every notification's
// arrival is timed.
type SubscribeConfig struct {
	// URL is the WebSocket endpoint, e.g. ws://127.0.0.1:8545/ws/v3/KEY.
	URL         string
	Subscribers int
	// Kind is newHeads or logs; Filter the logs filter object ("" = all).
	Kind   string
	Filter string
	// Duration is the measured time: heads first seen within it count.
	Duration time.Duration
	// Settle is the wait after the last subscription, before measuring
	// (memory settles, the subscriptions' first heads pass).
	Settle time.Duration
	// Grace is how long after Duration the last heads' copies still count.
	Grace time.Duration
	// DialConcurrency bounds the connections being opened at once.
	DialConcurrency int
	// PID, when set, is the server process whose CPU and RSS are read.
	PID int
	// Baseline, with PID, is how long the server's idle CPU (block
	// production, head polls) is measured before the connections open,
	// to report the CPU per notification net of it.
	Baseline time.Duration
}

func (c SubscribeConfig) withDefaults() SubscribeConfig {
	if c.Kind == "" {
		c.Kind = KindNewHeads
	}
	if c.Settle <= 0 {
		c.Settle = 3 * time.Second
	}
	if c.Grace <= 0 {
		c.Grace = 5 * time.Second
	}
	if c.DialConcurrency <= 0 {
		c.DialConcurrency = 64
	}
	return c
}

// SubscribeResult is what a subscribe run measured.
type SubscribeResult struct {
	URL         string  `json:"url"`
	Kind        string  `json:"kind"`
	Subscribers int     `json:"subscribers"`
	Seconds     float64 `json:"seconds"`
	// Heads are the heads (blocks, for logs) first delivered within the
	// measured time; Complete those delivered to every subscriber.
	Heads    int `json:"heads"`
	Complete int `json:"complete"`
	// Spread is, per head, the time from its first subscriber's copy to
	// its last one's, in milliseconds.
	Spread SpreadMs `json:"spread_ms"`
	// Missed are copies of measured heads (logs) a subscriber never got;
	// Duplicated copies a subscriber got twice.
	Missed     int64 `json:"missed"`
	Duplicated int64 `json:"duplicated"`
	// Notifications were received from the start of the measured time to
	// the end of the grace period.
	Notifications int64 `json:"notifications"`
	// Closed are connections that ended during the run; FirstClose says why.
	Closed     int64            `json:"closed"`
	FirstClose string           `json:"first_close,omitempty"`
	ServerCPU  *NotificationCPU `json:"server_cpu,omitempty"`
	ServerRSS  *RSS             `json:"server_rss,omitempty"`
	LoadCPU    NotificationCPU  `json:"load_cpu"`
	LoadRSSMiB float64          `json:"load_rss_mib"`
}

// SpreadMs are percentiles of the first-to-last spread, in milliseconds.
type SpreadMs struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// NotificationCPU is a process's CPU over the measured time and per
// notification received; for the server, also net of its idle CPU
// (IdleCores, measured over Baseline before the connections opened).
type NotificationCPU struct {
	Seconds                  float64 `json:"seconds"`
	MicrosPerNotification    float64 `json:"us_per_notification"`
	IdleCores                float64 `json:"idle_cores,omitempty"`
	NetMicrosPerNotification float64 `json:"net_us_per_notification,omitempty"`
}

// RSS is the server's resident memory before the connections opened,
// once all were subscribed, and at the end; PerSubscriberKiB is the growth
// from before to subscribed, per subscribed socket.
type RSS struct {
	BeforeMiB        float64 `json:"before_mib"`
	SubscribedMiB    float64 `json:"subscribed_mib"`
	EndMiB           float64 `json:"end_mib"`
	PerSubscriberKiB float64 `json:"per_subscriber_kib"`
}

// Subscribe runs one subscription measurement.
func Subscribe(ctx context.Context, cfg SubscribeConfig) (*SubscribeResult, error) {
	cfg = cfg.withDefaults()
	if cfg.URL == "" || cfg.Subscribers <= 0 || cfg.Duration <= 0 {
		return nil, errors.New("subscribe: a URL, subscribers and a duration are required")
	}
	if cfg.Kind != KindNewHeads && cfg.Kind != KindLogs {
		return nil, fmt.Errorf("subscribe: kind %q: want newHeads or logs", cfg.Kind)
	}
	if err := raiseOpenFiles(uint64(cfg.Subscribers) + 1024); err != nil {
		return nil, err
	}
	req := subscribeRequest(cfg)
	res := &SubscribeResult{URL: redactURL(cfg.URL), Kind: cfg.Kind, Subscribers: cfg.Subscribers}
	server := &serverWatch{pid: cfg.PID}
	if err := server.before(ctx, cfg.Baseline); err != nil {
		return nil, err
	}
	m := newMeter(cfg.Kind)
	conns, err := dialAll(ctx, cfg, req, m)
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
	if err := sleep(ctx, cfg.Settle); err != nil {
		return nil, err
	}
	if err := server.subscribed(); err != nil {
		return nil, err
	}
	self0 := selfCPU()
	start := time.Now()
	m.start(start)
	if err := sleep(ctx, cfg.Duration); err != nil {
		return nil, err
	}
	end := time.Now()
	if err := sleep(ctx, cfg.Grace); err != nil {
		return nil, err
	}
	m.stop()
	elapsed := time.Since(start)
	res.Seconds = elapsed.Seconds()
	res.Notifications = m.notes.Load()
	if err := server.after(res, cfg, elapsed); err != nil {
		return nil, err
	}
	self := selfCPU().minus(self0).Total()
	res.LoadCPU = NotificationCPU{Seconds: self.Seconds(), MicrosPerNotification: perNotification(self, res.Notifications)}
	res.LoadRSSMiB, _ = ProcRSSMiB(0)
	m.summarize(res, start, end, cfg.Subscribers)
	return res, nil
}

// perNotification is d spread over notes notifications, in µs (0 without
// any).
func perNotification(d time.Duration, notes int64) float64 {
	if notes == 0 {
		return 0
	}
	return float64(d.Microseconds()) / float64(notes)
}

// serverWatch measures the server process around a run, when its pid is
// known (0: nothing is measured): its resident memory before the
// subscribers, once they are subscribed and at the end, the CPU it used
// while notifications were counted, and the cores it used idle before.
type serverWatch struct {
	pid                      int
	rssBefore, rssSubscribed float64
	idle                     float64
	cpu0                     ProcTimes
}

// before reads the server's memory and, over baseline, its idle cores.
func (w *serverWatch) before(ctx context.Context, baseline time.Duration) (err error) {
	if w.pid == 0 {
		return nil
	}
	if w.rssBefore, err = ProcRSSMiB(w.pid); err != nil {
		return err
	}
	w.idle, err = idleCores(ctx, w.pid, baseline)
	return err
}

// subscribed reads the server's memory with every subscriber in place and
// starts counting its CPU.
func (w *serverWatch) subscribed() (err error) {
	if w.pid == 0 {
		return nil
	}
	w.rssSubscribed, _ = ProcRSSMiB(w.pid)
	w.cpu0, err = ProcCPU(w.pid)
	return err
}

// after puts the server's CPU per notification and its memory in res.
func (w *serverWatch) after(res *SubscribeResult, cfg SubscribeConfig, elapsed time.Duration) error {
	if w.pid == 0 {
		return nil
	}
	cpu1, err := ProcCPU(w.pid)
	if err != nil {
		return err
	}
	used := cpu1.minus(w.cpu0).Total()
	res.ServerCPU = &NotificationCPU{Seconds: used.Seconds(), MicrosPerNotification: perNotification(used, res.Notifications)}
	if cfg.Baseline > 0 {
		res.ServerCPU.IdleCores = w.idle
		res.ServerCPU.NetMicrosPerNotification = perNotification(used-time.Duration(w.idle*float64(elapsed)), res.Notifications)
	}
	rssEnd, _ := ProcRSSMiB(w.pid)
	res.ServerRSS = &RSS{BeforeMiB: w.rssBefore, SubscribedMiB: w.rssSubscribed, EndMiB: rssEnd,
		PerSubscriberKiB: (w.rssSubscribed - w.rssBefore) * 1024 / float64(cfg.Subscribers)}
	return nil
}

// idleCores is the cores pid uses over d (0 when d is 0).
func idleCores(ctx context.Context, pid int, d time.Duration) (float64, error) {
	if d <= 0 {
		return 0, nil
	}
	a, err := ProcCPU(pid)
	if err != nil {
		return 0, err
	}
	t := time.Now()
	if err := sleep(ctx, d); err != nil {
		return 0, err
	}
	b, err := ProcCPU(pid)
	if err != nil {
		return 0, err
	}
	return b.minus(a).Total().Seconds() / time.Since(t).Seconds(), nil
}

func subscribeRequest(cfg SubscribeConfig) []byte {
	params := `["` + cfg.Kind + `"]`
	if cfg.Kind == KindLogs && cfg.Filter != "" {
		params = `["logs",` + cfg.Filter + `]`
	}
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":` + params + `}`)
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// dialAll opens the subscribers, at most DialConcurrency at once, each
// subscribed (its answer read) before its reader starts.
func dialAll(ctx context.Context, cfg SubscribeConfig, req []byte, m *meter) ([]*websocket.Conn, error) {
	d := websocket.Dialer{ReadBufferSize: 1024, WriteBufferSize: 512, HandshakeTimeout: 30 * time.Second}
	conns := make([]*websocket.Conn, cfg.Subscribers)
	sem := make(chan struct{}, cfg.DialConcurrency)
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	for i := range conns {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c, err := subscribeOne(ctx, d, cfg.URL, req)
			if err != nil {
				errOnce.Do(func() { firstErr = fmt.Errorf("subscriber %d: %w", i, err) })
				return
			}
			conns[i] = c
			go m.read(c)
		})
	}
	wg.Wait()
	out := slices.DeleteFunc(conns, func(c *websocket.Conn) bool { return c == nil })
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	return out, firstErr
}

func subscribeOne(ctx context.Context, d websocket.Dialer, url string, req []byte) (*websocket.Conn, error) {
	c, resp, err := d.DialContext(ctx, url, http.Header{})
	if err != nil {
		if resp != nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			return nil, fmt.Errorf("dial: %w (HTTP %d %s)", err, resp.StatusCode, bytes.TrimSpace(body))
		}
		return nil, fmt.Errorf("dial: %w", err)
	}
	if err := c.WriteMessage(websocket.TextMessage, req); err != nil {
		c.Close()
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		_, msg, err := c.ReadMessage()
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("subscribe answer: %w", err)
		}
		if !bytes.Contains(msg, []byte(`"id":1`)) {
			continue // a notification of an earlier subscription cannot come first; skip anything else
		}
		if !bytes.Contains(msg, []byte(`"result":"0x`)) {
			c.Close()
			return nil, fmt.Errorf("subscribe answer: %s", msg)
		}
		_ = c.SetReadDeadline(time.Time{})
		// gorilla's own pong has 1 s to go out and ends the reader when
		// it does not: on a loaded machine that would be counted as the
		// server closing the connection.
		c.SetPingHandler(func(data string) error {
			err := c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(30*time.Second))
			if errors.Is(err, websocket.ErrCloseSent) || errors.Is(err, os.ErrDeadlineExceeded) {
				return nil
			}
			return err
		})
		return c, nil
	}
}

// WriteText prints a subscribe run for people.
func (r *SubscribeResult) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%s\n  %s, %d subscribers, %.1fs\n", r.URL, r.Kind, r.Subscribers, r.Seconds)
	fmt.Fprintf(w, "  heads measured %d, delivered to every subscriber %d\n", r.Heads, r.Complete)
	fmt.Fprintf(w, "  first-to-last spread per head ms: p50 %.1f  p99 %.1f  max %.1f\n", r.Spread.P50, r.Spread.P99, r.Spread.Max)
	fmt.Fprintf(w, "  missed %d, duplicated %d, notifications %d, connections closed %d\n", r.Missed, r.Duplicated, r.Notifications, r.Closed)
	if r.FirstClose != "" {
		fmt.Fprintf(w, "  first close: %s\n", r.FirstClose)
	}
	if c := r.ServerCPU; c != nil {
		fmt.Fprintf(w, "  server cpu: %.2fs, %.2f µs per notification", c.Seconds, c.MicrosPerNotification)
		if c.IdleCores > 0 {
			fmt.Fprintf(w, "; idle %.3f cores, %.2f µs per notification net of it", c.IdleCores, c.NetMicrosPerNotification)
		}
		fmt.Fprintln(w)
	}
	if m := r.ServerRSS; m != nil {
		fmt.Fprintf(w, "  server rss MiB: before %.1f, subscribed %.1f, end %.1f; %.1f KiB per subscribed socket\n", m.BeforeMiB, m.SubscribedMiB, m.EndMiB, m.PerSubscriberKiB)
	}
	fmt.Fprintf(w, "  load generator: cpu %.2fs (%.2f µs per notification), rss %.1f MiB\n", r.LoadCPU.Seconds, r.LoadCPU.MicrosPerNotification, r.LoadRSSMiB)
}

// raiseOpenFiles lifts the soft open-files limit towards need (at most
// the hard limit).
func raiseOpenFiles(need uint64) error {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return fmt.Errorf("open files limit: %w", err)
	}
	if l.Cur >= need {
		return nil
	}
	l.Cur = min(l.Max, need)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return fmt.Errorf("open files limit: %w", err)
	}
	if l.Cur < need {
		return fmt.Errorf("open files limit %d < %d needed (raise the hard limit: ulimit -Hn)", l.Cur, need)
	}
	return nil
}
