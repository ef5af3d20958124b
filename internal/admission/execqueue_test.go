package admission

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/jsonrpc"
)

// waiting is how many calls wait in a's execution queue.
func waiting(a *Keys) int {
	_, n := a.ExecutionQueue()
	return n
}

// TestTurnsAlternateBetweenAccounts: with the process's one execution slot
// taken, the calls that wait start one account after another, not in the
// order they asked: an account that asked first for several waits its
// turn behind each other account's first call.
func TestTurnsAlternateBetweenAccounts(t *testing.T) {
	a := NewWithSlots(2, 1)
	ctx := context.Background()
	accountKey := func(id, account string) *keys.Key { return &keys.Key{ID: id, Account: account} }
	first, refused := a.Turn(ctx, key("a", keys.Plan{}), "")
	if refused != nil {
		t.Fatal(refused)
	}
	var (
		mu    sync.Mutex
		order []string
		wg    sync.WaitGroup
	)
	releases := make(chan func(), 8)
	ask := func(name string, k *keys.Key, remote string) {
		before := waiting(a)
		wg.Go(func() {
			release, refused := a.Turn(ctx, k, remote)
			if refused != nil {
				t.Errorf("%s: %v", name, refused)
				return
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			releases <- release
		})
		testenv.WaitFor(t, 10*time.Second, name+" to wait", func() bool { return waiting(a) == before+1 })
	}
	// Key "a" (an operator key) asks twice, then two keys of one account,
	// then a call without a key.
	ask("a1", key("a", keys.Plan{}), "")
	ask("a2", key("a", keys.Plan{}), "")
	ask("acct1", accountKey("x", "acct"), "")
	ask("acct2", accountKey("y", "acct"), "") // another key, the same account
	ask("addr1", nil, "192.0.2.7:4000")
	// Over its share waiting, an account is refused at once.
	if _, refused := a.Turn(ctx, key("a", keys.Plan{}), ""); refused == nil || refused.Code != jsonrpc.CodeLimitExceeded ||
		!strings.Contains(refused.Message, "too many calls that run code for this account") {
		t.Fatalf("a third waiting call of key a: %v", refused)
	}
	if _, refused := a.Turn(ctx, accountKey("z", "acct"), ""); refused == nil {
		t.Fatal("a third waiting call of the account, from a third key, was queued")
	}
	ask("addr2", nil, "192.0.2.7:5000") // the same address, another port
	first()
	for range 6 {
		(<-releases)()
	}
	wg.Wait()
	want := "a1 acct1 addr1 a2 acct2 addr2"
	if got := strings.Join(order, " "); got != want {
		t.Fatalf("turns went %s, want %s", got, want)
	}
	if a.Of("a").Executions != 0 || len(a.exec.accounts) != 0 || a.exec.running != 0 {
		t.Fatalf("slots left taken: %d running, %d accounts", a.exec.running, len(a.exec.accounts))
	}
}

// TestTurnPastDeadline: a call still waiting for a slot when its deadline
// passes is refused with -32005 saying its call_timeout, and never takes a
// slot; a caller that gives up is answered as cancelled.
func TestTurnPastDeadline(t *testing.T) {
	a := NewWithSlots(1, 1)
	k := key("k", keys.Plan{CallTimeout: time.Second})
	hold, refused := a.Turn(context.Background(), key("other", keys.Plan{}), "")
	if refused != nil {
		t.Fatal(refused)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, refused = a.Turn(ctx, k, "")
	if refused == nil || refused.Code != jsonrpc.CodeLimitExceeded || refused.Message !=
		"the node's execution slots were busy for this call's whole call_timeout (1s): it did not run; try again" {
		t.Fatalf("past its deadline: %v", refused)
	}
	gone, give := context.WithCancel(context.Background())
	give()
	if _, refused = a.Turn(gone, k, ""); refused == nil || refused.Code != jsonrpc.CodeInternal {
		t.Fatalf("a caller gone: %v", refused)
	}
	if waiting(a) != 0 {
		t.Fatal("a refused call still waits")
	}
	hold()
	if a.Of("k").Executions != 0 || a.exec.running != 0 {
		t.Fatal("a refused call took a slot")
	}
	release, refused := a.Turn(context.Background(), k, "")
	if refused != nil {
		t.Fatalf("once free: %v", refused)
	}
	release()
	release() // a second release gives nothing back twice
	if a.exec.running != 0 {
		t.Fatalf("%d slots taken after the releases", a.exec.running)
	}
}
