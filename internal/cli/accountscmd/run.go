package accountscmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/cli/clistore"
	"github.com/nodegate/nodegate/internal/keys"
)

const usage = `Usage: nodegate accounts <command> [flags]

Manage customer accounts in the configured key store (SQLite in the data
dir, or PostgreSQL with database_url). Running servers apply changes
within their key_refresh interval. ACCOUNT is an account id or email.

Commands:
  list                       every account
  show      ACCOUNT          an account, its keys and its plan requests
  disable   ACCOUNT          refuse its sign-ins and its keys
  enable    ACCOUNT          undo disable (revoked keys stay revoked)
  set-plan  ACCOUNT PLAN     move the account and its keys to PLAN
  invite    EMAIL            make a one-time sign-up link (mailed when accounts.smtp is set)
  unlock    ACCOUNT          lift the account's sign-in limits now
  reset-password ACCOUNT     make a one-time password reset link (works accounts.reset_ttl; mailed when accounts.smtp is set)
  requests  [--all]          open requests for the custom tier (--all: decided ones too)
  grant     REQUEST          grant a request: the account moves to its plan
  decline   REQUEST          decline a request

Flags:
  --config FILE          the config file of nodegate serve
  --data-dir DIR         data dir (SQLite store keys.db)
  --database-url URL     PostgreSQL store (overrides the config)
  --json                 machine-readable output
`

// command is one `nodegate accounts` command.
type command struct {
	nargs int
	run   func(ctx context.Context, inv *invocation, a *accounts.Service) error
}

var commands = map[string]command{
	"list":           {0, list},
	"show":           {1, show},
	"disable":        {1, setStatus(accounts.StatusDisabled)},
	"enable":         {1, setStatus(accounts.StatusActive)},
	"set-plan":       {2, setPlan},
	"invite":         {1, invite},
	"unlock":         {1, unlock},
	"reset-password": {1, resetPassword},
	"requests":       {0, requests},
	"grant":          {1, decide(true)},
	"decline":        {1, decide(false)},
}

// invocation is one run: flags, arguments, outputs.
type invocation struct {
	stdout, stderr io.Writer
	common         clistore.Flags
	all            bool
	args           []string
}

// Run executes `nodegate accounts args...`: exit 0 done, 1 failure (store
// unreachable, unknown account), 2 bad usage or refused input.
func Run(args []string, stdout, stderr io.Writer) int {
	fs, cmd, code, ok := clistore.Begin("accounts", usage, args, commands, stderr)
	if !ok {
		return code
	}
	inv := &invocation{stdout: stdout, stderr: stderr}
	inv.common.Register(fs)
	fs.BoolVar(&inv.all, "all", false, "requests: decided ones too")
	pos, code, ok := clistore.Args(fs, args, cmd.nargs, "accounts", stderr)
	if !ok {
		return code
	}
	inv.args = pos
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, closeStore, code := inv.open(ctx)
	if a == nil {
		return code
	}
	defer closeStore()
	return inv.report(cmd.run(ctx, inv, a))
}

// open loads the configuration like `nodegate serve` does and opens the store.
func (inv *invocation) open(ctx context.Context) (*accounts.Service, func(), int) {
	st, code, err := inv.common.Open(ctx)
	if err != nil {
		fmt.Fprintln(inv.stderr, "nodegate accounts:", err)
		return nil, nil, code
	}
	a, err := accounts.New(&keys.Manager{Store: st.Keys, Plans: st.Plans}, accounts.OptionsOf(&st.Config))
	if err != nil {
		st.Keys.Close()
		fmt.Fprintln(inv.stderr, "nodegate accounts:", err)
		return nil, nil, 1
	}
	return a, func() { st.Keys.Close() }, 0
}

// report prints an error with its exit code.
func (inv *invocation) report(err error) int {
	switch {
	case err == nil:
		return 0
	case accounts.IsInput(err), keys.IsInputError(err):
		fmt.Fprintln(inv.stderr, "nodegate accounts:", err)
		return 2
	case accounts.IsNotFound(err):
		fmt.Fprintln(inv.stderr, "nodegate accounts: no such account or request:", inv.args)
		return 1
	default:
		fmt.Fprintln(inv.stderr, "nodegate accounts:", err)
		return 1
	}
}

func (inv *invocation) printJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(inv.stdout, string(b))
	return err
}

func (inv *invocation) table() *tabwriter.Writer {
	return tabwriter.NewWriter(inv.stdout, 0, 0, 2, ' ', 0)
}
