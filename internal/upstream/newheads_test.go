package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// pusher is an upstream that says it can push: what a ws node says
// (transport imports this package, so its WS cannot be used here);
// headSourceOf only asks. (A Func pushes its own heads: not one.)
type pusher struct{}

func (pusher) Name() string { return "ws" }

func (pusher) Do(context.Context, []byte) ([]byte, error) { return nil, errors.New("not asked here") }

func (pusher) Subscribe(context.Context, json.RawMessage) (*Subscription, error) {
	return nil, errors.New("not asked here")
}

// TestNewHeadsByFamily: a member that can push (a ws node) is followed by
// its newHeads subscription unless the pool's family has none
// (PoolConfig.NoNewHeads: Starknet), whatever its head method is called.
func TestNewHeadsByFamily(t *testing.T) {
	var ws pusher
	for _, tc := range []struct {
		name    string
		cfg     PoolConfig
		follows bool
	}{
		{"default", PoolConfig{}, true},
		{"a family with newHeads, its own head method", PoolConfig{HeadMethod: "other_blockNumber"}, true},
		{"a family without", PoolConfig{HeadMethod: "other_blockNumber", NoNewHeads: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPool("n", tc.cfg, MemberConfig{Upstream: ws})
			if got := p.headSourceOf(p.Members()[0]) != nil; got != tc.follows {
				t.Fatalf("follows newHeads: %v, want %v", got, tc.follows)
			}
		})
	}
}
