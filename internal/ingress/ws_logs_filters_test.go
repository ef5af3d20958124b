package ingress_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/testenv"
)

// manyLogsInitCode is contract creation code that emits n LOG1s, the
// j-th with topic j % topics (as a 32-byte number), and deploys nothing.
func manyLogsInitCode(n, topics int) []byte {
	var code []byte
	for j := range n {
		code = append(code, 0x60, byte(j%topics), 0x60, 0x00, 0x60, 0x00, 0xa1) // PUSH1 topic PUSH1 0 PUSH1 0 LOG1
	}
	return append(code, 0x00) // STOP
}

// logsCollector is a logs subscriber that keeps the logs it receives.
type logsCollector struct {
	mu   sync.Mutex
	logs []types.Log
	bad  error
}

func (l *logsCollector) read(c *websocket.Conn) {
	for {
		_, msg, err := c.ReadMessage()
		if err != nil {
			return
		}
		var n struct {
			Params struct{ Result types.Log }
		}
		err = json.Unmarshal(msg, &n)
		l.mu.Lock()
		if err != nil && l.bad == nil {
			l.bad = fmt.Errorf("notification %s: %w", msg, err)
		}
		l.logs = append(l.logs, n.Params.Result)
		l.mu.Unlock()
	}
}

func (l *logsCollector) got() ([]types.Log, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]types.Log(nil), l.logs...), l.bad
}

// TestLogsMatchedOncePerFilter: 1,000 logs subscribers with 100 distinct
// topic filters (10 each, spelled two ways), and one block with 200 logs
// (two per topic). The network holds one upstream subscription per
// distinct filter, so each log is matched 100 times, not 1,000; every
// subscriber gets exactly its filter's two logs.
func TestLogsMatchedOncePerFilter(t *testing.T) {
	const subscribers, filters, logs = 1000, 100, 200
	if err := raiseFDLimit(2*subscribers + 1024); err != nil {
		t.Fatal(err)
	}
	s := startGateway(t, nil)
	url := s.WSURL() + "/ws/v3/" + s.GeneratedKey
	topic := func(i int) common.Hash { return common.BigToHash(big.NewInt(int64(i))) }
	cs := make([]*logsCollector, subscribers)
	for k := range cs {
		c := dialURL(t, websocket.DefaultDialer, url)
		filter := fmt.Sprintf(`{"topics":[["%s"]]}`, topic(k%filters).Hex())
		if k%2 == 1 { // the same filter spelled otherwise shares its stream
			filter = fmt.Sprintf(`{"address":[],"topics":["%s"]}`, strings.ToUpper(topic(k % filters).Hex()[2:]))
			filter = strings.Replace(filter, `"topics":["`, `"topics":["0x`, 1)
		}
		req := `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["logs",` + filter + `]}`
		if got := roundTrip(t, c, req); !strings.Contains(got, `"result":"0x`) {
			t.Fatalf("subscribe %d: %s", k, got)
		}
		cs[k] = &logsCollector{}
		go cs[k].read(c)
	}
	if n := streams(s); n != filters {
		t.Fatalf("%d upstream subscriptions for %d distinct filters", n, filters)
	}

	sendCreate(t, s, manyLogsInitCode(logs, filters))
	testenv.WaitFor(t, time.Minute, "2 logs at every subscriber", func() bool {
		for _, c := range cs {
			got, err := c.got()
			if err != nil {
				t.Fatal(err)
			}
			if len(got) < 2 {
				return false
			}
		}
		return true
	})
	total := 0
	for k, c := range cs {
		got, _ := c.got()
		total += len(got)
		want := []uint{uint(k % filters), uint(k%filters + filters)}
		if len(got) != 2 || got[0].Index != want[0] || got[1].Index != want[1] {
			t.Fatalf("subscriber %d (topic %d) got %d logs %+v, want indexes %v", k, k%filters, len(got), got, want)
		}
		for _, l := range got {
			if len(l.Topics) != 1 || l.Topics[0] != topic(k%filters) {
				t.Fatalf("subscriber %d got a log of topics %v, want %v", k, l.Topics, topic(k%filters))
			}
		}
	}
	if total != subscribers*2 {
		t.Fatalf("%d logs delivered, want %d", total, subscribers*2)
	}
}

// streams counts the upstream subscriptions of every network.
func streams(s *service.Service) int {
	n := 0
	for _, nw := range s.Networks() {
		if nw.Subs != nil {
			n += nw.Subs.Streams()
		}
	}
	return n
}

// sendCreate sends a contract creation with code from the first dev
// account through the gateway; the dev chain seals it at once.
func sendCreate(t *testing.T, s *service.Service, code []byte) {
	t.Helper()
	acc := s.Node.Accounts()[0]
	chainID := big.NewInt(int64(s.Node.ChainID()))
	nonce := s.Node.Ethereum().TxPool().PoolNonce(acc.Address)
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, GasTipCap: big.NewInt(params.GWei), GasFeeCap: big.NewInt(100 * params.GWei),
		Gas: 1_000_000, Data: code,
	}), types.LatestSignerForChainID(chainID), acc.Key)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	body := `{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["` + hexutil.Encode(raw) + `"]}`
	resp, err := client.Post(s.URL()+"/v3/"+s.GeneratedKey, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(out.String(), tx.Hash().Hex()) {
		t.Fatalf("send: %d %s", resp.StatusCode, out.String())
	}
}
