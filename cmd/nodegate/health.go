package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/service"
)

const healthHeader = `Usage: nodegate health [flags] URL

Exits 0 when GET URL answers 200, 1 otherwise (container health checks; e.g.
http://127.0.0.1:8545/health or /ready). An https URL is checked against the
system's roots, the local CA of --tls-self-signed kept in the data dir (when
there is one) and --cacert.

Flags:
`

// runHealth is `nodegate health URL`: exit 0 when GET URL answers 200, 1
// otherwise. Container images without curl use it for HEALTHCHECK.
func runHealth(args []string, stdout, stderr io.Writer) int {
	flags := newFlagSet("health")
	caFile := flags.String("cacert", "", "also trust the CA certificates in this PEM `file`")
	dataDir := flags.String("data-dir", "./nodegate-data", "`dir` whose local CA (tls/"+ingress.CAFile+", made by --tls-self-signed) is trusted when present")
	if err := parseFlags(flags, healthHeader, args, stderr); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		fmt.Fprintln(stderr, "nodegate health:", err)
		return 2
	}
	if flags.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: nodegate health [--cacert FILE] [--data-dir DIR] URL   (e.g. http://127.0.0.1:8545/health or /ready)")
		return 2
	}
	roots, err := healthRoots(*caFile, filepath.Join(service.LocalCADir(*dataDir), ingress.CAFile))
	if err != nil {
		fmt.Fprintln(stderr, "nodegate health:", err)
		return 2
	}
	client := &http.Client{
		Timeout:   3 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}},
	}
	resp, err := client.Get(flags.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "nodegate health:", err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	fmt.Fprintf(stdout, "%d %s\n", resp.StatusCode, body)
	if resp.StatusCode != http.StatusOK {
		return 1
	}
	return 0
}

// healthRoots are the system's roots plus caFile (which must be readable)
// and the data dir's local CA (when it exists).
func healthRoots(caFile, localCA string) (*x509.CertPool, error) {
	roots, err := x509.SystemCertPool()
	if err != nil {
		roots = x509.NewCertPool()
	}
	if pem, err := os.ReadFile(localCA); err == nil {
		roots.AppendCertsFromPEM(pem)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read the local CA: %w", err)
	}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("--cacert: %w", err)
		}
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--cacert %s: no PEM certificate in it", caFile)
		}
	}
	return roots, nil
}
