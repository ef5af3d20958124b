package starknet

import "testing"

// The vectors of this file were computed with starknet.js 10.8.0
// (ec.starkCurve.getStarkKey, hash.calculateContractAddressFromHash,
// hash.computeSierraContractClassHash, hash.getSelectorFromName).

func TestPublicKey(t *testing.T) {
	tests := []struct{ name, private, want string }{
		{name: "one is the generator", private: "0x1", want: "0x1ef15c18599971b7beced415a40f0c7deacfd9b0d1819e03d723d8bc943cfca"},
		{name: "a key", private: "0x2dccce1da22003777062ee0870e9881b460a8b7eca276870f57c601f182136c", want: "0x499f65ae2f71d5298d2d88823b2e5e19596a71aac1984710479e406a002439"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PublicKey(MustFelt(tt.private))
			if err != nil || got.String() != tt.want {
				t.Fatalf("PublicKey(%s) = %s, %v; want %s", tt.private, got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{"0x0", "0x800000000000010ffffffffffffffffb781126dcae7b2321e66a241adc64d2f"} {
		if _, err := PublicKey(MustFelt(bad)); err == nil {
			t.Fatalf("PublicKey(%s) accepted a key outside [1, n)", bad)
		}
	}
}

func TestSelector(t *testing.T) {
	tests := []struct{ name, fn, want string }{
		{name: "__execute__", fn: "__execute__", want: executeSelector.String()},
		{name: "__validate__", fn: "__validate__", want: "0x162da33a4585851fe8d3af3c2a9c60b557814e221e0d4f30ff0b2189d9c7775"},
		{name: "constructor", fn: "constructor", want: "0x28ffe4ff0f226a9107253e17a904099aa4f63a02a5621de0576e5aa71bc5194"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Selector(tt.fn).String(); got != tt.want {
				t.Fatalf("Selector(%s) = %s, want %s", tt.fn, got, tt.want)
			}
		})
	}
}

func TestContractAddress(t *testing.T) {
	pub := MustFelt("0x499f65ae2f71d5298d2d88823b2e5e19596a71aac1984710479e406a002439")
	class := MustFelt("0x61dac032f228abef9c6626f995015233097ae253a7f72d68552db02f2971b8f")
	got := ContractAddress(Felt{}, pub, class, []Felt{pub})
	if want := "0x76d427e4760e8a0947f747c98263827154aca2c999b288a2087cd9655e2008d"; got.String() != want {
		t.Fatalf("ContractAddress = %s, want %s", got, want)
	}
}

func TestSierraClassHash(t *testing.T) {
	c := SierraClass{
		Program:     []Felt{FeltFromUint64(1), FeltFromUint64(2), FeltFromUint64(3)},
		Constructor: []SierraEntryPoint{{Selector: Selector("constructor"), FunctionIdx: 2}},
		External:    []SierraEntryPoint{{Selector: executeSelector, FunctionIdx: 0}, {Selector: Selector("__validate__"), FunctionIdx: 1}},
		ABI:         `[{"type": "function", "name": "f", "inputs": [{"name": "a", "type": "core::felt252"}], "outputs": [], "state_mutability": "view"}]`,
	}
	if got, want := c.Hash().String(), "0x1584f512b532dcbc9a19f56cfc7153e985037d8a05d4e1d9921aab55dacf7fd"; got != want {
		t.Fatalf("class hash %s, want %s", got, want)
	}
	out := string(c.AppendJSON(nil))
	want := `{"sierra_program":["0x1","0x2","0x3"],"contract_class_version":"0.1.0","entry_points_by_type":{"CONSTRUCTOR":[{"selector":"0x28ffe4ff0f226a9107253e17a904099aa4f63a02a5621de0576e5aa71bc5194","function_idx":2}],` +
		`"EXTERNAL":[{"selector":"0x15d40a3d6ca2ac30f4031e42be28da9b056fef9bb7357ac5e85627ee876e5ad","function_idx":0},{"selector":"0x162da33a4585851fe8d3af3c2a9c60b557814e221e0d4f30ff0b2189d9c7775","function_idx":1}],"L1_HANDLER":[]},` +
		`"abi":"[{\"type\": \"function\", \"name\": \"f\", \"inputs\": [{\"name\": \"a\", \"type\": \"core::felt252\"}], \"outputs\": [], \"state_mutability\": \"view\"}]"}`
	if out != want {
		t.Fatalf("class JSON\n%s\nwant\n%s", out, want)
	}
}
