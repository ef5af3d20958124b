package starknet

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nodegate/nodegate/jsonrpc"
)

// Invoke is a broadcasted INVOKE transaction, version 0, 1 or 3 (Starknet
// JSON-RPC BROADCASTED_INVOKE_TXN), every field validated.
type Invoke struct {
	Version uint8 // 0, 1 or 3
	// Query marks a query version (2^128 + version): signed for
	// starknet_estimateFee only, never accepted for submission.
	Query bool
	// MaxFee is v0's and v1's fee bound (v3 has ResourceBounds instead).
	MaxFee    Felt
	Signature []Felt
	// Nonce is required in v1 and v3; a v0 may carry it (as 0.4 nodes show
	// it) but it is not part of a v0 hash.
	Nonce Felt
	// ContractAddress and EntryPointSelector are v0's target.
	ContractAddress    Felt
	EntryPointSelector Felt
	// SenderAddress is v1's and v3's account.
	SenderAddress Felt
	Calldata      []Felt
	// V3 holds the fields of an INVOKE v3.
	V3 InvokeV3Fields
}

// TxLimits bound what a client may put in one transaction.
type TxLimits struct {
	// MaxCalldata is the most calldata felts one transaction may carry.
	MaxCalldata int
	// MaxSignature is the most signature felts one transaction may carry.
	MaxSignature int
}

// DefaultTxLimits are generous for real account calls (a multicall of a
// few dozen calls) and small enough that one request cannot fill memory.
var DefaultTxLimits = TxLimits{MaxCalldata: 4096, MaxSignature: 64}

// WithDefaults fills unset limits from DefaultTxLimits.
func (l TxLimits) WithDefaults() TxLimits {
	if l.MaxCalldata <= 0 {
		l.MaxCalldata = DefaultTxLimits.MaxCalldata
	}
	if l.MaxSignature <= 0 {
		l.MaxSignature = DefaultTxLimits.MaxSignature
	}
	return l
}

// TxError is a transaction the devnet refuses; Code is the JSON-RPC code
// (-32602 for a malformed transaction, Starknet's 61 for an unsupported
// version), Field the path of the offending field.
type TxError struct {
	Code  int
	Field string
	Err   error
}

func (e *TxError) Error() string {
	if e.Field == "" {
		return e.Err.Error()
	}
	return e.Field + ": " + e.Err.Error()
}

func (e *TxError) Unwrap() error { return e.Err }

func badField(field string, err error) *TxError {
	return &TxError{Code: jsonrpc.CodeInvalidParams, Field: field, Err: err}
}

// CodeUnsupportedTxVersion is Starknet's UNSUPPORTED_TX_VERSION.
const CodeUnsupportedTxVersion = 61

var (
	errMissing  = errors.New("missing field")
	errNotArray = errors.New("must be an array of felts")
)

// invokeFields lists, per version, the fields a broadcasted INVOKE has;
// anything else is refused so that a typo is not silently dropped.
var invokeFields = map[uint8]map[string]bool{
	0: {"type": true, "version": true, "max_fee": true, "signature": true, "nonce": false, "contract_address": true, "entry_point_selector": true, "calldata": true},
	1: {"type": true, "version": true, "max_fee": true, "signature": true, "nonce": true, "sender_address": true, "calldata": true},
	3: {"type": true, "version": true, "signature": true, "nonce": true, "sender_address": true, "calldata": true,
		"resource_bounds": true, "tip": true, "paymaster_data": true, "account_deployment_data": true,
		"nonce_data_availability_mode": true, "fee_data_availability_mode": true},
}

// DecodeInvoke reads and validates a broadcasted INVOKE v0, v1 or v3 for
// submission. Every felt is checked (hex, below P), every bounded integer
// against its width; arrays are bounded by lim before their elements are
// decoded. A query version is refused with CodeUnsupportedTxVersion.
func DecodeInvoke(raw []byte, lim TxLimits) (*Invoke, error) {
	return decodeInvoke(raw, lim, false)
}

// DecodeInvokeQuery is DecodeInvoke for starknet_estimateFee, which also
// takes query versions.
func DecodeInvokeQuery(raw []byte, lim TxLimits) (*Invoke, error) {
	return decodeInvoke(raw, lim, true)
}

// queryVersionBase is 2^128, added to the version of a transaction signed
// for a query (estimate) so that it can never be submitted.
var queryVersionBase = MustFelt("0x100000000000000000000000000000000")

func decodeInvoke(raw []byte, lim TxLimits, allowQuery bool) (*Invoke, error) {
	lim = lim.WithDefaults()
	if len(raw) == 0 || raw[0] != '{' {
		return nil, badField("", fmt.Errorf("invoke transaction must be an object, got %s", JSONKind(raw)))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, badField("", fmt.Errorf("invoke transaction: %w", err))
	}
	if err := checkType(obj["type"]); err != nil {
		return nil, err
	}
	tx := &Invoke{}
	version, err := FeltField(obj, "version", true)
	if err != nil {
		return nil, err
	}
	sent := version
	if allowQuery && version.Big().Cmp(queryVersionBase.Big()) >= 0 {
		tx.Query = true
		version.e.Sub(&version.e, &queryVersionBase.e)
	}
	v, ok := version.Uint64()
	allowed, known := invokeFields[uint8(v)]
	if !ok || v > 3 || !known {
		return nil, &TxError{Code: CodeUnsupportedTxVersion, Field: "version", Err: fmt.Errorf("the transaction version is not supported: %s (this devnet accepts INVOKE 0x0, 0x1 and 0x3; query versions are for estimates, not submission)", sent)}
	}
	tx.Version = uint8(v)
	for _, name := range sortedKeys(obj) { // the first unknown field by name, whatever the map's order
		if _, ok := allowed[name]; !ok {
			return nil, badField(name, fmt.Errorf("unknown field for an INVOKE v%d transaction", tx.Version))
		}
	}
	if tx.Version < 3 {
		if tx.MaxFee, err = FeltField(obj, "max_fee", true); err != nil {
			return nil, err
		}
	}
	if tx.Signature, err = FeltArray(obj, "signature", lim.MaxSignature); err != nil {
		return nil, err
	}
	if tx.Calldata, err = FeltArray(obj, "calldata", lim.MaxCalldata); err != nil {
		return nil, err
	}
	if tx.Nonce, err = FeltField(obj, "nonce", allowed["nonce"]); err != nil {
		return nil, err
	}
	if tx.Version == 0 {
		if tx.ContractAddress, err = FeltField(obj, "contract_address", true); err != nil {
			return nil, err
		}
		tx.EntryPointSelector, err = FeltField(obj, "entry_point_selector", true)
		return tx, err
	}
	if tx.SenderAddress, err = FeltField(obj, "sender_address", true); err != nil {
		return nil, err
	}
	if tx.Version == 3 {
		if tx.V3, err = decodeV3Fields(obj, lim); err != nil {
			return nil, err
		}
	}
	return tx, nil
}

func checkType(raw json.RawMessage) error {
	if raw == nil {
		return badField("type", errMissing)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return badField("type", fmt.Errorf("must be a string, got %s", JSONKind(raw)))
	}
	if s != "INVOKE" {
		return badField("type", fmt.Errorf("must be \"INVOKE\", got %q", Clip(s)))
	}
	return nil
}

// FeltField decodes obj[name]; an absent optional field is zero.
func FeltField(obj map[string]json.RawMessage, name string, required bool) (Felt, error) {
	raw, ok := obj[name]
	if !ok {
		if required {
			return Felt{}, badField(name, errMissing)
		}
		return Felt{}, nil
	}
	var f Felt
	if err := f.UnmarshalJSON(raw); err != nil {
		return Felt{}, badField(name, err)
	}
	return f, nil
}

// FeltArray decodes a bounded array of felts, counting before decoding.
func FeltArray(obj map[string]json.RawMessage, name string, max int) ([]Felt, error) {
	raw, ok := obj[name]
	if !ok {
		return nil, badField(name, errMissing)
	}
	if len(raw) == 0 || raw[0] != '[' {
		return nil, badField(name, fmt.Errorf("%w, got %s", errNotArray, JSONKind(raw)))
	}
	n := 0
	_ = jsonrpc.Elements(raw, func([]byte) bool { n++; return n <= max }) // already valid JSON
	if n > max {
		return nil, badField(name, fmt.Errorf("more than %d elements", max))
	}
	out := make([]Felt, 0, n)
	var elemErr error
	_ = jsonrpc.Elements(raw, func(elem []byte) bool {
		var f Felt
		if err := f.UnmarshalJSON(elem); err != nil {
			elemErr = badField(fmt.Sprintf("%s[%d]", name, len(out)), err)
			return false
		}
		out = append(out, f)
		return true
	})
	if elemErr != nil {
		return nil, elemErr
	}
	return out, nil
}
