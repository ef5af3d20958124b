package accounts

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
)

// Retention of the alerts' rows.
const (
	alertClaimsKept = 48 * time.Hour
	deliveriesKept  = 30 * 24 * time.Hour
)

// alertUse is one account's credits today against its plan's budget.
type alertUse struct {
	account, plan, email string
	used                 int64
}

// Alert is the body of an alert's webhook POST (and what its mail says).
type Alert struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Account   string `json:"account"`
	Day       string `json:"day"`
	Threshold int    `json:"threshold"`
	Used      int64  `json:"credits_used"`
	Budget    int64  `json:"credits_budget"`
	At        string `json:"at"`
}

// CheckAlerts finds the accounts whose credits today crossed a threshold
// (AlertThresholds and their own) of their plan's daily credits and
// queues each crossing's mail and webhook POST. Any replica may run it at
// any time: a crossing is claimed by inserting its row in
// nodegate_alerts_sent (account, day, threshold), which one replica only
// succeeds at, so an alert goes out once per threshold per day across a
// fleet. It returns how many alerts this call claimed.
func (s *Service) CheckAlerts(ctx context.Context) (int, error) {
	now := s.now()
	day := keys.UsageDay(now)
	rows, err := s.db.DB.QueryContext(ctx, s.db.Q(`SELECT k.account_id, a.plan, a.email, SUM(u.credits) FROM nodegate_usage u
		JOIN nodegate_keys k ON k.id = u.key_id JOIN nodegate_accounts a ON a.id = k.account_id
		WHERE u.day = ? AND k.account_id <> '' GROUP BY k.account_id, a.plan, a.email`), day)
	if err != nil {
		return 0, fmt.Errorf("alerts: read usage: %w", err)
	}
	var uses []alertUse
	for rows.Next() {
		var u alertUse
		if err := rows.Scan(&u.account, &u.plan, &u.email, &u.used); err != nil {
			rows.Close()
			return 0, fmt.Errorf("alerts: read usage: %w", err)
		}
		uses = append(uses, u)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("alerts: read usage: %w", err)
	}
	plans := s.Plans()
	claimed := 0
	for _, u := range uses {
		budget := plans[u.plan].DailyCredits
		if budget <= 0 {
			continue // no daily budget: nothing to alert on
		}
		n, err := s.checkAccount(ctx, u, budget, day, now)
		if err != nil {
			return claimed, err
		}
		claimed += n
	}
	if _, err := s.db.DB.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_alerts_sent WHERE created_at < ?"), ms(now.Add(-alertClaimsKept))); err != nil {
		return claimed, fmt.Errorf("alerts: purge claims: %w", err)
	}
	if _, err := s.db.DB.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_alert_deliveries WHERE created_at < ?"), ms(now.Add(-deliveriesKept))); err != nil {
		return claimed, fmt.Errorf("alerts: purge deliveries: %w", err)
	}
	return claimed, nil
}

// crossed lists the thresholds (AlertThresholds and custom, when set)
// that used of budget reached, lowest first, each once.
func crossed(used, budget int64, custom int) []int {
	seen := map[int]bool{}
	var out []int
	for _, t := range append(append([]int{}, AlertThresholds...), custom) {
		if t > 0 && !seen[t] && used*100 >= int64(t)*budget {
			seen[t] = true
			out = append(out, t)
		}
	}
	sort.Ints(out)
	return out
}

// checkAccount claims and queues the account's crossings not yet sent.
func (s *Service) checkAccount(ctx context.Context, u alertUse, budget int64, day string, now time.Time) (int, error) {
	st, _, err := s.alertSettings(ctx, s.db.DB, u.account)
	if err != nil {
		return 0, err
	}
	ts := crossed(u.used, budget, st.CustomPercent)
	if len(ts) == 0 {
		return 0, nil
	}
	sent := map[int]bool{}
	rows, err := s.db.DB.QueryContext(ctx, s.db.Q("SELECT threshold FROM nodegate_alerts_sent WHERE account_id = ? AND day = ?"), u.account, day)
	if err != nil {
		return 0, fmt.Errorf("alerts: read claims: %w", err)
	}
	for rows.Next() {
		var t int
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return 0, fmt.Errorf("alerts: read claims: %w", err)
		}
		sent[t] = true
	}
	rows.Close()
	n := 0
	for _, t := range ts {
		if sent[t] {
			continue
		}
		ok, err := s.claimAlert(ctx, u, st, budget, day, t, now)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// claimAlert inserts the crossing's claim and, when this call made it,
// its deliveries, in one transaction.
func (s *Service) claimAlert(ctx context.Context, u alertUse, st AlertSettings, budget int64, day string, t int, now time.Time) (bool, error) {
	claimed := false
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.db.Q("INSERT INTO nodegate_alerts_sent (account_id, day, threshold, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING"),
			u.account, day, t, ms(now))
		if err != nil {
			return fmt.Errorf("alerts: claim: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil // another replica (or call) has it
		}
		claimed = true
		var targets [][2]string
		if st.Mail && s.opts.Mailer != nil {
			targets = append(targets, [2]string{"mail", u.email})
		}
		if st.WebhookURL != "" {
			targets = append(targets, [2]string{"webhook", st.WebhookURL})
		}
		for _, tg := range targets {
			id, err := newID("dlv_")
			if err != nil {
				return err
			}
			body, err := json.Marshal(Alert{ID: id, Type: "credits.threshold", Account: u.account, Day: day, Threshold: t,
				Used: u.used, Budget: budget, At: now.UTC().Format(time.RFC3339)})
			if err != nil {
				return fmt.Errorf("alerts: %w", err)
			}
			if _, err := tx.ExecContext(ctx, s.db.Q("INSERT INTO nodegate_alert_deliveries (id, account_id, kind, target, threshold, body, status, next_at, created_at)"+
				" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"), id, u.account, tg[0], tg[1], t, string(body), DeliveryPending, ms(now), ms(now)); err != nil {
				return fmt.Errorf("alerts: queue delivery: %w", err)
			}
		}
		return nil
	})
	if err == nil && claimed {
		audit(ctx, EventAlertClaimed, "account", u.account, "threshold", t, "day", day)
	}
	return claimed, err
}
