package customer

import (
	"net/http"

	"github.com/nodegate/nodegate/internal/accounts"
)

// membersData is the team page: the members, and an invitation link
// shown once when no mail server took it.
type membersData struct {
	Members []accounts.Member
	Link    string
	Mail    bool
	Email   string
}

func (h *Handler) membersData(r *http.Request, v *visit) (membersData, error) {
	ms, err := h.opts.Accounts.Members(r.Context(), v.sess.Account.ID)
	return membersData{Members: ms, Mail: h.opts.Accounts.Options().Mailer != nil}, err
}

// membersPath is the team page.
const membersPath = Prefix + "/members"

func (h *Handler) membersPage(w http.ResponseWriter, r *http.Request, v *visit) {
	d, err := h.membersData(r, v)
	if err != nil {
		h.storeError(w, r, err)
		return
	}
	p := pageOf(v, "Team", "members")
	switch q := r.URL.Query(); {
	case q.Get("invited") != "":
		if f, ok := h.takeFlash(w, r, v, membersPath); ok && f.Link != "" {
			d.Link = f.Link
			p.Notice = "Invitation made: give this link to the new member (it works once, and is shown only now)."
		} else {
			p.Notice = "Invitation mailed: the link in it works once."
		}
	case q.Get("saved") != "":
		p.Notice = "Saved."
	}
	p.Data = d
	h.render(w, http.StatusOK, "members", p)
}

// memberFail re-renders the team page with a refused change.
func (h *Handler) memberFail(w http.ResponseWriter, r *http.Request, v *visit, err error, email string) {
	d, derr := h.membersData(r, v)
	if derr != nil {
		h.storeError(w, r, derr)
		return
	}
	d.Email = email
	p := pageOf(v, "Team", "members")
	p.Data = d
	h.fail(w, r, err, "members", p)
}

func (h *Handler) inviteMember(w http.ResponseWriter, r *http.Request, v *visit) {
	email := r.PostFormValue("email")
	l, err := h.opts.Accounts.InviteMember(r.Context(), v.sess.Account.ID, email, r.PostFormValue("role"))
	if err != nil && l.URL == "" {
		h.memberFail(w, r, v, err, email)
		return
	}
	if !l.Mailed {
		// The link is handed over by the owner: shown once, not by re-POST.
		if err := h.setFlash(w, r, v, membersPath, flash{Link: l.URL}); err != nil {
			h.storeError(w, r, err)
			return
		}
	}
	http.Redirect(w, r, membersPath+"?invited=1", http.StatusSeeOther)
}

func (h *Handler) setMemberRole(w http.ResponseWriter, r *http.Request, v *visit) {
	if err := h.opts.Accounts.SetMemberRole(r.Context(), v.sess.Account.ID, r.PathValue("login"), r.PostFormValue("role")); err != nil {
		h.memberFail(w, r, v, err, "")
		return
	}
	http.Redirect(w, r, membersPath+"?saved=1", http.StatusSeeOther)
}

func (h *Handler) removeMember(w http.ResponseWriter, r *http.Request, v *visit) {
	if err := h.opts.Accounts.RemoveMember(r.Context(), v.sess.Account.ID, r.PathValue("login")); err != nil {
		h.memberFail(w, r, v, err, "")
		return
	}
	http.Redirect(w, r, membersPath+"?saved=1", http.StatusSeeOther)
}

func (h *Handler) auditPage(w http.ResponseWriter, r *http.Request, v *visit) {
	cs, err := h.opts.Accounts.Changes(r.Context(), v.sess.Account.ID)
	if err != nil {
		h.storeError(w, r, err)
		return
	}
	p := pageOf(v, "Changes", "audit")
	p.Data = cs
	h.render(w, http.StatusOK, "audit", p)
}
