package pipeline

import (
	"fmt"
	"github.com/nodegate/nodegate/internal/testenv"
	"sync"
	"testing"
	"time"
)

func (w *workers) counts() (idle, spawned int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.idle), w.spawned
}

// TestWorkersReuse: calls run one after another share one goroutine;
// calls at once get one each.
func TestWorkersReuse(t *testing.T) {
	w := &workers{stay: time.Minute}
	for range 100 {
		done := make(chan struct{})
		w.Go(func() { close(done) })
		<-done
		waitIdle(t, w, 1)
	}
	if _, spawned := w.counts(); spawned != 1 {
		t.Fatalf("100 calls one after another started %d goroutines, want 1", spawned)
	}

	var wg sync.WaitGroup
	release := make(chan struct{})
	for range 8 {
		wg.Add(1)
		w.Go(func() { defer wg.Done(); <-release })
	}
	close(release)
	wg.Wait()
	if _, spawned := w.counts(); spawned != 8 {
		t.Fatalf("8 calls at once started %d goroutines in all, want 8 (the idle one reused)", spawned)
	}
}

// TestWorkersEnd: a worker without work ends after its stay.
func TestWorkersEnd(t *testing.T) {
	w := &workers{stay: 20 * time.Millisecond}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		w.Go(wg.Done)
	}
	wg.Wait()
	waitIdle(t, w, 0)
}

func waitIdle(t *testing.T, w *workers, want int) {
	t.Helper()
	testenv.WaitFor(t, 30*time.Second, fmt.Sprintf("%d idle workers", want), func() bool {
		idle, _ := w.counts()
		return idle == want
	})
}
