package keyscmd

import (
	"flag"
	"strconv"
	"strings"

	"github.com/nodegate/nodegate/internal/keys"
)

// settingsFlags are the flags shared by create and update.
type settingsFlags struct {
	name, plan                                 string
	networks, methods, contracts, origins, uas listFlag
	newSecret, clearSecret                     bool
	requireSecret, secretBypass                optBool
	rate                                       float64
	daily                                      int64
	ips                                        listFlag
	requireJWT                                 optBool
	jwtKeys, methodRates                       pairFlag
}

func (s *settingsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.name, "name", "", "key `name` (for people; not secret)")
	fs.StringVar(&s.plan, "plan", "", "`plan` name (core, developer, team, enterprise or a configured one)")
	s.networks.split = true
	s.methods.split = true
	s.contracts.split = true
	s.origins.split = true
	fs.Var(&s.networks, "network", "allowed `network` (repeatable); none means all")
	fs.Var(&s.methods, "method", "allowed `method` (repeatable)")
	fs.Var(&s.contracts, "contract", "allowed contract `address` (repeatable)")
	fs.Var(&s.origins, "origin", "allowed `origin` (repeatable)")
	fs.Var(&s.uas, "user-agent", "allowed User-Agent `substring` (repeatable)")
	fs.BoolVar(&s.newSecret, "new-secret", false, "make a new secret, printed once")
	fs.BoolVar(&s.clearSecret, "clear-secret", false, "remove the secret")
	fs.Var(&s.requireSecret, "require-secret", "requests must carry the secret (true|false)")
	fs.Var(&s.secretBypass, "secret-bypass", "a correct secret skips the allowlists (true|false)")
	fs.Float64Var(&s.rate, "rate", 0, "the key's own rate limit in `credits` per second (lower than the plan's; 0: the plan's)")
	fs.Int64Var(&s.daily, "daily-credits", 0, "the key's own daily credit budget (lower than the plan's; 0: the plan's)")
	s.ips.split = true
	fs.Var(&s.ips, "allow-ip", "allowed client `address or CIDR` (repeatable, comma-separated; \"\" clears)")
	fs.Var(&s.requireJWT, "require-jwt", "requests must carry a JWT signed by one of the key's public keys (true|false)")
	fs.Var(&s.jwtKeys, "jwt-key", "`NAME=FILE.pem`: add or replace a JWT public key (RS256 or ES256); NAME= removes it (repeatable)")
	fs.Var(&s.methodRates, "method-rate", "`METHOD=CALLS`: the key's own rate of one method in calls per second; METHOD=0 removes it (repeatable)")
}

// patch is the update the flags that were given describe; it reads the
// PEM files --jwt-key names.
func (s *settingsFlags) patch(set map[string]bool) (keys.Patch, error) {
	var p keys.Patch
	if set["name"] {
		p.Name = &s.name
	}
	if set["plan"] {
		p.Plan = &s.plan
	}
	p.Networks = s.networks.ptr()
	p.AllowedMethods = s.methods.ptr()
	p.AllowedContracts = s.contracts.ptr()
	p.AllowedOrigins = s.origins.ptr()
	p.AllowedUserAgents = s.uas.ptr()
	p.NewSecret, p.ClearSecret = s.newSecret, s.clearSecret
	p.SecretRequired = s.requireSecret.ptr()
	p.SecretBypassesAllowlists = s.secretBypass.ptr()
	if set["rate"] {
		p.RatePerSecond = &s.rate
	}
	if set["daily-credits"] {
		p.DailyCredits = &s.daily
	}
	p.AllowedIPs = s.ips.ptr()
	p.JWTRequired = s.requireJWT.ptr()
	var err error
	if p.JWTKeys, err = s.jwtKeys.pems(); err != nil {
		return p, err
	}
	p.MethodRates, err = s.methodRates.rates()
	return p, err
}

// listFlag is a repeatable list flag: given at all, it replaces the list;
// a single empty value clears it. split also cuts values at commas.
type listFlag struct {
	vals  []string
	given bool
	split bool
}

func (l *listFlag) String() string { return strings.Join(l.vals, ",") }

func (l *listFlag) Set(v string) error {
	l.given = true
	if v == "" {
		return nil
	}
	if !l.split {
		l.vals = append(l.vals, v)
		return nil
	}
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			l.vals = append(l.vals, part)
		}
	}
	return nil
}

func (l *listFlag) ptr() *[]string {
	if !l.given {
		return nil
	}
	v := append([]string{}, l.vals...)
	return &v
}

// optBool is a bool flag that knows whether it was given.
type optBool struct {
	v, given bool
}

func (b *optBool) String() string   { return strconv.FormatBool(b.v) }
func (b *optBool) IsBoolFlag() bool { return true }

func (b *optBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	b.v, b.given = v, true
	return nil
}

func (b *optBool) ptr() *bool {
	if !b.given {
		return nil
	}
	v := b.v
	return &v
}
