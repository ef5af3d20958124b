package service

import (
	"context"
	"path/filepath"
	"time"

	"github.com/nodegate/nodegate/internal/ingress"
)

// startTLS prepares the certificate when TLS is configured: files (watched
// for changes and reloaded on SIGHUP) or, self-signed, a fresh leaf issued
// by the local CA kept in <data_dir>/tls (made on the first start, reused
// after, so that clients trust it once).
func (s *Service) startTLS(ctx context.Context) error {
	t := s.Config.TLS
	if !t.Enabled() {
		return nil
	}
	if t.SelfSigned {
		ca, err := ingress.OpenLocalCA(LocalCADir(s.Config.DataDir))
		if err != nil {
			return errTLS(err)
		}
		cert, err := ca.Issue()
		if err != nil {
			return errTLS(err)
		}
		s.LocalCA = ca
		s.tls = ingress.StaticCert(cert)
		return nil
	}
	src, err := ingress.LoadCertSource(t.Cert, t.Key)
	if err != nil {
		return errTLS(err)
	}
	every := t.ReloadCheck
	if every <= 0 {
		every = 5 * time.Second
	}
	wctx, cancel := context.WithCancel(context.Background())
	s.stopTLS = cancel
	src.Watch(wctx, every)
	s.tls = src
	return nil
}

// LocalCADir is where tls.self_signed keeps its CA under a data dir.
func LocalCADir(dataDir string) string { return filepath.Join(dataDir, "tls") }

// TLSFingerprint is the SHA-256 fingerprint of the served certificate ("" without TLS).
func (s *Service) TLSFingerprint() string {
	if s.tls == nil {
		return ""
	}
	return ingress.Fingerprint(s.tls.Certificate())
}

// scheme is "https" with TLS, else "http".
func (s *Service) scheme() string {
	if s.tls != nil {
		return "https"
	}
	return "http"
}
