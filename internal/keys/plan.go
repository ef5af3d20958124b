package keys

import "time"

// Plan is what a key's plan grants. Plans are defined in the configuration
// (plans:); these are their resolved values.
type Plan struct {
	Name string `json:"name"`
	// RatePerSecond is the sustained credit rate; 0 means unlimited.
	RatePerSecond float64 `json:"rate_per_second"`
	// DailyCredits is the credit budget per UTC day; 0 means unlimited.
	DailyCredits int64 `json:"daily_credits"`
	// Failover allows forwarding eligible methods to a partner provider
	// (docs/spec.md: upper-tier plans only).
	Failover bool `json:"failover"`
	// MaxResponseBytes is one request's answer budget (0: the default,
	// DefaultMaxResponseBytes); see AnswerBudget.
	MaxResponseBytes int64 `json:"max_response_bytes"`
	// MaxInFlight bounds the calls a key has in flight at once on one
	// nodegate process, HTTP and WebSocket together; 0 means unlimited.
	MaxInFlight int `json:"max_in_flight"`
	// CallTimeout bounds one eth_call or eth_estimateGas (0: the default,
	// DefaultCallTimeout); see ExecutionTimeout.
	CallTimeout time.Duration `json:"call_timeout"`
	// MaxWSConnections bounds the key's open WebSockets (per replica); 0
	// means unlimited. Over it, an upgrade answers 429.
	MaxWSConnections int `json:"max_ws_connections"`
	// MaxSubscriptions bounds the key's live eth_subscribe subscriptions
	// across all its WebSockets (per replica); 0 means unlimited. Over it,
	// eth_subscribe answers -32005.
	MaxSubscriptions int `json:"max_subscriptions"`
}

// DefaultMaxResponseBytes is the answer budget of a plan that sets none:
// go-ethereum's batch response limit (node.DefaultConfig's
// BatchResponseMaxSize, 25,000,000 bytes).
const DefaultMaxResponseBytes = 25_000_000

// DefaultCallTimeout is the execution limit of a plan that sets none:
// go-ethereum's own limit on eth_call (its RPCEVMTimeout default).
const DefaultCallTimeout = 5 * time.Second

// AnswerBudget is the plan's per-request answer budget in bytes.
func (p Plan) AnswerBudget() int64 {
	if p.MaxResponseBytes > 0 {
		return p.MaxResponseBytes
	}
	return DefaultMaxResponseBytes
}

// ExecutionTimeout is how long one eth_call or eth_estimateGas of the
// plan may run.
func (p Plan) ExecutionTimeout() time.Duration {
	if p.CallTimeout > 0 {
		return p.CallTimeout
	}
	return DefaultCallTimeout
}
