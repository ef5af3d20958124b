package pipeline

import (
	"context"
	"slices"
	"testing"

	"github.com/nodegate/nodegate/jsonrpc"
)

func namedStageMaker() Stage {
	return func(next Handler) Handler { return next }
}

func TestStageName(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stage Stage
		want  string
	}{
		{"function", recoverStage, "recoverStage"},
		{"made by a function", namedStageMaker(), "namedStageMaker"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := stageName(tc.stage); got != tc.want {
				t.Fatalf("stageName = %q, want %q", got, tc.want)
			}
		})
	}
}

// recordingObserver lists what Build asked it to wrap and what ran.
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

// TestBuildObserver: the observer wraps every stage of order() and the
// route, and the whole chain once; calls run through the wrappers in order.
func TestBuildObserver(t *testing.T) {
	o := &recordingObserver{}
	p := Build(Options{Observer: o})
	want := []string{"route"}
	for i := len(order()) - 1; i >= 0; i-- {
		want = append(want, stageName(order()[i]))
	}
	want = append(want, "call")
	if !slices.Equal(o.wrapped, want) {
		t.Fatalf("wrapped %v, want %v", o.wrapped, want)
	}
	p.Serve(context.Background(), &Call{Req: jsonrpc.Request{Method: "eth_noSuchMethod"}})
	if len(o.ran) < 3 || o.ran[0] != "call" || o.ran[1] != "recoverStage" || o.ran[2] != "methodRules" {
		t.Fatalf("ran %v, want call, recoverStage, methodRules first", o.ran)
	}
}
