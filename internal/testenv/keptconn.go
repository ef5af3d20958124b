package testenv

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// KeptConn is one keep-alive HTTP/1.1 connection a test writes its
// requests on by hand, to hold it open or to see the server close it.
type KeptConn struct {
	net.Conn
	br *bufio.Reader
}

// DialKept opens a TCP connection to addr (host:port), closed when the
// test ends.
func DialKept(t testing.TB, addr string) (*KeptConn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &KeptConn{Conn: c, br: bufio.NewReader(c)}, nil
}

// Post sends one eth_blockNumber POST to path on c and reads the answer:
// its status and whether the server said it closes the connection
// (Connection: close).
func (c *KeptConn) Post(path string) (status int, closing bool, err error) {
	body := RPCBody("eth_blockNumber", "[]")
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", path, len(body), body); err != nil {
		return 0, false, fmt.Errorf("post %s: %w", path, err)
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return 0, false, fmt.Errorf("read the answer to %s: %w", path, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Close, nil
}
