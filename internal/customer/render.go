package customer

import (
	"bytes"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/keys"
)

// pageTemplate is one page: the layout with the page's content.
type pageTemplate struct{ t *template.Template }

// page is what every page's template gets: the account when signed in,
// the form token, the navigation and a message.
type page struct {
	Title   string
	Nav     string
	Account *accounts.Account
	// Login is who signed in (Account's owner or a member), Role what it
	// may do: pages show the forms of what the role may do.
	Login  *accounts.Account
	Role   accounts.Role
	CSRF   string
	Error  string
	Notice string
	Data   any
}

var funcs = template.FuncMap{
	"join":  strings.Join,
	"lines": func(l []string) string { return strings.Join(l, "\n") },
	// rateLines shows a key's method rates as METHOD=CALLS lines.
	"rateLines": methodRateLines,
	"credits":   formatInt,
	// ms writes milliseconds to the microsecond, without trailing zeros.
	"ms":   func(v accounts.Millis) string { return strconv.FormatFloat(float64(v), 'f', -1, 64) },
	"rate": formatRate,
	// refused and failed sum a usage row's refusals and its other errors.
	"refused": func(e keys.UsageErrors) int64 { return e.RateLimited + e.Daily + e.Forbidden + e.Limit },
	"failed":  func(e keys.UsageErrors) int64 { return e.Invalid + e.Upstream + e.Node },
	// may: whether the page's role grants "manage" or "own".
	"may": func(r accounts.Role, what string) bool {
		switch what {
		case "manage":
			return r.May(accounts.PermManage)
		case "own":
			return r.May(accounts.PermOwn)
		}
		return r.May(accounts.PermRead)
	},
	"has": func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	},
}

// loadPages parses every page with the layout (html/template: everything
// a customer wrote is escaped where it is written).
func loadPages() map[string]*pageTemplate {
	layout, err := fs.ReadFile(pageFiles, "pages/layout.html")
	if err != nil {
		panic(err) // embedded: part of the binary
	}
	names, err := fs.Glob(pageFiles, "pages/*.html")
	if err != nil {
		panic(err)
	}
	out := map[string]*pageTemplate{}
	for _, n := range names {
		name := strings.TrimSuffix(path.Base(n), ".html")
		if name == "layout" {
			continue
		}
		body, err := fs.ReadFile(pageFiles, n)
		if err != nil {
			panic(err)
		}
		t := template.Must(template.New("layout").Funcs(funcs).Parse(string(layout)))
		template.Must(t.Parse(string(body)))
		out[name] = &pageTemplate{t: t}
	}
	return out
}

// render writes a page with status.
func (h *Handler) render(w http.ResponseWriter, status int, name string, p page) {
	t, ok := h.pages[name]
	if !ok {
		slog.Error("dashboard: no page", "page", name)
		http.Error(w, "no such page", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := t.t.Execute(&buf, p); err != nil {
		slog.Error("dashboard: render", "page", name, "err", err)
		http.Error(w, "the page could not be drawn", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// pageOf starts a page for a visit.
func pageOf(v *visit, title, nav string) page {
	p := page{Title: title, Nav: nav, CSRF: v.csrf}
	if v.sess != nil {
		a, l := v.sess.Account, v.sess.Login
		p.Account, p.Login, p.Role = &a, &l, v.sess.Role
	}
	return p
}

// message answers a page that only says something.
func (h *Handler) message(w http.ResponseWriter, _ *http.Request, v *visit, status int, title, text string) {
	p := pageOf(v, title, "")
	p.Data = text
	h.render(w, status, "message", p)
}
