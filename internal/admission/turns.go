package admission

import (
	"context"
	"fmt"

	"github.com/nodegate/nodegate/internal/keys"
)

// Turn waits until key may run one more call that runs code on this
// process's CPUs (its share: ExecutionShare, across every network and
// reload), or ctx ends. A Keys without a share, or no key, is not
// bounded. release gives the turn back; it is called once, when the node
// is done with the call (which may be after its caller was answered).
func (a *Keys) Turn(ctx context.Context, key *keys.Key) (release func(), err error) {
	if a.executionShare <= 0 || key == nil {
		return nothing, nil
	}
	turns := a.of(key.ID).turns
	select {
	case turns <- struct{}{}:
		return func() { <-turns }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for an execution turn: %w", ctx.Err())
	}
}
