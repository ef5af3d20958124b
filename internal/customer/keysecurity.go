package customer

import (
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/nodegate/nodegate/internal/keys"
)

// securityPatchOf turns the key page's key-security forms (client
// addresses, JSON Web Tokens, the key's own limits) into a key patch: the
// same settings, and the same checks, as `nodegate keys update` and the
// admin API. handled is false for another action.
func securityPatchOf(r *http.Request, rec keys.Record) (p keys.Patch, handled bool, err error) {
	switch r.PostFormValue("action") {
	case "addresses":
		ips := splitList(r.PostFormValue("allowed_ips"), true)
		p.AllowedIPs = &ips
	case "jwt-add":
		name, pem := strings.TrimSpace(r.PostFormValue("jwt_name")), r.PostFormValue("jwt_pem")
		if strings.TrimSpace(pem) == "" {
			return p, true, &keys.InputError{Msg: "jwt_keys: paste the public key (PEM, -----BEGIN PUBLIC KEY-----)"}
		}
		p.JWTKeys = map[string]string{name: pem}
	case "jwt-remove":
		p.JWTKeys = map[string]string{r.PostFormValue("jwt_name"): ""}
	case "jwt-required":
		required := r.PostFormValue("jwt_required") != ""
		p.JWTRequired = &required
	case "limits":
		rate, daily, rates, err := limitsOf(r, rec)
		if err != nil {
			return p, true, err
		}
		p.RatePerSecond, p.DailyCredits, p.MethodRates = &rate, &daily, rates
	default:
		return p, false, nil
	}
	return p, true, nil
}

// limitsOf reads the limits form: empty fields are the plan's (0), and the
// method rates' box (METHOD=CALLS per line) replaces the key's, so a
// method left out loses its rate.
func limitsOf(r *http.Request, rec keys.Record) (rate float64, daily int64, rates map[string]float64, err error) {
	if s := strings.TrimSpace(r.PostFormValue("rate_per_second")); s != "" {
		if rate, err = strconv.ParseFloat(s, 64); err != nil {
			return 0, 0, nil, &keys.InputError{Msg: "rate_per_second: want credits per second (empty: the plan's), got " + strconv.Quote(s)}
		}
	}
	if s := strings.TrimSpace(r.PostFormValue("daily_credits")); s != "" {
		if daily, err = strconv.ParseInt(s, 10, 64); err != nil {
			return 0, 0, nil, &keys.InputError{Msg: "daily_credits: want a whole number of credits (empty: the plan's), got " + strconv.Quote(s)}
		}
	}
	rates = map[string]float64{}
	for m := range rec.MethodRates {
		rates[m] = 0
	}
	for _, line := range splitList(r.PostFormValue("method_rates"), true) {
		m, v, ok := strings.Cut(line, "=")
		n, perr := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || perr != nil {
			return 0, 0, nil, &keys.InputError{Msg: "method_rates: want METHOD=CALLS per line (calls per second), got " + strconv.Quote(line)}
		}
		rates[strings.TrimSpace(m)] = n
	}
	return rate, daily, rates, nil
}

// methodRateLines shows a key's method rates as the form takes them.
func methodRateLines(rates map[string]float64) string {
	lines := make([]string, 0, len(rates))
	for m, v := range rates {
		lines = append(lines, m+"="+strconv.FormatFloat(v, 'f', -1, 64))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
