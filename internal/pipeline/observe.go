package pipeline

import (
	"reflect"
	"runtime"
	"strings"
)

// Observer sees calls go through the pipeline without deciding anything
// (metrics, logs, traces: internal/telemetry). Build asks it once per
// stage; a wrapper it does not want is returned as next, unchanged, so
// that an observer that is off costs nothing per call.
type Observer interface {
	// WrapCall wraps the whole chain: it sees every call and its answer.
	WrapCall(next Handler) Handler
	// WrapStage wraps one stage (named as in stages.go, "route" for the
	// last): next is the stage with every later stage behind it.
	WrapStage(name string, next Handler) Handler
}

// stageName is the name of a stage's function ("methodRules"), so that
// stages need no name of their own; a stage made by a function
// ("limitsStage(cfg)") is named after that function.
func stageName(s Stage) string {
	name := runtime.FuncForPC(reflect.ValueOf(s).Pointer()).Name()
	parts := strings.Split(name[strings.LastIndexByte(name, '/')+1:], ".")
	for len(parts) > 1 && isClosure(parts[len(parts)-1]) {
		parts = parts[:len(parts)-1]
	}
	return parts[len(parts)-1]
}

// isClosure matches the compiler's names of function literals ("func1", "1").
func isClosure(s string) bool {
	s = strings.TrimPrefix(s, "func")
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
