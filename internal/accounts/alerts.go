package accounts

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// AlertThresholds are the percents of the plan's daily credits at which
// an account is alerted, besides its own threshold.
var AlertThresholds = []int{75, 85, 100}

// maxWebhookURL bounds a webhook's URL.
const maxWebhookURL = 512

// AlertSettings are an account's alerts: its own threshold, mail, and
// the webhook.
type AlertSettings struct {
	// CustomPercent is a threshold of the account's own (1–100; 0: none).
	CustomPercent int `json:"custom_percent"`
	// Mail sends alerts to the owner's email (when a mail server is set).
	Mail bool `json:"mail"`
	// WebhookURL is where alerts are POSTed ("" for none).
	WebhookURL string `json:"webhook_url"`
	// HasSecret says a webhook secret exists (it is shown once, when made).
	HasSecret bool `json:"has_secret"`
}

// Alerts returns an account's alert settings (mail on, nothing else, for
// an account that set none).
func (s *Service) Alerts(ctx context.Context, account string) (AlertSettings, error) {
	st, _, err := s.alertSettings(ctx, s.db.DB, account)
	return st, err
}

type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *Service) alertSettings(ctx context.Context, q queryRower, account string) (AlertSettings, string, error) {
	var st AlertSettings
	var mail int64
	var secret string
	err := q.QueryRowContext(ctx, s.db.Q("SELECT custom_percent, mail, webhook_url, webhook_secret FROM nodegate_alert_settings WHERE account_id = ?"), account).
		Scan(&st.CustomPercent, &mail, &st.WebhookURL, &secret)
	if errors.Is(err, sql.ErrNoRows) {
		return AlertSettings{Mail: true}, "", nil
	} else if err != nil {
		return AlertSettings{}, "", fmt.Errorf("read alert settings: %w", err)
	}
	st.Mail, st.HasSecret = mail != 0, secret != ""
	return st, secret, nil
}

// AlertsPatch changes alert settings; nil fields stay.
type AlertsPatch struct {
	CustomPercent *int
	Mail          *bool
	WebhookURL    *string
	// NewSecret makes a new webhook secret (returned once).
	NewSecret bool
}

// SetAlerts changes an account's alert settings; it returns the new
// webhook secret when one was made (the only time it is shown).
func (s *Service) SetAlerts(ctx context.Context, account string, p AlertsPatch) (AlertSettings, string, error) {
	if p.CustomPercent != nil && (*p.CustomPercent < 0 || *p.CustomPercent > 100) {
		return AlertSettings{}, "", inputf("threshold: want a percent from 1 to 100, or 0 for none; got %d", *p.CustomPercent)
	}
	if p.WebhookURL != nil {
		u, err := checkWebhookURL(*p.WebhookURL)
		if err != nil {
			return AlertSettings{}, "", err
		}
		p.WebhookURL = &u
	}
	var fresh string
	var out AlertSettings
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		st, secret, err := s.alertSettings(ctx, tx, account)
		if err != nil {
			return err
		}
		if p.CustomPercent != nil {
			st.CustomPercent = *p.CustomPercent
		}
		if p.Mail != nil {
			st.Mail = *p.Mail
		}
		if p.WebhookURL != nil {
			st.WebhookURL = *p.WebhookURL
		}
		if p.NewSecret || (st.WebhookURL != "" && secret == "") {
			if fresh, err = newWebhookSecret(); err != nil {
				return err
			}
			secret = fresh
		}
		mail := int64(0)
		if st.Mail {
			mail = 1
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_alert_settings WHERE account_id = ?"), account); err != nil {
			return fmt.Errorf("store alert settings: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("INSERT INTO nodegate_alert_settings (account_id, custom_percent, mail, webhook_url, webhook_secret) VALUES (?, ?, ?, ?, ?)"),
			account, st.CustomPercent, mail, st.WebhookURL, secret); err != nil {
			return fmt.Errorf("store alert settings: %w", err)
		}
		st.HasSecret = secret != ""
		out = st
		return nil
	})
	if err != nil {
		return AlertSettings{}, "", err
	}
	s.recordChange(ctx, account, ChangeAlertsChanged, fmt.Sprintf("threshold %d%%, mail %v, webhook %q%s", out.CustomPercent, out.Mail, out.WebhookURL, map[bool]string{true: ", new secret"}[fresh != ""]))
	return out, fresh, nil
}

// checkWebhookURL accepts "" (no webhook) or an https URL with a host and
// no user info, of at most maxWebhookURL bytes.
func checkWebhookURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", nil
	}
	if len(raw) > maxWebhookURL {
		return "", inputf("webhook: at most %d bytes", maxWebhookURL)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Fragment != "" {
		return "", inputf("webhook: want https://host/path (no user info, no fragment), got %q", raw)
	}
	return u.String(), nil
}

func newWebhookSecret() (string, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("webhook secret: %w", err)
	}
	return "whsec_" + hex.EncodeToString(b[:]), nil
}

// Delivery is one mail or webhook POST of an alert, as the alerts page
// lists it.
type Delivery struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	Target    string    `json:"target"`
	Threshold int       `json:"threshold"`
	Status    string    `json:"status"`
	Attempts  int       `json:"attempts"`
	LastError string    `json:"last_error,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// DeliveriesShown is how many deliveries the alerts page lists.
const DeliveriesShown = 50

// Deliveries lists an account's newest alert deliveries.
func (s *Service) Deliveries(ctx context.Context, account string) ([]Delivery, error) {
	rows, err := s.db.DB.QueryContext(ctx, s.db.Q("SELECT id, kind, target, threshold, status, attempts, last_error, created_at FROM nodegate_alert_deliveries"+
		" WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?"), account, DeliveriesShown)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	defer rows.Close()
	out := []Delivery{}
	for rows.Next() {
		var d Delivery
		var created int64
		if err := rows.Scan(&d.ID, &d.Kind, &d.Target, &d.Threshold, &d.Status, &d.Attempts, &d.LastError, &created); err != nil {
			return nil, fmt.Errorf("read delivery: %w", err)
		}
		d.CreatedAt = time.UnixMilli(created).UTC()
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	return out, nil
}
