package admin

import (
	"context"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
)

// TestChangeAppliesOnThisReplicaAtOnce: a key created, restricted and
// revoked through this replica's admin API is served as changed by its
// key cache from the next request on, although the cache polls the store
// only every hour (the other replicas follow within key_refresh).
func TestChangeAppliesOnThisReplicaAtOnce(t *testing.T) {
	hs, m := newAdmin(t, token)
	cache, err := keys.NewCache(context.Background(), m.Store, m.Plans, config.PlanTeam, nil, keys.CacheOptions{Poll: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cache.Close)
	m.Local = cache
	auth := "Bearer " + token

	st, made := call(t, hs, auth, "POST", "/admin/keys", `{"name":"k","plan":"team"}`)
	if st != 201 && st != 200 {
		t.Fatalf("create: %d %v", st, made)
	}
	plain, id := made["key"].(string), made["id"].(string)
	if _, ok := cache.Lookup(plain); !ok {
		t.Fatal("a key created through this replica is not served here")
	}
	if st, out := call(t, hs, auth, "PATCH", "/admin/keys/"+id, `{"allowed_methods":["eth_chainId"]}`); st != 200 {
		t.Fatalf("update: %d %v", st, out)
	}
	if k, ok := cache.Lookup(plain); !ok || k.AllowsMethod("eth_blockNumber") {
		t.Fatalf("an update through this replica is not applied here: %+v", k)
	}
	if st, out := call(t, hs, auth, "POST", "/admin/keys/"+id+"/revoke", ""); st != 200 {
		t.Fatalf("revoke: %d %v", st, out)
	}
	if _, ok := cache.Lookup(plain); ok {
		t.Fatal("a key revoked through this replica is still accepted here")
	}
}
