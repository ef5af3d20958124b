package ingress

import (
	"bytes"
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLocalCA: the CA is made once and reused (trust survives a restart),
// its key is private, and each leaf it issues is an end-entity certificate
// (not a CA: rustls refuses a CA as end entity) that verifies against the
// CA for every local name.
func TestLocalCA(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	first, err := OpenLocalCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := OpenLocalCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.PEM, again.PEM) || again.Path != filepath.Join(dir, CAFile) {
		t.Fatal("a second start made another CA: trust given to the first is lost")
	}
	if st, err := os.Stat(filepath.Join(dir, CAKeyFile)); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("CA key file: %v, mode %v", err, st.Mode())
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(again.PEM) {
		t.Fatal("CA PEM does not parse")
	}
	cert, err := again.Issue()
	if err != nil {
		t.Fatal(err)
	}
	if cert.Leaf.IsCA {
		t.Fatal("the served certificate is a CA")
	}
	for _, name := range append([]string{"127.0.0.1", "::1"}, LocalNames...) {
		t.Run(name, func(t *testing.T) {
			_, err := cert.Leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
			if err != nil {
				t.Fatalf("leaf does not verify for %s: %v", name, err)
			}
		})
	}
	if _, err := cert.Leaf.Verify(x509.VerifyOptions{DNSName: "example.com", Roots: roots}); err == nil {
		t.Fatal("leaf verifies for a name it is not for")
	}
}

// TestLocalCABroken: a CA directory with a damaged or half-present CA is an
// error naming the file, never silently replaced (clients trust the old one).
func TestLocalCABroken(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(dir string)
	}{
		{"key missing", func(dir string) { os.Remove(filepath.Join(dir, CAKeyFile)) }},
		{"certificate garbled", func(dir string) { os.WriteFile(filepath.Join(dir, CAFile), []byte("not pem"), 0o644) }},
		{"key of another CA", func(dir string) {
			other := t.TempDir()
			if _, err := OpenLocalCA(other); err != nil {
				t.Fatal(err)
			}
			key, _ := os.ReadFile(filepath.Join(other, CAKeyFile))
			os.WriteFile(filepath.Join(dir, CAKeyFile), key, 0o600)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := OpenLocalCA(dir); err != nil {
				t.Fatal(err)
			}
			tc.damage(dir)
			_, err := OpenLocalCA(dir)
			if err == nil || !strings.Contains(err.Error(), dir) {
				t.Fatalf("err %v, want an error naming %s", err, dir)
			}
		})
	}
}
