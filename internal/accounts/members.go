package accounts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// MaxMembers bounds an account's team: members and open invitations,
// the owner not counted.
const MaxMembers = 25

// Member is one login of an account's team.
type Member struct {
	// LoginID is the login's own account id (the owner's is the account's).
	LoginID   string    `json:"login_id"`
	Email     string    `json:"email"`
	Role      Role      `json:"role"`
	CreatedAt time.Time `json:"created_at"`
}

// membership is the team a login acts for: ok is false for a login that
// is no member (it acts for its own account, as its owner).
func (s *Service) membership(ctx context.Context, loginID string) (account string, role Role, ok bool, err error) {
	var r string
	err = s.db.DB.QueryRowContext(ctx, s.db.Q("SELECT account_id, role FROM nodegate_members WHERE login_id = ?"), loginID).Scan(&account, &r)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", false, nil
	} else if err != nil {
		return "", "", false, fmt.Errorf("read membership: %w", err)
	}
	return account, Role(r), true, nil
}

// join makes login a member of the team g names, inside tx.
func (s *Service) join(ctx context.Context, tx *sql.Tx, loginID string, g teamGrant) error {
	if _, err := tx.ExecContext(ctx, s.db.Q("INSERT INTO nodegate_members (login_id, account_id, role, created_at) VALUES (?, ?, ?, ?)"),
		loginID, g.Account, string(g.Role), ms(s.now())); err != nil {
		return fmt.Errorf("join team: %w", err)
	}
	return nil
}

// Members lists an account's team: its owner first, then the members,
// oldest first.
func (s *Service) Members(ctx context.Context, account string) ([]Member, error) {
	owner, err := s.Get(ctx, account)
	if err != nil {
		return nil, err
	}
	out := []Member{{LoginID: owner.ID, Email: owner.Email, Role: RoleOwner, CreatedAt: owner.CreatedAt}}
	rows, err := s.db.DB.QueryContext(ctx, s.db.Q("SELECT m.login_id, a.email, m.role, m.created_at FROM nodegate_members m"+
		" JOIN nodegate_accounts a ON a.id = m.login_id WHERE m.account_id = ? ORDER BY m.created_at, m.login_id"), account)
	if err != nil {
		return nil, fmt.Errorf("list members: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var m Member
		var role string
		var created int64
		if err := rows.Scan(&m.LoginID, &m.Email, &role, &created); err != nil {
			return nil, fmt.Errorf("read member: %w", err)
		}
		m.Role, m.CreatedAt = Role(role), time.UnixMilli(created).UTC()
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list members: %w", err)
	}
	return out, nil
}

// InviteMember makes a one-time link for email to join the account's
// team with role, and mails it when a mail server is configured. The
// email may not have an account yet: the link makes its login.
func (s *Service) InviteMember(ctx context.Context, account, email, role string) (Link, error) {
	r, err := ParseMemberRole(role)
	if err != nil {
		return Link{}, err
	}
	e, err := NormalizeEmail(email)
	if err != nil {
		return Link{}, err
	}
	owner, err := s.Get(ctx, account)
	if err != nil {
		return Link{}, err
	}
	if _, err := s.ByEmail(ctx, e); err == nil {
		return Link{}, inputf("email: %s already has an account: a login belongs to one account; invite another address", e)
	} else if !errors.Is(err, ErrNotFound) {
		return Link{}, err
	}
	var n int
	if err := s.db.DB.QueryRowContext(ctx, s.db.Q("SELECT (SELECT COUNT(*) FROM nodegate_members WHERE account_id = ?) +"+
		" (SELECT COUNT(*) FROM nodegate_tokens WHERE kind = ? AND account_id = ? AND used_at = 0 AND expires_at > ? AND email <> ?)"),
		account, linkMember, account, ms(s.now()), e).Scan(&n); err != nil {
		return Link{}, fmt.Errorf("count members: %w", err)
	}
	if n >= MaxMembers {
		return Link{}, inputf("members: an account has at most %d members and open invitations: remove one first", MaxMembers)
	}
	l, err := s.newTeamLink(ctx, linkMember, e, SignupPath, s.opts.LinkTTL, teamGrant{Account: account, Role: r})
	if err != nil {
		return Link{}, err
	}
	s.recordChange(ctx, account, ChangeMemberInvited, fmt.Sprintf("%s invited as %s", e, r))
	if s.opts.Mailer != nil {
		body := fmt.Sprintf("%s invites you to their nodegate account as %s.\r\n\r\nOpen this link to choose a password (it works once, until %s):\r\n\r\n%s\r\n",
			owner.Email, r, l.Until.Format(time.RFC1123), l.URL)
		if err := s.opts.Mailer.Send(ctx, e, "Your invitation to a team", body); err != nil {
			return l, fmt.Errorf("invitation made but not mailed (give the link yourself): %w", err)
		}
		l.Mailed = true
	}
	return l, nil
}

// SetMemberRole changes a member's role (not the owner's).
func (s *Service) SetMemberRole(ctx context.Context, account, loginID, role string) error {
	if loginID == account {
		return inputf("role: the owner stays the owner")
	}
	r, err := ParseMemberRole(role)
	if err != nil {
		return err
	}
	res, err := s.db.DB.ExecContext(ctx, s.db.Q("UPDATE nodegate_members SET role = ? WHERE login_id = ? AND account_id = ?"), string(r), loginID, account)
	if err != nil {
		return fmt.Errorf("set role: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ErrNotFound
	}
	s.recordChange(ctx, account, ChangeMemberRole, fmt.Sprintf("%s is now %s", s.emailOf(ctx, loginID), r))
	return nil
}

// RemoveMember takes a member out of the team: its login (which acted
// only for this account) and its sessions end at once. The owner cannot
// be removed.
func (s *Service) RemoveMember(ctx context.Context, account, loginID string) error {
	if loginID == account {
		return inputf("member: the owner cannot be removed")
	}
	email := s.emailOf(ctx, loginID)
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_members WHERE login_id = ? AND account_id = ?"), loginID, account)
		if err != nil {
			return fmt.Errorf("remove member: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrNotFound
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_sessions WHERE account_id = ?"), loginID); err != nil {
			return fmt.Errorf("end member's sessions: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.db.Q("DELETE FROM nodegate_accounts WHERE id = ?"), loginID); err != nil {
			return fmt.Errorf("delete member's login: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.recordChange(ctx, account, ChangeMemberRemoved, email+" removed")
	return nil
}

// emailOf is a login's email for a change's detail (its id if unknown).
func (s *Service) emailOf(ctx context.Context, loginID string) string {
	if a, err := s.Get(ctx, loginID); err == nil {
		return a.Email
	}
	return loginID
}
