package config

import "github.com/nodegate/nodegate/internal/familykind"

// An upstream's floors (docs/pools.md, "Old blocks: state and logs
// floors"): the earliest block it serves state for and the earliest it
// serves logs, receipts and block bodies for. Unset, nodegate probes them;
// archive: true says both are 0.

// Floors are the upstream's configured floors: state and logs, each
// with whether it was given.
func (u Upstream) Floors() (state, logs uint64, stateSet, logsSet bool) {
	if u.Archive {
		return 0, 0, true, true
	}
	if u.StateFrom != nil {
		state, stateSet = *u.StateFrom, true
	}
	if u.LogsFrom != nil {
		logs, logsSet = *u.LogsFrom, true
	}
	return state, logs, stateSet, logsSet
}

// validateFloors refuses floors on a family that has none (its pools
// probe no floors) and an archive node that names a floor above 0.
func (u Upstream) validateFloors(path string, k familykind.Kind, bad func(path, format string, a ...any)) {
	if !u.Archive && u.StateFrom == nil && u.LogsFrom == nil {
		return
	}
	if k.StateProbeMethod == "" && k.LogsProbeMethod == "" {
		bad(path, "archive, state_from and logs_from are for a network of family %s only (family %s has no floors)", familykind.EVM.Name, k.Name)
		return
	}
	if u.Archive && ((u.StateFrom != nil && *u.StateFrom != 0) || (u.LogsFrom != nil && *u.LogsFrom != 0)) {
		bad(path+".archive", "an archive node serves every block: drop state_from and logs_from, or archive")
	}
}
