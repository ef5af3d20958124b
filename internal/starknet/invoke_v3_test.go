package starknet

import (
	"errors"
	"strings"
	"testing"
)

// TestDecodeInvokeV3BadInput: every malformed v3 field is refused with
// -32602 naming the field (a query version with 61 on submission).
func TestDecodeInvokeV3BadInput(t *testing.T) {
	with := func(old, new string) string {
		if !strings.Contains(validV3, old) {
			t.Fatalf("test edit %q does not apply", old)
		}
		return strings.Replace(validV3, old, new, 1)
	}
	u64over := `"0x10000000000000000"`
	u128over := `"0x100000000000000000000000000000000"`
	tests := []struct {
		name, in, wantField, wantText string
		wantCode                      int
	}{
		{name: "max_fee on v3", in: with(`"tip"`, `"max_fee":"0x1","tip"`), wantField: "max_fee", wantText: "unknown field"},
		{name: "missing resource_bounds", in: with(`"resource_bounds":{"l1_gas":{"max_amount":"0x0","max_price_per_unit":"0x5af3107a4000"},"l2_gas":{"max_amount":"0x7a120","max_price_per_unit":"0x2540be400"},"l1_data_gas":{"max_amount":"0x80","max_price_per_unit":"0x3b9aca00"}},`, ""), wantField: "resource_bounds", wantText: "missing field"},
		{name: "unknown top-level field", in: with(`"resource_bounds":{`, `"resource_bounds":[],"x":{`), wantField: "x", wantText: "unknown field"},
		{name: "resource_bounds array", in: strings.Replace(with(`"l1_gas":{"max_amount":"0x0","max_price_per_unit":"0x5af3107a4000"},"l2_gas":{"max_amount":"0x7a120","max_price_per_unit":"0x2540be400"},"l1_data_gas":{"max_amount":"0x80","max_price_per_unit":"0x3b9aca00"}`, ""), `"resource_bounds":{}`, `"resource_bounds":[1]`, 1), wantField: "resource_bounds", wantText: "must be an object"},
		{name: "missing l1_gas", in: with(`"l1_gas":{"max_amount":"0x0","max_price_per_unit":"0x5af3107a4000"},`, ""), wantField: "resource_bounds.l1_gas", wantText: "missing field"},
		{name: "missing l2_gas", in: with(`"l2_gas":{"max_amount":"0x7a120","max_price_per_unit":"0x2540be400"},`, ""), wantField: "resource_bounds.l2_gas", wantText: "missing field"},
		{name: "unknown resource", in: with(`"l1_gas":`, `"l3_gas":{},"l1_gas":`), wantField: "resource_bounds.l3_gas", wantText: "unknown resource"},
		{name: "bound not an object", in: with(`"l2_gas":{"max_amount":"0x7a120","max_price_per_unit":"0x2540be400"}`, `"l2_gas":"0x1"`), wantField: "resource_bounds.l2_gas", wantText: "must be an object"},
		{name: "bound unknown field", in: with(`"max_amount":"0x80"`, `"amount":"0x1","max_amount":"0x80"`), wantField: "resource_bounds.l1_data_gas.amount", wantText: "unknown field"},
		{name: "max_amount missing", in: with(`"max_amount":"0x7a120",`, ""), wantField: "resource_bounds.l2_gas.max_amount", wantText: "missing field"},
		{name: "max_amount over u64", in: with(`"max_amount":"0x7a120"`, `"max_amount":`+u64over), wantField: "resource_bounds.l2_gas.max_amount", wantText: "64 bits"},
		{name: "max_amount a number", in: with(`"max_amount":"0x7a120"`, `"max_amount":500000`), wantField: "resource_bounds.l2_gas.max_amount", wantText: "got a number"},
		{name: "price over u128", in: with(`"max_price_per_unit":"0x3b9aca00"`, `"max_price_per_unit":`+u128over), wantField: "resource_bounds.l1_data_gas.max_price_per_unit", wantText: "128 bits"},
		{name: "price not hex", in: with(`"max_price_per_unit":"0x5af3107a4000"`, `"max_price_per_unit":"12"`), wantField: "resource_bounds.l1_gas.max_price_per_unit", wantText: "0x"},
		{name: "missing tip", in: with(`"tip":"0x0",`, ""), wantField: "tip", wantText: "missing field"},
		{name: "tip over u64", in: with(`"tip":"0x0"`, `"tip":`+u64over), wantField: "tip", wantText: "64 bits"},
		{name: "tip null", in: with(`"tip":"0x0"`, `"tip":null`), wantField: "tip", wantText: "got null"},
		{name: "missing paymaster_data", in: with(`"paymaster_data":[],`, ""), wantField: "paymaster_data", wantText: "missing field"},
		{name: "paymaster_data not array", in: with(`"paymaster_data":[]`, `"paymaster_data":"0x1"`), wantField: "paymaster_data", wantText: "must be an array"},
		{name: "paymaster_data bad felt", in: with(`"paymaster_data":[]`, `"paymaster_data":["0x1","0xg"]`), wantField: "paymaster_data[1]", wantText: "hex"},
		{name: "account_deployment_data over prime", in: with(`"account_deployment_data":[]`, `"account_deployment_data":["`+pHex+`"]`), wantField: "account_deployment_data[0]", wantText: "field prime"},
		{name: "missing nonce DA mode", in: with(`"nonce_data_availability_mode":"L1",`, ""), wantField: "nonce_data_availability_mode", wantText: "missing field"},
		{name: "bad nonce DA mode", in: with(`"nonce_data_availability_mode":"L1"`, `"nonce_data_availability_mode":"L3"`), wantField: "nonce_data_availability_mode", wantText: `"L1" or "L2"`},
		{name: "fee DA mode a number", in: with(`"fee_data_availability_mode":"L1"`, `"fee_data_availability_mode":0`), wantField: "fee_data_availability_mode", wantText: `"L1" or "L2"`},
		{name: "missing nonce", in: with(`"nonce":"0x0",`, ""), wantField: "nonce", wantText: "missing field"},
		{name: "missing sender", in: with(`"sender_address":"0x1",`, ""), wantField: "sender_address", wantText: "missing field"},
		{name: "v0 field on v3", in: with(`"tip"`, `"entry_point_selector":"0x1","tip"`), wantField: "entry_point_selector", wantText: "unknown field"},
		{name: "query version submitted", in: with(`"version":"0x3"`, `"version":"0x100000000000000000000000000000003"`), wantField: "version", wantCode: CodeUnsupportedTxVersion, wantText: "not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx, err := DecodeInvoke([]byte(tt.in), TxLimits{})
			if err == nil {
				t.Fatalf("accepted: %+v", tx)
			}
			var te *TxError
			if !errors.As(err, &te) {
				t.Fatalf("error %T %v is not a *TxError", err, err)
			}
			code := tt.wantCode
			if code == 0 {
				code = -32602
			}
			if te.Code != code || te.Field != tt.wantField || !strings.Contains(te.Error(), tt.wantText) {
				t.Fatalf("got code %d field %q %q; want code %d field %q containing %q", te.Code, te.Field, te.Error(), code, tt.wantField, tt.wantText)
			}
		})
	}
}

// TestDecodeInvokeV3 reads every field, lists the transaction back in the
// node's shape and accepts the query version for estimates only.
func TestDecodeInvokeV3(t *testing.T) {
	tx, err := DecodeInvoke([]byte(validV3), TxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	rb := tx.V3.ResourceBounds
	if tx.Version != 3 || tx.Query || !rb.HasL1DataGas || rb.L2Gas.MaxAmount != 0x7a120 || rb.L1DataGas.MaxPricePerUnit.String() != "0x3b9aca00" || tx.V3.NonceDAMode != DAModeL1 {
		t.Fatalf("decoded %+v", tx)
	}
	hash := tx.Hash(FeltFromUint64(1))
	got := string(tx.AppendJSON(nil, hash))
	want := `{"type":"INVOKE","transaction_hash":"` + hash.String() + `","version":"0x3","signature":["0x1","0x2"],"nonce":"0x0","sender_address":"0x1","calldata":["0x1","0x2"],` +
		`"resource_bounds":{"l1_gas":{"max_amount":"0x0","max_price_per_unit":"0x5af3107a4000"},"l2_gas":{"max_amount":"0x7a120","max_price_per_unit":"0x2540be400"},"l1_data_gas":{"max_amount":"0x80","max_price_per_unit":"0x3b9aca00"}},` +
		`"tip":"0x0","paymaster_data":[],"account_deployment_data":[],"nonce_data_availability_mode":"L1","fee_data_availability_mode":"L1"}`
	if got != want {
		t.Fatalf("listed as\n%s\nwant\n%s", got, want)
	}
	q, err := DecodeInvokeQuery([]byte(strings.Replace(validV3, `"0x3"`, `"0x100000000000000000000000000000003"`, 1)), TxLimits{})
	if err != nil || !q.Query || q.Version != 3 || q.Hash(FeltFromUint64(1)).Equal(hash) {
		t.Fatalf("query version: %+v, %v", q, err)
	}
}

// FuzzDecodeInvoke: any input is either refused with a TxError naming a
// code the devnet answers with, or decoded into a transaction that lists
// back as JSON which decodes to the same hash.
func FuzzDecodeInvoke(f *testing.F) {
	f.Add([]byte(validV3))
	f.Add([]byte(strings.Replace(validV3, `,"l1_data_gas":{"max_amount":"0x80","max_price_per_unit":"0x3b9aca00"}`, "", 1)))
	f.Add([]byte(`{"type":"INVOKE","version":"0x1","max_fee":"0x1","signature":[],"nonce":"0x0","sender_address":"0x1","calldata":[]}`))
	f.Add([]byte(`{"type":"INVOKE","version":"0x3","resource_bounds":{"l1_gas":{"max_amount":"0xffffffffffffffff","max_price_per_unit":"0xffffffffffffffffffffffffffffffff"}}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		tx, err := DecodeInvoke(raw, TxLimits{})
		if err != nil {
			var te *TxError
			if !errors.As(err, &te) || (te.Code != -32602 && te.Code != CodeUnsupportedTxVersion) {
				t.Fatalf("error %v is not a TxError with a devnet code", err)
			}
			return
		}
		chain := FeltFromUint64(7)
		hash := tx.Hash(chain)
		listed := tx.AppendJSON(nil, hash)
		// The listed form carries transaction_hash, which a broadcast has not.
		again, err := DecodeInvoke(stripHash(listed), TxLimits{})
		if err != nil {
			t.Fatalf("listed form %s does not decode: %v", listed, err)
		}
		if !again.Hash(chain).Equal(hash) {
			t.Fatalf("hash changed through listing: %s", listed)
		}
	})
}

func stripHash(listed []byte) []byte {
	s := string(listed)
	i := strings.Index(s, `"transaction_hash":`)
	j := strings.Index(s[i:], ",")
	return []byte(s[:i] + s[i+j+1:])
}

func BenchmarkInvokeV3Hash(b *testing.B) {
	tx, err := DecodeInvoke([]byte(validV3), TxLimits{})
	if err != nil {
		b.Fatal(err)
	}
	chain, _ := ChainIDFelt("SN_DEVNET")
	b.ReportAllocs()
	for b.Loop() {
		_ = tx.Hash(chain)
	}
}
