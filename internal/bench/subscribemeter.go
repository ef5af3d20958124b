package bench

import (
	"bytes"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// The subscribe mode's count of notifications: when each subscriber got
// each unit (a head, a block's logs), and what that spread says.

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
