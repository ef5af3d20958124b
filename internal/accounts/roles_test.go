package accounts

import "testing"

// TestRoleMay: the owner may everything, an admin read and manage, a
// viewer only read, an unknown role nothing.
func TestRoleMay(t *testing.T) {
	for _, tc := range []struct {
		role                Role
		read, manage, owner bool
	}{
		{RoleOwner, true, true, true},
		{RoleAdmin, true, true, false},
		{RoleViewer, true, false, false},
		{Role("root"), false, false, false},
		{Role(""), false, false, false},
	} {
		t.Run(string(tc.role), func(t *testing.T) {
			if got := [3]bool{tc.role.May(PermRead), tc.role.May(PermManage), tc.role.May(PermOwn)}; got != [3]bool{tc.read, tc.manage, tc.owner} {
				t.Fatalf("read, manage, own = %v, want %v", got, [3]bool{tc.read, tc.manage, tc.owner})
			}
		})
	}
}

// TestParseMemberRole: an invitation grants admin or viewer, never owner.
func TestParseMemberRole(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Role
		err  bool
	}{
		{"admin", RoleAdmin, false},
		{"viewer", RoleViewer, false},
		{"owner", "", true},
		{"Admin", "", true},
		{"", "", true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseMemberRole(tc.in)
			if got != tc.want || (err != nil) != tc.err || (err != nil && !IsInput(err)) {
				t.Fatalf("ParseMemberRole(%q) = %q, %v", tc.in, got, err)
			}
		})
	}
}
