package accounts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// The states of a delivery.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

const (
	// MaxDeliveryAttempts bounds the tries of one delivery.
	MaxDeliveryAttempts = 6
	// deliveryBackoff is the wait after the first failed try; it doubles
	// after each (10 s, 20 s, 40 s, 80 s, 160 s).
	deliveryBackoff = 10 * time.Second
	// deliveryLease is how long a replica holds a delivery it is trying:
	// past it (the replica died), another may try.
	deliveryLease = time.Minute
	// webhookTimeout bounds one POST.
	webhookTimeout = 10 * time.Second
	// deliveriesPerRound bounds the deliveries one DeliverDue tries.
	deliveriesPerRound = 20
)

// backoff is the wait after attempt n (1-based) failed.
func backoff(n int) time.Duration { return deliveryBackoff << (n - 1) }

// dueDelivery is a delivery to try now.
type dueDelivery struct {
	id, account, kind, target, body string
	threshold, attempts             int
	nextAt                          int64
}

// DeliverDue tries the deliveries that are due: each is leased first (one
// replica tries it at a time), then sent with no lock held, then marked
// delivered, or retried after a backoff, or failed after
// MaxDeliveryAttempts. It returns how many it delivered.
func (s *Service) DeliverDue(ctx context.Context) (int, error) {
	now := s.now()
	rows, err := s.db.DB.QueryContext(ctx, s.db.Q("SELECT id, account_id, kind, target, body, threshold, attempts, next_at FROM nodegate_alert_deliveries"+
		" WHERE status = ? AND next_at <= ? ORDER BY next_at LIMIT ?"), DeliveryPending, ms(now), deliveriesPerRound)
	if err != nil {
		return 0, fmt.Errorf("alerts: read deliveries: %w", err)
	}
	var due []dueDelivery
	for rows.Next() {
		var d dueDelivery
		if err := rows.Scan(&d.id, &d.account, &d.kind, &d.target, &d.body, &d.threshold, &d.attempts, &d.nextAt); err != nil {
			rows.Close()
			return 0, fmt.Errorf("alerts: read delivery: %w", err)
		}
		due = append(due, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("alerts: read deliveries: %w", err)
	}
	delivered := 0
	for _, d := range due {
		res, err := s.db.DB.ExecContext(ctx, s.db.Q("UPDATE nodegate_alert_deliveries SET next_at = ? WHERE id = ? AND status = ? AND next_at = ?"),
			ms(now.Add(deliveryLease)), d.id, DeliveryPending, d.nextAt)
		if err != nil {
			return delivered, fmt.Errorf("alerts: lease delivery: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			continue // another replica leased it
		}
		sendErr := s.send(ctx, d)
		attempts := d.attempts + 1
		status, next, msg := DeliveryDelivered, now, ""
		if sendErr != nil {
			msg = sendErr.Error()
			if len(msg) > 300 {
				msg = msg[:300]
			}
			status, next = DeliveryPending, s.now().Add(backoff(attempts))
			if attempts >= MaxDeliveryAttempts {
				status = DeliveryFailed
			}
		} else {
			delivered++
		}
		if _, err := s.db.DB.ExecContext(ctx, s.db.Q("UPDATE nodegate_alert_deliveries SET status = ?, attempts = ?, next_at = ?, last_error = ? WHERE id = ?"),
			status, attempts, ms(next), msg, d.id); err != nil {
			return delivered, fmt.Errorf("alerts: record delivery: %w", err)
		}
		audit(ctx, EventAlertDelivery, "account", d.account, "delivery", d.id, "kind", d.kind, "status", status, "attempt", attempts)
	}
	return delivered, nil
}

// send makes one try of a delivery.
func (s *Service) send(ctx context.Context, d dueDelivery) error {
	switch d.kind {
	case "mail":
		if s.opts.Mailer == nil {
			return errors.New("no mail server")
		}
		body := fmt.Sprintf("Your nodegate account has used %d%% of its daily credits (the day is UTC).\r\n\r\n%s\r\n", d.threshold, d.body)
		return s.opts.Mailer.Send(ctx, d.target, fmt.Sprintf("nodegate: %d%% of today's credits used", d.threshold), body)
	case "webhook":
		_, secret, err := s.alertSettings(ctx, s.db.DB, d.account)
		if err != nil {
			return err
		}
		return s.postWebhook(ctx, d.target, secret, d.id, []byte(d.body))
	}
	return fmt.Errorf("unknown delivery kind %q", d.kind)
}

// postWebhook POSTs body signed with secret; a 2xx answer delivers it.
func (s *Service) postWebhook(ctx context.Context, target, secret, id string, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, webhookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "nodegate-alerts")
	req.Header.Set("X-Nodegate-Delivery", id)
	req.Header.Set(SignatureHeader, Sign(secret, s.now(), body))
	resp, err := s.opts.WebhookClient.Do(req)
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook: answered %s", resp.Status)
	}
	return nil
}
