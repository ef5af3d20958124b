package reorgtest

import (
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// traceEnv, set, makes each client log every latest→block and
// receipt→block mismatch, answer naming an abandoned block after the new branch, and receipt null
// after seen, as it counts it: the calls, how long they took, the tree's
// account of the blocks named (when made, when abandoned, relative to the
// event) and, in a fleet, the replica that gave each answer (HAProxy's
// X-Replica). It is how the causes of those counts were found.
const traceEnv = "NODEGATE_REORG_TRACE"

// lastCall is what a poller knows of its last call.
type lastCall struct {
	call    string // method and params
	replica string // the X-Replica of its answer ("" but in a fleet)
	took    time.Duration
}

// given is a receipt a poller was given: the block it named, when, by
// which replica.
type given struct {
	block   common.Hash
	at      time.Time
	replica string
}

// replicaOf records, on each answer, the replica that gave it (HAProxy's
// X-Replica) in *last: the poller's client sends through it.
type replicaOf struct {
	base http.RoundTripper
	last *string
}

func (r replicaOf) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if err == nil {
		*r.last = resp.Header.Get("X-Replica")
	}
	return resp, err
}

// traceMismatch: a call (firstCall: its replica and how long it took)
// named first, then the block by its number was another; what names the
// pair (latest→block, receipt→block), which started at start.
func (p *Poller) traceMismatch(what string, start time.Time, first common.Hash, firstCall lastCall, byNumber common.Hash) {
	if p.Log == nil {
		return
	}
	p.Log("%s mismatch, pair from %s taking %s: first %s [%s, took %s]; by number %s [%s, took %s]",
		what, start.Format("15:04:05.000"), time.Since(start).Round(10*time.Microsecond),
		p.Tree.Describe(first, start), firstCall.replica, firstCall.took.Round(10*time.Microsecond),
		p.Tree.Describe(byNumber, start), p.last.replica, p.last.took.Round(10*time.Microsecond))
}

// traceWaited: the last call, begun at start, took over waitedAfter.
func (p *Poller) traceWaited(start time.Time) {
	if p.Log == nil {
		return
	}
	p.Log("a call waited: %s [%s] from %s took %s", p.last.call, p.last.replica,
		start.Format("15:04:05.000"), p.last.took.Round(10*time.Microsecond))
}

// traceFlipBack: the last call's answer named hash, of a branch older
// than newest, the newest generation the client had been given.
func (p *Poller) traceFlipBack(hash common.Hash, newest int) {
	if p.Log == nil {
		return
	}
	now := time.Now()
	p.Log("flip-back at %s: %s [%s] took %s and named %s; the client had been given generation %d",
		now.Format("15:04:05.000"), p.last.call, p.last.replica, p.last.took.Round(10*time.Microsecond),
		p.Tree.Describe(hash, now), newest)
}

// traceNull: tx's receipt, in block hash under latest (the head the
// client was given), was answered null after seen.
func (p *Poller) traceNull(tx, hash, latest common.Hash, seen given) {
	if p.Log == nil {
		return
	}
	now := time.Now()
	p.Log("receipt null after seen at %s [%s]: tx %s in %s; given %s before in %s [%s]; latest given %s",
		now.Format("15:04:05.000"), p.last.replica, tx.Hex()[:10], p.Tree.Describe(hash, now),
		now.Sub(seen.at).Round(10*time.Microsecond), p.Tree.Describe(seen.block, now), seen.replica, p.Tree.Describe(latest, now))
}
