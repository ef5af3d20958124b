package admin

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed dashboard
var dashboardFiles embed.FS

// RegisterDashboard serves the dashboard's page and assets at /dashboard/
// (embedded in the binary, no CDN). The page itself holds no data and is
// served without the token; its script reads the admin JSON routes with
// the token the user gives it (a login form, or #token= in the URL).
func RegisterDashboard(s *Server) {
	sub, err := fs.Sub(dashboardFiles, "dashboard")
	if err != nil {
		panic(err) // the embedded tree is part of the binary
	}
	files := http.StripPrefix("/dashboard/", http.FileServerFS(sub))
	s.HandlePublic("GET /dashboard/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	}))
	s.HandlePublic("GET /dashboard", http.RedirectHandler("/dashboard/", http.StatusMovedPermanently))
}
