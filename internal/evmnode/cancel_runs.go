package evmnode

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/rpc"
)

// go-ethereum's eth_createAccessList runs the transaction again and again
// until its access list settles, with an EVM that nothing cancels: it
// checks its context only between runs, so one run of a looping contract
// goes on to the end of its gas whatever the call's deadline (eth_call and
// eth_estimateGas cancel their EVM themselves). The node serves the
// methods of go-ethereum's BlockChainAPI (eth_createAccessList among them)
// through a copy of it whose backend cancels every EVM it makes when the
// call's context ends (cancellingBackend): a call's deadline stops each of
// its runs where it is. The copy is go-ethereum's own type, made by
// reflection with only its backend replaced; a go-ethereum whose
// BlockChainAPI is not as expected is an error at start, never a node
// without the bound.

// cancellingBackend is go-ethereum's API backend, whose EVMs are cancelled
// when the context they were made for ends.
type cancellingBackend struct{ *eth.EthAPIBackend }

// GetEVM is the backend's, cancelled at ctx's end (a cancel after the run
// ended does nothing; the rpc server ends each call's context when the
// call returns, which also lets the hook go).
func (b cancellingBackend) GetEVM(ctx context.Context, st *state.StateDB, header *types.Header, cfg *vm.Config, blockCtx *vm.BlockContext) *vm.EVM {
	evm := b.EthAPIBackend.GetEVM(ctx, st, header, cfg, blockCtx)
	context.AfterFunc(ctx, evm.Cancel)
	return evm
}

// cancellingChainAPI is go-ethereum's eth BlockChainAPI (found among
// apis, the eth service's) with a cancellingBackend over backend.
func cancellingChainAPI(apis []rpc.API, backend *eth.EthAPIBackend) (rpc.API, error) {
	for _, api := range apis {
		v := reflect.ValueOf(api.Service)
		if api.Namespace != "eth" || v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct || v.Elem().Type().Name() != "BlockChainAPI" {
			continue
		}
		t := v.Elem().Type()
		if t.NumField() != 1 || t.Field(0).Name != "b" {
			return rpc.API{}, fmt.Errorf("go-ethereum's BlockChainAPI has fields %v, want its backend b only", fieldNames(t))
		}
		w := reflect.ValueOf(cancellingBackend{backend})
		if !w.Type().Implements(t.Field(0).Type) {
			return rpc.API{}, fmt.Errorf("the cancelling backend does not implement go-ethereum's %s", t.Field(0).Type)
		}
		fresh := reflect.New(t)
		b := fresh.Elem().Field(0)
		reflect.NewAt(b.Type(), unsafe.Pointer(b.UnsafeAddr())).Elem().Set(w)
		return rpc.API{Namespace: "eth", Service: fresh.Interface()}, nil
	}
	return rpc.API{}, errors.New("go-ethereum's eth BlockChainAPI not found among the eth service's APIs")
}

func fieldNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		out = append(out, t.Field(i).Name)
	}
	return out
}
