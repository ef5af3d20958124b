package starknet

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// InvokeV3Fields are the fields an INVOKE v3 has instead of max_fee
// (SNIP-8; Starknet JSON-RPC 0.6 and later).
type InvokeV3Fields struct {
	ResourceBounds ResourceBounds
	Tip            uint64
	PaymasterData  []Felt
	// AccountDeploymentData is part of the hash; Starknet keeps it empty today.
	AccountDeploymentData  []Felt
	NonceDAMode, FeeDAMode DAMode
}

// ResourceBounds are the most a v3 sender pays per resource.
type ResourceBounds struct {
	L1Gas, L2Gas, L1DataGas ResourceBound
	// HasL1DataGas tells a 0.8 mapping (l1_data_gas given, and hashed) from
	// the 0.6/0.7 one (l1_gas and l2_gas only), hashed as Starknet does:
	// three bounds or two.
	HasL1DataGas bool
}

// ResourceBound is one resource's bound: max_amount (u64) units at most
// max_price_per_unit (u128) each.
type ResourceBound struct {
	MaxAmount       uint64
	MaxPricePerUnit Felt // below 2^128
}

// DAMode is a data-availability mode: L1 (0) or L2 (1).
type DAMode uint8

// The data-availability modes, as the hash encodes them.
const (
	DAModeL1 DAMode = 0
	DAModeL2 DAMode = 1
)

func (m DAMode) String() string {
	if m == DAModeL2 {
		return "L2"
	}
	return "L1"
}

var resourceNames = []string{"l1_gas", "l2_gas", "l1_data_gas"}

// decodeV3Fields reads the v3 fields of an INVOKE object whose common
// fields are already read; errors name the field.
func decodeV3Fields(obj map[string]json.RawMessage, lim TxLimits) (InvokeV3Fields, error) {
	var v InvokeV3Fields
	var err error
	if v.ResourceBounds, err = decodeResourceBounds(obj["resource_bounds"]); err != nil {
		return v, err
	}
	if v.Tip, err = uintField(obj["tip"], "tip", 64); err != nil {
		return v, err
	}
	if v.PaymasterData, err = FeltArray(obj, "paymaster_data", lim.MaxCalldata); err != nil {
		return v, err
	}
	if v.AccountDeploymentData, err = FeltArray(obj, "account_deployment_data", lim.MaxCalldata); err != nil {
		return v, err
	}
	if v.NonceDAMode, err = daModeField(obj["nonce_data_availability_mode"], "nonce_data_availability_mode"); err != nil {
		return v, err
	}
	v.FeeDAMode, err = daModeField(obj["fee_data_availability_mode"], "fee_data_availability_mode")
	return v, err
}

func decodeResourceBounds(raw json.RawMessage) (ResourceBounds, error) {
	const field = "resource_bounds"
	var rb ResourceBounds
	if raw == nil {
		return rb, badField(field, errMissing)
	}
	var obj map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return rb, badField(field, fmt.Errorf("must be an object of l1_gas, l2_gas and l1_data_gas, got %s", JSONKind(raw)))
	}
	for _, k := range sortedKeys(obj) {
		if indexOf(resourceNames, k) < 0 {
			return rb, badField(field+"."+k, errors.New("unknown resource (want l1_gas, l2_gas, l1_data_gas)"))
		}
	}
	bounds := []*ResourceBound{&rb.L1Gas, &rb.L2Gas, &rb.L1DataGas}
	for i, name := range resourceNames {
		r, ok := obj[name]
		if !ok {
			if name == "l1_data_gas" {
				continue // a 0.6/0.7 mapping
			}
			return rb, badField(field+"."+name, errMissing)
		}
		b, err := decodeResourceBound(r, field+"."+name)
		if err != nil {
			return rb, err
		}
		*bounds[i] = b
	}
	_, rb.HasL1DataGas = obj["l1_data_gas"]
	return rb, nil
}

func decodeResourceBound(raw json.RawMessage, field string) (ResourceBound, error) {
	var b ResourceBound
	var obj map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return b, badField(field, fmt.Errorf("must be an object of max_amount and max_price_per_unit, got %s", JSONKind(raw)))
	}
	for _, k := range sortedKeys(obj) {
		if k != "max_amount" && k != "max_price_per_unit" {
			return b, badField(field+"."+k, errors.New("unknown field (want max_amount, max_price_per_unit)"))
		}
	}
	var err error
	if b.MaxAmount, err = uintField(obj["max_amount"], field+".max_amount", 64); err != nil {
		return b, err
	}
	price, err := boundedFelt(obj["max_price_per_unit"], field+".max_price_per_unit", 128)
	b.MaxPricePerUnit = price
	return b, err
}

// boundedFelt reads a hex integer of at most bits bits (u64, u128 of the spec).
func boundedFelt(raw json.RawMessage, field string, bits int) (Felt, error) {
	if raw == nil {
		return Felt{}, badField(field, errMissing)
	}
	var f Felt
	if err := f.UnmarshalJSON(raw); err != nil {
		return Felt{}, badField(field, err)
	}
	if f.Big().BitLen() > bits {
		return Felt{}, badField(field, fmt.Errorf("must fit in %d bits, got %s", bits, f))
	}
	return f, nil
}

func uintField(raw json.RawMessage, field string, bits int) (uint64, error) {
	f, err := boundedFelt(raw, field, bits)
	if err != nil {
		return 0, err
	}
	v, _ := f.Uint64()
	return v, nil
}

func daModeField(raw json.RawMessage, field string) (DAMode, error) {
	if raw == nil {
		return 0, badField(field, errMissing)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, badField(field, fmt.Errorf(`must be "L1" or "L2", got %s`, JSONKind(raw)))
	}
	switch s {
	case "L1":
		return DAModeL1, nil
	case "L2":
		return DAModeL2, nil
	}
	return 0, badField(field, fmt.Errorf(`must be "L1" or "L2", got %q`, Clip(s)))
}

func sortedKeys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The resource names of the v3 fee hash, as short strings.
var (
	resourceL1Gas     = mustShortString("L1_GAS")
	resourceL2Gas     = mustShortString("L2_GAS")
	resourceL1DataGas = mustShortString("L1_DATA")
)

// encode packs a bound as the v3 hash reads it:
// name << 192 | max_amount << 128 | max_price_per_unit.
func (b ResourceBound) encode(name Felt) Felt {
	var buf [32]byte
	nb := name.Bytes()
	copy(buf[:8], nb[24:]) // a name of at most 8 bytes, shifted left by 192 bits
	for i := range 8 {
		buf[8+i] = byte(b.MaxAmount >> (56 - 8*i))
	}
	pb := b.MaxPricePerUnit.Bytes()
	copy(buf[16:], pb[16:])
	var f Felt
	f.e.SetBytes(buf[:]) // below 2^248 < P
	return f
}

// feeFieldHash is h(tip, l1_gas bound, l2_gas bound[, l1_data_gas bound]).
func (v *InvokeV3Fields) feeFieldHash() Felt {
	rb := &v.ResourceBounds
	fs := []Felt{FeltFromUint64(v.Tip), rb.L1Gas.encode(resourceL1Gas), rb.L2Gas.encode(resourceL2Gas)}
	if rb.HasL1DataGas {
		fs = append(fs, rb.L1DataGas.encode(resourceL1DataGas))
	}
	return poseidonHashMany(fs...)
}

// daModes packs the two modes: nonce mode << 32 | fee mode.
func (v *InvokeV3Fields) daModes() Felt {
	return FeltFromUint64(uint64(v.NonceDAMode)<<32 | uint64(v.FeeDAMode))
}

// InvokeV3Hash is the hash of an INVOKE v3 (SNIP-8), Poseidon over
// ("invoke", version, sender_address, h(tip, bounds…), h(paymaster_data),
// chain_id, nonce, data availability modes, h(account_deployment_data),
// h(calldata)). version is 3, or 2^128 + 3 for a query.
func InvokeV3Hash(chainID Felt, version, sender Felt, calldata []Felt, nonce Felt, v *InvokeV3Fields) Felt {
	return poseidonHashMany(
		prefixInvoke,
		version,
		sender,
		v.feeFieldHash(),
		poseidonHashMany(v.PaymasterData...),
		chainID,
		nonce,
		v.daModes(),
		poseidonHashMany(v.AccountDeploymentData...),
		poseidonHashMany(calldata...),
	)
}

// versionFelt is the version as it is hashed and listed (2^128 + v for a query).
func (tx *Invoke) versionFelt() Felt {
	f := FeltFromUint64(uint64(tx.Version))
	if tx.Query {
		f.e.Add(&f.e, &queryVersionBase.e)
	}
	return f
}

// appendV3JSON writes the v3 fields after the common ones.
func (v *InvokeV3Fields) appendJSON(buf []byte) []byte {
	buf = append(buf, `,"resource_bounds":{`...)
	rb := &v.ResourceBounds
	bounds := []*ResourceBound{&rb.L1Gas, &rb.L2Gas, &rb.L1DataGas}
	for i, name := range resourceNames {
		if name == "l1_data_gas" && !rb.HasL1DataGas {
			break
		}
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `"`+name+`":{"max_amount":`...)
		buf = FeltFromUint64(bounds[i].MaxAmount).AppendQuoted(buf)
		buf = append(buf, `,"max_price_per_unit":`...)
		buf = bounds[i].MaxPricePerUnit.AppendQuoted(buf)
		buf = append(buf, '}')
	}
	buf = append(buf, `},"tip":`...)
	buf = FeltFromUint64(v.Tip).AppendQuoted(buf)
	buf = append(buf, `,"paymaster_data":`...)
	buf = AppendFelts(buf, v.PaymasterData)
	buf = append(buf, `,"account_deployment_data":`...)
	buf = AppendFelts(buf, v.AccountDeploymentData)
	buf = append(buf, `,"nonce_data_availability_mode":"`...)
	buf = append(buf, v.NonceDAMode.String()...)
	buf = append(buf, `","fee_data_availability_mode":"`...)
	buf = append(buf, v.FeeDAMode.String()...)
	return append(buf, '"')
}
