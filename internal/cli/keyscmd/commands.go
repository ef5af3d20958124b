package keyscmd

import (
	"context"
	"flag"
	"fmt"

	"github.com/nodegate/nodegate/internal/keys"
)

// command is one `nodegate keys` command.
type command struct {
	nargs    int
	settings bool // takes the settings flags
	register func(fs *flag.FlagSet, inv *invocation)
	run      func(ctx context.Context, inv *invocation, m *keys.Manager) error
}

var commands = map[string]command{
	"create": {settings: true, register: func(fs *flag.FlagSet, inv *invocation) {
		fs.BoolVar(&inv.secret, "secret", false, "make a secret for the key (printed once; same as --new-secret)")
	}, run: create},
	"list": {register: func(fs *flag.FlagSet, inv *invocation) {
		fs.BoolVar(&inv.listAll, "all", false, "include revoked keys")
	}, run: list},
	"show":   {nargs: 1, run: show},
	"update": {nargs: 1, settings: true, run: update},
	"revoke": {nargs: 1, run: revoke},
	"usage": {nargs: 1, register: func(fs *flag.FlagSet, inv *invocation) {
		fs.IntVar(&inv.days, "days", 7, "how many UTC `days` back, today included")
	}, run: showUsage},
}

func create(ctx context.Context, inv *invocation, m *keys.Manager) error {
	p, err := inv.settings.patch(inv.set)
	if err != nil {
		return err
	}
	if err := inv.checkNetworks(p.Networks); err != nil {
		return err
	}
	c := keys.CreateParams{Name: inv.settings.name, Plan: inv.settings.plan, Secret: inv.secret, Settings: p}
	if p.Networks != nil {
		c.Networks = *p.Networks
	}
	created, err := m.Create(ctx, c)
	if err != nil {
		return err
	}
	if inv.common.JSON {
		return printJSON(inv.stdout, created)
	}
	fmt.Fprintf(inv.stdout, "key:     %s\n", created.Key)
	if created.Secret != "" {
		fmt.Fprintf(inv.stdout, "secret:  %s\n", created.Secret)
	}
	printRecord(inv.stdout, &created.Record)
	fmt.Fprintln(inv.stdout, "Store the key now: nodegate keeps only its hash and cannot show it again.")
	return nil
}

func list(ctx context.Context, inv *invocation, m *keys.Manager) error {
	recs, err := m.List(ctx)
	if err != nil {
		return err
	}
	shown := make([]keys.Record, 0, len(recs))
	for _, r := range recs {
		if inv.listAll || r.Status == keys.StatusActive {
			shown = append(shown, r)
		}
	}
	if inv.common.JSON {
		return printJSON(inv.stdout, shown)
	}
	printTable(inv.stdout, shown)
	return nil
}

func show(ctx context.Context, inv *invocation, m *keys.Manager) error {
	r, err := m.Show(ctx, inv.args[0])
	if err != nil {
		return err
	}
	if inv.common.JSON {
		return printJSON(inv.stdout, r)
	}
	printRecord(inv.stdout, &r)
	return nil
}

func update(ctx context.Context, inv *invocation, m *keys.Manager) error {
	p, err := inv.settings.patch(inv.set)
	if err != nil {
		return err
	}
	if err := inv.checkNetworks(p.Networks); err != nil {
		return err
	}
	u, err := m.Update(ctx, inv.args[0], p)
	if err != nil {
		return err
	}
	if inv.common.JSON {
		return printJSON(inv.stdout, u)
	}
	if u.Secret != "" {
		fmt.Fprintf(inv.stdout, "secret:  %s  (shown once)\n", u.Secret)
	}
	printRecord(inv.stdout, &u.Record)
	return nil
}

func revoke(ctx context.Context, inv *invocation, m *keys.Manager) error {
	r, err := m.Revoke(ctx, inv.args[0])
	if err != nil {
		return err
	}
	if inv.common.JSON {
		return printJSON(inv.stdout, r)
	}
	fmt.Fprintf(inv.stdout, "revoked %s (%s); running servers refuse it within their key_refresh interval\n", r.ID, r.Name)
	return nil
}

func showUsage(ctx context.Context, inv *invocation, m *keys.Manager) error {
	rows, err := m.Usage(ctx, inv.args[0], inv.days)
	if err != nil {
		return err
	}
	if inv.common.JSON {
		return printJSON(inv.stdout, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(inv.stdout, "no usage recorded for %s in the last %d day(s)\n", inv.args[0], inv.days)
		return nil
	}
	printUsage(inv.stdout, rows)
	return nil
}
