package transport

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// h1Client is a lean HTTP/1.1 client for plain-http upstreams: one
// request per connection at a time over pooled keep-alive connections,
// the request written with one syscall and the answer read by the calling
// goroutine. net/http's Transport hands every request to two more
// goroutines (write loop, read loop) and builds a Request, a Header map and
// a Response per call; on the proxy hot path that was about a third of
// nodegate's CPU per call. HTTPS upstreams keep using net/http.
type h1Client struct {
	url    *url.URL
	addr   string // host:port to dial
	header []byte // "POST <target> HTTP/1.1\r\nHost: ...\r\n...Content-Length: "
	dialer net.Dialer
	// idleTimeout drops pooled connections idle for longer, so that a
	// connection the server has closed on its own idle timer is rarely reused.
	idleTimeout time.Duration
	maxIdle     int

	mu   sync.Mutex
	idle []*h1Conn // LIFO: the warmest connection first
}

// h1Conn is one keep-alive connection.
type h1Conn struct {
	c        net.Conn
	br       *bufio.Reader
	wbuf     []byte
	lastUsed time.Time
	deadline bool // a deadline is set on c and must be cleared before reuse
}

const (
	h1ReadBuffer   = 16 << 10
	h1MaxHeader    = 64 << 10 // bytes of status line and headers of one response
	h1MaxKeptWrite = 64 << 10 // larger write buffers are not kept in the pool
)

func newH1Client(u *url.URL) *h1Client {
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	h := &h1Client{
		url:         u,
		addr:        addr,
		dialer:      net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second},
		idleTimeout: 60 * time.Second,
		maxIdle:     1024,
	}
	h.header = requestHead(u, nil)
	return h
}

// setHeaders adds extra request headers (a partner's Authorization, say).
// It must be called before the client is used. Names and values with
// control characters are refused, so that no header can be injected.
func (h *h1Client) setHeaders(extra map[string]string) error {
	for k, v := range extra {
		if k == "" || strings.ContainsAny(k, ": \t\r\n") || strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Errorf("upstream header %q: invalid name or value", k)
		}
	}
	h.header = requestHead(h.url, extra)
	return nil
}

// requestHead is the fixed part of every request, up to "Content-Length: ".
func requestHead(u *url.URL, extra map[string]string) []byte {
	var hdr []byte
	hdr = append(hdr, "POST "...)
	hdr = append(hdr, u.RequestURI()...)
	hdr = append(hdr, " HTTP/1.1\r\nHost: "...)
	hdr = append(hdr, u.Host...)
	hdr = append(hdr, "\r\nUser-Agent: nodegate\r\nContent-Type: application/json\r\n"...)
	if u.User != nil {
		// As net/http does for credentials in the URL.
		pw, _ := u.User.Password()
		hdr = append(hdr, "Authorization: Basic "...)
		hdr = append(hdr, base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw))...)
		hdr = append(hdr, "\r\n"...)
	}
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		hdr = append(hdr, k...)
		hdr = append(hdr, ": "...)
		hdr = append(hdr, extra[k]...)
		hdr = append(hdr, "\r\n"...)
	}
	return append(hdr, contentLength...)
}

// contentLength ends requestHead; a context's extra headers go before it.
const contentLength = "Content-Length: "

// errNoAnswer is a connection that closed before any byte of an answer.
var errNoAnswer = errors.New("connection closed before an answer")

// do posts body and returns the status and the response body. A reused
// connection that turns out to be closed before any byte of an answer
// arrives is retried once on a fresh connection: the server closed it while
// idle, so it never saw the request (net/http's rule for the same case).
func (h *h1Client) do(ctx context.Context, body []byte) (int, []byte, error) {
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	c, reused := h.get(), true
	if c == nil {
		reused = false
	}
	for {
		if c == nil {
			var err error
			if c, err = h.dial(ctx); err != nil {
				return 0, nil, err
			}
		}
		status, out, keep, err := h.roundTrip(ctx, c, body)
		if err == nil {
			if keep {
				h.put(c)
			} else {
				_ = c.c.Close()
			}
			return status, out, nil
		}
		_ = c.c.Close()
		if reused && errors.Is(err, errNoAnswer) && ctx.Err() == nil {
			c, reused = nil, false
			continue
		}
		if cerr := ctxCause(ctx, err); cerr != nil {
			return 0, nil, fmt.Errorf("%w (%v)", cerr, err)
		}
		return 0, nil, err
	}
}

func (h *h1Client) dial(ctx context.Context) (*h1Conn, error) {
	nc, err := h.dialer.DialContext(ctx, "tcp", h.addr)
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	return &h1Conn{c: nc, br: bufio.NewReaderSize(nc, h1ReadBuffer)}, nil
}

func (h *h1Client) get() *h1Conn {
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	for n := len(h.idle); n > 0; n = len(h.idle) {
		c := h.idle[n-1]
		h.idle[n-1] = nil
		h.idle = h.idle[:n-1]
		if now.Sub(c.lastUsed) < h.idleTimeout {
			return c
		}
		_ = c.c.Close()
	}
	return nil
}

func (h *h1Client) put(c *h1Conn) {
	c.lastUsed = time.Now()
	if cap(c.wbuf) > h1MaxKeptWrite {
		c.wbuf = nil
	}
	h.mu.Lock()
	if len(h.idle) < h.maxIdle {
		h.idle = append(h.idle, c)
		c = nil
	}
	h.mu.Unlock()
	if c != nil {
		_ = c.c.Close()
	}
}

// closeIdle closes the pooled connections.
func (h *h1Client) closeIdle() {
	h.mu.Lock()
	idle := h.idle
	h.idle = nil
	h.mu.Unlock()
	for _, c := range idle {
		_ = c.c.Close()
	}
}

// roundTrip writes one request and reads its answer. keep reports whether
// the connection may carry another request.
func (h *h1Client) roundTrip(ctx context.Context, c *h1Conn, body []byte) (status int, out []byte, keep bool, err error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = c.c.SetDeadline(dl)
		c.deadline = true
	} else if c.deadline {
		_ = c.c.SetDeadline(time.Time{})
		c.deadline = false
	}
	if ctx.Done() != nil {
		// Cancellation unblocks the read or write in progress; the
		// connection is then closed, never reused.
		stop := context.AfterFunc(ctx, func() { _ = c.c.SetDeadline(time.Unix(1, 0)) })
		defer func() {
			if !stop() {
				keep = false
			}
		}()
	}
	c.wbuf = append(c.wbuf[:0], h.header[:len(h.header)-len(contentLength)]...)
	c.wbuf = appendRequestHeaders(ctx, c.wbuf)
	c.wbuf = append(c.wbuf, contentLength...)
	c.wbuf = strconv.AppendInt(c.wbuf, int64(len(body)), 10)
	c.wbuf = append(c.wbuf, "\r\n\r\n"...)
	c.wbuf = append(c.wbuf, body...)
	if _, err := c.c.Write(c.wbuf); err != nil {
		return 0, nil, false, fmt.Errorf("write request: %w", noAnswer(err))
	}
	return readResponse(c.br)
}

// ctxCause is the context's error when it caused err: the connection's
// deadline is the context's, and may fire a moment before ctx.Err is set.
func ctxCause(ctx context.Context, err error) error {
	if e := ctx.Err(); e != nil {
		return e
	}
	if dl, ok := ctx.Deadline(); ok && errors.Is(err, os.ErrDeadlineExceeded) && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	return nil
}

// noAnswer marks connection-closed errors that happen before any byte of
// an answer, so that do may retry them on a fresh connection.
func noAnswer(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || isConnReset(err) {
		return fmt.Errorf("%w: %w", errNoAnswer, err)
	}
	return err
}

func isConnReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
