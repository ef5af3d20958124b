package keyscmd

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
)

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printRecord(w io.Writer, r *keys.Record) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, v) }
	row("id", r.ID)
	row("name", r.Name)
	row("plan", r.Plan)
	row("status", string(r.Status))
	row("networks", listOr(r.Networks, "all"))
	row("created", r.CreatedAt.Format(time.RFC3339))
	row("last used", lastUsed(r))
	s := r.Security
	row("secret", secretText(&s))
	row("methods", listOr(s.Methods, "all"))
	row("contracts", listOr(s.Contracts, "all"))
	row("origins", listOr(s.Origins, "all"))
	row("user agents", listOr(s.UserAgents, "all"))
	row("addresses", listOr(s.IPs, "all"))
	row("jwt", jwtText(&s))
	row("rate", ownLimit(strconv.FormatFloat(r.RatePerSecond, 'f', -1, 64)+" credits/s", r.RatePerSecond == 0))
	row("daily credits", ownLimit(strconv.FormatInt(r.DailyCredits, 10), r.DailyCredits == 0))
	row("method rates", methodRatesText(r.MethodRates))
	tw.Flush()
}

// jwtText shows a key's JWT public keys by name and algorithm.
func jwtText(s *keys.Security) string {
	if len(s.JWTKeys) == 0 {
		if s.JWTRequired {
			return "required (no public key: every request refused)"
		}
		return "none"
	}
	parts := make([]string, 0, len(s.JWTKeys))
	for _, k := range s.JWTKeys {
		parts = append(parts, k.Name+" ("+k.Alg+")")
	}
	out := strings.Join(parts, ", ")
	if s.JWTRequired {
		return "required: " + out
	}
	return "optional: " + out
}

// methodRatesText shows a key's own method rates, sorted by method.
func methodRatesText(rates map[string]float64) string {
	if len(rates) == 0 {
		return "none"
	}
	names := make([]string, 0, len(rates))
	for m := range rates {
		names = append(names, m)
	}
	sort.Strings(names)
	for i, m := range names {
		names[i] = m + " " + strconv.FormatFloat(rates[m], 'f', -1, 64) + "/s"
	}
	return strings.Join(names, ", ")
}

// ownLimit shows a key's own limit, or that the plan's applies.
func ownLimit(v string, planS bool) string {
	if planS {
		return "the plan's"
	}
	return v + " (or the plan's, if lower)"
}

// printUsage prints usage records as a table, with a total line.
func printUsage(w io.Writer, rows []keys.UsageRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "DAY\tNETWORK\tMETHOD\tREQUESTS\tCREDITS\tRATE LIMITED\tDAILY\tINVALID\tFORBIDDEN\tLIMIT\tUPSTREAM\tNODE\t")
	var total keys.UsageRow
	for _, r := range rows {
		usageLine(tw, r.Day, r.Network, r.Method, r)
		total.Requests += r.Requests
		total.Credits += r.Credits
		total.Errors.Add(r.Errors)
	}
	usageLine(tw, "total", "", "", total)
	tw.Flush()
}

func usageLine(w io.Writer, day, network, method string, r keys.UsageRow) {
	e := r.Errors
	fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", day, network, method, r.Requests, r.Credits,
		e.RateLimited, e.Daily, e.Invalid, e.Forbidden, e.Limit, e.Upstream, e.Node)
}

func printTable(w io.Writer, recs []keys.Record) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPLAN\tSTATUS\tCREATED\tLAST USED")
	for i := range recs {
		r := &recs[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Name, r.Plan, r.Status, r.CreatedAt.Format(time.RFC3339), lastUsed(r))
	}
	tw.Flush()
}

func lastUsed(r *keys.Record) string {
	if r.LastUsedAt == nil {
		return "never"
	}
	return r.LastUsedAt.Format(time.RFC3339)
}

func secretText(s *keys.Security) string {
	if !s.HasSecret {
		return "none"
	}
	parts := []string{"set"}
	if s.SecretRequired {
		parts = append(parts, "required")
	} else {
		parts = append(parts, "optional")
	}
	if s.SecretBypassesAllowlists {
		parts = append(parts, "bypasses allowlists")
	}
	return strings.Join(parts, ", ")
}

func listOr(l []string, empty string) string {
	if len(l) == 0 {
		return empty
	}
	return strings.Join(l, ", ")
}
