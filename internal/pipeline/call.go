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

// Stage wraps the handler that follows it.
type Stage func(next Handler) Handler
