package docexamples

import (
	"fmt"
	"strings"
)

// Kind is what TestDocExamples does with a block.
type Kind int

const (
	// NotRun: marked <!-- example: not run: REASON -->; the reason is
	// logged (an output sample, a synopsis, a measurement of minutes).
	NotRun Kind = iota
	// Config: a yaml block, read as a whole nodegate config file by the
	// strict loader and validated.
	Config
	// Start: a yaml block marked <!-- example: start -->: also started
	// as nodegate's config, and stopped.
	Start
	// Shell: a sh/bash block, run with bash against a started nodegate;
	// a JSON-RPC error answer in its output fails it.
	Shell
	// ShellErrors: a sh/bash block marked <!-- example: errors answered -->
	// (it shows refusals): run as Shell, error answers allowed.
	ShellErrors
	// Node: a js block, run as an ES module by Node.js with starknet.js.
	Node
)

// KindOf says what is done with b, or why b cannot be judged: an unknown
// marker, a "not run" without a reason, a block in a language the test
// does not run that is not marked (it would be skipped silently).
func KindOf(b Block) (kind Kind, reason string, err error) {
	switch m := b.Marker; {
	case strings.HasPrefix(m, "not run:"):
		reason = strings.TrimSpace(strings.TrimPrefix(m, "not run:"))
		if reason == "" {
			return 0, "", fmt.Errorf("%s: \"not run:\" needs a reason", b.Name())
		}
		return NotRun, reason, nil
	case m == "start" && b.Lang == "yaml":
		return Start, "", nil
	case m == "errors answered" && (b.Lang == "sh" || b.Lang == "bash"):
		return ShellErrors, "", nil
	case m != "":
		return 0, "", fmt.Errorf("%s: unknown example marker %q (want \"not run: REASON\", \"start\" on a yaml block or \"errors answered\" on a shell block)", b.Name(), m)
	}
	switch b.Lang {
	case "yaml":
		return Config, "", nil
	case "sh", "bash":
		return Shell, "", nil
	case "js":
		return Node, "", nil
	}
	return 0, "", fmt.Errorf("%s: a %q block is not run: mark it <!-- example: not run: REASON --> (or write it as sh, bash, yaml or js)", b.Name(), b.Lang)
}
