package devnet

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/internal/starknet"
)

// Config configures the embedded devnet. Zero values take the
// defaults documented on each field.
type Config struct {
	// ChainID is the short-string chain id (default "SN_DEVNET", i.e.
	// 0x534e5f4445564e4554 from starknet_chainId). Transaction hashes are
	// computed for it, so a client must sign for the same id.
	ChainID string
	// BlockTime is how long transactions stay pending at most: BlockTime
	// after a transaction enters an empty pool, the pool is moved into a
	// new block. 0 keeps them pending until devnet_createBlock.
	BlockTime time.Duration
	// MaxPending bounds the pending pool (default 10000); a full pool
	// refuses new transactions until a block is made.
	MaxPending int
	// MaxPendingBytes bounds the pending pool's transactions in bytes
	// (default DefaultMaxPendingBytes); past it, as past MaxPending, new
	// transactions are refused until a block is made.
	MaxPendingBytes int
	// KeepBlocks is how many recent blocks stay queryable (default 1024).
	KeepBlocks int
	// KeepBytes bounds the kept blocks' transactions in bytes (default
	// DefaultKeepBytes): older blocks are dropped past it, as past
	// KeepBlocks.
	KeepBytes int
	// MaxAccounts bounds the senders whose nonces are kept (default
	// DefaultMaxAccounts); a transaction from a new one is refused past it.
	MaxAccounts int
	// MaxBatch bounds a batch request (default 1000).
	MaxBatch int
	// MaxBodyBytes bounds a request body (default 5 MiB).
	MaxBodyBytes int
	// MaxRequestHashUnits bounds what one request's writes may hash
	// together, in hash units (devnet_hashshare.go; default
	// DefaultMaxRequestHashUnits); it is also each account's burst.
	MaxRequestHashUnits int
	// HashUnitsPerSecond is each account's average hashing rate (default
	// DefaultHashUnitsPerSecond).
	HashUnitsPerSecond int
	// Tx bounds one transaction's calldata and signature.
	Tx starknet.TxLimits
	// Accounts is how many predeployed dev accounts there are (default
	// DefaultAccounts; accounts.go).
	Accounts int
}

func (c Config) withDefaults() Config {
	if c.ChainID == "" {
		c.ChainID = "SN_DEVNET"
	}
	if c.MaxPending <= 0 {
		c.MaxPending = 10000
	}
	if c.KeepBlocks <= 0 {
		c.KeepBlocks = 1024
	}
	if c.MaxPendingBytes <= 0 {
		c.MaxPendingBytes = DefaultMaxPendingBytes
	}
	if c.KeepBytes <= 0 {
		c.KeepBytes = DefaultKeepBytes
	}
	if c.MaxAccounts <= 0 {
		c.MaxAccounts = DefaultMaxAccounts
	}
	if c.MaxBatch <= 0 {
		c.MaxBatch = 1000
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 5 << 20
	}
	if c.MaxRequestHashUnits <= 0 {
		c.MaxRequestHashUnits = DefaultMaxRequestHashUnits
	}
	if c.HashUnitsPerSecond <= 0 {
		c.HashUnitsPerSecond = DefaultHashUnitsPerSecond
	}
	if c.Accounts <= 0 {
		c.Accounts = DefaultAccounts
	}
	c.Tx = c.Tx.WithDefaults()
	return c
}

// Devnet is an in-process Starknet devnet: predeployed dev accounts with an
// account class (accounts.go), a pending pool that accepts INVOKE v0, v1
// and v3 transactions, hashes them as Starknet does, keeps
// each sender's nonce, lists them through starknet_pendingTransactions and
// moves them into blocks after BlockTime or on devnet_createBlock. It is a
// devnet, not a sequencer: it executes nothing, checks no signature, fee
// or balance, and keeps no state but the transactions, the nonces and the
// accounts it was made with (new_root is always 0x0).
type Devnet struct {
	cfg Config
	// hashed counts the transactions hashed (a refused one is not:
	// devnet_budget.go's precheck, devnet_unhashed.go).
	hashed atomic.Int64
	// hashedUnits is what they cost (hashCost); shares bound it per
	// request, per account and per process (devnet_hashshare.go).
	hashedUnits atomic.Int64
	shares      *hashShares
	chainID     starknet.Felt
	chainHex    []byte // quoted starknet_chainId result
	// accounts are the predeployed dev accounts, made once (accounts.go).
	accounts accountBook

	mu           sync.Mutex
	pending      []*storedTx
	pendingBytes int      // what the pending transactions take (devnet_budget.go)
	blocks       []*block // the most recent cfg.KeepBlocks blocks, oldest first
	byHash       map[[32]byte]*storedTx
	// bySenderNonce are the kept account transactions by sender and
	// nonce (devnet_unhashed.go).
	bySenderNonce map[senderNonce]*storedTx
	nonces        nonceBook

	// The block timer: armed when a transaction enters an empty pool, it
	// seals the pool BlockTime later unless a block was made meanwhile
	// (sealGen moved on).
	sealTimer *time.Timer
	sealGen   uint64
	closed    bool
}

// storedTx is an accepted transaction, encoded once at acceptance.
type storedTx struct {
	hash  starknet.Felt
	json  []byte // the TXN object of Starknet JSON-RPC, with transaction_hash
	block *block // nil while pending
	// sender and nonce of an account transaction (v1, v3); nonced is false
	// for a v0, which has no nonce.
	sender starknet.Felt
	nonce  starknet.Felt
	nonced bool
	fee    feeEstimate // what it is reported to cost (devnet_fees.go)
	// body fingerprints what its hash covers (devnet_unhashed.go; account
	// transactions only).
	body [32]byte
}

// New makes a devnet with a genesis block. With a BlockTime, a
// transaction that enters an empty pool arms a timer that seals the pool
// BlockTime later; Close stops it.
func New(cfg Config) (*Devnet, error) {
	cfg = cfg.withDefaults()
	chain, err := starknet.ChainIDFelt(cfg.ChainID)
	if err != nil {
		return nil, fmt.Errorf("devnet chain id: %w", err)
	}
	if cfg.BlockTime < 0 {
		return nil, fmt.Errorf("devnet block time %s is negative", cfg.BlockTime)
	}
	d := &Devnet{
		cfg:           cfg,
		chainID:       chain,
		chainHex:      chain.AppendQuoted(nil),
		byHash:        make(map[[32]byte]*storedTx),
		bySenderNonce: make(map[senderNonce]*storedTx),
		nonces:        newNonceBook(),
		accounts:      newAccountBook(cfg.Accounts),
		shares:        newHashShares(int64(cfg.HashUnitsPerSecond), int64(cfg.MaxRequestHashUnits)),
	}
	d.blocks = append(d.blocks, newBlock(0, starknet.Felt{}, uint64(time.Now().Unix()), nil))
	return d, nil
}

// ChainID is the devnet's chain id felt.
func (d *Devnet) ChainID() starknet.Felt { return d.chainID }

// Close stops the block timer. The devnet keeps answering; it just no
// longer makes blocks on its own.
func (d *Devnet) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	if d.sealTimer != nil {
		d.sealTimer.Stop()
	}
	return nil
}

// armLocked starts the block timer for a pool that just got its first
// transaction: that transaction stays pending BlockTime, no longer.
func (d *Devnet) armLocked() {
	if d.cfg.BlockTime <= 0 || d.closed {
		return
	}
	gen := d.sealGen
	d.sealTimer = time.AfterFunc(d.cfg.BlockTime, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.sealGen == gen && len(d.pending) > 0 && !d.closed {
			d.sealLocked()
		}
	})
}

// sealLocked moves every pending transaction into a new block.
func (d *Devnet) sealLocked() *block {
	head := d.blocks[len(d.blocks)-1]
	ts := max(uint64(time.Now().Unix()), head.timestamp) // never older than the parent
	b := newBlock(head.number+1, head.hash, ts, d.pending)
	d.sealGen++
	for _, tx := range d.pending {
		tx.block = b
		if tx.nonced {
			d.nonces.seal(tx.sender, tx.nonce)
		}
	}
	d.pending, d.pendingBytes = nil, 0
	d.blocks = append(d.blocks, b)
	if over := d.keepFrom(); over > 0 {
		for _, old := range d.blocks[:over] {
			for _, tx := range old.txs {
				delete(d.byHash, tx.hash.Bytes())
				if tx.nonced {
					delete(d.bySenderNonce, keyOf(tx.sender, tx.nonce))
				}
			}
		}
		d.blocks = append(d.blocks[:0:0], d.blocks[over:]...)
	}
	return b
}
