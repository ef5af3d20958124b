package evmnode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// loadGenesis reads DIR/genesis.json.
func loadGenesis(dir string) (*core.Genesis, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "genesis.json"))
	if err != nil {
		return nil, fmt.Errorf("read genesis: %w", err)
	}
	g := new(core.Genesis)
	if err := json.Unmarshal(raw, g); err != nil {
		return nil, fmt.Errorf("decode genesis.json: %w", err)
	}
	if g.Config == nil {
		return nil, errors.New("genesis.json has no config")
	}
	return g, nil
}

// importBlocks inserts the RLP-encoded blocks of DIR/chain.rlp, in batches.
func importBlocks(bc *core.BlockChain, dir string) error {
	f, err := os.Open(filepath.Join(dir, "chain.rlp"))
	if err != nil {
		return fmt.Errorf("open chain.rlp: %w", err)
	}
	defer f.Close()
	stream := rlp.NewStream(f, 0)
	const batch = 256
	blocks := make(types.Blocks, 0, batch)
	flush := func() error {
		if len(blocks) == 0 {
			return nil
		}
		if n, err := bc.InsertChain(blocks); err != nil {
			return fmt.Errorf("insert block %d: %w", blocks[n].NumberU64(), err)
		}
		blocks = blocks[:0]
		return nil
	}
	for {
		b := new(types.Block)
		if err := stream.Decode(b); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("decode chain.rlp: %w", err)
		}
		if b.NumberU64() == 0 {
			continue // the genesis is already there
		}
		blocks = append(blocks, b)
		if len(blocks) == batch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// forkchoice is the part of an engine_forkchoiceUpdated request we apply.
type forkchoice struct {
	Params []json.RawMessage `json:"params"`
}

type forkchoiceState struct {
	Head      common.Hash `json:"headBlockHash"`
	Safe      common.Hash `json:"safeBlockHash"`
	Finalized common.Hash `json:"finalizedBlockHash"`
}

// applyHeadFCU applies DIR/headfcu.json, when present: the head, safe and
// finalized blocks that a consensus client would have announced.
func applyHeadFCU(bc *core.BlockChain, dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, "headfcu.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("read headfcu.json: %w", err)
	}
	var fcu forkchoice
	if err := json.Unmarshal(raw, &fcu); err != nil || len(fcu.Params) == 0 {
		return fmt.Errorf("decode headfcu.json: %w", errors.Join(err, errors.New("no params")))
	}
	var st forkchoiceState
	if err := json.Unmarshal(fcu.Params[0], &st); err != nil {
		return fmt.Errorf("decode headfcu.json state: %w", err)
	}
	head := bc.GetBlockByHash(st.Head)
	if head == nil {
		return fmt.Errorf("headfcu.json: head block %s is not in the chain", st.Head)
	}
	if _, err := bc.SetCanonical(head); err != nil {
		return fmt.Errorf("set head: %w", err)
	}
	for _, set := range []struct {
		hash common.Hash
		fn   func(*types.Header)
	}{{st.Safe, bc.SetSafe}, {st.Finalized, bc.SetFinalized}} {
		if set.hash == (common.Hash{}) {
			continue
		}
		h := bc.GetHeaderByHash(set.hash)
		if h == nil {
			return fmt.Errorf("headfcu.json: block %s is not in the chain", set.hash)
		}
		set.fn(h)
	}
	return nil
}
