package evmnode

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
)

// loopForever is contract creation code that jumps back to its start
// until its gas is spent: JUMPDEST PUSH1 0 JUMP.
const loopForever = "0x5b600056"

// TestRunsStopAtDeadline: a call of a method that runs code stops running
// when its context ends, eth_createAccessList's runs included (go-ethereum
// cancels no EVM of its own there): with gas for hours of looping, Do
// returns once the deadline passed, and the node takes the next call.
func TestRunsStopAtDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const gas = 1 << 40 // hours of the loop
	n, err := Start(ctx, Config{GasCap: gas, CallTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	tx := fmt.Sprintf(`{"data":%q,"gas":"0x%x"}`, loopForever, uint64(gas))
	cases := []struct{ name, method, params string }{
		{"eth_createAccessList", "eth_createAccessList", `[` + tx + `,"latest"]`},
		{"eth_call", "eth_call", `[` + tx + `,"latest"]`},
		{"eth_estimateGas", "eth_estimateGas", `[` + tx + `,"latest"]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cctx, ccancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer ccancel()
			done := make(chan string, 1)
			go func() {
				out, err := n.Do(cctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+tc.method+`","params":`+tc.params+`}`))
				done <- fmt.Sprintf("%s %v", out, err)
			}()
			var answer string
			testenv.WaitFor(t, 30*time.Second, "the run to stop after its deadline", func() bool {
				select {
				case answer = <-done:
					return true
				default:
					return false
				}
			})
			if strings.Contains(answer, `"result"`) {
				t.Fatalf("a run stopped at its deadline answered a result: %s", answer)
			}
			if out, err := n.Do(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`)); err != nil || !strings.Contains(string(out), "0x539") {
				t.Fatalf("the next call: %s %v", out, err)
			}
		})
	}
}
