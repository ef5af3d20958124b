package cache

import (
	"fmt"
	"testing"
)

// TestAdmission: a key is admitted the second time it is fetched; once
// admitted it starts over; other keys do not admit it.
func TestAdmission(t *testing.T) {
	a := newAdmission(DefaultMaxBytes)
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

// TestAdmissionSize: about one slot per KiB of budget, a power of two,
// bounded both ways.
func TestAdmissionSize(t *testing.T) {
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

// TestCacheAdmitsOnSecondFetch: through the cache, a fetched answer is
// kept the second time.
func TestCacheAdmitsOnSecondFetch(t *testing.T) {
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	key := Key(nil, "eth_getBlockByHash", []byte(`["0x01",false]`))
	for i, want := range []bool{false, true} {
		if got := c.Admit(key); got != want {
			t.Fatalf("fetch %d: admitted %v, want %v", i+1, got, want)
		}
	}
	c.Set(t.Context(), key, []byte(`{"number":"0x1"}`))
	if v, ok := c.Get(t.Context(), key); !ok || string(v) != `{"number":"0x1"}` {
		t.Fatalf("kept answer: %q, %v", v, ok)
	}
}
