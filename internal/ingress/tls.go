package ingress

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// CertSource holds the serving certificate and swaps it without a restart:
// Reload on SIGHUP or when the files change (Watch). A failed reload keeps
// the current certificate.
type CertSource struct {
	certFile, keyFile string
	cur               atomic.Pointer[tls.Certificate]
	stamp             string // modification stamp of the loaded files
}

// LoadCertSource reads a PEM certificate chain and key.
func LoadCertSource(certFile, keyFile string) (*CertSource, error) {
	s := &CertSource{certFile: certFile, keyFile: keyFile}
	if err := s.Reload(); err != nil {
		return nil, err
	}
	return s, nil
}

// StaticCert serves one certificate for ever (the local CA's leaf).
func StaticCert(cert tls.Certificate) *CertSource {
	s := &CertSource{}
	s.cur.Store(&cert)
	return s
}

// GetCertificate is the tls.Config hook.
func (s *CertSource) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.cur.Load(), nil
}

// Certificate is the certificate being served.
func (s *CertSource) Certificate() *tls.Certificate { return s.cur.Load() }

// Reload reads the files again; on error the current certificate stays.
func (s *CertSource) Reload() error {
	if s.certFile == "" {
		return nil
	}
	stamp := fileStamp(s.certFile, s.keyFile)
	cert, err := tls.LoadX509KeyPair(s.certFile, s.keyFile)
	if err != nil {
		return fmt.Errorf("load tls certificate %s / key %s: %w", s.certFile, s.keyFile, err)
	}
	if cert.Leaf == nil && len(cert.Certificate) > 0 {
		cert.Leaf, _ = x509.ParseCertificate(cert.Certificate[0])
	}
	s.cur.Store(&cert)
	s.stamp = stamp
	return nil
}

// fileStamp changes whenever either file is replaced or rewritten.
func fileStamp(files ...string) string {
	var b strings.Builder
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			fmt.Fprintf(&b, "%d/%d;", st.ModTime().UnixNano(), st.Size())
		}
	}
	return b.String()
}

// Watch reloads on SIGHUP and when the files' modification stamp changes
// (checked every interval), until ctx ends.
func (s *CertSource) Watch(ctx context.Context, interval time.Duration) {
	if s.certFile == "" {
		return
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				s.reloadLogged("SIGHUP")
			case <-t.C:
				if fileStamp(s.certFile, s.keyFile) != s.stamp {
					s.reloadLogged("file change")
				}
			}
		}
	}()
}

func (s *CertSource) reloadLogged(why string) {
	if err := s.Reload(); err != nil {
		slog.Error("tls certificate reload failed; the current certificate stays", "reason", why, "err", err)
		return
	}
	slog.Info("tls certificate reloaded", "reason", why, "fingerprint", Fingerprint(s.Certificate()))
}

// ServerTLSConfig is the listener's TLS configuration: TLS 1.2 and up,
// HTTP/2 offered first, the certificate from src.
func ServerTLSConfig(src *CertSource) *tls.Config {
	return &tls.Config{
		MinVersion:     tls.VersionTLS12,
		NextProtos:     []string{"h2", "http/1.1"},
		GetCertificate: src.GetCertificate,
	}
}

// Fingerprint is the SHA-256 of the leaf certificate, as colon-separated hex
// (the form browsers and openssl show).
func Fingerprint(c *tls.Certificate) string {
	if c == nil || len(c.Certificate) == 0 {
		return ""
	}
	sum := sha256.Sum256(c.Certificate[0])
	h := strings.ToUpper(hex.EncodeToString(sum[:]))
	var b strings.Builder
	for i := 0; i < len(h); i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}
