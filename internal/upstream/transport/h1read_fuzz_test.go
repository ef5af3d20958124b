package transport

import (
	"bufio"
	"bytes"
	"testing"
)

// FuzzReadResponse: whatever bytes an upstream sends, the reader answers
// or fails; it never panics, never returns a body over the limit, and a
// Content-Length answer yields exactly that many bytes.
func FuzzReadResponse(f *testing.F) {
	seeds := []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.0 200 OK\r\n\r\nabc",
		"HTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n",
		"HTTP/1.1 200 OK\r\nConnection: close, keep-alive\r\nContent-Length: 1\r\n\r\nx",
		"garbage",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		status, body, _, err := readResponse(bufio.NewReaderSize(bytes.NewReader(raw), h1ReadBuffer))
		if err != nil {
			return
		}
		if status < 200 || status > 999 {
			t.Fatalf("status %d accepted as a final answer", status)
		}
		if len(body) > MaxResponseBytes {
			t.Fatalf("body of %d bytes over the limit", len(body))
		}
		if !bytes.Contains(raw, body) && !bytes.Contains(raw, []byte("chunked")) {
			t.Fatalf("body %q is not from the input", body)
		}
	})
}
