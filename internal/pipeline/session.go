package pipeline

import (
	"context"
	"encoding/json"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Session is a connection that can receive notifications: it owns the
// caller's subscriptions. The WebSocket ingress provides one per connection.
type Session interface {
	Subscribe(ctx context.Context, params json.RawMessage) (json.RawMessage, *jsonrpc.Error)
	Unsubscribe(ctx context.Context, params json.RawMessage) (json.RawMessage, *jsonrpc.Error)
}

// errNotificationsUnsupported is go-ethereum's own answer to eth_subscribe
// over HTTP, so that client libraries recognise it (-32601).
func errNotificationsUnsupported() *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "notifications not supported")
}

// sessionCalls answers the session methods (eth_subscribe, eth_unsubscribe)
// from the caller's connection. It runs after every policy stage, so a
// subscription obeys the same key, limit and method rules as any call; it
// never reaches a node through the route.
func sessionCalls(next Handler) Handler {
	return func(ctx context.Context, c *Call) *jsonrpc.Response {
		if c.Rule == nil || c.Rule.Session == "" {
			return next(ctx, c)
		}
		if c.Session == nil {
			return jsonrpc.ErrorResponse(errNotificationsUnsupported())
		}
		var (
			res json.RawMessage
			err *jsonrpc.Error
		)
		switch c.Rule.Session {
		case methods.SessionSubscribe:
			res, err = c.Session.Subscribe(ctx, c.Req.Params)
		case methods.SessionUnsubscribe:
			res, err = c.Session.Unsubscribe(ctx, c.Req.Params)
		default:
			err = jsonrpc.ErrMethodNotFound(c.Req.Method)
		}
		if err != nil {
			return jsonrpc.ErrorResponse(err)
		}
		return &jsonrpc.Response{Result: res}
	}
}
