package ingress_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/testenv"
	dto "github.com/prometheus/client_model/go"
)

// The conformance chain's block 2 holds about 21 MB of logs: one
// eth_getLogs for it answers 21 MB, forty of them would answer 850 MB.
const (
	conformanceChain = "../../testdata/execution-apis/tests"
	block2Logs       = `{"jsonrpc":"2.0","id":%d,"method":"eth_getLogs","params":[{"fromBlock":"0x2","toBlock":"0x2"}]}`
)

// Environment of the client process (the test binary run again).
const (
	envLogsURL     = "NODEGATE_TEST_LOGS_URL"
	envLogsBatches = "NODEGATE_TEST_LOGS_BATCHES"
	envLogsWant    = "NODEGATE_TEST_LOGS_WANT"
)

func logsBatch(n int) []byte {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(block2Logs, i)
	}
	return []byte("[" + strings.Join(parts, ",") + "]")
}

// runAsLogsClient makes this process the client of TestAnswerBudgetMemory
// when it is started as one, so that the client's own memory is not
// counted as the server's.
func runAsLogsClient() {
	url := os.Getenv(envLogsURL)
	if url == "" {
		return
	}
	batches, _ := strconv.Atoi(os.Getenv(envLogsBatches))
	if batches == 0 {
		hash, size, err := logsHash(url)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("hash", hash, size)
		os.Exit(0)
	}
	var wg sync.WaitGroup
	lines := make([]string, batches)
	for b := range batches {
		wg.Go(func() { lines[b] = checkLogsBatch(url, os.Getenv(envLogsWant)) })
	}
	wg.Wait()
	for _, l := range lines {
		fmt.Println(l)
	}
	os.Exit(0)
}

// logsHash is the SHA-256 and size of one eth_getLogs(block 2) result.
func logsHash(url string) (string, int, error) {
	resp, err := http.Post(url, "application/json", strings.NewReader(fmt.Sprintf(block2Logs, 1)))
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	var a struct {
		Result json.RawMessage
		Error  json.RawMessage
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		return "", 0, err
	}
	if a.Error != nil || len(a.Result) == 0 {
		return "", 0, fmt.Errorf("single call answered %s", a.Error)
	}
	sum := sha256.Sum256(a.Result)
	return hex.EncodeToString(sum[:]), len(a.Result), nil
}

// checkLogsBatch sends the 40-call batch and reads its answer one entry at
// a time: "full=F toolarge=T bad=B" where full entries are the single
// call's result byte for byte and toolarge ones go-ethereum's -32003.
func checkLogsBatch(url, want string) string {
	resp, err := http.Post(url, "application/json", bytes.NewReader(logsBatch(40)))
	if err != nil {
		return "error: " + err.Error()
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return fmt.Sprintf("error: answer starts with %v %v", tok, err)
	}
	full, tooLarge, bad := 0, 0, 0
	firstBad := ""
	for i := 0; dec.More(); i++ {
		var e struct {
			ID     int
			Result json.RawMessage
			Error  *struct {
				Code    int
				Message string
			}
		}
		if err := dec.Decode(&e); err != nil {
			return "error: " + err.Error()
		}
		sum := sha256.Sum256(e.Result)
		switch {
		case e.ID != i:
			bad++
		case e.Error == nil && hex.EncodeToString(sum[:]) == want && tooLarge == 0:
			full++
		case e.Error != nil && e.Error.Code == -32003 && e.Error.Message == "response too large":
			tooLarge++
		default:
			bad++
		}
		if bad == 1 && firstBad == "" {
			firstBad = fmt.Sprintf(" (entry %d: id %d, %d bytes, error %+v)", i, e.ID, len(e.Result), e.Error)
		}
	}
	return fmt.Sprintf("full=%d toolarge=%d bad=%d chunked=%v%s", full, tooLarge, bad, resp.ContentLength < 0, firstBad)
}

// runLogsClient runs the client process and returns its output lines.
func runLogsClient(t *testing.T, url string, batches int, want string) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envLogsURL+"="+url, envLogsBatches+"="+strconv.Itoa(batches), envLogsWant+"="+want)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client process: %v: %s", err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// statusKB reads a field of /proc/self/status in kB (VmRSS, VmHWM).
func statusKB(t *testing.T, field string) int64 {
	t.Helper()
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return kb
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// peakAdded runs fn and returns how much it added to this process's peak
// resident memory, in MB: the peak is reset (clear_refs 5) after the
// heap is returned to the system.
func peakAdded(t *testing.T, fn func()) float64 {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	base := statusKB(t, "VmRSS")
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Fatalf("reset the peak RSS: %v", err)
	}
	fn()
	return float64(statusKB(t, "VmHWM")-base) / 1024
}

// TestAnswerBudgetMemory is issue 11's attack: batches of forty
// eth_getLogs for the conformance chain's block 2 (21 MB each). The first
// two answers come whole (the second passes go-ethereum's 25,000,000-byte
// budget), the other 38 answer -32003, the answer is streamed, and the
// server's peak RSS grows by at most 400 MB for one batch and 1 GB for
// four in parallel (it grew by 4 GB before the budget).
func TestAnswerBudgetMemory(t *testing.T) {
	s := conformanceGateway(t, nil)
	url := s.URL() + "/v3/" + s.GeneratedKey
	hash := strings.Fields(runLogsClient(t, url, 0, "")[0]) // warms the node up, too
	if len(hash) != 3 || hash[0] != "hash" {
		t.Fatalf("single call: %v", hash)
	}
	if size, _ := strconv.Atoi(hash[2]); size < 20_000_000 || size > 25_000_000 {
		t.Fatalf("block 2's logs are %d bytes; the test assumes 20-25 MB", size)
	}
	for _, tc := range []struct {
		batches int
		limitMB float64
	}{{1, 400}, {4, 1024}} {
		var lines []string
		mb := peakAdded(t, func() { lines = runLogsClient(t, url, tc.batches, hash[1]) })
		t.Logf("%d batch(es) of 40 eth_getLogs(block 2) in parallel: peak RSS +%.0f MB (limit %.0f MB)", tc.batches, mb, tc.limitMB)
		if len(lines) != tc.batches {
			t.Fatalf("client said %q", lines)
		}
		for _, l := range lines {
			if l != "full=2 toolarge=38 bad=0 chunked=true" {
				t.Fatalf("batch answered %q, want 2 whole results then 38 x -32003, streamed", l)
			}
		}
		if mb > tc.limitMB {
			t.Fatalf("peak RSS grew by %.0f MB, over %.0f MB", mb, tc.limitMB)
		}
	}
}

// TestWriteTimeout: a client that sends a request for 21 MB and never
// reads is disconnected after limits.write_timeout, instead of holding
// the answer (and a goroutine) for ever. What it then reads is the part
// that was in flight, then the end of the connection.
func TestWriteTimeout(t *testing.T) {
	s := conformanceGateway(t, func(c *config.Config) { c.Limits.WriteTimeout = time.Second })
	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(64 << 10) // keep the kernel from absorbing the answer
	}
	body := fmt.Sprintf(block2Logs, 1)
	fmt.Fprintf(conn, "POST /v3/%s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", s.GeneratedKey, s.Addr(), len(body), body)
	waitOpen(t, s, 1)
	waitOpen(t, s, 0) // the handler gave up on the silent client
	_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	n, err := io.Copy(io.Discard, bufio.NewReader(conn))
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the connection is still open after %d bytes", n)
	}
	if n >= 21_000_000 {
		t.Fatalf("read %d bytes: the whole answer, not a cut one", n)
	}
	t.Logf("the silent client got %d bytes, then the end of the connection (%v)", n, err)
}

// conformanceGateway serves the conformance chain. Its time limits are
// not what these tests are about: a busy machine may take more than the
// default 10s for one eth_getLogs of block 2, or 15s for a try.
func conformanceGateway(t *testing.T, edit func(*config.Config)) *service.Service {
	return startGateway(t, func(c *config.Config) {
		c.Node.ChainDir = conformanceChain
		c.Limits.GetLogsTimeout = 10 * time.Minute
		c.NoStarknet = true
		c.Networks = []config.Network{{Name: "default", Family: "evm",
			Upstreams: []config.Upstream{{Name: config.EmbeddedURL, URL: config.EmbeddedURL}},
			Pool:      config.Pool{AttemptTimeout: 10 * time.Minute, RetryBudget: 10 * time.Minute}}}
		if edit != nil {
			edit(c)
		}
	})
}

// waitOpen waits (generously) until s answers want HTTP requests, as its
// nodegate_http_requests_in_flight gauge says.
func waitOpen(t *testing.T, s *service.Service, want int64) {
	t.Helper()
	testenv.WaitFor(t, 90*time.Second, fmt.Sprintf("%d HTTP requests in flight", want), func() bool {
		var m dto.Metric
		if err := s.Metrics.InFlight.Write(&m); err != nil {
			t.Fatal(err)
		}
		return m.GetGauge().GetValue() == float64(want)
	})
}
