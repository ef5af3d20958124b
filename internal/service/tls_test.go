package service_test

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestHTTPSNegotiatesHTTP2 checks that HTTPS offers HTTP/2 and answers on it.
func TestHTTPSNegotiatesHTTP2(t *testing.T) {
	s := start(t, func(c *config.Config) { c.TLS.SelfSigned = true })
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: trust(t, s), ForceAttemptHTTP2: true}, Timeout: 10 * time.Second}
	body := `{"jsonrpc":"2.0","id":7,"method":"eth_chainId","params":[]}`
	resp, err := client.Post(s.URL()+"/v3/"+s.GeneratedKey, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST over HTTPS: %v", err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.ProtoMajor != 2 {
		t.Fatalf("protocol %s, want HTTP/2", resp.Proto)
	}
	if string(out) != `{"jsonrpc":"2.0","id":7,"result":"0x539"}` {
		t.Fatalf("answer %s", out)
	}
	if !strings.HasPrefix(s.URL(), "https://") || !strings.HasPrefix(s.WSURL(), "wss://") {
		t.Fatalf("urls %s %s", s.URL(), s.WSURL())
	}
	leaf := resp.TLS.PeerCertificates[0]
	sum := sha256.Sum256(leaf.Raw)
	if fp := s.TLSFingerprint(); !strings.HasPrefix(fp, strings.ToUpper(hexByte(sum[0]))+":") || len(fp) != 95 {
		t.Fatalf("fingerprint %q", fp)
	}
}

func hexByte(b byte) string { const d = "0123456789abcdef"; return string([]byte{d[b>>4], d[b&15]}) }

// writePair writes a fresh self-signed pair as PEM files.
func writePair(t *testing.T, certPath, keyPath string) string {
	t.Helper()
	ca, err := ingress.OpenLocalCA(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ca.Issue()
	if err != nil {
		t.Fatal(err)
	}
	var certPEM []byte
	for _, der := range cert.Certificate {
		certPEM = append(certPEM, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	}
	keyPEM := ecKeyPEM(t, cert)
	// Write to temp names and rename, as certificate tools do.
	for path, data := range map[string][]byte{certPath: certPEM, keyPath: keyPEM} {
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	return ingress.Fingerprint(&cert)
}

// served is the fingerprint of the certificate a new TLS handshake sees.
func served(t *testing.T, addr string) string {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only reads the certificate
	if err != nil {
		t.Fatalf("tls dial: %v", err)
	}
	defer conn.Close()
	raw := conn.ConnectionState().PeerCertificates[0].Raw
	return ingress.Fingerprint(&tls.Certificate{Certificate: [][]byte{raw}})
}

// TestCertificateReload replaces the certificate files and sends SIGHUP:
// new connections get the new certificate without a restart.
func TestCertificateReload(t *testing.T) {
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	first := writePair(t, certPath, keyPath)
	for _, tc := range []struct {
		name    string
		check   time.Duration
		trigger func()
	}{
		{"file change", 50 * time.Millisecond, func() {}},
		{"SIGHUP", time.Hour, func() { _ = syscall.Kill(os.Getpid(), syscall.SIGHUP) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first = writePair(t, certPath, keyPath)
			s := start(t, func(c *config.Config) { c.TLS.Cert, c.TLS.Key, c.TLS.ReloadCheck = certPath, keyPath, tc.check })
			if got := served(t, s.Addr()); got != first {
				t.Fatalf("served %s, want %s", got, first)
			}
			time.Sleep(20 * time.Millisecond) // a distinct modification time
			second := writePair(t, certPath, keyPath)
			tc.trigger()
			testenv.WaitFor(t, 10*time.Second, "the certificate reloaded ("+tc.name+")", func() bool { return served(t, s.Addr()) == second })
			if s.TLSFingerprint() != second {
				t.Fatalf("service reports %s", s.TLSFingerprint())
			}
		})
	}
}

// TestBrokenCertificateKeepsServing: a reload of bad files keeps the old certificate.
func TestBrokenCertificateKeepsServing(t *testing.T) {
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	first := writePair(t, certPath, keyPath)
	s := start(t, func(c *config.Config) {
		c.TLS.Cert, c.TLS.Key, c.TLS.ReloadCheck = certPath, keyPath, 20*time.Millisecond
	})
	if err := os.WriteFile(certPath, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if got := served(t, s.Addr()); got != first {
		t.Fatalf("served %s after a bad reload, want the old %s", got, first)
	}
}
