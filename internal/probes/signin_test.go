package probes

import "testing"

func probeSignIn(t *testing.T, f *figures) { t.Skip("written next") }
