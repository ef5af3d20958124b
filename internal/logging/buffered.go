package logging

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// Buffered is a writer for high-volume lines (the access log): lines are
// gathered in memory and written at most every interval or when the buffer
// fills, so that a request costs no write system call of its own. Close
// writes what is left. Lines of the last interval are lost if the process
// dies without Close.
type Buffered struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

// NewBuffered starts a buffered writer over w, written out every interval.
func NewBuffered(w io.Writer, interval time.Duration) *Buffered {
	b := &Buffered{w: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go b.run(interval)
	return b
}

// Write implements io.Writer; slog handlers write one whole line per call.
func (b *Buffered) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Write(p)
}

func (b *Buffered) run(interval time.Duration) {
	defer close(b.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.Flush()
		}
	}
}

// Flush writes the buffered lines now.
func (b *Buffered) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Flush()
}

// Close stops the timer and writes what is left.
func (b *Buffered) Close() error {
	select {
	case <-b.stop:
	default:
		close(b.stop)
	}
	<-b.done
	return b.Flush()
}
