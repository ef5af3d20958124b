package family

import (
	"testing"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/methods"
)

// TestMemberBatchSize: a starknet network's HTTP node takes upstream
// batches only when its batch_size says so; the embedded devnet and EVM
// nodes take the configured size (0: the pool's default).
func TestMemberBatchSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		family methods.Family
		uc     config.Upstream
		want   int
	}{
		{"EVM node, default", methods.FamilyEVM, config.Upstream{URL: "http://127.0.0.1:8545"}, 0},
		{"EVM node, configured", methods.FamilyEVM, config.Upstream{URL: "http://127.0.0.1:8545", BatchSize: 7}, 7},
		{"Starknet node, default", methods.FamilyStarknet, config.Upstream{URL: "http://127.0.0.1:9545"}, 1},
		{"Starknet node, configured", methods.FamilyStarknet, config.Upstream{URL: "http://127.0.0.1:9545", BatchSize: 20}, 20},
		{"embedded devnet, default", methods.FamilyStarknet, config.Upstream{URL: config.EmbeddedURL}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Of(string(tc.family)).BatchSize(tc.uc); got != tc.want {
				t.Fatalf("batch size %d, want %d", got, tc.want)
			}
		})
	}
}
