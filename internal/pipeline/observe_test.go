package pipeline

import (
	"context"
	"slices"
	"testing"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// recordingObserver lists what the pipeline asked it to wrap and what ran.
type recordingObserver struct{ wrapped, ran []string }

func (o *recordingObserver) WrapCall(next Handler) Handler {
	o.wrapped = append(o.wrapped, "call")
	return func(ctx context.Context, c *Call) *jsonrpc.Response {
		o.ran = append(o.ran, "call")
		return next(ctx, c)
	}
}

func (o *recordingObserver) WrapStage(name string, next Handler) Handler {
	o.wrapped = append(o.wrapped, name)
	return func(ctx context.Context, c *Call) *jsonrpc.Response {
		o.ran = append(o.ran, name)
		return next(ctx, c)
	}
}

// TestBuildObserver: on a network's first call the observer wraps every
// stage of its chain (order) and the route, and the whole chain once; calls
// run through the wrappers in order; a second call compiles nothing.
func TestBuildObserver(t *testing.T) {
	o := &recordingObserver{}
	p := Build(Options{Observer: o})
	n := &Network{Name: "test", Methods: methods.NewTable(methods.FamilyEVM)}
	if len(o.wrapped) != 0 {
		t.Fatalf("wrapped %v before any call", o.wrapped)
	}
	p.Serve(context.Background(), &Call{Req: jsonrpc.Request{Method: "foo_noSuchMethod"}, Network: n})
	var want []string
	stages := order(n.familyStages(), n.route())
	for i := len(stages) - 1; i >= 0; i-- {
		want = append(want, stages[i].Name())
	}
	want = append(want, "call")
	if !slices.Equal(o.wrapped, want) {
		t.Fatalf("wrapped %v, want %v", o.wrapped, want)
	}
	if len(o.ran) < 3 || o.ran[0] != "call" || o.ran[1] != "recoverStage" || o.ran[2] != "methodRules" {
		t.Fatalf("ran %v, want call, recoverStage, methodRules first", o.ran)
	}
	p.Serve(context.Background(), &Call{Req: jsonrpc.Request{Method: "foo_noSuchMethod"}, Network: n})
	if len(o.wrapped) != len(want) {
		t.Fatalf("wrapped %v after a second call, want the chain compiled once", o.wrapped)
	}
}
