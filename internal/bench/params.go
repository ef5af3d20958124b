package bench

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Target says what the generated calls refer to.
type Target struct {
	// Hashes are transaction hashes to cycle through; when empty, every
	// hash call gets the next of the static upstream's transaction hashes
	// (StaticHashes, distinct over StaticTxCount calls: the static upstream answers each with its
	// transaction, never final, so that no cache answers it; any other
	// node does a real lookup of a hash it does not have).
	Hashes []string
	// CallTo, CallFrom and CallData make the eth_call / eth_estimateGas
	// call object and the eth_getStorageAt address.
	CallTo, CallFrom, CallData string
}

// Defaults for the call object: an address with no code answers 0x, which
// is still a full eth_call through the EVM.
const (
	DefaultCallTo   = "0x000000000000000000000000000000000000dEaD"
	DefaultCallFrom = "0x0000000000000000000000000000000000000001"
	DefaultCallData = "0x"
)

// paramFuncs appends the params array of a method.
var paramFuncs = map[string]func(buf []byte, t *Target, n uint64) []byte{
	"eth_getTransactionByHash":  hashParams,
	"eth_getTransactionReceipt": hashParams,
	"eth_call": func(buf []byte, t *Target, _ uint64) []byte {
		buf = callObject(append(buf, '['), t)
		return append(buf, `,"latest"]`...)
	},
	"eth_estimateGas": func(buf []byte, t *Target, _ uint64) []byte {
		return append(callObject(append(buf, '['), t), ']')
	},
	"eth_getStorageAt": func(buf []byte, t *Target, _ uint64) []byte {
		return append(append(append(buf, `["`...), t.CallTo...), `","0x0","latest"]`...)
	},
	"eth_blockNumber": emptyParams,
	"eth_chainId":     emptyParams,
	// The rollup network (with --host or its own listener).
	"rollup_pendingTransactions":   emptyParams,
	"starknet_pendingTransactions": emptyParams,
	"starknet_chainId":             emptyParams,
	"starknet_blockNumber":         emptyParams,
}

func supported(method string) bool { _, ok := paramFuncs[method]; return ok }

func supportedMethods() []string {
	names := make([]string, 0, len(paramFuncs))
	for n := range paramFuncs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func emptyParams(buf []byte, _ *Target, _ uint64) []byte { return append(buf, "[]"...) }

func hashParams(buf []byte, t *Target, n uint64) []byte {
	buf = append(buf, `["`...)
	if len(t.Hashes) > 0 {
		buf = append(buf, t.Hashes[n%uint64(len(t.Hashes))]...)
	} else {
		hashes := StaticHashes()
		buf = append(buf, hashes[n%uint64(len(hashes))]...)
	}
	return append(buf, `"]`...)
}

func callObject(buf []byte, t *Target) []byte {
	buf = append(buf, `{"from":"`...)
	buf = append(buf, t.CallFrom...)
	buf = append(buf, `","to":"`...)
	buf = append(buf, t.CallTo...)
	buf = append(buf, `","data":"`...)
	buf = append(buf, t.CallData...)
	return append(buf, `"}`...)
}

// appendRequest appends one request envelope for call n.
func appendRequest(buf []byte, id uint64, method string, t *Target, n uint64) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = strconv.AppendUint(buf, id, 10)
	buf = append(buf, `,"method":"`...)
	buf = append(buf, method...)
	buf = append(buf, `","params":`...)
	buf = paramFuncs[method](buf, t, n)
	return append(buf, '}')
}

var (
	hashRe    = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)
	addressRe = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	hexDataRe = regexp.MustCompile(`^0x([0-9a-fA-F]{2})*$`)
)

// Validate checks the target's values, which are copied into JSON unescaped.
func (t *Target) Validate() error {
	for i, h := range t.Hashes {
		if !hashRe.MatchString(h) {
			return fmt.Errorf("hash %d (%q) is not 0x and 64 hex digits", i+1, h)
		}
	}
	if !addressRe.MatchString(t.CallTo) {
		return fmt.Errorf("call address %q is not 0x and 40 hex digits", t.CallTo)
	}
	if !addressRe.MatchString(t.CallFrom) {
		return fmt.Errorf("call sender %q is not 0x and 40 hex digits", t.CallFrom)
	}
	if !hexDataRe.MatchString(t.CallData) {
		return fmt.Errorf("call data %q is not 0x and an even number of hex digits", t.CallData)
	}
	return nil
}

// ReadHashes reads one transaction hash per line (blank lines and lines
// starting with # are skipped).
func ReadHashes(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hashes: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		if !hashRe.MatchString(s) {
			return nil, fmt.Errorf("hashes %s:%d: %q is not 0x and 64 hex digits", path, line, s)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("hashes %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("hashes %s: no hash in the file", path)
	}
	return out, nil
}
