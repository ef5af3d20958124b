package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/family"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/starknet/devnet"
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
// keysCmd makes the `nodegate keys SUB` invocation that reaches this
// server's key store (same --config / --data-dir).
func printBanner(w io.Writer, svc *service.Service, keysCmd func(sub string) string) {
	endpoint := svc.URL() + "/v3/"
	try, hasTry := tryTarget(svc)
	fmt.Fprintf(w, "nodegate %s serving %s<API_KEY>%s\n", Version(), endpoint, try.hostNote())
	key, setKey := "<API_KEY>", ""
	switch {
	case svc.GeneratedKey != "":
		key = svc.GeneratedKey
		fmt.Fprintf(w, "  API key:   %s  (created on this first start, team plan; kept only as a hash: note it now)\n", key)
	case len(svc.Config.APIKeys) > 0:
		key = svc.Config.APIKeys[0]
		fmt.Fprintf(w, "  API key:   %s  (from the command line or config)\n", key)
	default:
		key = "$NODEGATE_KEY"
		newKey := "$(" + keysCmd("create --plan team --name mine") + " | awk '/^key:/{print $2}')"
		fmt.Fprintf(w, "  API key:   the one printed on the first start (%d in the store; nodegate keeps only hashes): export NODEGATE_KEY=<it>\n", svc.Keys.Len())
		fmt.Fprintf(w, "  new key:   export NODEGATE_KEY=%s\n", newKey)
		// The try line works in a new shell too: it makes a key when
		// NODEGATE_KEY is not set.
		setKey = "export NODEGATE_KEY=${NODEGATE_KEY:-" + newKey + "}; "
	}
	if addr := svc.AdminAddr(); addr != "" {
		fmt.Fprintf(w, "  admin:     http://%s/admin/keys, /admin/upstreams, /metrics (bearer token from admin.token or $NODEGATE_ADMIN_TOKEN)\n", addr)
	}
	if addr := svc.MetricsAddr(); addr != "" {
		fmt.Fprintf(w, "  metrics:   http://%s/metrics (Prometheus, no token)\n", addr)
	}
	fmt.Fprintf(w, "  websocket: %s/ws/v3/%s%s\n", try.wsBase(svc), key, try.hostNote())
	curl := "curl -s"
	if fp := svc.TLSFingerprint(); fp != "" {
		fmt.Fprintf(w, "  tls:       certificate SHA-256 %s\n", fp)
		if ca := svc.LocalCA; ca != nil {
			fmt.Fprintf(w, "             issued by nodegate's local CA %s (kept in the data dir: trust it once, e.g.\n", ca.Path)
			fmt.Fprintf(w, "             curl --cacert %s, SSL_CERT_FILE=%s cast, NODE_EXTRA_CA_CERTS=%s node)\n", ca.Path, ca.Path, ca.Path)
			// cast's WebSocket connector carries its own compiled-in roots
			// and reads neither SSL_CERT_FILE nor -k (docs/websocket.md).
			fmt.Fprintf(w, "             cast over wss fails (it trusts only its compiled-in roots there): give cast the https URL\n")
			curl = "curl -s --cacert " + ca.Path
		}
	}
	printChain(w, svc)
	printPools(w, svc)
	printRollup(w, svc, curl, key)
	fmt.Fprintf(w, "  health:    %s/health, readiness %s/ready\n", svc.URL(), svc.URL())
	if hasTry {
		fmt.Fprintf(w, "  try:       %s%s%s -H 'Content-Type: application/json' --data '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":[]}' %s/v3/%s\n",
			setKey, curl, try.host, try.method, try.base, key)
	}
	fmt.Fprintln(w, "  Ctrl-C stops nodegate.")
}

// target is where a first call goes: a base URL, a Host header when the
// network is chosen by name, and the family's head method.
type target struct{ base, host, method string }

// wsBase is the WebSocket base URL of the target: its own listener's, else
// the main listener's.
func (t target) wsBase(svc *service.Service) string {
	if rest, ok := strings.CutPrefix(t.base, "http"); ok && t.base != svc.URL() {
		return "ws" + rest
	}
	return svc.WSURL()
}

// hostNote tells a WebSocket client the Host header the target needs (the
// URL alone reaches no network when networks are chosen by host name).
func (t target) hostNote() string {
	if t.host == "" {
		return ""
	}
	name := strings.TrimSuffix(strings.TrimPrefix(t.host, " -H 'Host: "), "'")
	return "  (with the header Host: " + name + "; networks here are chosen by host name)"
}

// hostHeader is curl's Host header for a network chosen by name: empty
// when it has a listener of its own (own != "") or no host names.
func hostHeader(own string, nc config.Network) string {
	if own != "" || len(nc.Hosts) == 0 {
		return ""
	}
	return " -H 'Host: " + hostOf(nc.Hosts[0]) + "'"
}

// tryTarget picks the network of the try line: the main listener's
// default, else the first network with a listener or host name of its own.
func tryTarget(svc *service.Service) (target, bool) {
	nets := svc.Config.EffectiveNetworks()
	method := func(name string) string { return family.Of(name).HeadMethod }
	for _, nc := range nets {
		if len(nc.Hosts) == 0 && nc.Listen == "" {
			return target{base: svc.URL(), method: method(nc.Family)}, true
		}
	}
	for _, nc := range nets {
		if own := svc.NetworkURL(nc.Name); own != "" {
			return target{base: own, method: method(nc.Family)}, true
		}
		if len(nc.Hosts) > 0 {
			return target{base: svc.URL(), host: hostHeader("", nc), method: method(nc.Family)}, true
		}
	}
	return target{}, false
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
	for _, n := range svc.Networks() {
		if n.ChainID != 0 {
			fmt.Fprintf(w, "  network:   %s, chain id %d\n", n.Name, n.ChainID)
		}
		for _, st := range n.Pool.Status() {
			state := "healthy"
			if !st.Healthy {
				state = "OUT: " + st.LastError
			}
			fmt.Fprintf(w, "  upstream:  %s/%s head %d, %s\n", n.Name, st.Name, st.Head, state)
		}
		if n.Partners != nil {
			for _, st := range n.Partners.Status() {
				fmt.Fprintf(w, "  partner:   %s/%s (failover for %s)\n", n.Name, st.Name, strings.Join(sortedKeys(n.Route.FailoverMethods), ", "))
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

// printRollup shows how to reach the networks that answer
// rollup_pendingTransactions (the starknet networks).
func printRollup(w io.Writer, svc *service.Service, curl, key string) {
	for i, nc := range svc.Config.EffectiveNetworks() {
		if _, err := methods.NewTable(family.Of(nc.Family).Methods).Lookup(rollupMethod); err != nil {
			continue
		}
		own := svc.NetworkURL(nc.Name)
		target, host := svc.URL(), hostHeader(own, nc)
		if own != "" {
			target = own
			fmt.Fprintf(w, "  starknet:  %s/v3/%s  (the %s network's own listener: starknet.js nodeUrl)\n", own, key, svc.Networks()[i].Name)
		}
		kind := "starknet network"
		if servesEmbedded(nc) {
			kind = "starknet devnet (embedded; a devnet, not a real chain)"
		}
		fmt.Fprintf(w, "  rollup:    %s %q: %s%s -H 'Content-Type: application/json' --data '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":[]}' %s/v3/%s\n", kind, svc.Networks()[i].Name, curl, host, rollupMethod, target, key)
		if svc.Devnet != nil && svc.Networks()[i].Version(family.StarknetV08) != nil {
			fmt.Fprintf(w, "             Starknet JSON-RPC %s at /v3/%s, %s at /v3/%s/rpc/v0_8 (starknet.js 7):\n", devnet.SpecVersion, key, devnet.SpecVersion08, key)
			fmt.Fprintf(w, "  rpc v0_8:  %s%s -H 'Content-Type: application/json' --data '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"starknet_specVersion\",\"params\":[]}' %s/v3/%s/rpc/v0_8\n", curl, host, target, key)
		}
	}
	if svc.Devnet != nil {
		printStarknetAccounts(w, svc.Devnet.Accounts())
	}
}

// printStarknetAccounts lists the devnet's predeployed accounts with their
// keys (devnet_getPredeployedAccounts answers the same).
func printStarknetAccounts(w io.Writer, accs []devnet.Account) {
	if len(accs) == 0 {
		return
	}
	fmt.Fprintln(w, "  starknet dev accounts (predeployed on the devnet; public keys, never use them on a real network):")
	for _, a := range accs {
		fmt.Fprintf(w, "    %s  private key %s  public key %s\n", a.Address, a.PrivateKey, a.PublicKey)
	}
}

// hostOf is a name that a network's host pattern matches: the name
// itself, or for "*.example.com" (subdomains only) rpc.example.com.
func hostOf(pattern string) string {
	if rest, ok := strings.CutPrefix(pattern, "*."); ok {
		return "rpc." + rest
	}
	return pattern
}

// rollupMethod is the call the rollup line shows.
const rollupMethod = "rollup_pendingTransactions"

// servesEmbedded reports whether the embedded node or devnet is one of
// nc's upstreams.
func servesEmbedded(nc config.Network) bool {
	for _, u := range nc.Upstreams {
		if u.URL == config.EmbeddedURL {
			return true
		}
	}
	return false
}
