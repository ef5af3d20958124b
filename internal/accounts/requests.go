package accounts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"
)

// The states of a plan request.
const (
	RequestOpen     = "open"
	RequestGranted  = "granted"
	RequestDeclined = "declined"
)

// MaxRequestMessage bounds what a customer writes with a request.
const MaxRequestMessage = 2000

// PlanRequest is an account's request for the custom top tier, which the
// operator grants or declines.
type PlanRequest struct {
	ID        string     `json:"id"`
	AccountID string     `json:"account_id"`
	Email     string     `json:"email"`
	Plan      string     `json:"plan"`
	Message   string     `json:"message"`
	Status    string     `json:"status"`
	CreatedAt time.Time  `json:"created_at"`
	DecidedAt *time.Time `json:"decided_at"`
}

const requestSelect = "SELECT r.id, r.account_id, a.email, r.plan, r.message, r.status, r.created_at, r.decided_at FROM nodegate_plan_requests r JOIN nodegate_accounts a ON a.id = r.account_id"

func scanRequest(sc interface{ Scan(...any) error }) (PlanRequest, error) {
	var (
		r                PlanRequest
		created, decided int64
	)
	if err := sc.Scan(&r.ID, &r.AccountID, &r.Email, &r.Plan, &r.Message, &r.Status, &created, &decided); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return r, ErrNotFound
		}
		return r, fmt.Errorf("read plan request: %w", err)
	}
	r.CreatedAt, r.DecidedAt = time.UnixMilli(created).UTC(), fromMS(decided)
	return r, nil
}

func (s *Service) queryRequests(ctx context.Context, where string, args ...any) ([]PlanRequest, error) {
	rows, err := s.db.DB.QueryContext(ctx, s.db.Q(requestSelect+where+" ORDER BY r.created_at DESC, r.id"), args...)
	if err != nil {
		return nil, fmt.Errorf("list plan requests: %w", err)
	}
	defer rows.Close()
	out := []PlanRequest{}
	for rows.Next() {
		r, err := scanRequest(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list plan requests: %w", err)
	}
	return out, nil
}

// Requests lists plan requests, newest first: all of them, or those with
// status ("open", "granted", "declined").
func (s *Service) Requests(ctx context.Context, status string) ([]PlanRequest, error) {
	switch status {
	case "":
		return s.queryRequests(ctx, "")
	case RequestOpen, RequestGranted, RequestDeclined:
		return s.queryRequests(ctx, " WHERE r.status = ?", status)
	}
	return nil, inputf("status: want open, granted or declined, got %q", status)
}

// AccountRequests lists one account's requests, newest first.
func (s *Service) AccountRequests(ctx context.Context, account string) ([]PlanRequest, error) {
	return s.queryRequests(ctx, " WHERE r.account_id = ?", account)
}

// RequestCustom records an account's request for the custom top tier,
// with a message for the operator; an account has one open request at most.
func (s *Service) RequestCustom(ctx context.Context, account, message string) (PlanRequest, error) {
	message = strings.TrimSpace(message)
	switch {
	case !utf8.ValidString(message):
		return PlanRequest{}, inputf("message: not valid UTF-8")
	case utf8.RuneCountInString(message) > MaxRequestMessage:
		return PlanRequest{}, inputf("message: at most %d characters", MaxRequestMessage)
	}
	a, err := s.Get(ctx, account)
	if err != nil {
		return PlanRequest{}, err
	}
	plan := s.opts.CustomPlan
	if _, ok := s.Plans()[plan]; !ok {
		return PlanRequest{}, inputf("plan: this service has no custom tier (%q is not configured)", plan)
	}
	if a.Plan == plan {
		return PlanRequest{}, inputf("plan: the account is already on %s", plan)
	}
	id, err := newID("req_")
	if err != nil {
		return PlanRequest{}, err
	}
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		// Lock the account row: two requests at once make one.
		var got string
		if err := tx.QueryRowContext(ctx, s.db.Q("SELECT id FROM nodegate_accounts WHERE id = ?"+s.db.ForUpdate()), account).Scan(&got); err != nil {
			return fmt.Errorf("lock account: %w", err)
		}
		var n int
		if err := tx.QueryRowContext(ctx, s.db.Q("SELECT COUNT(*) FROM nodegate_plan_requests WHERE account_id = ? AND status = ?"), account, RequestOpen).Scan(&n); err != nil {
			return fmt.Errorf("count requests: %w", err)
		}
		if n > 0 {
			return inputf("request: this account already has an open request: the operator will answer it")
		}
		_, err := tx.ExecContext(ctx, s.db.Q("INSERT INTO nodegate_plan_requests (id, account_id, plan, message, status, created_at) VALUES (?, ?, ?, ?, ?, ?)"),
			id, account, plan, message, RequestOpen, ms(s.now()))
		if err != nil {
			return fmt.Errorf("store request: %w", err)
		}
		return nil
	})
	if err != nil {
		return PlanRequest{}, err
	}
	slog.Info("plan requested", "account", account, "plan", plan, "request", id)
	s.recordChange(ctx, account, ChangePlanRequested, "asked for "+plan)
	return s.request(ctx, id)
}

func (s *Service) request(ctx context.Context, id string) (PlanRequest, error) {
	return scanRequest(s.db.DB.QueryRowContext(ctx, s.db.Q(requestSelect+" WHERE r.id = ?"), id))
}

// Decide grants (the account moves to the request's plan, its keys with
// it) or declines an open request.
func (s *Service) Decide(ctx context.Context, id string, grant bool) (PlanRequest, error) {
	r, err := s.request(ctx, id)
	if err != nil {
		return PlanRequest{}, err
	}
	if r.Status != RequestOpen {
		return PlanRequest{}, inputf("request %s is already %s", id, r.Status)
	}
	status := RequestDeclined
	if grant {
		status = RequestGranted
		if _, err := s.SetPlan(ctx, r.AccountID, r.Plan); err != nil {
			return PlanRequest{}, err
		}
	}
	if _, err := s.db.DB.ExecContext(ctx, s.db.Q("UPDATE nodegate_plan_requests SET status = ?, decided_at = ? WHERE id = ? AND status = ?"),
		status, ms(s.now()), id, RequestOpen); err != nil {
		return PlanRequest{}, fmt.Errorf("decide request: %w", err)
	}
	slog.Info("plan request decided", "request", id, "account", r.AccountID, "status", status)
	return s.request(ctx, id)
}

// Upgrade moves an account itself to the middle tier (UpgradePlan), from
// a lower plan only.
func (s *Service) Upgrade(ctx context.Context, account string) (Account, error) {
	a, err := s.Get(ctx, account)
	if err != nil {
		return Account{}, err
	}
	if !s.CanUpgrade(a) {
		return Account{}, inputf("plan: %s is not below %s: no self-service upgrade from it", a.Plan, s.opts.UpgradePlan)
	}
	slog.Info("account upgraded itself", "account", account, "from", a.Plan, "to", s.opts.UpgradePlan)
	up, err := s.SetPlan(ctx, account, s.opts.UpgradePlan)
	if err == nil {
		s.recordChange(ctx, account, ChangePlanUpgraded, a.Plan+" to "+up.Plan)
	}
	return up, err
}

// CanUpgrade reports whether a's plan is a lower tier than UpgradePlan.
func (s *Service) CanUpgrade(a Account) bool {
	names := s.PlanNames()
	pos := func(n string) int {
		for i, x := range names {
			if x == n {
				return i
			}
		}
		return len(names)
	}
	_, ok := s.Plans()[s.opts.UpgradePlan]
	return ok && a.Plan != s.opts.UpgradePlan && a.Plan != s.opts.CustomPlan && pos(a.Plan) < pos(s.opts.UpgradePlan)
}
