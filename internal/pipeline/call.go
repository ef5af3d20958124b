package pipeline

import (
	"context"
	"sync/atomic"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Call is one JSON-RPC call on its way through the stages.
type Call struct {
	Req     jsonrpc.Request
	Key     *keys.Key
	Network *Network
	// Rule and Parsed are set by the method-rules stage.
	Rule   *methods.Rule
	Parsed methods.Parsed
	// Client describes the client (for allowlists and logs).
	Client ClientInfo
	// Session is the caller's connection when it can receive notifications
	// (WebSocket); nil on HTTP.
	Session Session
	// Credits is the call's cost, set by the ingress's metering before
	// the call is dispatched.
	Credits int64
	// Pos is the call's place among its request's calls (0 for a call
	// alone), set by the ingress: the access log lists a batch's calls in
	// this order, whatever order they finish in.
	Pos int

	// batch is the call's place in its client batch (collect.go), given by
	// the batch's runner; nil for a call alone.
	batch *token
	// outcome is what the route learned about the call, shared with the
	// copies stages make of it (shareOutcome).
	outcome *outcome
}

// outcome is what the route learns about a call and the caller reads
// after it: the partner that answered, when failover did. A stage that
// passes a copy of the call on (the gas cap, eth_getLogs sub-ranges, the
// filter stage, the block-first probe) shares the original's outcome with
// it first, so that what the route learns on the copy reaches the caller.
type outcome struct {
	forwardedTo atomic.Pointer[string] // sub-ranges may fail over at once
}

// shareOutcome makes c's outcome before c is copied: the copies then
// record into it. It is called before any copy runs concurrently.
func (c *Call) shareOutcome() {
	if c.outcome == nil {
		c.outcome = new(outcome)
	}
}

// forwarded records that partner answered c.
func (c *Call) forwarded(partner string) {
	c.shareOutcome()
	c.outcome.forwardedTo.Store(&partner)
}

// ForwardedTo names the partner that answered, when failover did ("" when
// the network's own nodes or the gateway answered).
func (c *Call) ForwardedTo() string {
	if c.outcome == nil {
		return ""
	}
	if p := c.outcome.forwardedTo.Load(); p != nil {
		return *p
	}
	return ""
}

// ClientInfo is what the transport knows about the caller.
type ClientInfo struct {
	Transport string // "http" or "ws"
	Origin    string
	UserAgent string
	Remote    string
	// BypassAllowlists is set by the ingress when the request carried the
	// key's correct secret and the key lets the secret lift its allowlists.
	// The secret itself is never carried here.
	BypassAllowlists bool
}

// Handler answers a call.
type Handler func(ctx context.Context, c *Call) *jsonrpc.Response

// Stage is one step of the pipeline: a value that holds what it needs (a
// limit set, a gas limiter, a pending-pool reader) and puts its handler in
// front of the stages after it. Which stages a network runs, and in what
// order, is said once, in stages.go and families.go.
type Stage interface {
	// Name names the stage in traces (observe.go): "methodRules", "gasCap".
	Name() string
	// Wrap returns the stage's handler, with next behind it. The pipeline
	// calls it once per network it serves: state the handler keeps (a book
	// of filters) lives as long as that pipeline.
	Wrap(next Handler) Handler
}

// stageFunc is a stage that needs nothing but the call: a named function.
type stageFunc struct {
	name string
	wrap func(next Handler) Handler
}

func (s stageFunc) Name() string              { return s.name }
func (s stageFunc) Wrap(next Handler) Handler { return s.wrap(next) }
