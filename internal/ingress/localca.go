package ingress

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// The local CA's files in its directory (<data_dir>/tls): clients trust
// CAFile once; the key never leaves the machine (mode 0600).
const (
	CAFile    = "ca.pem"
	CAKeyFile = "ca-key.pem"
)

// LocalNames are the names the local CA's leaf is for: the loopback
// addresses, localhost and the embedded devnet's host name.
var LocalNames = []string{"localhost", "starknet.localhost"}

// Validity of what the local CA makes. The CA outlives many starts so that
// the trust given to it holds; each start issues a fresh leaf.
const (
	caValidity   = 10 * 365 * 24 * time.Hour
	leafValidity = 365 * 24 * time.Hour
)

// LocalCA is --tls-self-signed's certificate authority: made once, kept in
// a directory and reused, so that a client told to trust it keeps trusting
// the server across restarts. It signs the leaf the listeners serve; the
// CA itself is never served as an end-entity certificate (rustls refuses
// that: CaUsedAsEndEntity).
type LocalCA struct {
	// Path is the CA certificate's PEM file, the one clients trust.
	Path string
	// PEM is that file's content.
	PEM  []byte
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// OpenLocalCA reads the CA kept in dir, or makes one there when dir has
// none. A CA that is present but unreadable, expired or not a CA is an
// error rather than silently replaced: clients trust it.
func OpenLocalCA(dir string) (*LocalCA, error) {
	certPath, keyPath := filepath.Join(dir, CAFile), filepath.Join(dir, CAKeyFile)
	certPEM, certErr := os.ReadFile(certPath)
	keyPEM, keyErr := os.ReadFile(keyPath)
	if errors.Is(certErr, fs.ErrNotExist) && errors.Is(keyErr, fs.ErrNotExist) {
		return createLocalCA(dir, certPath, keyPath)
	}
	if err := errors.Join(certErr, keyErr); err != nil {
		return nil, fmt.Errorf("local CA in %s: %w", dir, err)
	}
	ca, err := parseLocalCA(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("local CA %s: %w (remove %s and %s to make a new one)", certPath, err, CAFile, CAKeyFile)
	}
	ca.Path = certPath
	return ca, nil
}

func parseLocalCA(certPEM, keyPEM []byte) (*LocalCA, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, err
	}
	key, ok := pair.PrivateKey.(*ecdsa.PrivateKey)
	switch {
	case !ok:
		return nil, errors.New("the key is not an ECDSA key")
	case !cert.IsCA:
		return nil, errors.New("the certificate is not a CA")
	case time.Now().After(cert.NotAfter):
		return nil, fmt.Errorf("expired on %s", cert.NotAfter.Format(time.DateOnly))
	}
	return &LocalCA{PEM: certPEM, cert: cert, key: key}, nil
}

func createLocalCA(dir, certPath, keyPath string) (*LocalCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate the local CA key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: "nodegate local CA", Organization: []string{"nodegate self-signed"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true, // it signs leaves only
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("create the local CA: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode the local CA key: %w", err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	// The key first: a certificate on disk without its key would be refused
	// at the next start.
	if err := writeNew(keyPath, keyPEM, 0o600); err != nil {
		return nil, err
	}
	if err := writeNew(certPath, certPEM, 0o644); err != nil {
		return nil, err
	}
	ca, err := parseLocalCA(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	ca.Path = certPath
	return ca, nil
}

// writeNew writes data to path through a temporary name, so that a
// crash leaves either nothing or the whole file.
func writeNew(path string, data []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	return nil
}

// Issue makes a fresh leaf for 127.0.0.1, ::1 and LocalNames, signed by
// the CA, valid for a year; the served chain is the leaf then the CA.
func (ca *LocalCA) Issue() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generate the leaf key: %w", err)
	}
	now := time.Now()
	notAfter := now.Add(leafValidity)
	if notAfter.After(ca.cert.NotAfter) {
		notAfter = ca.cert.NotAfter
	}
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: "nodegate local", Organization: []string{"nodegate self-signed"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     LocalNames,
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("issue the leaf: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("parse the new leaf: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der, ca.cert.Raw}, PrivateKey: key, Leaf: leaf}, nil
}

// randomSerial is a 127-bit random serial number (RFC 5280 allows up to
// 20 octets; random so that two CAs never share one).
func randomSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // crypto/rand does not fail on Linux
	}
	return n
}
