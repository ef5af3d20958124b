package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/service"
)

// announceFirstKey prints a fresh installation's first key the moment it is
// made, before it is stored and before the start can still fail: the store
// keeps only its hash, so this line may be its only copy.
func announceFirstKey(w io.Writer) func(keys.Created) {
	return func(c keys.Created) {
		fmt.Fprintf(w, "nodegate: created the first API key: %s  (id %s, %s plan; kept only as a hash: note it now)\n", c.Key, c.ID, c.Plan)
	}
}

// printBanner tells a first-time user everything needed to make a call.
func printBanner(w io.Writer, svc *service.Service) {
	endpoint := svc.URL() + "/v3/"
	fmt.Fprintf(w, "nodegate %s serving %s<API_KEY>\n", Version(), endpoint)
	key := "<API_KEY>"
	switch {
	case svc.GeneratedKey != "":
		key = svc.GeneratedKey
		fmt.Fprintf(w, "  API key:   %s  (created on this first start, team plan; kept only as a hash: note it now)\n", key)
	case len(svc.Config.APIKeys) > 0:
		key = svc.Config.APIKeys[0]
		fmt.Fprintf(w, "  API key:   %s  (from the command line or config)\n", key)
	default:
		fmt.Fprintf(w, "  API key:   the one printed on the first start (%d in the store); 'nodegate keys create --plan team' makes another\n", svc.Keys.Len())
	}
	if addr := svc.AdminAddr(); addr != "" {
		fmt.Fprintf(w, "  admin:     http://%s/admin/ (bearer token from admin.token or $NODEGATE_ADMIN_TOKEN)\n", addr)
	}
	fmt.Fprintf(w, "  websocket: %s/ws/v3/%s\n", svc.WSURL(), key)
	if fp := svc.TLSFingerprint(); fp != "" {
		fmt.Fprintf(w, "  tls:       certificate SHA-256 %s\n", fp)
		if svc.SelfSignedPath != "" {
			fmt.Fprintf(w, "             self-signed, for local use; trust it with %s\n", svc.SelfSignedPath)
		}
	}
	printChain(w, svc)
	printPools(w, svc)
	printRollup(w, svc, endpoint+key)
	fmt.Fprintf(w, "  health:    %s/health\n", svc.URL())
	fmt.Fprintf(w, "  try:       curl -s -H 'Content-Type: application/json' --data '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_blockNumber\",\"params\":[]}' %s%s\n", endpoint, key)
	fmt.Fprintln(w, "  Ctrl-C stops nodegate.")
}

func printChain(w io.Writer, svc *service.Service) {
	switch {
	case svc.Node == nil:
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

// printPools shows each network's upstreams as the pool sees them at start.
func printPools(w io.Writer, svc *service.Service) {
	for _, n := range svc.Networks {
		for _, st := range n.Pool.Status() {
			state := "healthy"
			if !st.Healthy {
				state = "OUT: " + st.LastError
			}
			fmt.Fprintf(w, "  upstream:  %s/%s head %d, %s\n", n.Name, st.Name, st.Head, state)
		}
		if n.Partners != nil {
			for _, st := range n.Partners.Status() {
				fmt.Fprintf(w, "  partner:   %s/%s (failover for %s)\n", n.Name, st.Name, strings.Join(sortedKeys(n.FailoverMethods), ", "))
			}
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// printRollup shows how to reach the starknet networks.
func printRollup(w io.Writer, svc *service.Service, url string) {
	for i, nc := range svc.Config.EffectiveNetworks() {
		if nc.Family != "starknet" {
			continue
		}
		target, host := url, ""
		if own := svc.NetworkURL(nc.Name); own != "" {
			target = own + "/v3/" + url[strings.LastIndex(url, "/")+1:]
		} else if len(nc.Hosts) > 0 {
			host = " -H 'Host: " + strings.TrimPrefix(nc.Hosts[0], "*.") + "'"
		}
		kind := "starknet network"
		if svc.Devnet != nil {
			kind = "starknet devnet (embedded; a devnet, not a real chain)"
		}
		fmt.Fprintf(w, "  rollup:    %s %q: curl -s%s -H 'Content-Type: application/json' --data '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"rollup_pendingTransactions\",\"params\":[]}' %s\n", kind, svc.Networks[i].Name, host, target)
	}
}
