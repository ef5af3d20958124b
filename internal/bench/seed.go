package bench

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// viewContract's constructor stores 42 in slot 0; its code answers every
// call with that slot (SLOAD, then RETURN the 32-byte word), so eth_call
// on it is a simple view call that reads state.
//
//	init:    PUSH1 0x2a PUSH1 0 SSTORE  PUSH1 11 PUSH1 17 PUSH1 0 CODECOPY  PUSH1 11 PUSH1 0 RETURN
//	runtime: PUSH1 0 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
var viewContract = common.FromHex("0x602a600055600b6011600039600b6000f3" + "60005460005260206000f3")

// ViewAnswer is what a call to the seeded contract returns.
const ViewAnswer = "0x000000000000000000000000000000000000000000000000000000000000002a"

// SeedConfig says what to send.
type SeedConfig struct {
	URL   string
	Key   *ecdsa.PrivateKey
	Count int
	// Wait bounds the wait for the transactions to be mined.
	Wait time.Duration
}

// SeedResult is what was sent.
type SeedResult struct {
	Hashes   []common.Hash
	Contract common.Address
}

// Fixed fees, so that the same seed on two fresh dev chains sends the same
// bytes and the hashes match on both.
var (
	seedTip    = big.NewInt(1_000_000_000)
	seedFeeCap = big.NewInt(50_000_000_000)
)

// Seed deploys the view contract and sends Count transfers from the key's
// account, signed locally and sent with eth_sendRawTransaction (so it works
// through nodegate as well as against a node), then waits until all are mined.
func Seed(ctx context.Context, cfg SeedConfig) (*SeedResult, error) {
	if cfg.Count < 0 || cfg.Count > 100000 {
		return nil, fmt.Errorf("count %d: want 0..100000", cfg.Count)
	}
	ec, err := ethclient.DialContext(ctx, cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", redactURL(cfg.URL), err)
	}
	defer ec.Close()
	chainID, err := ec.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("chain id: %w", err)
	}
	from := crypto.PubkeyToAddress(cfg.Key.PublicKey)
	nonce, err := ec.PendingNonceAt(ctx, from)
	if err != nil {
		return nil, fmt.Errorf("nonce of %s: %w", from, err)
	}
	signer := types.LatestSignerForChainID(chainID)
	res := &SeedResult{Contract: crypto.CreateAddress(from, nonce)}
	send := func(tx *types.DynamicFeeTx) (common.Hash, error) {
		signed, err := types.SignNewTx(cfg.Key, signer, tx)
		if err != nil {
			return common.Hash{}, fmt.Errorf("sign: %w", err)
		}
		if err := ec.SendTransaction(ctx, signed); err != nil {
			return common.Hash{}, fmt.Errorf("send transaction %d: %w", tx.Nonce, err)
		}
		return signed.Hash(), nil
	}
	deploy, err := send(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: seedTip, GasFeeCap: seedFeeCap, Gas: 200_000, Data: viewContract})
	if err != nil {
		return nil, err
	}
	to := common.HexToAddress("0x000000000000000000000000000000000000bEEF")
	for i := range cfg.Count {
		h, err := send(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce + 1 + uint64(i), GasTipCap: seedTip, GasFeeCap: seedFeeCap, Gas: 21_000, To: &to, Value: big.NewInt(int64(i) + 1)})
		if err != nil {
			return nil, err
		}
		res.Hashes = append(res.Hashes, h)
	}
	last := deploy
	if len(res.Hashes) > 0 {
		last = res.Hashes[len(res.Hashes)-1]
	}
	if err := waitMined(ctx, ec, cfg.Wait, deploy, last); err != nil {
		return nil, err
	}
	return res, checkView(ctx, ec, res.Contract)
}

// waitMined polls until the receipts of the given transactions exist.
func waitMined(ctx context.Context, ec *ethclient.Client, wait time.Duration, hashes ...common.Hash) error {
	if wait <= 0 {
		wait = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for _, h := range hashes {
		for {
			r, err := ec.TransactionReceipt(ctx, h)
			if err == nil {
				if r.Status != types.ReceiptStatusSuccessful {
					return fmt.Errorf("transaction %s failed", h)
				}
				break
			}
			// A node that has just mined may still be indexing: not an error.
			if !errors.Is(err, ethereum.NotFound) && !strings.Contains(err.Error(), "indexing is in progress") {
				return fmt.Errorf("receipt of %s: %w", h, err)
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("transaction %s not mined: %w", h, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return nil
}

// checkView calls the contract once, so that a seed that did not produce a
// working contract fails here rather than as errors in a load run.
func checkView(ctx context.Context, ec *ethclient.Client, contract common.Address) error {
	out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &contract}, nil)
	if err != nil {
		return fmt.Errorf("call the seeded contract: %w", err)
	}
	if got := hexutil.Encode(out); got != ViewAnswer {
		return fmt.Errorf("the seeded contract answered %s, want %s", got, ViewAnswer)
	}
	return nil
}
