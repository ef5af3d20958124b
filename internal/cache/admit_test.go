package cache

import (
	"fmt"
	"testing"
)

// TestAdmission: with the doorkeeper on, a key is admitted the second time
// it is fetched; once admitted it starts over; other keys do not admit it.
func TestAdmission(t *testing.T) {
	t.Parallel()
	a := newAdmission(DefaultMaxBytes)
	a.guarded.Store(true)
	steps := []struct {
		name string
		key  string
		want bool
	}{
		{"first fetch is remembered", "a", false},
		{"another key", "b", false},
		{"second fetch is admitted", "a", true},
		{"admitted once: remembered again", "a", false},
		{"and admitted again", "a", true},
		{"the other key's second fetch", "b", true},
	}
	for _, st := range steps {
		if got := a.admit([]byte(st.key)); got != st.want {
			t.Fatalf("%s: admit(%q) = %v, want %v", st.name, st.key, got, st.want)
		}
	}
}

// TestAdmissionFollowsHits: every answer is kept until a window of lookups
// mostly misses; the doorkeeper is off again once a window hits enough.
func TestAdmissionFollowsHits(t *testing.T) {
	t.Parallel()
	a := newAdmission(DefaultMaxBytes)
	window := func(hits int) {
		for i := range admissionWindow {
			a.lookedUp(i < hits)
		}
	}
	steps := []struct {
		name    string
		hits    int // of a window of admissionWindow lookups
		guarded bool
	}{
		{"a window of misses", 0, true},
		{"hits under the share", admissionWindow/admissionMinHitShare - 1, true},
		{"hits at the share", admissionWindow / admissionMinHitShare, false},
		{"all hits", admissionWindow, false},
		{"misses again", 3, true},
	}
	for fetch := range 2 {
		if !a.admit([]byte("k")) {
			t.Fatalf("before any window, fetch %d of a key not kept: the doorkeeper is off until a window misses", fetch+1)
		}
	}
	for _, st := range steps {
		window(st.hits)
		if got := a.guarded.Load(); got != st.guarded {
			t.Fatalf("after %s: doorkeeper on = %v, want %v", st.name, got, st.guarded)
		}
		if got := a.admit([]byte(st.name)); got == st.guarded {
			t.Fatalf("after %s: a first fetch admitted = %v", st.name, got)
		}
	}
}

// TestAdmissionSize: about one slot per KiB of budget, a power of two,
// bounded both ways.
func TestAdmissionSize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		budget int64
		slots  int
	}{
		{1, 1 << 10},
		{DefaultMaxBytes, 1 << 16},
		{DefaultMaxBytes + 1<<10, 1 << 17},
		{1 << 40, 1 << 22},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.budget), func(t *testing.T) {
			if got := len(newAdmission(tc.budget).slots); got != tc.slots {
				t.Fatalf("%d slots, want %d", got, tc.slots)
			}
		})
	}
}

// TestCacheAdmission: through the cache, a fetched answer is kept at once
// while lookups hit; after a window of misses, the second time.
func TestCacheAdmission(t *testing.T) {
	t.Parallel()
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	key := Key(nil, "1/0x01", "eth_getBlockByHash", []byte(`["0x01",false]`))
	if !c.Admit(key) {
		t.Fatal("a fresh cache does not keep the first answer fetched")
	}
	c.Set(t.Context(), key, Block{Number: 1}, []byte(`{"number":"0x1"}`))
	if v, ok := c.Get(t.Context(), key, nil); !ok || string(v) != `{"number":"0x1"}` {
		t.Fatalf("kept answer: %q, %v", v, ok)
	}
	for i := range admissionWindow {
		c.Get(t.Context(), Key(nil, "1/0x01", "eth_getBlockByHash", fmt.Appendf(nil, `["0x%x",false]`, i+2)), nil)
	}
	other := Key(nil, "1/0x01", "eth_getBlockByHash", []byte(`["0x02",false]`))
	for i, want := range []bool{false, true} {
		if got := c.Admit(other); got != want {
			t.Fatalf("after a window of misses, fetch %d: admitted %v, want %v", i+1, got, want)
		}
	}
}
