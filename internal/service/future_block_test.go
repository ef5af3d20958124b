package service

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestFarFutureBlockAnsweredAtOnce: a call naming a block far beyond every
// member's head gets go-ethereum's own answer for a future block from one
// member, at once: it does not wait head_wait for the lagging member to
// reach the head, and it is not asked of every member. Before, a state
// call's "header not found" was taken for a lagging node's answer, so the
// call waited for the lagging `nodegate node` member (here head_wait and
// the retry budget are two minutes, beyond the client's patience) and was
// then retried on it.
func TestFarFutureBlockAnsweredAtOnce(t *testing.T) {
	a := startNode(t, chainDir, "127.0.0.1:0")
	b := startNode(t, truncatedChain(t, 10), "127.0.0.1:0") // lags a's head for good
	var head hexutil.Uint64
	raw, err := nodeResult(a.url(), "eth_blockNumber", "[]")
	if err != nil || json.Unmarshal(raw, &head) != nil {
		t.Fatalf("member a's head: %v %s", err, raw)
	}
	key := strings.Repeat("c3", 16)
	cfg := config.Ephemeral(t.TempDir())
	cfg.APIKeys = []string{key}
	cfg.Networks = []config.Network{{
		Name: "mainnet", Family: "evm",
		Upstreams: []config.Upstream{{Name: "a", URL: a.url()}, {Name: "b", URL: b.url()}},
		Pool:      config.Pool{HeadWait: 2 * time.Minute, RetryBudget: 2 * time.Minute},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	svc, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close(context.Background())

	future := fmt.Sprintf(`"0x%x"`, uint64(head)+1000)
	const addr = `"0x00000000000000000000000000000000000000aa"`
	calls := []struct{ method, params string }{
		{"eth_getBalance", "[" + addr + "," + future + "]"},
		{"eth_call", `[{"to":` + addr + `},` + future + "]"},
		{"eth_getStorageAt", "[" + addr + `,"0x0",` + future + "]"},
		{"eth_feeHistory", `["0x1",` + future + `,[]]`},
		{"eth_getBlockByNumber", "[" + future + ",false]"},
		{"eth_getLogs", `[{"fromBlock":"0x1","toBlock":` + future + `}]`},
	}
	// The gas cap's first use reads the head block through the pool: once,
	// before the attempts are counted (the heads of these chains stay).
	if status, out := testenv.PostJSON(t, svc.URL()+"/v3/"+key, testenv.RPCBody("eth_call", `[{"to":`+addr+`},"latest"]`)); status != 200 {
		t.Fatalf("eth_call at the head: %d %s", status, out)
	}
	client := &http.Client{Timeout: 30 * time.Second} // far less than head_wait
	for _, c := range calls {
		t.Run(c.method, func(t *testing.T) {
			body := testenv.RPCBody(c.method, c.params)
			want, err := nodeAnswer(a.url(), body)
			if err != nil {
				t.Fatal(err)
			}
			before := attempts(t, svc)
			status, got, err := testenv.Post(ctx, client, svc.URL()+"/v3/"+key, body)
			if err != nil {
				t.Fatalf("nodegate did not answer a block 1000 beyond the head: %v", err)
			}
			var g, w any
			if status != 200 || json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil || !reflect.DeepEqual(g, w) {
				t.Fatalf("nodegate: %d %s\ngo-ethereum: %s", status, got, want)
			}
			if n := attempts(t, svc) - before; n != 1 {
				t.Fatalf("%d attempts on the members, want 1", n)
			}
		})
	}
}

// nodeAnswer is a node's whole answer to body.
func nodeAnswer(url, body string) ([]byte, error) {
	status, out, err := testenv.Post(context.Background(), nil, url, body)
	if err == nil && status != 200 {
		err = fmt.Errorf("status %d: %s", status, out)
	}
	return out, err
}

var attemptCount = regexp.MustCompile(`(?m)^nodegate_upstream_request_duration_seconds_count\{network="([^"]+)",upstream="[^"]+"\} (\d+)$`)

// attempts is how many attempts the mainnet pool made on its members.
func attempts(t *testing.T, s *Service) int { return attemptsOn(t, s, "mainnet") }

// attemptsOn is how many attempts network's pool made on its members.
func attemptsOn(t *testing.T, s *Service, network string) int {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	n := 0
	for _, m := range attemptCount.FindAllStringSubmatch(rec.Body.String(), -1) {
		if m[1] != network {
			continue
		}
		v, _ := strconv.Atoi(m[2])
		n += v
	}
	return n
}
