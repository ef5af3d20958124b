package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum/rpc"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// InProc is the embedded node: its calls through upstream.Func, its subscriptions on
// its go-ethereum server in process (one in-process client, dialled when
// first needed). There is no connection to share with calls: the node is in
// the same process.
type InProc struct {
	upstream.Func
	srv *rpc.Server

	mu     sync.Mutex
	client *rpc.Client
}

// NewInProc is the embedded node f whose subscriptions run on srv.
func NewInProc(f upstream.Func, srv *rpc.Server) *InProc { return &InProc{Func: f, srv: srv} }

// Subscribe implements Subscriber.
func (n *InProc) Subscribe(ctx context.Context, params json.RawMessage) (*upstream.Subscription, error) {
	var args []json.RawMessage
	if err := json.Unmarshal(params, &args); err != nil || len(args) == 0 {
		return nil, jsonrpc.ErrInvalidParams("eth_subscribe params must be a non-empty array")
	}
	c := n.connection()
	anyArgs := make([]any, len(args))
	for i, a := range args {
		anyArgs[i] = a
	}
	ch := make(chan json.RawMessage, wsSubBuffer)
	cs, err := c.Subscribe(ctx, "eth", ch, anyArgs...)
	if err != nil {
		return nil, n.subscribeError(err)
	}
	s := upstream.NewSubscription(ch, cs.Unsubscribe)
	go func() {
		select {
		case err := <-cs.Err():
			if err == nil {
				err = upstream.ErrSubscriptionEnded
			}
			s.End(&upstream.Error{Upstream: n.ID, Err: err})
		case <-s.Done():
		}
	}()
	return s, nil
}

func (n *InProc) connection() *rpc.Client {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.client == nil {
		n.client = rpc.DialInProc(n.srv)
	}
	return n.client
}

// Drop closes the in-process connection: its subscriptions end with an
// error, as over a dropped network connection, and the next Subscribe dials
// anew.
func (n *InProc) Drop() {
	n.mu.Lock()
	c := n.client
	n.client = nil
	n.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// subscribeError keeps the node's own JSON-RPC error (code, message, data),
// so that a bad filter is answered as the node would answer it.
func (n *InProc) subscribeError(err error) error {
	var re rpc.Error
	if errors.As(err, &re) {
		e := jsonrpc.NewError(re.ErrorCode(), re.Error())
		var de rpc.DataError
		if errors.As(err, &de) {
			if raw, merr := json.Marshal(de.ErrorData()); merr == nil {
				e.Data = raw
			}
		}
		return e
	}
	return &upstream.Error{Upstream: n.ID, Err: fmt.Errorf("eth_subscribe: %w", err)}
}
