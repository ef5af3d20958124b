package accounts

import "fmt"

// Role is what a login may do for the account it acts for.
type Role string

// The roles of a team. The owner is the account's own login (one per
// account, never a member row, never removed); admins and viewers are
// members it invited.
const (
	RoleOwner  Role = "owner"
	RoleAdmin  Role = "admin"
	RoleViewer Role = "viewer"
)

// Permission is one kind of thing a page or API call does.
type Permission int

// The permissions, each granted to some roles (Role.May).
const (
	// PermRead: see the account's keys, usage, plan, alerts, members and
	// audit log. Every role.
	PermRead Permission = iota
	// PermManage: make, change and revoke keys, their limits and alerts.
	// Owner and admin.
	PermManage
	// PermOwn: change the plan (billing) and the team. The owner only.
	PermOwn
)

func (p Permission) String() string {
	switch p {
	case PermRead:
		return "read"
	case PermManage:
		return "manage"
	case PermOwn:
		return "own"
	}
	return fmt.Sprintf("permission(%d)", int(p))
}

// May reports whether the role grants p: the one place this is decided.
func (r Role) May(p Permission) bool {
	switch r {
	case RoleOwner:
		return true
	case RoleAdmin:
		return p == PermRead || p == PermManage
	case RoleViewer:
		return p == PermRead
	}
	return false
}

// ParseMemberRole reads the role an invitation or a change grants: admin
// or viewer (an account has one owner, its own login).
func ParseMemberRole(s string) (Role, error) {
	switch r := Role(s); r {
	case RoleAdmin, RoleViewer:
		return r, nil
	case RoleOwner:
		return "", inputf("role: an account has one owner, its own login: invite an admin or a viewer")
	}
	return "", inputf("role: want admin or viewer, got %q", s)
}
