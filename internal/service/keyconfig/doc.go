// Package keyconfig maps the configuration onto the keys package: the
// configured plans as keys.Plan values (Plans) and where keys are kept
// (Store).
//
// The configuration's mappings onto domain packages belong to service
// (config is a leaf that imports none of them); this one is a package of
// its own under service because the CLI's store code (cli/clistore) needs
// it too, and service's tests import the CLI (keyscmd → clistore), so
// clistore cannot import service itself. It imports only config and keys.
package keyconfig
