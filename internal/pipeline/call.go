package pipeline

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Call is one JSON-RPC call on its way through the stages.
//
// What is learnt about a client call on its way (its credits, its place in
// its client batch, the member that answered it) is its record, one per
// client call: a stage that passes the call on changed makes the copy with
// Sub, and the copy shares the original's record, so what the route learns
// on the copy is the caller's without anything to hand back. A Call holds
// its record by value (no allocation per call) and must not be copied but
// by Sub (go vet's copylocks refuses a copy of one).
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
	// Pos is the call's place among its request's calls (0 for a call
	// alone), set by the ingress: the access log lists a batch's calls in
	// this order, whatever order they finish in.
	Pos int

	// rec is the call's record: own for a call the ingress (or Read) made,
	// the original's for a copy (Sub).
	rec *record
	own record
}

// record is what is learnt about one client call, kept once for the call
// and every copy of it (Call.Sub).
type record struct {
	// credits is what the ingress's metering priced the call at, before
	// it is dispatched (SetCredits).
	credits int64
	// batch is the call's place in its client batch (collect.go), given by
	// the batch's runner before the call starts; nil for a call alone.
	batch *token

	// took is how long the pipeline took to answer the call (a
	// time.Duration; 0 before it answered): the usage analytics count it.
	took atomic.Int64

	// mu guards who answered: a copy may still reach the route after its
	// caller stopped waiting for it (executionLimits.run).
	mu      sync.Mutex
	member  string // the member that answered, of the network's pool or its partners
	partner bool   // member is a partner's: failover answered
}

// record is c's record, made c's own on first use: the pipeline takes
// it before any stage runs (Pipeline.Serve), so that it exists before a
// copy is made or a goroutine started.
func (c *Call) record() *record {
	if c.rec == nil {
		c.rec = &c.own
	}
	return c.rec
}

// Sub is a copy of c with other params, for a stage that passes the call
// on changed (the gas cap, a sub-range of eth_getLogs, the block-first
// probe): the same method, rule, key, client and decoded params (the
// stage sets what it decoded of the new ones), and c's record.
func (c *Call) Sub(params json.RawMessage) *Call {
	req := c.Req
	req.Params = params
	return &Call{Req: req, Key: c.Key, Network: c.Network, Rule: c.Rule, Parsed: c.Parsed,
		Client: c.Client, Session: c.Session, Pos: c.Pos, rec: c.record()}
}

// Account is who the call is counted for where the process shares a thing
// between accounts (admission.Account): it makes c an admission.Caller.
func (c *Call) Account() string { return admission.Account(c.Key, c.Client.Remote) }

// leaveBatch takes the call out of its client batch once the batch has
// answered it: a stage that sends it again (the gas cap's resend within
// the node's cap) sends it alone.
func (c *Call) leaveBatch() { c.record().batch = nil }

// SetCredits records what the ingress's metering priced the call at.
func (c *Call) SetCredits(n int64) { c.record().credits = n }

// Credits is what the ingress's metering priced the call at (0 before).
func (c *Call) Credits() int64 { return c.record().credits }

// Took is how long the pipeline took to answer c (0 before it did).
func (c *Call) Took() time.Duration { return time.Duration(c.record().took.Load()) }

// answered records that member answered c (of the network's partners when
// partner is set).
func (c *Call) answered(member string, partner bool) {
	r := c.record()
	r.mu.Lock()
	r.member, r.partner = member, partner
	r.mu.Unlock()
}

// Member names the member that answered the call: a node of the
// network's pool, or a partner's when failover did ("" when the gateway
// answered, or no node did).
func (c *Call) Member() string {
	r := c.record()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.member
}

// ForwardedTo names the partner that answered, when failover did ("" when
// the network's own nodes or the gateway answered).
func (c *Call) ForwardedTo() string {
	r := c.record()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.partner {
		return ""
	}
	return r.member
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
	// Narrow is what the request's token (a JSON Web Token checked by the
	// key) leaves of the key's method and contract allowlists; nil: none.
	Narrow *keys.Narrowing
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
