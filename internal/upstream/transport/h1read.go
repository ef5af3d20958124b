package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
)

// errMalformedHTTP is an answer that is not HTTP/1.x as nodegate reads it.
var errMalformedHTTP = errors.New("malformed HTTP response")

// readResponse reads one HTTP/1.x response: status line, headers, and a
// body framed by Content-Length, chunked encoding, or the end of the
// connection. Informational (1xx) answers are skipped.
func readResponse(br *bufio.Reader) (status int, body []byte, keep bool, err error) {
	for first := true; ; first = false {
		var h respHead
		if h, err = readHead(br, first); err != nil {
			return 0, nil, false, err
		}
		if h.status >= 100 && h.status < 200 {
			continue
		}
		body, err = readH1Body(br, &h)
		if err != nil {
			return 0, nil, false, err
		}
		return h.status, body, h.keepAlive && !h.untilClose, nil
	}
}

// respHead is what nodegate needs from a response's head.
type respHead struct {
	status        int
	contentLength int64 // -1 when absent
	chunked       bool
	keepAlive     bool
	untilClose    bool // the body ends when the connection does
}

func readHead(br *bufio.Reader, first bool) (respHead, error) {
	h := respHead{contentLength: -1}
	line, err := br.ReadSlice('\n')
	if err != nil {
		if first && len(line) == 0 {
			return h, fmt.Errorf("read response: %w", noAnswer(err))
		}
		return h, fmt.Errorf("read status line: %w", err)
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return h, fmt.Errorf("%w: status line %q", errMalformedHTTP, trimLine(line))
	}
	h.keepAlive = line[7] == '1' // HTTP/1.0 closes unless it says keep-alive
	code, err := strconv.Atoi(string(line[9:12]))
	if err != nil || code < 100 || code > 999 {
		return h, fmt.Errorf("%w: status line %q", errMalformedHTTP, trimLine(line))
	}
	h.status = code
	total := len(line)
	for {
		line, err = br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return h, fmt.Errorf("%w: header line over %d bytes", errMalformedHTTP, h1ReadBuffer)
		}
		if err != nil {
			return h, fmt.Errorf("read headers: %w", err)
		}
		total += len(line)
		if total > h1MaxHeader {
			return h, fmt.Errorf("%w: headers over %d bytes", errMalformedHTTP, h1MaxHeader)
		}
		line = trimLine(line)
		if len(line) == 0 {
			break
		}
		if err := h.header(line); err != nil {
			return h, err
		}
	}
	if h.chunked {
		h.contentLength = -1
	} else if h.contentLength < 0 && h.status != 204 && h.status != 304 {
		h.untilClose = true
	}
	return h, nil
}

// header applies one header line.
func (h *respHead) header(line []byte) error {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return fmt.Errorf("%w: header line %q", errMalformedHTTP, line)
	}
	name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
	switch {
	case bytes.EqualFold(name, []byte("Content-Length")):
		n, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil || n < 0 || (h.contentLength >= 0 && n != h.contentLength) {
			return fmt.Errorf("%w: Content-Length %q", errMalformedHTTP, value)
		}
		h.contentLength = n
	case bytes.EqualFold(name, []byte("Transfer-Encoding")):
		if !bytes.EqualFold(value, []byte("chunked")) {
			return fmt.Errorf("%w: unsupported Transfer-Encoding %q", errMalformedHTTP, value)
		}
		h.chunked = true
	case bytes.EqualFold(name, []byte("Connection")):
		for _, tok := range bytes.Split(value, []byte(",")) {
			tok = bytes.TrimSpace(tok)
			switch {
			case bytes.EqualFold(tok, []byte("close")):
				h.keepAlive = false
			case bytes.EqualFold(tok, []byte("keep-alive")):
				h.keepAlive = true
			}
		}
	}
	return nil
}

func trimLine(b []byte) []byte { return bytes.TrimRight(b, "\r\n") }

func readH1Body(br *bufio.Reader, h *respHead) ([]byte, error) {
	switch {
	case h.status == 204 || h.status == 304:
		return nil, nil
	case h.chunked:
		return readChunked(br)
	case h.contentLength >= 0:
		if h.contentLength > MaxResponseBytes {
			return nil, fmt.Errorf("response of %d bytes is over the %d byte limit", h.contentLength, MaxResponseBytes)
		}
		if h.contentLength <= h1PreallocMax {
			out := make([]byte, h.contentLength)
			if _, err := io.ReadFull(br, out); err != nil {
				return nil, fmt.Errorf("read response body: %w", err)
			}
			return out, nil
		}
		// A large declared length is not trusted for one allocation up
		// front: the buffer grows with the bytes that actually arrive.
		out, err := io.ReadAll(io.LimitReader(br, h.contentLength))
		if err != nil {
			return nil, fmt.Errorf("read response body: %w", err)
		}
		if int64(len(out)) != h.contentLength {
			return nil, fmt.Errorf("read response body: %w", io.ErrUnexpectedEOF)
		}
		return out, nil
	default:
		out, err := io.ReadAll(io.LimitReader(br, MaxResponseBytes+1))
		if err != nil {
			return nil, fmt.Errorf("read response body: %w", err)
		}
		if len(out) > MaxResponseBytes {
			return nil, fmt.Errorf("response is over the %d byte limit", MaxResponseBytes)
		}
		return out, nil
	}
}

// h1PreallocMax is the largest body allocated whole from its Content-Length.
const h1PreallocMax = 1 << 20

// chunkScratch holds the buffers chunked bodies are gathered in: a body
// comes in chunks of a few KiB, and gathering them in a fresh slice grew it
// (and copied it) once per chunk. The body handed back is one copy of
// exactly its size.
var chunkScratch = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// chunkScratchMax is the largest buffer kept for the next body.
const chunkScratchMax = 1 << 20

// readChunked reads a chunked body and its trailers.
func readChunked(br *bufio.Reader) ([]byte, error) {
	sp := chunkScratch.Get().(*[]byte)
	out, err := gatherChunks(br, (*sp)[:0])
	var body []byte
	if err == nil && len(out) > 0 {
		body = bytes.Clone(out)
	}
	if cap(out) <= chunkScratchMax {
		*sp = out[:0]
		chunkScratch.Put(sp)
	}
	return body, err
}

// gatherChunks appends the chunks of a body to out, then reads the trailers.
func gatherChunks(br *bufio.Reader, out []byte) ([]byte, error) {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return out, fmt.Errorf("read chunk size: %w", err)
		}
		line = trimLine(line)
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i] // chunk extensions are ignored
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
		if err != nil || n < 0 {
			return out, fmt.Errorf("%w: chunk size %q", errMalformedHTTP, line)
		}
		if n == 0 {
			return out, skipTrailers(br)
		}
		if int64(len(out))+n > MaxResponseBytes {
			return out, fmt.Errorf("response is over the %d byte limit", MaxResponseBytes)
		}
		if out, err = readChunk(br, out, n); err != nil {
			return out, fmt.Errorf("read chunk: %w", err)
		}
		if crlf, err := br.ReadSlice('\n'); err != nil || len(trimLine(crlf)) != 0 {
			return out, fmt.Errorf("%w: no CRLF after a chunk", errMalformedHTTP)
		}
	}
}

// readChunk appends n bytes to out. Small chunks (the usual case) are read
// in place; a large declared size grows the buffer only as bytes arrive.
func readChunk(br *bufio.Reader, out []byte, n int64) ([]byte, error) {
	if n <= h1PreallocMax {
		start := len(out)
		out = slices.Grow(out, int(n))[:start+int(n)]
		_, err := io.ReadFull(br, out[start:])
		return out, err
	}
	chunk, err := io.ReadAll(io.LimitReader(br, n))
	if err == nil && int64(len(chunk)) != n {
		err = io.ErrUnexpectedEOF
	}
	return append(out, chunk...), err
}

func skipTrailers(br *bufio.Reader) error {
	total := 0
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("read trailers: %w", err)
		}
		if total += len(line); total > h1MaxHeader {
			return fmt.Errorf("%w: trailers over %d bytes", errMalformedHTTP, h1MaxHeader)
		}
		if len(trimLine(line)) == 0 {
			return nil
		}
	}
}
