package upstream_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// attempts records the member each attempt of a pool was made on.
type attempts struct {
	mu      sync.Mutex
	members []string
}

func (a *attempts) StartAttempt(ctx context.Context, _, member string) context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.members = append(a.members, member)
	return ctx
}

func (a *attempts) EndAttempt(context.Context, string, string, time.Duration, *jsonrpc.Response, error) {
}

// TestMembersNamedAsConfigured: a member is known by the name its
// configuration gives it (MemberConfig.Name), else by its upstream's own
// name, in its status, in each attempt's observation and in the answer's
// member; the pool holds the upstream it was given, not a wrapper of it.
func TestMembersNamedAsConfigured(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t, 10, `"result":"0x1"`)
	primary := httpMember(t, node.srv.URL)
	primary.Name = "primary"
	unnamed := httpMember(t, node.srv.URL)
	dead := httpMember(t, deadURL(t))
	dead.Name = "backup"
	tests := []struct {
		name    string
		member  upstream.MemberConfig
		want    string
		answers bool
	}{
		{"named", primary, "primary", true},
		{"unnamed: the upstream's own name", unnamed, unnamed.Upstream.Name(), true},
		{"named, its node down", dead, "backup", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := upstream.NewPool("names", upstream.PoolConfig{MaxAttempts: 1}, tc.member)
			seen := &attempts{}
			p.Observer = seen
			if got := p.Status()[0].Name; got != tc.want {
				t.Errorf("status names %q, want %q", got, tc.want)
			}
			if p.Members()[0].Upstream != tc.member.Upstream {
				t.Errorf("the pool holds %T, not the upstream it was given", p.Members()[0].Upstream)
			}
			_, member, err := p.Send(context.Background(), upstream.Call{Body: callBody, Idempotent: true})
			if tc.answers && (err != nil || member != tc.want) {
				t.Errorf("answered by %q (err %v), want %q", member, err, tc.want)
			}
			if !tc.answers && err == nil {
				t.Errorf("answered by %q with its node down", member)
			}
			if len(seen.members) != 1 || seen.members[0] != tc.want {
				t.Errorf("attempts on %q, want one on %q", seen.members, tc.want)
			}
		})
	}
}
