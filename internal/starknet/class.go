package starknet

import (
	"encoding/json"
	"math/big"
	"strconv"

	"golang.org/x/crypto/sha3"
)

// SierraEntryPoint is one entry point of a Sierra class: the function's
// selector and its index in the Sierra program.
type SierraEntryPoint struct {
	Selector    Felt
	FunctionIdx uint64
}

// SierraClass is a Cairo 1 contract class as Starknet JSON-RPC's
// CONTRACT_CLASS carries it. ABI is the class's ABI as the JSON text the
// class hash commits to (Python's json.dumps spacing: ", " and ": ").
type SierraClass struct {
	Program     []Felt
	Constructor []SierraEntryPoint
	External    []SierraEntryPoint
	L1Handler   []SierraEntryPoint
	ABI         string
}

// sierraClassVersion is the short string "CONTRACT_CLASS_V0.1.0", the first
// element of every Sierra class hash.
var sierraClassVersion = mustShortString("CONTRACT_CLASS_V0.1.0")

// Hash is Starknet's class hash of a Sierra class: Poseidon over
// ("CONTRACT_CLASS_V0.1.0", h(external), h(l1_handler), h(constructor),
// sn_keccak(abi), h(sierra_program)), each h a Poseidon over the flattened
// (selector, function_idx) pairs or the program's felts.
func (c *SierraClass) Hash() Felt {
	program := poseidonHashMany(c.Program...)
	return poseidonHashMany(sierraClassVersion, hashEntryPoints(c.External), hashEntryPoints(c.L1Handler),
		hashEntryPoints(c.Constructor), StarknetKeccak([]byte(c.ABI)), program)
}

func hashEntryPoints(eps []SierraEntryPoint) Felt {
	var p poseidonMany
	for _, ep := range eps {
		p.add(ep.Selector)
		p.add(FeltFromUint64(ep.FunctionIdx))
	}
	return p.sum()
}

// AppendJSON writes the class as CONTRACT_CLASS: sierra_program,
// contract_class_version, entry_points_by_type and abi (a string).
func (c *SierraClass) AppendJSON(buf []byte) []byte {
	buf = append(buf, `{"sierra_program":`...)
	buf = AppendFelts(buf, c.Program)
	buf = append(buf, `,"contract_class_version":"0.1.0","entry_points_by_type":{"CONSTRUCTOR":`...)
	buf = appendEntryPoints(buf, c.Constructor)
	buf = append(buf, `,"EXTERNAL":`...)
	buf = appendEntryPoints(buf, c.External)
	buf = append(buf, `,"L1_HANDLER":`...)
	buf = appendEntryPoints(buf, c.L1Handler)
	buf = append(buf, `},"abi":`...)
	abi, _ := json.Marshal(c.ABI) // a string always marshals
	buf = append(buf, abi...)
	return append(buf, '}')
}

func appendEntryPoints(buf []byte, eps []SierraEntryPoint) []byte {
	buf = append(buf, '[')
	for i, ep := range eps {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"selector":`...)
		buf = ep.Selector.AppendQuoted(buf)
		buf = append(buf, `,"function_idx":`...)
		buf = strconv.AppendUint(buf, ep.FunctionIdx, 10)
		buf = append(buf, '}')
	}
	return append(buf, ']')
}

// mask250 keeps the low 250 bits of a Keccak-256 digest.
var mask250 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 250), big.NewInt(1))

// StarknetKeccak is Starknet's sn_keccak: Keccak-256 of b, its low 250 bits.
func StarknetKeccak(b []byte) Felt {
	h := sha3.NewLegacyKeccak256()
	h.Write(b)
	v := new(big.Int).SetBytes(h.Sum(nil))
	v.And(v, mask250)
	f, _ := FeltFromBig(v) // 250 bits are below the prime
	return f
}

// Selector is the entry point selector of a function name: sn_keccak(name).
func Selector(name string) Felt { return StarknetKeccak([]byte(name)) }

// contractAddressPrefix is the short string "STARKNET_CONTRACT_ADDRESS".
var contractAddressPrefix = mustShortString("STARKNET_CONTRACT_ADDRESS")

// addrBound is 2^251 - 256: contract addresses are reduced below it.
var addrBound = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 251), big.NewInt(256))

// ContractAddress is the address a deployer gives a contract of classHash
// deployed with salt and constructor calldata: Pedersen chain of
// ("STARKNET_CONTRACT_ADDRESS", deployer, salt, class_hash,
// h(constructor_calldata)) modulo 2^251 - 256.
func ContractAddress(deployer, salt, classHash Felt, calldata []Felt) Felt {
	h := hashOnElements([]Felt{contractAddressPrefix, deployer, salt, classHash, hashOnElements(calldata)})
	v := h.Big()
	v.Mod(v, addrBound)
	f, _ := FeltFromBig(v) // below 2^251, or the curve order: a felt
	return f
}
