package subs

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/rpc"
)

// Source is one node the hub can subscribe on.
type Source struct {
	// Name identifies the node in logs (no credentials).
	Name string
	// Dial opens a client that supports subscriptions (in-process or WebSocket).
	Dial func(ctx context.Context) (*rpc.Client, error)
}

// InProc is the source of an in-process go-ethereum server (the embedded node).
func InProc(name string, srv *rpc.Server) Source {
	return Source{Name: name, Dial: func(context.Context) (*rpc.Client, error) { return rpc.DialInProc(srv), nil }}
}

// WebSocket is the source of a node reached at a ws:// or wss:// URL.
func WebSocket(name, url string, opts ...rpc.ClientOption) Source {
	return Source{Name: name, Dial: func(ctx context.Context) (*rpc.Client, error) {
		c, err := rpc.DialOptions(ctx, url, opts...)
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", name, err)
		}
		return c, nil
	}}
}
