package pipeline

import (
	"context"
	"log/slog"
	"runtime/debug"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// recoverCalls turns a panic in any later stage into an internal error for
// that call, so that one bad call never takes down a batch or the process.
func recoverCalls(next Handler) Handler {
	return func(ctx context.Context, c *Call) (resp *jsonrpc.Response) {
		defer func() {
			if r := recover(); r != nil {
				slog.Error("panic while serving a call", "method", methods.Label(c.Req.Method), "panic", r, "stack", string(debug.Stack()))
				resp = jsonrpc.ErrorResponse(jsonrpc.ErrInternal("internal error"))
			}
		}()
		return next(ctx, c)
	}
}
