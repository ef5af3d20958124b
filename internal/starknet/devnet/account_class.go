package devnet

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/nodegate/nodegate/internal/starknet"
)

// accountABI is the ABI of the devnet's account class: a Cairo 1 account
// in the shape of SNIP-6 (__execute__, __validate__, is_valid_signature),
// SNIP-5 (supports_interface), the declare and deploy validators, and a
// public key with its getter and setter; its constructor takes the public
// key. The interface is the class's own; the core types are Cairo's.
// Clients read the Cairo version from it (an "interface" entry means
// Cairo 1), so that an Account needs no cairoVersion.
const accountABI = `[
{"type": "impl", "name": "AccountImpl", "interface_name": "nodegate::devnet::account::IAccount"},
{"type": "struct", "name": "core::array::Span::<core::felt252>", "members": [
  {"name": "snapshot", "type": "@core::array::Array::<core::felt252>"}]},
{"type": "struct", "name": "core::starknet::account::Call", "members": [
  {"name": "to", "type": "core::starknet::contract_address::ContractAddress"},
  {"name": "selector", "type": "core::felt252"},
  {"name": "calldata", "type": "core::array::Span::<core::felt252>"}]},
{"type": "enum", "name": "core::bool", "variants": [
  {"name": "False", "type": "()"}, {"name": "True", "type": "()"}]},
{"type": "interface", "name": "nodegate::devnet::account::IAccount", "items": [
  {"type": "function", "name": "__execute__",
   "inputs": [{"name": "calls", "type": "core::array::Array::<core::starknet::account::Call>"}],
   "outputs": [{"type": "core::array::Array::<core::array::Span::<core::felt252>>"}], "state_mutability": "external"},
  {"type": "function", "name": "__validate__",
   "inputs": [{"name": "calls", "type": "core::array::Array::<core::starknet::account::Call>"}],
   "outputs": [{"type": "core::felt252"}], "state_mutability": "external"},
  {"type": "function", "name": "is_valid_signature",
   "inputs": [{"name": "hash", "type": "core::felt252"}, {"name": "signature", "type": "core::array::Array::<core::felt252>"}],
   "outputs": [{"type": "core::felt252"}], "state_mutability": "view"},
  {"type": "function", "name": "supports_interface",
   "inputs": [{"name": "interface_id", "type": "core::felt252"}],
   "outputs": [{"type": "core::bool"}], "state_mutability": "view"},
  {"type": "function", "name": "__validate_declare__",
   "inputs": [{"name": "class_hash", "type": "core::felt252"}],
   "outputs": [{"type": "core::felt252"}], "state_mutability": "view"},
  {"type": "function", "name": "__validate_deploy__",
   "inputs": [{"name": "class_hash", "type": "core::felt252"}, {"name": "contract_address_salt", "type": "core::felt252"}, {"name": "public_key", "type": "core::felt252"}],
   "outputs": [{"type": "core::felt252"}], "state_mutability": "view"},
  {"type": "function", "name": "get_public_key", "inputs": [],
   "outputs": [{"type": "core::felt252"}], "state_mutability": "view"},
  {"type": "function", "name": "set_public_key",
   "inputs": [{"name": "new_public_key", "type": "core::felt252"}, {"name": "signature", "type": "core::array::Span::<core::felt252>"}],
   "outputs": [], "state_mutability": "external"}]},
{"type": "constructor", "name": "constructor", "inputs": [{"name": "public_key", "type": "core::felt252"}]},
{"type": "event", "name": "nodegate::devnet::account::Account::Event", "kind": "enum", "variants": []}
]`

// accountClass is the devnet's account class, made once: the ABI above as
// the class hash commits to it, one external entry point per function of
// the interface (sorted by selector, as compiled classes list them), the
// constructor, and a placeholder program: the devnet executes no code, so
// its Sierra program is two short strings saying so, not a compiled one.
var accountClass = newAccountClass()

func newAccountClass() *starknet.SierraClass {
	var abi []struct {
		Type  string `json:"type"`
		Items []struct {
			Name string `json:"name"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(accountABI), &abi); err != nil {
		panic("devnet account ABI: " + err.Error())
	}
	c := &starknet.SierraClass{
		Program: []starknet.Felt{shortString("nodegate devnet account"), shortString("executes no code")},
		ABI:     pythonSpacing(accountABI),
	}
	idx := uint64(0)
	for _, entry := range abi {
		for _, fn := range entry.Items {
			c.External = append(c.External, starknet.SierraEntryPoint{Selector: starknet.Selector(fn.Name), FunctionIdx: idx})
			idx++
		}
	}
	sort.Slice(c.External, func(i, j int) bool { return c.External[i].Selector.Big().Cmp(c.External[j].Selector.Big()) < 0 })
	c.Constructor = []starknet.SierraEntryPoint{{Selector: starknet.Selector("constructor"), FunctionIdx: idx}}
	return c
}

// pythonSpacing compacts JSON text and writes it as Python's json.dumps
// does (", " and ": " between tokens), the text a Sierra class's ABI hash
// is taken over.
func pythonSpacing(text string) string {
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(text)); err != nil {
		panic("devnet account ABI: " + err.Error())
	}
	out := make([]byte, 0, compact.Len()*11/10)
	inString, escaped := false, false
	for _, c := range compact.Bytes() {
		out = append(out, c)
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			out = append(out, ' ')
		}
	}
	return string(out)
}

func shortString(s string) starknet.Felt {
	f, err := starknet.FeltFromBytes([]byte(s))
	if err != nil {
		panic(err)
	}
	return f
}
