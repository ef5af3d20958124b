package planscmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/nodegate/nodegate/internal/cli/clistore"
	"github.com/nodegate/nodegate/internal/keys"
)

const usage = `Usage: nodegate plans <command> [flags]

The plans every replica grants live in the key store. A replica's config
file (plans:) only seeds a store that holds none; after that, the fleet's
plans change only with push. Running servers apply a push within their
key_refresh interval.

Commands:
  show   the plans the key store holds (the fleet's)
  push   make the config file's plans the fleet's (needs --config)

Flags:
  --config FILE          the config file of nodegate serve
  --data-dir DIR         data dir (SQLite store keys.db)
  --database-url URL     PostgreSQL store (overrides the config)
  --json                 machine-readable output
`

type command struct {
	run func(ctx context.Context, inv *invocation, st *clistore.Store) error
}

var commands = map[string]command{
	"show": {show},
	"push": {push},
}

type invocation struct {
	stdout, stderr io.Writer
	common         clistore.Flags
}

// Run executes `nodegate plans args...`: exit 0 done, 1 failure (store
// unreachable), 2 bad usage.
func Run(args []string, stdout, stderr io.Writer) int {
	fs, cmd, code, ok := clistore.Begin("plans", usage, args, commands, stderr)
	if !ok {
		return code
	}
	inv := &invocation{stdout: stdout, stderr: stderr}
	inv.common.Register(fs)
	if _, code, ok := clistore.Args(fs, args, 0, "plans", stderr); !ok {
		return code
	}
	if args[0] == "push" && inv.common.ConfigPath == "" {
		fmt.Fprintln(stderr, "nodegate plans push: --config FILE is required (the file whose plans: become the fleet's)")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, code, err := inv.common.Open(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "nodegate plans:", err)
		return code
	}
	defer st.Keys.Close()
	if err := cmd.run(ctx, inv, st); err != nil {
		fmt.Fprintln(stderr, "nodegate plans:", err)
		return 1
	}
	return 0
}

func show(ctx context.Context, inv *invocation, st *clistore.Store) error {
	stored, err := st.Keys.StoredPlans(ctx)
	if err != nil {
		return err
	}
	return inv.print(stored)
}

func push(ctx context.Context, inv *invocation, st *clistore.Store) error {
	plans := st.Config.PlanSet()
	wrote, err := st.Keys.PublishPlans(ctx, plans)
	if err != nil {
		return err
	}
	if !inv.common.JSON {
		if wrote {
			fmt.Fprintf(inv.stdout, "plans pushed to %s: every replica applies them within key_refresh\n", st.Keys.Describe())
		} else {
			fmt.Fprintf(inv.stdout, "plans unchanged: %s already holds these\n", st.Keys.Describe())
		}
	}
	return inv.print(plans)
}

// print writes plans, one per line by name (or as JSON).
func (inv *invocation) print(plans map[string]keys.Plan) error {
	if inv.common.JSON {
		b, err := json.MarshalIndent(map[string]any{"plans": plans}, "", "  ")
		if err != nil {
			return fmt.Errorf("encode plans: %w", err)
		}
		_, err = fmt.Fprintln(inv.stdout, string(b))
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(plans)) {
		b, err := json.Marshal(plans[name])
		if err != nil {
			return fmt.Errorf("encode plan %s: %w", name, err)
		}
		fmt.Fprintf(inv.stdout, "%s\t%s\n", name, b)
	}
	return nil
}
