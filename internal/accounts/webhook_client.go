package accounts

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"syscall"
	"time"
)

// webhookClient posts webhooks: no redirects followed, and no connection
// to a loopback, private, link-local, multicast or unspecified address
// (checked on the address dialled, whatever the name resolved to) unless
// it is inside one of private. caFile, when set, adds its certificates to
// the system's roots for the receivers' HTTPS.
func webhookClient(private []netip.Prefix, caFile string) (*http.Client, error) {
	guard := dialGuard{private: private}
	dialer := &net.Dialer{Timeout: webhookTimeout, Control: guard.control}
	tr := &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: webhookTimeout, MaxIdleConns: 4, IdleConnTimeout: time.Minute}
	if caFile != "" {
		roots, err := rootsWith(caFile)
		if err != nil {
			return nil, err
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: tr, Timeout: webhookTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, nil
}

// rootsWith is the system's roots and the certificates of the PEM file.
func rootsWith(caFile string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("accounts.webhook_ca_file: %w", err)
	}
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("accounts.webhook_ca_file: %s holds no PEM certificate", caFile)
	}
	return roots, nil
}

// dialGuard decides which addresses a webhook may connect to.
type dialGuard struct {
	// private are the non-public networks allowed all the same.
	private []netip.Prefix
}

// control refuses a connection to a non-public address outside the
// allowed private networks.
func (g dialGuard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	ip := ap.Addr().Unmap()
	if ip.IsGlobalUnicast() && !ip.IsPrivate() {
		return nil
	}
	for _, p := range g.private {
		if p.Contains(ip) {
			return nil
		}
	}
	return fmt.Errorf("webhook: %s is not a public address (accounts.webhook_private_targets)", ip)
}
