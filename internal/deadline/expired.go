package deadline

import (
	"context"
	"time"
)

// Expired reports whether ctx is done or its deadline has passed. A
// connection deadline set from ctx fires at the same instant as ctx's own
// timer, often a little before it: an i/o timeout at the deadline is the
// caller's time running out, not the node's fault.
func Expired(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}
