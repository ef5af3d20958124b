package service

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nodegate/nodegate/internal/ingress"
)

// startTLS prepares the certificate when TLS is configured: files (watched
// for changes and reloaded on SIGHUP) or a self-signed one, whose PEM is
// written to <data_dir>/tls/self-signed.pem so that clients can trust it.
func (s *Service) startTLS(ctx context.Context) error {
	t := s.Config.TLS
	if !t.Enabled() {
		return nil
	}
	if t.SelfSigned {
		cert, pemBytes, err := ingress.SelfSigned()
		if err != nil {
			return errTLS(err)
		}
		dir := filepath.Join(s.Config.DataDir, "tls")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return errTLS(fmt.Errorf("create %s: %w", dir, err))
		}
		s.SelfSignedPath = filepath.Join(dir, "self-signed.pem")
		if err := os.WriteFile(s.SelfSignedPath, pemBytes, 0o644); err != nil {
			return errTLS(fmt.Errorf("write %s: %w", s.SelfSignedPath, err))
		}
		s.SelfSignedPEM = pemBytes
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
