package accounts

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/netip"
	"sort"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
)

// Signup is who may make an account.
type Signup string

// The signup policies.
const (
	// SignupOpen: anyone who reaches the dashboard.
	SignupOpen Signup = "open"
	// SignupInvite: only with a one-time invitation link from the operator.
	SignupInvite Signup = "invite"
	// SignupOff: nobody; the operator's invitations still work.
	SignupOff Signup = "off"
)

// Options are the rules of accounts (config accounts:, docs/dashboard.md).
type Options struct {
	Signup Signup
	// SignupPlan is a new account's plan; UpgradePlan the middle tier an
	// account may move itself to; CustomPlan the top tier it may ask for.
	SignupPlan, UpgradePlan, CustomPlan string
	// MaxKeys caps the keys (not revoked) of an account, per plan; a plan
	// not listed has DefaultMaxKeys.
	MaxKeys        map[string]int
	DefaultMaxKeys int
	// SessionIdle ends a session unused for this long; SessionMax ends
	// every session this long after sign-in.
	SessionIdle, SessionMax time.Duration
	// LinkTTL is how long an operator's invitation link works.
	LinkTTL time.Duration
	// ResetTTL is how long a mailed password reset or sign-up link works
	// (0: DefaultResetLinkTTL).
	ResetTTL time.Duration
	// BaseURL starts the links that are mailed or printed
	// (http://host:port, no trailing slash).
	BaseURL string
	// Mailer sends invitations and resets; nil means no mail server.
	Mailer Mailer
	// WebhookClient posts alert webhooks; nil means one that connects only
	// to public addresses (and WebhookPrivateTargets) and follows no
	// redirect.
	WebhookClient *http.Client
	// WebhookPrivateTargets are the non-public networks webhooks may
	// still be posted to (config accounts.webhook_private_targets).
	WebhookPrivateTargets []netip.Prefix
	// WebhookCAFile names a PEM file of certificates trusted, besides the
	// system's, for the receivers' HTTPS (accounts.webhook_ca_file).
	WebhookCAFile string
}

// Service is the accounts of one key store. Its state is all in the store:
// every replica's Service sees the same accounts, sessions and limits.
type Service struct {
	db   *keys.SQL
	keys *keys.Manager
	opts Options
	// Now is the clock (tests move it); nil means time.Now.
	Now func() time.Time
	// jobs bounds the mails sent in the background (mailjobs.go).
	jobs chan struct{}
}

// New returns the accounts kept in km's store.
func New(km *keys.Manager, opts Options) (*Service, error) {
	db, err := keys.SQLOf(km.Store)
	if err != nil {
		return nil, fmt.Errorf("accounts: %w", err)
	}
	if opts.ResetTTL <= 0 {
		opts.ResetTTL = DefaultResetLinkTTL
	}
	if opts.WebhookClient == nil {
		c, err := webhookClient(opts.WebhookPrivateTargets, opts.WebhookCAFile)
		if err != nil {
			return nil, fmt.Errorf("accounts: %w", err)
		}
		opts.WebhookClient = c
	}
	return &Service{db: db, keys: km, opts: opts, jobs: make(chan struct{}, maxMailJobs)}, nil
}

// Options returns the rules in force.
func (s *Service) Options() Options { return s.opts }

// Plans are the plans keys may have now, by name.
func (s *Service) Plans() map[string]keys.Plan { return s.keys.CurrentPlans() }

// PlanNames are the plans' names, the lower tiers first (by daily credits,
// unlimited last).
func (s *Service) PlanNames() []string {
	plans := s.Plans()
	names := make([]string, 0, len(plans))
	for n := range plans {
		names = append(names, n)
	}
	rank := func(p keys.Plan) float64 {
		if p.DailyCredits == 0 {
			return 1e30
		}
		return float64(p.DailyCredits)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank(plans[names[i]]), rank(plans[names[j]])
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	return names
}

// MaxKeys is how many keys an account on plan may have.
func (s *Service) MaxKeys(plan string) int {
	if n, ok := s.opts.MaxKeys[plan]; ok && n > 0 {
		return n
	}
	return s.opts.DefaultMaxKeys
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// newToken returns a random 256-bit token (base64url) and its stored form
// (the SHA-256, hex): stores never hold a token itself.
func newToken() (token, hash string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", fmt.Errorf("random token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, tokenHash(token), nil
}

func tokenHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// newID returns a random id with a prefix ("acct_", "req_").
func newID(prefix string) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random id: %w", err)
	}
	return prefix + hex.EncodeToString(b[:]), nil
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) *time.Time {
	if v <= 0 {
		return nil
	}
	t := time.UnixMilli(v).UTC()
	return &t
}
