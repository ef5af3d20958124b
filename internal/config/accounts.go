package config

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/nodegate/nodegate/internal/ident"
)

// Accounts configures customer accounts and the customer dashboard
// (/dashboard/ on the client listener; docs/dashboard.md).
type Accounts struct {
	// Signup is who may make an account: open, invite or off. Empty means
	// open when the client listener is on a loopback address (the embedded
	// default), invite otherwise.
	Signup string `yaml:"signup"`
	// SignupPlan is a new account's plan (default core); UpgradePlan the
	// middle tier an account may move itself to (default team); CustomPlan
	// the top tier an account may ask for (default enterprise).
	SignupPlan  string `yaml:"signup_plan"`
	UpgradePlan string `yaml:"upgrade_plan"`
	CustomPlan  string `yaml:"custom_plan"`
	// MaxKeys caps an account's keys (not revoked) per plan; a plan not
	// listed gets 10.
	MaxKeys map[string]int `yaml:"max_keys"`
	// SessionIdle ends a session unused this long (default 24h);
	// SessionMax ends any session this long after sign-in (default 720h).
	SessionIdle time.Duration `yaml:"session_idle"`
	SessionMax  time.Duration `yaml:"session_max"`
	// LinkTTL is how long an operator's invitation link works (default
	// 72h).
	LinkTTL time.Duration `yaml:"link_ttl"`
	// ResetTTL is how long a mailed password reset link or sign-up link
	// works (default 1h).
	ResetTTL time.Duration `yaml:"reset_ttl"`
	// PublicURL is the service's address as customers reach it
	// (https://rpc.example.com), for the links in mail and the CLI's
	// output. Empty: http(s)://<listen>.
	PublicURL string `yaml:"public_url"`
	// PageRate caps the dashboard requests per minute of one signed-in
	// account, and of one client address when signed out (default 300).
	PageRate int `yaml:"page_rate"`
	// SMTP mails invitations and password resets; without it nothing is
	// mailed (invitation links are shown to the operator instead).
	SMTP SMTP `yaml:"smtp"`
	// WebhookPrivateTargets are the addresses and CIDRs alert webhooks may
	// be posted to although they are not public (loopback, private,
	// link-local); empty (the default): public addresses only.
	WebhookPrivateTargets []string `yaml:"webhook_private_targets"`
	// WebhookCAFile is a PEM file of certificates trusted, besides the
	// system's, for the webhook receivers' HTTPS (an internal CA).
	WebhookCAFile string `yaml:"webhook_ca_file"`
}

// SMTP is a mail server.
type SMTP struct {
	// Addr is host:port (port 587 with STARTTLS, or 25).
	Addr string `yaml:"addr"`
	// From is the sender address.
	From     string `yaml:"from"`
	Username string `yaml:"username"`
	Password string `yaml:"password"`
}

// The defaults of accounts:.
const (
	DefaultSignupPlan  = "core"
	DefaultUpgradePlan = "team"
	DefaultCustomPlan  = "enterprise"
	DefaultMaxKeys     = 10
	DefaultSessionIdle = 24 * time.Hour
	DefaultSessionMax  = 720 * time.Hour
	DefaultLinkTTL     = 72 * time.Hour
	DefaultResetTTL    = time.Hour
	DefaultPageRate    = 300
)

// EffectiveAccounts is accounts: with every default filled in, the signup
// policy decided from the client listener when it is not set.
func (c *Config) EffectiveAccounts() Accounts {
	a := c.Accounts
	if a.Signup == "" {
		a.Signup = "invite"
		if host, _, err := net.SplitHostPort(c.Listen); err == nil && isLoopback(host) {
			a.Signup = "open"
		}
	}
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&a.SignupPlan, DefaultSignupPlan)
	def(&a.UpgradePlan, DefaultUpgradePlan)
	def(&a.CustomPlan, DefaultCustomPlan)
	for _, d := range []struct {
		p *time.Duration
		v time.Duration
	}{{&a.SessionIdle, DefaultSessionIdle}, {&a.SessionMax, DefaultSessionMax}, {&a.LinkTTL, DefaultLinkTTL}, {&a.ResetTTL, DefaultResetTTL}} {
		if *d.p == 0 {
			*d.p = d.v
		}
	}
	if a.PageRate == 0 {
		a.PageRate = DefaultPageRate
	}
	a.PublicURL = strings.TrimSuffix(a.PublicURL, "/")
	if a.PublicURL == "" {
		scheme := "http"
		if c.TLS.Enabled() {
			scheme = "https"
		}
		a.PublicURL = scheme + "://" + c.Listen
	}
	return a
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (c *Config) validateAccounts(bad func(path, format string, a ...any)) {
	a := c.Accounts
	switch a.Signup {
	case "", "open", "invite", "off":
	default:
		bad("accounts.signup", "want open, invite or off, got %q", a.Signup)
	}
	// Plans named here must exist; the defaults may not (a configuration
	// without core or enterprise): the dashboard then says which plan is
	// missing when a customer needs it.
	for path, plan := range map[string]string{"accounts.signup_plan": a.SignupPlan, "accounts.upgrade_plan": a.UpgradePlan, "accounts.custom_plan": a.CustomPlan} {
		if _, ok := c.Plans[plan]; plan != "" && !ok {
			bad(path, "plan %q is not configured (plans:)", plan)
		}
	}
	for plan, n := range a.MaxKeys {
		if _, ok := c.Plans[plan]; !ok {
			bad("accounts.max_keys."+plan, "plan %q is not configured (plans:)", plan)
		}
		if n < 1 || n > 10000 {
			bad("accounts.max_keys."+plan, "want 1 to 10000, got %d", n)
		}
	}
	for path, d := range map[string]time.Duration{"accounts.session_idle": a.SessionIdle, "accounts.session_max": a.SessionMax, "accounts.link_ttl": a.LinkTTL, "accounts.reset_ttl": a.ResetTTL} {
		if d < 0 || (d > 0 && d < time.Minute) {
			bad(path, "want at least 1m (0 for the default), got %s", d)
		}
	}
	if a.PageRate < 0 {
		bad("accounts.page_rate", "must not be negative (0 means %d)", DefaultPageRate)
	}
	if a.PublicURL != "" {
		if u, err := url.Parse(a.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			bad("accounts.public_url", "want http(s)://host[:port], got %q", a.PublicURL)
		}
	}
	if a.SMTP.Addr != "" {
		if _, _, err := net.SplitHostPort(a.SMTP.Addr); err != nil {
			bad("accounts.smtp.addr", "want host:port, got %q", a.SMTP.Addr)
		}
		if a.SMTP.From == "" {
			bad("accounts.smtp.from", "required with accounts.smtp.addr")
		}
	}
	if strings.ContainsAny(a.SMTP.From, "\r\n") {
		bad("accounts.smtp.from", "no line breaks")
	}
	c.validateWebhookTargets(bad)
}

// maxWebhookPrivateTargets bounds accounts.webhook_private_targets.
const maxWebhookPrivateTargets = 100

// validateWebhookTargets checks accounts.webhook_private_targets (the CA
// file is read, and checked, when the accounts start).
func (c *Config) validateWebhookTargets(bad func(path, format string, a ...any)) {
	ts := c.Accounts.WebhookPrivateTargets
	if len(ts) > maxWebhookPrivateTargets {
		bad("accounts.webhook_private_targets", "at most %d entries, got %d", maxWebhookPrivateTargets, len(ts))
	}
	for i, t := range ts {
		if _, err := ident.ParsePrefix(t); err != nil {
			bad(fmt.Sprintf("accounts.webhook_private_targets[%d]", i), "%q: %v", t, err)
		}
	}
}
