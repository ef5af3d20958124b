package plan

import "time"

// Plan is what a key's plan grants. The configuration's plans: are decoded
// into it (the yaml names), the key store keeps it as JSON (the json names;
// a field left at 0 by a plan that never set it is written as before, so
// stored plans read the same on older replicas), and a key carries its
// resolved plan. Zero means the default or unlimited, as each field says.
type Plan struct {
	// Name is the plan's name: the key of plans: and of nodegate_plans.
	Name string `yaml:"-" json:"name"`
	// RatePerSecond is the sustained credit rate; 0 means unlimited.
	RatePerSecond float64 `yaml:"rate_per_second" json:"rate_per_second"`
	// DailyCredits is the credit budget per UTC day; 0 means unlimited.
	DailyCredits int64 `yaml:"daily_credits" json:"daily_credits"`
	// Burst is the credits a key may spend at once from a full rate bucket
	// (0: one second's worth of its rate); the rate still bounds what it
	// spends over time. A burst larger than one second's worth lets the
	// calls a client library makes together (a wallet's send) through at
	// once on a low rate. Stored only when set, so that older replicas
	// read the stored plan as before.
	Burst int64 `yaml:"burst" json:"burst,omitempty"`
	// Failover allows forwarding eligible methods to a partner provider
	// (docs/spec.md: upper-tier plans only).
	Failover bool `yaml:"failover" json:"failover"`
	// MaxResponseBytes is one request's answer budget (0: the default,
	// DefaultMaxResponseBytes); see AnswerBudget.
	MaxResponseBytes int64 `yaml:"max_response_bytes" json:"max_response_bytes"`
	// MaxInFlight bounds the calls a key has in flight at once on one
	// nodegate process, HTTP and WebSocket together; 0 means unlimited.
	// This and the other per-key caps are counted once per process, on
	// every listener and across reloads (internal/admission).
	MaxInFlight int `yaml:"max_in_flight" json:"max_in_flight"`
	// CallTimeout bounds one call of a method that runs code (0: the
	// default, DefaultCallTimeout); see ExecutionTimeout.
	CallTimeout time.Duration `yaml:"call_timeout" json:"call_timeout"`
	// MaxWSConnections bounds the key's open WebSockets on one process; 0
	// means unlimited. Over it, an upgrade answers 429.
	MaxWSConnections int `yaml:"max_ws_connections" json:"max_ws_connections"`
	// MaxSubscriptions bounds the key's live eth_subscribe subscriptions
	// across all its WebSockets on one process; 0 means unlimited. Over it,
	// eth_subscribe answers -32005.
	MaxSubscriptions int `yaml:"max_subscriptions" json:"max_subscriptions"`
	// MaxConnections bounds the key's open client connections on one
	// process, HTTP and WebSocket together, once they are keyed (a request
	// on them was admitted and charged, or a WebSocket upgraded); 0 means
	// unlimited. Over it, an HTTP answer closes its connection
	// (Connection: close) and a WebSocket upgrade answers 429. Stored only
	// when set, so that older replicas read the stored plan as before.
	MaxConnections int `yaml:"max_connections" json:"max_connections,omitempty"`
	// MethodLimits are the plan's per-method limits (eth_getLogs, the gas
	// cap); a field left at 0 inherits the network's (limits:).
	MethodLimits `yaml:",inline"`
	// MaxSubscriptionParams bounds the size of the filters of the key's
	// live logs subscriptions together, across all its WebSockets on one
	// process: their addresses and topic values, counted as
	// get_logs_max_params counts one filter's (0: the default,
	// DefaultMaxSubscriptionParams); see SubscriptionParamsBudget. Over
	// it, eth_subscribe answers -32005. A filter's size is what the node
	// keeps and matches every log against, for each subscription.
	MaxSubscriptionParams int `yaml:"max_subscription_params" json:"max_subscription_params,omitempty"`
}

// DefaultMaxResponseBytes is the answer budget of a plan that sets none:
// go-ethereum's batch response limit (node.DefaultConfig's
// BatchResponseMaxSize, 25,000,000 bytes).
const DefaultMaxResponseBytes = 25_000_000

// DefaultMaxSubscriptionParams is the filter budget of a plan that sets
// none: four logs subscriptions at docs/spec.md's 5,000 parameters of one
// filter, or 2,000 of ten addresses each (some 5 MB of the node's memory).
const DefaultMaxSubscriptionParams = 20_000

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

// ExecutionTimeout is how long one call of a method that runs code may
// run under the plan.
func (p Plan) ExecutionTimeout() time.Duration {
	if p.CallTimeout > 0 {
		return p.CallTimeout
	}
	return DefaultCallTimeout
}

// SubscriptionParamsBudget is how many filter parameters the key's live
// logs subscriptions may hold together on one process.
func (p Plan) SubscriptionParamsBudget() int {
	if p.MaxSubscriptionParams > 0 {
		return p.MaxSubscriptionParams
	}
	return DefaultMaxSubscriptionParams
}
