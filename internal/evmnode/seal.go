package evmnode

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
)

// sealer produces the dev chain's blocks: every period, or (period 0) as
// soon as transactions are pending. All seals, including Commit, hold mu:
// go-ethereum's simulated beacon must not seal twice at once (two seals at
// once wait on each other's transaction-pool reset for ever).
type sealer struct {
	mu   sync.Mutex
	stop chan struct{}
	wg   sync.WaitGroup
}

// maxSealsPerWake bounds the blocks sealed for one wake-up, in case the
// pool keeps a transaction executable that no block will take.
const maxSealsPerWake = 16

func (n *Node) startSealing(period time.Duration) {
	n.seal.stop = make(chan struct{})
	if period > 0 {
		n.seal.wg.Go(func() { n.sealEvery(period) })
		return
	}
	txs := make(chan core.NewTxsEvent, 256)
	sub := n.eth.TxPool().SubscribeTransactions(txs, true)
	kick := make(chan struct{}, 1)
	n.seal.wg.Go(func() {
		defer sub.Unsubscribe()
		defer close(kick)
		for {
			select {
			case <-txs:
				select {
				case kick <- struct{}{}:
				default: // a seal is already due: it takes these too
				}
			case <-sub.Err():
				return
			case <-n.seal.stop:
				return
			}
		}
	})
	n.seal.wg.Go(func() {
		for range kick {
			n.sealPending()
		}
	})
}

func (n *Node) sealEvery(period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_ = n.Commit()
		case <-n.seal.stop:
			return
		}
	}
}

// sealPending seals until no executable transaction is left. It counts
// before each seal, so that a wake-up for transactions an earlier seal
// already took makes no empty block.
func (n *Node) sealPending() {
	n.seal.mu.Lock()
	defer n.seal.mu.Unlock()
	pool := n.eth.TxPool()
	for range maxSealsPerWake {
		// Let the pool drop what the last block took before counting:
		// without this a sealed transaction still looks pending and an
		// empty block follows it.
		_ = pool.Sync()
		if executable, _ := pool.Stats(); executable == 0 {
			return
		}
		n.beacon.Commit()
	}
}

// Commit seals a block now (dev chain only).
func (n *Node) Commit() error {
	if n.beacon == nil {
		return errors.New("not a dev chain")
	}
	n.seal.mu.Lock()
	defer n.seal.mu.Unlock()
	n.beacon.Commit()
	return nil
}

func (n *Node) stopSealing() {
	if n.seal.stop != nil {
		close(n.seal.stop)
		n.seal.wg.Wait()
	}
}

// Fork makes the block parent the head (dev chain only): the blocks after
// it leave the canonical chain (a reorg, whose logs subscribers get again
// with removed: true) and their transactions return to the pool, to be
// sealed anew.
func (n *Node) Fork(parent common.Hash) error {
	if n.beacon == nil {
		return errors.New("not a dev chain")
	}
	n.seal.mu.Lock()
	defer n.seal.mu.Unlock()
	if err := n.beacon.Fork(parent); err != nil {
		return fmt.Errorf("fork at %s: %w", parent, err)
	}
	return nil
}
