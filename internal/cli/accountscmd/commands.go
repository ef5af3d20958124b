package accountscmd

import (
	"context"
	"fmt"
	"time"

	"github.com/nodegate/nodegate/internal/accounts"
)

func list(ctx context.Context, inv *invocation, a *accounts.Service) error {
	all, err := a.List(ctx)
	if err != nil {
		return err
	}
	if inv.common.JSON {
		return inv.printJSON(map[string]any{"accounts": all})
	}
	tw := inv.table()
	fmt.Fprintln(tw, "ID\tEMAIL\tPLAN\tSTATUS\tCREATED\tLAST SIGN-IN")
	for _, x := range all {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", x.ID, x.Email, x.Plan, x.Status, x.CreatedAt.Format(time.RFC3339), when(x.LastLoginAt))
	}
	return tw.Flush()
}

func when(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return t.Format(time.RFC3339)
}

func show(ctx context.Context, inv *invocation, a *accounts.Service) error {
	x, err := a.Find(ctx, inv.args[0])
	if err != nil {
		return err
	}
	ks, err := a.Keys(ctx, x.ID)
	if err != nil {
		return err
	}
	reqs, err := a.AccountRequests(ctx, x.ID)
	if err != nil {
		return err
	}
	if inv.common.JSON {
		return inv.printJSON(map[string]any{"account": x, "keys": ks, "requests": reqs})
	}
	fmt.Fprintf(inv.stdout, "id:          %s\nemail:       %s\nplan:        %s\nstatus:      %s\ncreated:     %s\nlast sign-in: %s\n",
		x.ID, x.Email, x.Plan, x.Status, x.CreatedAt.Format(time.RFC3339), when(x.LastLoginAt))
	fmt.Fprintf(inv.stdout, "keys:        %d\n", len(ks))
	tw := inv.table()
	for _, k := range ks {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", k.ID, k.Name, k.Plan, k.Status)
	}
	tw.Flush()
	for _, r := range reqs {
		fmt.Fprintf(inv.stdout, "request:     %s %s %s %s\n", r.ID, r.Plan, r.Status, r.CreatedAt.Format(time.RFC3339))
	}
	return nil
}

func setStatus(st accounts.Status) func(context.Context, *invocation, *accounts.Service) error {
	return func(ctx context.Context, inv *invocation, a *accounts.Service) error {
		x, err := a.Find(ctx, inv.args[0])
		if err != nil {
			return err
		}
		if x, err = a.SetStatus(ctx, x.ID, st); err != nil {
			return err
		}
		if inv.common.JSON {
			return inv.printJSON(x)
		}
		fmt.Fprintf(inv.stdout, "account %s (%s) is %s\n", x.ID, x.Email, x.Status)
		return nil
	}
}

func setPlan(ctx context.Context, inv *invocation, a *accounts.Service) error {
	x, err := a.Find(ctx, inv.args[0])
	if err != nil {
		return err
	}
	if x, err = a.SetPlan(ctx, x.ID, inv.args[1]); err != nil {
		return err
	}
	if inv.common.JSON {
		return inv.printJSON(x)
	}
	fmt.Fprintf(inv.stdout, "account %s (%s) and its keys are on plan %s\n", x.ID, x.Email, x.Plan)
	return nil
}

func invite(ctx context.Context, inv *invocation, a *accounts.Service) error {
	l, err := a.Invite(ctx, inv.args[0])
	return printLink(inv, "invitation", l, err)
}

// printLink prints a one-time link the service made (what names it): a
// link made but not mailed is printed with the mail's error on stderr;
// no link at all is the error.
func printLink(inv *invocation, what string, l accounts.Link, err error) error {
	if err != nil && l.URL == "" {
		return err
	}
	if err != nil {
		fmt.Fprintln(inv.stderr, "nodegate accounts:", err)
	}
	if inv.common.JSON {
		return inv.printJSON(l)
	}
	fmt.Fprintf(inv.stdout, "%s for %s (works once, until %s", what, l.Email, l.Until.Format(time.RFC3339))
	if l.Mailed {
		fmt.Fprint(inv.stdout, "; mailed")
	}
	fmt.Fprintf(inv.stdout, "):\n%s\n", l.URL)
	return nil
}

func unlock(ctx context.Context, inv *invocation, a *accounts.Service) error {
	x, err := a.Find(ctx, inv.args[0])
	if err != nil {
		return err
	}
	if x, err = a.Unlock(ctx, x.ID, "cli"); err != nil {
		return err
	}
	if inv.common.JSON {
		return inv.printJSON(x)
	}
	fmt.Fprintf(inv.stdout, "account %s (%s): sign-in limits lifted\n", x.ID, x.Email)
	return nil
}

func resetPassword(ctx context.Context, inv *invocation, a *accounts.Service) error {
	x, err := a.Find(ctx, inv.args[0])
	if err != nil {
		return err
	}
	l, err := a.ResetLink(ctx, x.ID, "cli")
	return printLink(inv, "password reset link", l, err)
}

func requests(ctx context.Context, inv *invocation, a *accounts.Service) error {
	status := accounts.RequestOpen
	if inv.all {
		status = ""
	}
	reqs, err := a.Requests(ctx, status)
	if err != nil {
		return err
	}
	if inv.common.JSON {
		return inv.printJSON(map[string]any{"requests": reqs})
	}
	tw := inv.table()
	fmt.Fprintln(tw, "ID\tACCOUNT\tEMAIL\tPLAN\tSTATUS\tSENT\tMESSAGE")
	for _, r := range reqs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%q\n", r.ID, r.AccountID, r.Email, r.Plan, r.Status, r.CreatedAt.Format(time.RFC3339), r.Message)
	}
	return tw.Flush()
}

func decide(grant bool) func(context.Context, *invocation, *accounts.Service) error {
	return func(ctx context.Context, inv *invocation, a *accounts.Service) error {
		r, err := a.Decide(ctx, inv.args[0], grant)
		if err != nil {
			return err
		}
		if inv.common.JSON {
			return inv.printJSON(r)
		}
		fmt.Fprintf(inv.stdout, "request %s of %s is %s\n", r.ID, r.Email, r.Status)
		return nil
	}
}
