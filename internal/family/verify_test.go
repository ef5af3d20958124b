package family

import (
	"testing"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/verify"
)

// TestVerifyChecks: a network's verify switches turn each check on or
// off; an unset switch keeps its default; every check off checks nothing.
func TestVerifyChecks(t *testing.T) {
	on, off := true, false
	tests := []struct {
		name string
		cfg  config.Verify
		want verify.Checks
	}{
		{"defaults", config.Verify{}, verify.Defaults()},
		{"block hash off", config.Verify{BlockHash: &off},
			verify.Checks{Identity: true, TransactionsRoot: true}},
		{"senders on", config.Verify{TxSender: &on, BlockSenders: &on},
			verify.Checks{Identity: true, BlockHash: true, TransactionsRoot: true, TxSender: true, BlockSenders: true}},
		{"all off", config.Verify{Identity: &off, BlockHash: &off, TransactionsRoot: &off, TxHash: &off}, verify.Checks{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := verifyChecks(tt.cfg); got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			if fn := evmVerify(config.Network{Verify: tt.cfg}); (fn == nil) != (tt.want == verify.Checks{}) {
				t.Fatalf("a check function when checks are %+v: %v", tt.want, fn != nil)
			}
		})
	}
}
