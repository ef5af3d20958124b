package methods

import (
	"slices"
	"testing"
)

// TestRuleFacts: the per-method facts the pipeline reads (contract params,
// overrides, large answers) are on each method's rule.
func TestRuleFacts(t *testing.T) {
	table := NewTable(FamilyEVM)
	cases := []struct {
		method    string
		contracts Contracts
		overrides []int
		always    bool
		large     bool
	}{
		{"eth_call", ContractsCallTo, []int{2, 3}, false, false},
		{"eth_estimateGas", ContractsCallTo, []int{2, 3}, false, false},
		{"eth_createAccessList", ContractsCallTo, []int{2}, false, false},
		{"eth_fillTransaction", ContractsCallTo, nil, false, false},
		{"eth_simulateV1", ContractsNone, nil, true, false},
		{"eth_getLogs", ContractsLogFilter, nil, false, true},
		{"eth_newFilter", ContractsLogFilter, nil, false, false},
		{"eth_getFilterLogs", ContractsNone, nil, false, true},
		{"eth_getFilterChanges", ContractsNone, nil, false, true},
		{"eth_getBalance", ContractsFirstParam, nil, false, false},
		{"eth_getStorageAt", ContractsFirstParam, nil, false, false},
		{"eth_getProof", ContractsFirstParam, nil, false, false},
		{"eth_getStorageValues", ContractsStorageValues, nil, false, false},
		{"eth_sendRawTransaction", ContractsRawTxTo, nil, false, false},
		{"eth_subscribe", ContractsSubscription, nil, false, false},
		{"eth_chainId", ContractsNone, nil, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.method, func(t *testing.T) {
			r, e := table.Lookup(tc.method)
			if e != nil {
				t.Fatal(e)
			}
			if r.Contracts != tc.contracts || !slices.Equal(r.Overrides, tc.overrides) || r.OverridesAlways != tc.always || r.LargeAnswer != tc.large {
				t.Fatalf("rule %+v", r)
			}
			if LargeAnswer(tc.method) != tc.large {
				t.Fatalf("LargeAnswer = %v", !tc.large)
			}
		})
	}
	if !LargeAnswer("eth_madeUp") {
		t.Fatal("a method outside the known set is not held back as large")
	}
}
