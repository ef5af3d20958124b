package bench

import (
	"fmt"
	"strconv"
	"strings"
)

// MixEntry is one method of a load mix with its relative weight.
type MixEntry struct {
	Method string
	Weight int
}

// Mix is a weighted list of methods. Calls are assigned to methods by a
// fixed weighted round robin, so that two runs of the same mix send the
// same proportions exactly (a random draw would add noise to comparisons).
type Mix struct {
	Entries []MixEntry
	slots   []int // index into Entries, one slot per unit of weight
}

// ParseMix reads "eth_getTransactionByHash=80,eth_call=20". A method
// without a weight counts 1.
func ParseMix(s string) (*Mix, error) {
	m := &Mix{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, weight, found := strings.Cut(part, "=")
		w := 1
		if found {
			n, err := strconv.Atoi(strings.TrimSpace(weight))
			if err != nil || n < 0 || n > 10000 {
				return nil, fmt.Errorf("method mix %q: weight of %s must be an integer in 0..10000", s, name)
			}
			w = n
		}
		name = strings.TrimSpace(name)
		if !supported(name) {
			return nil, fmt.Errorf("method mix: %q is not a method the load tool can generate params for (%s)", name, strings.Join(supportedMethods(), ", "))
		}
		if w == 0 {
			continue
		}
		m.Entries = append(m.Entries, MixEntry{Method: name, Weight: w})
	}
	if len(m.Entries) == 0 {
		return nil, fmt.Errorf("method mix %q: no method with a positive weight", s)
	}
	m.buildSlots()
	return m, nil
}

// buildSlots interleaves the methods so that any window of the sequence
// is close to the mix (smooth weighted round robin).
func (m *Mix) buildSlots() {
	total := 0
	for _, e := range m.Entries {
		total += e.Weight
	}
	current := make([]int, len(m.Entries))
	m.slots = make([]int, total)
	for s := range m.slots {
		best := 0
		for i, e := range m.Entries {
			current[i] += e.Weight
			if current[i] > current[best] {
				best = i
			}
		}
		current[best] -= total
		m.slots[s] = best
	}
}

// Pick returns the method of the n-th call.
func (m *Mix) Pick(n uint64) string {
	return m.Entries[m.slots[n%uint64(len(m.slots))]].Method
}

// String is the mix as ParseMix reads it.
func (m *Mix) String() string {
	parts := make([]string, len(m.Entries))
	for i, e := range m.Entries {
		parts[i] = e.Method + "=" + strconv.Itoa(e.Weight)
	}
	return strings.Join(parts, ",")
}
