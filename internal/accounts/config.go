package accounts

import (
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/ident"
)

// OptionsOf are the rules of the configuration's accounts: section, its
// defaults filled in (config.EffectiveAccounts), with the mail server when
// one is configured and the webhooks' private targets.
func OptionsOf(cfg *config.Config) Options {
	ac := cfg.EffectiveAccounts()
	o := Options{
		Signup: Signup(ac.Signup), SignupPlan: ac.SignupPlan, UpgradePlan: ac.UpgradePlan, CustomPlan: ac.CustomPlan,
		MaxKeys: ac.MaxKeys, DefaultMaxKeys: config.DefaultMaxKeys, SessionIdle: ac.SessionIdle, SessionMax: ac.SessionMax,
		LinkTTL: ac.LinkTTL, ResetTTL: ac.ResetTTL, BaseURL: ac.PublicURL, WebhookCAFile: ac.WebhookCAFile,
	}
	for _, t := range ac.WebhookPrivateTargets {
		if p, err := ident.ParsePrefix(t); err == nil { // config.Validate refused the others
			o.WebhookPrivateTargets = append(o.WebhookPrivateTargets, p)
		}
	}
	if ac.SMTP.Addr != "" {
		o.Mailer = &SMTP{Addr: ac.SMTP.Addr, From: ac.SMTP.From, Username: ac.SMTP.Username, Password: ac.SMTP.Password}
	}
	return o
}
