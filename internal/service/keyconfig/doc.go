// Package keyconfig maps the configuration onto the keys package: the
// default configuration's plans (Defaults) and where keys are kept
// (Store), and the check of keys' JSON Web Tokens (Tokens). The configured plans themselves are config.Config.PlanSet: the
// plan type is internal/plan's, the one the configuration decodes and the
// keys package grants, so they need no mapping.
//
// The configuration's mappings onto domain packages belong to service
// (config is a leaf that imports none of them); this one is a package of
// its own under service because the CLI's store code (cli/clistore) needs
// it too, and service's tests import the CLI (keyscmd → clistore), so
// clistore cannot import service itself. It imports only config and keys.
package keyconfig
