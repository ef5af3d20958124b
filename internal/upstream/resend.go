package upstream

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Writes missed by a member: a signed transaction broadcast (broadcast.go)
// while a member was out of service, or that failed on it as a node fault,
// is sent to that member again once it is back in service, in the order
// the transactions were broadcast (a sender's nonces in order, so none is
// stuck behind a gap), until every member answered it or resendWindow
// passed. A delivery that fails after the broadcast (a member hung
// mid-call fails only at the attempt timeout) counts as much as a member
// out of service: the record is kept until every delivery ended. Any answer of the node ends it for that member: taken, "already
// known", "nonce too low" (mined meanwhile), or a refusal it would give
// again; only a node fault keeps it for the next time.

// resendWindow is how long a broadcast transaction is sent again to the
// members that missed it; maxResends bounds the transactions kept (the
// oldest go first).
const (
	resendWindow = 2 * time.Minute
	maxResends   = 4096
)

// missedTx is a broadcast transaction some members did not get.
type missedTx struct {
	body    []byte
	until   time.Time
	missing []bool // by member index
	// sending counts the broadcast's deliveries still under way: the
	// record is kept while one is, since its member may yet miss it (a
	// member hung mid-call fails only at the attempt timeout).
	sending int
}

// resendBook is a pool's transactions to send again.
type resendBook struct {
	mu  sync.Mutex
	txs []*missedTx
}

// noteBroadcast records a broadcast of body to targets: every other member
// missed it. It returns the record, for delivered (nil: body is kept for
// no one, or the pool keeps no record because it is not started).
func (p *Pool) noteBroadcast(body []byte, targets []*Member) *missedTx {
	if !p.started.Load() {
		return nil
	}
	tx := &missedTx{body: body, until: time.Now().Add(resendWindow), missing: make([]bool, len(p.members)), sending: len(targets)}
	for i, m := range p.members {
		tx.missing[i] = true
		for _, t := range targets {
			if t == m {
				tx.missing[i] = false
			}
		}
	}
	b := &p.resends
	b.mu.Lock()
	defer b.mu.Unlock()
	b.txs = append(b.txs, tx)
	if len(b.txs) > maxResends {
		b.txs = b.txs[len(b.txs)-maxResends:]
	}
	return tx
}

// delivered records that the broadcast's delivery of tx to m ended; missed:
// m did not get it (a node fault), so it is sent again when m can take it.
func (p *Pool) delivered(tx *missedTx, m *Member, missed bool) {
	if tx == nil {
		return
	}
	i := p.index(m)
	b := &p.resends
	b.mu.Lock()
	defer b.mu.Unlock()
	tx.sending--
	if i >= 0 && missed {
		tx.missing[i] = true
	}
}

// resendLoop sends missed transactions to members back in service,
// looking at each change of health or head, until ctx ends.
func (p *Pool) resendLoop(ctx context.Context) {
	for {
		changed := p.Changed()
		p.resendDue(ctx)
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-time.After(p.cfg.ProbeInterval):
		}
	}
}

// resendDue sends each missed transaction, oldest first, to each member in
// service that missed it; it drops those expired or missed by no one.
func (p *Pool) resendDue(ctx context.Context) {
	type due struct {
		tx *missedTx
		i  int
	}
	var work []due
	now := time.Now()
	b := &p.resends
	b.mu.Lock()
	kept := b.txs[:0]
	for _, tx := range b.txs {
		left := false
		for i, miss := range tx.missing {
			if miss {
				left = true
				if p.members[i].InService() {
					work = append(work, due{tx, i})
				}
			}
		}
		if (left || tx.sending > 0) && now.Before(tx.until) {
			kept = append(kept, tx)
		}
	}
	clear(b.txs[len(kept):])
	b.txs = kept
	b.mu.Unlock()
	for _, w := range work {
		m := p.members[w.i]
		actx, cancel := context.WithTimeout(ctx, p.cfg.AttemptTimeout)
		_, err := m.Upstream.Do(actx, w.tx.body)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			slog.Debug("missed transaction not sent again yet", "pool", p.id, "upstream", m.Name(), "err", err)
			continue
		}
		b.mu.Lock()
		w.tx.missing[w.i] = false
		b.mu.Unlock()
	}
}
