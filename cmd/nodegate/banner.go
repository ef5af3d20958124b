package main

import (
	"fmt"
	"io"

	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/service"
)

// printBanner tells a first-time user everything needed to make a call.
func printBanner(w io.Writer, svc *service.Service) {
	endpoint := svc.URL() + "/v3/"
	fmt.Fprintf(w, "nodegate %s serving %s<API_KEY>\n", Version(), endpoint)
	key := "<API_KEY>"
	switch {
	case svc.GeneratedKey != "":
		key = svc.GeneratedKey
		fmt.Fprintf(w, "  API key:   %s  (generated for this run)\n", key)
	case len(svc.Config.APIKeys) > 0:
		key = svc.Config.APIKeys[0]
		fmt.Fprintf(w, "  API key:   %s  (from the command line or config)\n", key)
	}
	fmt.Fprintf(w, "  websocket: %s/ws/v3/%s\n", svc.WSURL(), key)
	if fp := svc.TLSFingerprint(); fp != "" {
		fmt.Fprintf(w, "  tls:       certificate SHA-256 %s\n", fp)
		if svc.SelfSignedPath != "" {
			fmt.Fprintf(w, "             self-signed, for local use; trust it with %s\n", svc.SelfSignedPath)
		}
	}
	printChain(w, svc)
	fmt.Fprintf(w, "  health:    %s/health\n", svc.URL())
	fmt.Fprintf(w, "  try:       curl -s -H 'Content-Type: application/json' --data '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_blockNumber\",\"params\":[]}' %s%s\n", endpoint, key)
	fmt.Fprintln(w, "  Ctrl-C stops nodegate.")
}

func printChain(w io.Writer, svc *service.Service) {
	switch {
	case svc.Node == nil:
		fmt.Fprintf(w, "  upstream:  %s\n", svc.Config.Upstream)
	case svc.Config.Node.ChainDir != "":
		fmt.Fprintf(w, "  chain:     imported from %s (chain id %d)\n", svc.Config.Node.ChainDir, svc.Node.ChainID())
	default:
		fmt.Fprintf(w, "  chain:     embedded dev chain, chain id %d, %s\n", svc.Node.ChainID(), blockPolicy(svc.Config.Node.BlockTime.String(), svc.Config.Node.BlockTime == 0))
		printAccounts(w, svc.Node.Accounts())
	}
}

func blockPolicy(period string, perTx bool) string {
	if perTx {
		return "one block per transaction"
	}
	return "a block every " + period
}

func printAccounts(w io.Writer, accs []evmnode.Account) {
	if len(accs) == 0 {
		return
	}
	fmt.Fprintln(w, "  funded dev accounts (1,000,000 ETH each; public keys, never use them on a real network):")
	for _, a := range accs {
		fmt.Fprintf(w, "    %s  private key %s\n", a.Address.Hex(), a.PrivateKeyHex())
	}
}
