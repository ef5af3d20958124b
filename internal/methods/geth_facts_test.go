package methods_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	gethfilters "github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
	"github.com/nodegate/nodegate/internal/methods"
)

// gethMethods are the signatures of the methods go-ethereum serves in the
// eth and net namespaces, by their JSON-RPC names, read by reflection from
// the services an embedded node registers (its internal/ethapi types, which
// cannot be imported) and from eth/filters.
func gethMethods(t *testing.T) map[string]reflect.Method {
	t.Helper()
	n := evmnodetest.StartHTTP(t)
	apis := append(n.Ethereum().APIs(), rpc.API{Namespace: "eth", Service: &gethfilters.FilterAPI{}})
	out := make(map[string]reflect.Method)
	for _, api := range apis {
		if api.Namespace != "eth" && api.Namespace != "net" {
			continue
		}
		typ := reflect.TypeOf(api.Service)
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			out[api.Namespace+"_"+strings.ToLower(m.Name[:1])+m.Name[1:]] = m
		}
	}
	return out
}

// args are a method's params as go-ethereum declares them: its arguments
// without the receiver and a leading context.
func args(m reflect.Method) []reflect.Type {
	var out []reflect.Type
	for i := 1; i < m.Type.NumIn(); i++ {
		in := m.Type.In(i)
		if i == 1 && in == reflect.TypeFor[context.Context]() {
			continue
		}
		out = append(out, in)
	}
	return out
}

// blockArgs are the positions of the params naming a block.
func blockArgs(params []reflect.Type) []int {
	var out []int
	for i, p := range params {
		switch p {
		case reflect.TypeFor[rpc.BlockNumber](), reflect.TypeFor[rpc.BlockNumberOrHash](), reflect.TypeFor[*rpc.BlockNumberOrHash]():
			out = append(out, i)
		}
	}
	return out
}

// jsonFields are the JSON names of the fields of the struct a result type
// points to (nil for any other type).
func jsonFields(result reflect.Type) map[string]bool {
	if result.Kind() != reflect.Pointer || result.Elem().Kind() != reflect.Struct {
		return nil
	}
	out := make(map[string]bool)
	for f := range result.Elem().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out[name] = true
	}
	return out
}

// TestFactsMatchGoEthereum ties every standard method's facts (Block,
// Lookup, Proves, Write, AnswersHash) to go-ethereum's own signature of it:
// the param a method names its block at is the one go-ethereum declares as
// a block number (or number or hash), and no other method of the table
// takes one; a method that looks up by hash takes a common.Hash first; a
// log filter read takes a FilterCriteria; a write takes the signed bytes,
// answered by their hash exactly when go-ethereum returns a common.Hash;
// the answer field that proves a block is a field of go-ethereum's answer.
func TestFactsMatchGoEthereum(t *testing.T) {
	geth := gethMethods(t)
	table := methods.NewTable(methods.FamilyEVM)
	var checked int
	table.Each(func(r *methods.Rule) {
		m, ok := geth[r.Name]
		if !ok {
			return // not go-ethereum's (or in a namespace it does not serve here)
		}
		checked++
		t.Run(r.Name, func(t *testing.T) {
			params := args(m)
			blocks := blockArgs(params)
			switch i, isParam := r.Block.Param(); {
			case isParam:
				if len(blocks) != 1 || blocks[0] != i {
					t.Errorf("Block is param %d; go-ethereum's block params are %v", i, blocks)
				}
			case len(blocks) > 0:
				t.Errorf("Block %d; go-ethereum takes a block at param %v", r.Block, blocks)
			}
			takesFilter := len(params) > 0 && params[0] == reflect.TypeFor[gethfilters.FilterCriteria]()
			if (r.Block == methods.BlockLogFilter) != (takesFilter && r.Limit == methods.LimitGetLogs) {
				t.Errorf("Block %d; go-ethereum takes a log filter: %v", r.Block, takesFilter)
			}
			if r.Block == methods.BlockChain && len(params) > 0 {
				t.Errorf("the chain's answer, yet go-ethereum takes %d params", len(params))
			}
			byHash := len(params) > 0 && params[0] == reflect.TypeFor[common.Hash]()
			if (r.Lookup && r.Block == methods.BlockNone) != byHash {
				t.Errorf("Lookup %v with Block %d; go-ethereum looks up by a hash first: %v", r.Lookup, r.Block, byHash)
			}
			if r.Lookup && r.Block != methods.BlockNone && len(blocks) == 0 {
				t.Errorf("a lookup by number, yet go-ethereum takes no block")
			}
			var result reflect.Type
			if m.Type.NumOut() > 0 {
				result = m.Type.Out(0)
			}
			if r.Write && (len(params) == 0 || params[0] != reflect.TypeFor[hexutil.Bytes]()) {
				t.Errorf("a write, yet go-ethereum's first param is not the signed bytes: %v", params)
			}
			if r.Write && r.AnswersHash != (result == reflect.TypeFor[common.Hash]()) {
				t.Errorf("AnswersHash %v; go-ethereum answers %v", r.AnswersHash, result)
			}
			if r.Proves == methods.ProvesHead && result != reflect.TypeFor[hexutil.Uint64]() {
				t.Errorf("proves the head by its result; go-ethereum answers %v", result)
			}
			if fields := jsonFields(result); fields != nil {
				for _, f := range []string{"blockNumber", "number"} {
					if fields[f] && r.Proves != f {
						t.Errorf("Proves %q; go-ethereum's answer has %q", r.Proves, f)
					}
				}
			}
		})
	})
	if checked < 35 {
		t.Fatalf("only %d of the table's methods found among go-ethereum's: the reflection no longer sees its services", checked)
	}
}

// TestCacheableFacts: a method the cache can keep names the block its
// answer is final at: at a param, in a log filter, or in its answer's
// Proves field (methods named by hash).
func TestCacheableFacts(t *testing.T) {
	for _, family := range []methods.Family{methods.FamilyEVM, methods.FamilyStarknet} {
		methods.NewTable(family).Each(func(r *methods.Rule) {
			_, isParam := r.Block.Param()
			if r.Cacheable && !isParam && r.Block != methods.BlockLogFilter && (r.Proves == "" || r.Proves == methods.ProvesHead) {
				t.Errorf("%s: cacheable, yet it names no block the cache can judge", r.Name)
			}
			if r.Cacheable && !r.Idempotent {
				t.Errorf("%s: cacheable, yet not idempotent", r.Name)
			}
		})
	}
}
