package pipeline

import (
	"context"

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
	// ForwardedTo names the partner that answered, when failover did.
	ForwardedTo string
	// Session is the caller's connection when it can receive notifications
	// (WebSocket); nil on HTTP.
	Session Session
	// Credits is the call's cost, set by the ingress's metering before
	// the call is dispatched.
	Credits int64
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
