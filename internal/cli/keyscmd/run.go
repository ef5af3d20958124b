package keyscmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/nodegate/nodegate/internal/cli/clistore"
	"github.com/nodegate/nodegate/internal/keys"
)

const usage = `Usage: nodegate keys <command> [flags]

Manage API keys in the configured key store (SQLite in the data dir, or
PostgreSQL with database_url). Running servers see changes within their
key_refresh interval (250ms by default).

Commands:
  create   --plan PLAN [--name N] [--network NET]... [--secret] [settings]
  list     [--all]
  show     ID
  update   ID [--name N] [--plan PLAN] [--network NET]... [settings]
  revoke   ID
  usage    ID [--days N]   requests, credits and errors per day, network and method

Settings (create and update; a list flag replaces the list, --X "" clears it):
  --method NAME          allowed JSON-RPC method (repeatable, or comma-separated)
  --contract 0xADDR      allowed contract address (repeatable, or comma-separated)
  --origin ORIGIN        allowed Origin, e.g. https://*.example.com (repeatable, or comma-separated)
  --user-agent TEXT      allowed User-Agent substring (repeatable)
  --new-secret           make a new secret (printed once); --clear-secret removes it
  --require-secret       true|false: requests must send the secret (curl --user :SECRET)
  --secret-bypass        true|false: a correct secret skips the allowlists
  --rate CREDITS         the key's own rate limit, credits per second (0: the plan's)
  --daily-credits N      the key's own daily credit budget (0: the plan's)
  --method-rate M=CALLS  the key's own rate of method M, calls per second (repeatable; M=0 removes it)
  --allow-ip CIDR        allowed client address or CIDR, IPv4 or IPv6 (repeatable, or comma-separated)
  --jwt-key NAME=FILE    add a JWT public key (PEM, RS256 or ES256; at most 3) named NAME, the
                         token's kid (repeatable); NAME= removes it
  --require-jwt          true|false: requests must send a JWT (Authorization: Bearer <token>)

Common flags:
  --config FILE          the config file of nodegate serve
  --data-dir DIR         data dir (SQLite store keys.db)
  --database-url URL     PostgreSQL store (overrides the config)
  --json                 machine-readable output
`

// Run executes `nodegate keys args...` and returns the exit code: 0 done,
// 1 failure (store unreachable, unknown id), 2 bad usage or refused input.
func Run(args []string, stdout, stderr io.Writer) int {
	fs, cmd, code, ok := clistore.Begin("keys", usage, args, commands, stderr)
	if !ok {
		return code
	}
	inv := &invocation{stdout: stdout, stderr: stderr}
	inv.common.Register(fs)
	if cmd.settings {
		inv.settings.register(fs)
	}
	if cmd.register != nil {
		cmd.register(fs, inv)
	}
	pos, code, ok := clistore.Args(fs, args, cmd.nargs, "keys", stderr)
	if !ok {
		return code
	}
	inv.args, inv.set = pos, setFlags(fs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, closeStore, code := inv.open(ctx)
	if m == nil {
		return code
	}
	defer closeStore()
	return inv.report(cmd.run(ctx, inv, m))
}

// invocation is one run of a command: parsed flags, args and outputs.
type invocation struct {
	stdout, stderr io.Writer
	common         clistore.Flags
	settings       settingsFlags
	secret         bool
	listAll        bool
	days           int
	args           []string
	set            map[string]bool
	// networks are the network names of the loaded config, which a key's
	// --network must name.
	networks []string
}

// open loads the configuration like `nodegate serve` does and opens the store.
func (inv *invocation) open(ctx context.Context) (*keys.Manager, func(), int) {
	st, code, err := inv.common.Open(ctx)
	if err != nil {
		fmt.Fprintln(inv.stderr, "nodegate keys:", err)
		return nil, nil, code
	}
	for _, n := range st.Config.EffectiveNetworks() {
		inv.networks = append(inv.networks, n.Name)
	}
	return &keys.Manager{Store: st.Keys, Plans: st.Plans}, func() { st.Keys.Close() }, 0
}

// checkNetworks refuses a --network that the config does not serve.
func (inv *invocation) checkNetworks(list *[]string) error {
	if list == nil {
		return nil
	}
	for _, n := range *list {
		if !slices.Contains(inv.networks, n) {
			hint := ""
			if inv.common.ConfigPath == "" {
				hint = "; give the server's --config to use its networks"
			}
			return &usageError{fmt.Sprintf("unknown network %q: this config serves %s%s", n, strings.Join(inv.networks, ", "), hint)}
		}
	}
	return nil
}

// usageError is refused input found by the command itself (exit code 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// report prints an error with its exit code.
func (inv *invocation) report(err error) int {
	switch {
	case err == nil:
		return 0
	case keys.IsInputError(err), errors.As(err, new(*usageError)):
		fmt.Fprintln(inv.stderr, "nodegate keys:", err)
		return 2
	default:
		fmt.Fprintln(inv.stderr, "nodegate keys:", err)
		return 1
	}
}

func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}
