package starknet

import (
	"errors"
	"strings"
	"testing"
)

// TestInvokeHashRealTransactions recomputes the hashes of real public
// INVOKE transactions from their fields (see testdata/ORIGIN.md).
func TestInvokeHashRealTransactions(t *testing.T) {
	versions := map[uint8]int{}
	for _, v := range loadInvokeVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			tx, err := DecodeInvoke(v.Tx, TxLimits{})
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			versions[tx.Version]++
			chain, err := ChainIDFelt(v.ChainID)
			if err != nil {
				t.Fatal(err)
			}
			want := MustFelt(v.Hash)
			if got := tx.Hash(chain); !got.Equal(want) {
				t.Fatalf("hash %s, want %s (%s)", got, want, v.Source)
			}
			// The same transaction on another chain is another transaction.
			other, _ := ChainIDFelt("SN_OTHER")
			if tx.Hash(other).Equal(want) {
				t.Fatal("hash does not depend on the chain id")
			}
		})
	}
	if versions[0] < 2 || versions[1] < 2 || versions[3] < 2 {
		t.Fatalf("vectors cover versions %v; want at least two v0, two v1 and two v3", versions)
	}
}

func TestHashOnElementsEmpty(t *testing.T) {
	// h() over no elements is pedersen(0, 0), a published constant of
	// Starknet's compute_hash_on_elements.
	want := MustFelt("0x49ee3eba8c1600700ee1b87eb599f16716b0b1022947733551fde4050ca6804")
	if got := hashOnElements(nil); !got.Equal(want) {
		t.Fatalf("h() = %s, want %s", got, want)
	}
}

func TestDecodeInvokeBadInput(t *testing.T) {
	v1 := `{"type":"INVOKE","version":"0x1","max_fee":"0x1","signature":["0x1"],"nonce":"0x0","sender_address":"0x1","calldata":[%s]}`
	with := func(calldata string) string { return strings.Replace(v1, "%s", calldata, 1) }
	tests := []struct {
		name      string
		in        string
		wantCode  int
		wantField string
		wantText  string
	}{
		{name: "not an object", in: `["INVOKE"]`, wantText: "must be an object"},
		{name: "null", in: `null`, wantText: "must be an object"},
		{name: "missing type", in: `{"version":"0x1"}`, wantField: "type", wantText: "missing field"},
		{name: "wrong type", in: `{"type":"DECLARE","version":"0x1"}`, wantField: "type", wantText: `must be "INVOKE"`},
		{name: "type not a string", in: `{"type":1,"version":"0x1"}`, wantField: "type", wantText: "must be a string"},
		{name: "missing version", in: `{"type":"INVOKE"}`, wantField: "version", wantText: "missing field"},
		{name: "version 2", in: `{"type":"INVOKE","version":"0x2"}`, wantCode: CodeUnsupportedTxVersion, wantField: "version"},
		{name: "query version", in: `{"type":"INVOKE","version":"0x100000000000000000000000000000001"}`, wantCode: CodeUnsupportedTxVersion, wantField: "version"},
		{name: "felt over prime", in: with(`"` + pHex + `"`), wantField: "calldata[0]", wantText: "not below the field prime"},
		{name: "felt as number", in: with(`1`), wantField: "calldata[0]", wantText: "got a number"},
		{name: "felt not hex", in: with(`"0x1","zz"`), wantField: "calldata[1]"},
		{name: "calldata not array", in: strings.Replace(v1, "[%s]", `"0x1"`, 1), wantField: "calldata", wantText: "must be an array"},
		{name: "huge calldata", in: with(strings.TrimSuffix(strings.Repeat(`"0x1",`, DefaultTxLimits.MaxCalldata+1), ",")), wantField: "calldata", wantText: "more than 4096"},
		{name: "huge signature", in: strings.Replace(with(""), `"signature":["0x1"]`, `"signature":[`+strings.TrimSuffix(strings.Repeat(`"0x1",`, 65), ",")+`]`, 1), wantField: "signature", wantText: "more than 64"},
		{name: "missing sender", in: strings.Replace(with(""), `"sender_address":"0x1",`, "", 1), wantField: "sender_address", wantText: "missing field"},
		{name: "missing nonce v1", in: strings.Replace(with(""), `"nonce":"0x0",`, "", 1), wantField: "nonce", wantText: "missing field"},
		{name: "v0 field on v1", in: strings.Replace(with(""), `"nonce"`, `"entry_point_selector":"0x1","nonce"`, 1), wantField: "entry_point_selector", wantText: "unknown field"},
		{name: "typo field", in: strings.Replace(with(""), `"nonce"`, `"max_feee":"0x1","nonce"`, 1), wantField: "max_feee", wantText: "unknown field"},
		{name: "v0 missing selector", in: `{"type":"INVOKE","version":"0x0","max_fee":"0x1","signature":[],"contract_address":"0x1","calldata":[]}`, wantField: "entry_point_selector", wantText: "missing field"},
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

func BenchmarkInvokeV1Hash(b *testing.B) {
	vs := loadInvokeVectors(b)
	tx, err := DecodeInvoke(vs[2].Tx, TxLimits{})
	if err != nil {
		b.Fatal(err)
	}
	chain, _ := ChainIDFelt(vs[2].ChainID)
	b.ReportAllocs()
	for b.Loop() {
		_ = tx.Hash(chain)
	}
}
