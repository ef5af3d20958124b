package keys

import "github.com/nodegate/nodegate/internal/plan"

// Plan is what a key's plan grants: the one plan type, internal/plan's.
// The key store keeps it as JSON (plans_store.go) and a key carries it
// resolved (Key.Plan).
type Plan = plan.Plan
