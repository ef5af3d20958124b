package reorgtest

import (
	"fmt"
	"reflect"
	"time"
)

// Counts are what clients found, each against the tree at the moment
// they got the answer. Each client keeps its own; Add sums them.
type Counts struct {
	Answers int64 // answers read (calls answered, notifications)
	Failed  int64 // calls that failed (transport, HTTP or a JSON-RPC error)
	Slow    int64 // calls that took over a second (reported, never asserted)
	// Waited: calls that took over waitedAfter (reported beside the
	// node's, never asserted: a loaded machine makes calls that slow too;
	// one a pool held for a head no member had shows here).
	Waited  int64
	Unknown int64 // answers naming a block the builder never made

	// FlipBacks: answers naming a block abandoned by a fork after the
	// client was given a block of that fork's branch or a later one.
	FlipBacks int64
	// BackwardsHeads: "latest" lower than an earlier "latest" on the same
	// branch (a lagging answer); ReorgBacks: lower on a newer branch (the
	// chain went back to a shorter fork, as a node's does).
	BackwardsHeads int64
	ReorgBacks     int64
	// BlockNumberBacks: eth_blockNumber lower than the answer before
	// (also after a reorg to a shorter chain).
	BlockNumberBacks int64
	// LatestMismatches: block N by number is not the "latest" block N
	// just given; ReceiptMismatches: the block a receipt names is not
	// block N by number just after.
	LatestMismatches  int64
	ReceiptMismatches int64
	// LatestPairs: latest→block pairs asked; LatestPairMicros: the time
	// from each one's first call to its second answer, summed (µs;
	// reported: a mismatch is the chain changing inside that window, so
	// its mean says how often a client can see one).
	LatestPairs      int64
	LatestPairMicros int64
	// SafeBacks, FinalizedBacks: answers of "safe" / "finalized" lower
	// than the highest given before.
	SafeBacks      int64
	FinalizedBacks int64

	// The lagging-pool matrix (matrix.go): a receipt null after the client
	// was given it while its block is still canonical; eth_getLogs of the
	// latest block answered with an error; the latest block's first
	// transaction by number and index null while that block, with
	// transactions, is still canonical.
	NullAfterSeen int64
	LogsErrors    int64
	ByIndexNulls  int64

	// newHeads: heads delivered; gaps (a number skipped), repeats (a
	// hash delivered again), fork heads (a head that does not extend the
	// last one: a node sends one at each reorg), flip-backs.
	Heads         int64
	HeadGaps      int64
	HeadRepeats   int64
	ForkHeads     int64
	HeadFlipBacks int64
	// logs: delivered live, delivered removed, a live log delivered
	// twice, a removal of a log never delivered live, live logs of a
	// block abandoned after the client was given the new branch.
	Logs           int64
	LogsRemoved    int64
	LogRepeats     int64
	LogsRemovedNew int64
	LogFlipBacks   int64
	// SubRefused: subscriptions refused (a pool with no subscription source).
	SubRefused int64

	// After the run, all members on the final chain: live logs of
	// abandoned blocks, canonical logs never delivered; blocks and
	// receipts by number still answered from an abandoned branch.
	LogsLeftLive  int64
	LogsMissing   int64
	StaleBlocks   int64
	StaleReceipts int64

	FirstError string
}

// MeanPair is the mean time of a latest→block pair (0 without one).
func (c Counts) MeanPair() time.Duration {
	if c.LatestPairs == 0 {
		return 0
	}
	return time.Duration(c.LatestPairMicros/c.LatestPairs) * time.Microsecond
}

// Add sums o into c (FirstError: the first one).
func (c *Counts) Add(o Counts) {
	cv, ov := reflect.ValueOf(c).Elem(), reflect.ValueOf(o)
	for i := range cv.NumField() {
		if f := cv.Field(i); f.Kind() == reflect.Int64 {
			f.SetInt(f.Int() + ov.Field(i).Int())
		}
	}
	if c.FirstError == "" {
		c.FirstError = o.FirstError
	}
}

// String is every count by name.
func (c Counts) String() string {
	v, t := reflect.ValueOf(c), reflect.TypeOf(c)
	out := ""
	for i := range v.NumField() {
		if v.Field(i).Kind() == reflect.Int64 {
			out += fmt.Sprintf("%s=%d ", t.Field(i).Name, v.Field(i).Int())
		}
	}
	if c.FirstError != "" {
		out += "first error: " + c.FirstError
	}
	return out
}

func (c *Counts) fail(err error) {
	c.Failed++
	if c.FirstError == "" {
		c.FirstError = err.Error()
	}
}
