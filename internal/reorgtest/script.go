package reorgtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Script is a run of the builder: a block every BlockEvery, every
// ForkEvery-th of them a fork (depth 1, 2, 3 in turn; each depth to a
// longer, then an equal, then a shorter chain), for Duration; member i
// applies each move Delays[i] after the builder made it.
type Script struct {
	BlockEvery time.Duration
	ForkEvery  int
	Duration   time.Duration
	Delays     []time.Duration
}

// Summary is what a run made.
type Summary struct {
	Blocks int
	Forks  map[string]int // "depth 2 to an equal chain" → count
}

func (s Summary) String() string {
	return fmt.Sprintf("%d builder moves, forks %v", s.Blocks, s.Forks)
}

// timed is an event with the time the builder made it.
type timed struct {
	ev Event
	at time.Time
}

// Run plays the script until its duration passed or ctx ends; it returns
// when every member applied every move. A member that fails to apply a
// move is an error.
func (s Script) Run(ctx context.Context, b *Builder, members []*Member) (Summary, error) {
	sum := Summary{Forks: map[string]int{}}
	var wg sync.WaitGroup
	errs := make(chan error, len(members))
	chans := make([]chan timed, len(members))
	for i, m := range members {
		chans[i] = make(chan timed, 4096)
		var delay time.Duration
		if i < len(s.Delays) {
			delay = s.Delays[i]
		}
		wg.Go(func() {
			failed := false
			for t := range chans[i] {
				time.Sleep(time.Until(t.at.Add(delay)))
				if failed {
					continue
				}
				if err := m.Apply(t.ev); err != nil {
					errs <- fmt.Errorf("member %d: %w", i, err)
					failed = true
				}
			}
		})
	}
	tick := time.NewTicker(s.BlockEvery)
	defer tick.Stop()
	start := time.Now()
	var err error
	forks := 0
	for step := 1; time.Since(start) < s.Duration && ctx.Err() == nil; step++ {
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
		var ev Event
		if s.ForkEvery > 0 && step%s.ForkEvery == 0 {
			depth, kind := 1+forks%3, (forks/3)%3
			forks++
			ev, err = b.Fork(depth, kind)
			sum.Forks[fmt.Sprintf("depth %d to a %s chain", depth, KindName(kind))]++
		} else {
			ev, err = b.Extend()
		}
		if err != nil {
			break
		}
		sum.Blocks++
		for _, c := range chans {
			c <- timed{ev, time.Now()}
		}
	}
	for _, c := range chans {
		close(c)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		err = errors.Join(err, e)
	}
	return sum, err
}
