package clistore

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/service/keyconfig"
)

// ParseInterspersed parses flags that may come after positional arguments
// (`keys show ID --json`), which the flag package alone stops at.
func ParseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// Flags are the flags every store command takes: where the store is, and
// JSON output.
type Flags struct {
	ConfigPath, DataDir, DatabaseURL string
	JSON                             bool
}

// Register adds the flags to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.ConfigPath, "config", "", "YAML config `file` (the one nodegate serve uses)")
	fs.StringVar(&f.DataDir, "data-dir", "", "`dir` of the SQLite key store (default: the config's, ./nodegate-data)")
	fs.StringVar(&f.DatabaseURL, "database-url", "", "PostgreSQL `url` of the key store (overrides the config)")
	fs.BoolVar(&f.JSON, "json", false, "print JSON")
}

// Store is an opened key store with the configuration it came from and
// the plans in force (the store's once a replica wrote them).
type Store struct {
	Config config.Config
	Keys   keys.Store
	Plans  map[string]keys.Plan
}

// Open loads the flags' config (the defaults when none), applies the data
// dir and database URL given on the command line (empty: the config's),
// and opens its store. The exit code is 2 for a bad configuration, 1 for a
// store that cannot be opened.
func (f *Flags) Open(ctx context.Context) (*Store, int, error) {
	cfg := config.Defaults()
	if f.ConfigPath != "" {
		var err error
		if cfg, err = config.Load(f.ConfigPath); err != nil {
			return nil, 2, err
		}
	}
	if f.DataDir != "" {
		cfg.DataDir = f.DataDir
	}
	if f.DatabaseURL != "" {
		cfg.DatabaseURL = f.DatabaseURL
	}
	if err := cfg.Validate(); err != nil {
		return nil, 2, fmt.Errorf("invalid configuration:\n%w", err)
	}
	st, err := keys.OpenStore(ctx, keyconfig.Store(&cfg))
	if err != nil {
		return nil, 1, err
	}
	plans, err := keys.PlansInForce(ctx, st, cfg.PlanSet())
	if err != nil {
		st.Close()
		return nil, 1, err
	}
	return &Store{Config: cfg, Keys: st, Plans: plans}, 0, nil
}

// Begin does what every store command does before its own flags: usage
// for help (exit 0) or no command (exit 2), a refusal of a command not in
// commands (exit 2), else the command args[0] names and its flag set. tool
// is "keys" or "accounts"; ok is false when the run ends with code.
func Begin[C any](tool, usage string, args []string, commands map[string]C, stderr io.Writer) (fs *flag.FlagSet, cmd C, code int, ok bool) {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return nil, cmd, 2, false
		}
		return nil, cmd, 0, false
	}
	cmd, known := commands[args[0]]
	if !known {
		fmt.Fprintf(stderr, "nodegate %s: unknown command %q\n\n%s", tool, args[0], usage)
		return nil, cmd, 2, false
	}
	fs = flag.NewFlagSet(tool+" "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	return fs, cmd, 0, true
}

// Args parses the command's flags (they may follow its arguments) and
// checks that it got nargs arguments. ok is false when the run ends with
// code: 0 for --help, 2 for a bad flag or a wrong count.
func Args(fs *flag.FlagSet, args []string, nargs int, tool string, stderr io.Writer) (pos []string, code int, ok bool) {
	pos, err := ParseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return nil, 0, false
	} else if err != nil {
		return nil, 2, false
	}
	if len(pos) != nargs {
		fmt.Fprintf(stderr, "nodegate %s %s: want %d argument(s), got %d\n", tool, args[0], nargs, len(pos))
		return nil, 2, false
	}
	return pos, 0, true
}
