package devnet

import (
	"math/big"
	"strconv"

	"github.com/nodegate/nodegate/internal/starknet"
)

// The devnet has no fee market and runs no code: its gas prices are fixed
// and what a transaction "consumes" is a fixed formula of its size. Both
// are reported as a real node reports them (starknet_estimateFee, block
// headers, receipts) so that clients can build and size transactions; no
// balance is ever debited. Documented in docs/starknet.md.
type gasPrices struct{ l1Gas, l2Gas, l1DataGas uint64 }

var (
	// pricesFri are the prices in FRI (10^-18 STRK), for v3 transactions.
	pricesFri = gasPrices{l1Gas: 100_000_000_000_000, l2Gas: 10_000_000_000, l1DataGas: 1_000_000_000}
	// pricesWei are the prices in WEI, for v0 and v1 transactions.
	pricesWei = gasPrices{l1Gas: 100_000_000_000, l2Gas: 10_000_000, l1DataGas: 1_000_000}
)

// The consumption formula: a fixed base of L2 gas plus a per-felt cost of
// everything the transaction carries, a fixed amount of L1 data gas (one
// account's nonce and a little state), no L1 gas (no L1 message).
const (
	l2GasBase      = 500_000
	l2GasPerFelt   = 10_000
	l1DataGasFixed = 128
)

// feeEstimate is what a transaction is reported to use and cost.
type feeEstimate struct {
	l1Gas, l1DataGas, l2Gas uint64
	fri                     bool // unit FRI (v3) or WEI (v0, v1)
}

// feltsOf is how many felts tx carries in its arrays.
func feltsOf(tx *starknet.Invoke) int {
	return len(tx.Calldata) + len(tx.Signature) + len(tx.V3.PaymasterData) + len(tx.V3.AccountDeploymentData)
}

func estimateFee(tx *starknet.Invoke) feeEstimate {
	felts := feltsOf(tx)
	return feeEstimate{
		l1DataGas: l1DataGasFixed,
		l2Gas:     l2GasBase + l2GasPerFelt*uint64(felts),
		fri:       tx.Version == 3,
	}
}

func (f feeEstimate) prices() gasPrices {
	if f.fri {
		return pricesFri
	}
	return pricesWei
}

func (f feeEstimate) unit() string {
	if f.fri {
		return "FRI"
	}
	return "WEI"
}

// overall is Σ consumed × price.
func (f feeEstimate) overall() *big.Int {
	p := f.prices()
	sum := new(big.Int)
	for _, term := range [][2]uint64{{f.l1Gas, p.l1Gas}, {f.l2Gas, p.l2Gas}, {f.l1DataGas, p.l1DataGas}} {
		sum.Add(sum, new(big.Int).Mul(new(big.Int).SetUint64(term[0]), new(big.Int).SetUint64(term[1])))
	}
	return sum
}

func appendHexUint(buf []byte, v uint64) []byte {
	buf = append(buf, `"0x`...)
	buf = strconv.AppendUint(buf, v, 16)
	return append(buf, '"')
}

// appendJSON writes FEE_ESTIMATE (the same in 0.8 and 0.10).
func (f feeEstimate) appendJSON(buf []byte) []byte {
	p := f.prices()
	for i, kv := range []struct {
		k string
		v uint64
	}{{"l1_gas_consumed", f.l1Gas}, {"l1_gas_price", p.l1Gas}, {"l2_gas_consumed", f.l2Gas}, {"l2_gas_price", p.l2Gas}, {"l1_data_gas_consumed", f.l1DataGas}, {"l1_data_gas_price", p.l1DataGas}} {
		if i == 0 {
			buf = append(buf, '{')
		} else {
			buf = append(buf, ',')
		}
		buf = append(buf, `"`+kv.k+`":`...)
		buf = appendHexUint(buf, kv.v)
	}
	buf = append(buf, `,"overall_fee":"0x`...)
	buf = append(buf, f.overall().Text(16)...)
	buf = append(buf, `","unit":"`...)
	buf = append(buf, f.unit()...)
	return append(buf, `"}`...)
}

// appendActualFee writes a receipt's actual_fee: {amount, unit}.
func (f feeEstimate) appendActualFee(buf []byte) []byte {
	buf = append(buf, `{"amount":"0x`...)
	buf = append(buf, f.overall().Text(16)...)
	buf = append(buf, `","unit":"`...)
	buf = append(buf, f.unit()...)
	return append(buf, `"}`...)
}

// appendResources writes a receipt's execution_resources (integers).
func (f feeEstimate) appendResources(buf []byte) []byte {
	buf = append(buf, `{"l1_gas":`...)
	buf = strconv.AppendUint(buf, f.l1Gas, 10)
	buf = append(buf, `,"l1_data_gas":`...)
	buf = strconv.AppendUint(buf, f.l1DataGas, 10)
	buf = append(buf, `,"l2_gas":`...)
	buf = strconv.AppendUint(buf, f.l2Gas, 10)
	return append(buf, '}')
}

// appendHeaderPrices writes the price fields of a block header, and its
// l1_da_mode and starknet_version.
func appendHeaderPrices(buf []byte, s *spec) []byte {
	for _, kv := range []struct {
		k        string
		fri, wei uint64
	}{{"l1_gas_price", pricesFri.l1Gas, pricesWei.l1Gas}, {"l2_gas_price", pricesFri.l2Gas, pricesWei.l2Gas}, {"l1_data_gas_price", pricesFri.l1DataGas, pricesWei.l1DataGas}} {
		buf = append(buf, `,"`+kv.k+`":{"price_in_fri":`...)
		buf = appendHexUint(buf, kv.fri)
		buf = append(buf, `,"price_in_wei":`...)
		buf = appendHexUint(buf, kv.wei)
		buf = append(buf, '}')
	}
	buf = append(buf, `,"l1_da_mode":"BLOB","starknet_version":"`...)
	buf = append(buf, s.starknetVersion...)
	return append(buf, '"')
}
