package evmnode

import (
	"context"
	"errors"

	"github.com/ethereum/go-ethereum/core"
)

// SubscribeHeads calls fn with each new head's number until ctx ends.
func (n *Node) SubscribeHeads(ctx context.Context, fn func(number uint64)) error {
	ch := make(chan core.ChainHeadEvent, 16)
	sub := n.eth.BlockChain().SubscribeChainHeadEvent(ch)
	defer sub.Unsubscribe()
	fn(n.eth.BlockChain().CurrentBlock().Number.Uint64())
	for {
		select {
		case ev := <-ch:
			fn(ev.Header.Number.Uint64())
		case err := <-sub.Err():
			if err == nil {
				err = errors.New("head subscription closed")
			}
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
