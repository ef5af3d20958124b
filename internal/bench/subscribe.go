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
	"strconv"
	"sync"
	"sync/atomic"
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
	var (
		rssBefore float64
		idle      float64
	)
	if cfg.PID != 0 {
		var err error
		if rssBefore, err = ProcRSSMiB(cfg.PID); err != nil {
			return nil, err
		}
		if idle, err = idleCores(ctx, cfg.PID, cfg.Baseline); err != nil {
			return nil, err
		}
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
	var rssSubscribed float64
	if cfg.PID != 0 {
		rssSubscribed, _ = ProcRSSMiB(cfg.PID)
	}
	var cpu0 ProcTimes
	if cfg.PID != 0 {
		if cpu0, err = ProcCPU(cfg.PID); err != nil {
			return nil, err
		}
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
	notes := m.notes.Load()
	res.Notifications = notes
	per := func(d time.Duration) float64 {
		if notes == 0 {
			return 0
		}
		return float64(d.Microseconds()) / float64(notes)
	}
	if cfg.PID != 0 {
		cpu1, err := ProcCPU(cfg.PID)
		if err != nil {
			return nil, err
		}
		used := cpu1.minus(cpu0).Total()
		res.ServerCPU = &NotificationCPU{Seconds: used.Seconds(), MicrosPerNotification: per(used)}
		if cfg.Baseline > 0 {
			res.ServerCPU.IdleCores = idle
			res.ServerCPU.NetMicrosPerNotification = per(used - time.Duration(idle*float64(elapsed)))
		}
		rssEnd, _ := ProcRSSMiB(cfg.PID)
		res.ServerRSS = &RSS{BeforeMiB: rssBefore, SubscribedMiB: rssSubscribed, EndMiB: rssEnd,
			PerSubscriberKiB: (rssSubscribed - rssBefore) * 1024 / float64(cfg.Subscribers)}
	}
	self := selfCPU().minus(self0).Total()
	res.LoadCPU = NotificationCPU{Seconds: self.Seconds(), MicrosPerNotification: per(self)}
	res.LoadRSSMiB, _ = ProcRSSMiB(0)
	m.summarize(res, start, end, cfg.Subscribers)
	return res, nil
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

// meter times every notification received while measuring.
type meter struct {
	kind string
	// recording until stop; from (unix ns, 0 before) starts the
	// notification count of the measured time.
	recording atomic.Bool
	from      atomic.Int64
	notes     atomic.Int64
	dups      atomic.Int64
	closed    atomic.Int64
	firstErr  atomic.Pointer[string]

	mu     sync.Mutex
	units  map[uint64]*unitCount // a head, or a log (block, index)
	blocks map[uint64]*span      // first and last copy of a block's notifications
}

type unitCount struct {
	block uint64
	n     int64
}

type span struct{ first, last time.Time }

func newMeter(kind string) *meter {
	m := &meter{kind: kind, units: map[uint64]*unitCount{}, blocks: map[uint64]*span{}}
	m.recording.Store(true) // every copy is recorded: a head's first copy may precede the measured time
	return m
}

func (m *meter) start(at time.Time) { m.from.Store(at.UnixNano()) }

func (m *meter) stop() { m.recording.Store(false) }

// read reads one subscriber's notifications until its connection ends.
func (m *meter) read(c *websocket.Conn) {
	var (
		buf  bytes.Buffer
		last uint64
		have bool
	)
	for {
		_, r, err := c.NextReader()
		if err != nil {
			if m.recording.Load() {
				m.closed.Add(1)
				s := err.Error()
				m.firstErr.CompareAndSwap(nil, &s)
			}
			return
		}
		buf.Reset()
		if _, err := buf.ReadFrom(r); err != nil {
			continue
		}
		now := time.Now()
		if !m.recording.Load() {
			continue
		}
		unit, block, ok := m.parse(buf.Bytes())
		if !ok {
			continue
		}
		if from := m.from.Load(); from != 0 && now.UnixNano() >= from {
			m.notes.Add(1)
		}
		if have && unit <= last {
			m.dups.Add(1)
			continue
		}
		last, have = unit, true
		m.count(unit, block, now)
	}
}

// parse finds a notification's unit: the head number (newHeads), or the
// block number and log index (logs).
func (m *meter) parse(msg []byte) (unit, block uint64, ok bool) {
	if m.kind == KindNewHeads {
		n, ok := hexField(msg, `"number":"0x`)
		return n, n, ok
	}
	b, ok1 := hexField(msg, `"blockNumber":"0x`)
	i, ok2 := hexField(msg, `"logIndex":"0x`)
	return b<<20 | i&(1<<20-1), b, ok1 && ok2
}

func hexField(msg []byte, key string) (uint64, bool) {
	at := bytes.Index(msg, []byte(key))
	if at < 0 {
		return 0, false
	}
	rest := msg[at+len(key):]
	end := bytes.IndexByte(rest, '"')
	if end <= 0 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(rest[:end]), 16, 64)
	return n, err == nil
}

func (m *meter) count(unit, block uint64, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.units[unit]
	if u == nil {
		u = &unitCount{block: block}
		m.units[unit] = u
	}
	u.n++
	s := m.blocks[block]
	if s == nil {
		m.blocks[block] = &span{first: now, last: now}
		return
	}
	s.last = now
}

// summarize fills res from the blocks first seen in [from, end]: their
// spreads, and the copies of their heads (logs) missing among subscribers.
func (m *meter) summarize(res *SubscribeResult, from, end time.Time, subscribers int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	res.Duplicated = m.dups.Load()
	res.Closed = m.closed.Load()
	if s := m.firstErr.Load(); s != nil {
		res.FirstClose = *s
	}
	measured := map[uint64]bool{}
	var spreads []time.Duration
	for b, s := range m.blocks {
		if s.first.Before(from) || s.first.After(end) {
			continue
		}
		measured[b] = true
		spreads = append(spreads, s.last.Sub(s.first))
	}
	res.Heads = len(spreads)
	complete := map[uint64]bool{}
	for b := range measured {
		complete[b] = true
	}
	for _, u := range m.units {
		if !measured[u.block] {
			continue
		}
		if short := int64(subscribers) - u.n; short > 0 {
			res.Missed += short
			complete[u.block] = false
		}
	}
	for _, ok := range complete {
		if ok {
			res.Complete++
		}
	}
	if len(spreads) == 0 {
		return
	}
	slices.Sort(spreads)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	res.Spread = SpreadMs{P50: ms(percentile(spreads, 0.50)), P99: ms(percentile(spreads, 0.99)), Max: ms(spreads[len(spreads)-1])}
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
