// Package clistore is what the store commands (`nodegate keys`, `nodegate
// accounts`) share: flags that may follow the arguments, and opening the
// key store of a configuration as `nodegate serve` would.
package clistore

import (
	"context"
	"flag"
	"fmt"

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

// Store is an opened key store with the configuration it came from and
// the plans in force (the store's once a replica wrote them).
type Store struct {
	Config config.Config
	Keys   keys.Store
	Plans  map[string]keys.Plan
}

// Open loads configPath (the defaults when empty), applies the data dir
// and database URL given on the command line (empty: the config's), and
// opens its store. The exit code is 2 for a bad configuration, 1 for a
// store that cannot be opened.
func Open(ctx context.Context, configPath, dataDir, databaseURL string) (*Store, int, error) {
	cfg := config.Defaults()
	if configPath != "" {
		var err error
		if cfg, err = config.Load(configPath); err != nil {
			return nil, 2, err
		}
	}
	if dataDir != "" {
		cfg.DataDir = dataDir
	}
	if databaseURL != "" {
		cfg.DatabaseURL = databaseURL
	}
	if err := cfg.Validate(); err != nil {
		return nil, 2, fmt.Errorf("invalid configuration:\n%w", err)
	}
	st, err := keys.OpenStore(ctx, keyconfig.Store(&cfg))
	if err != nil {
		return nil, 1, err
	}
	plans, err := keys.PlansInForce(ctx, st, keyconfig.Plans(&cfg))
	if err != nil {
		st.Close()
		return nil, 1, err
	}
	return &Store{Config: cfg, Keys: st, Plans: plans}, 0, nil
}
