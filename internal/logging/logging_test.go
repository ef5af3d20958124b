package logging

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		name, format, level string
		wantJSON, wantDebug bool
		wantErr             bool
	}{
		{name: "defaults", wantDebug: false},
		{name: "json", format: "json", wantJSON: true},
		{name: "debug text", format: "text", level: "debug", wantDebug: true},
		{name: "error level", level: "ERROR"},
		{name: "bad format", format: "xml", wantErr: true},
		{name: "bad level", level: "loud", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			l, err := New(config.Log{Format: tc.format, Level: tc.level, Output: &buf})
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			l.Debug("dbg")
			l.Error("boom", "k", "v")
			out := buf.String()
			if strings.Contains(out, "dbg") != tc.wantDebug {
				t.Errorf("debug line present = %v, want %v:\n%s", strings.Contains(out, "dbg"), tc.wantDebug, out)
			}
			last := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
			if tc.wantJSON != json.Valid([]byte(last)) {
				t.Errorf("line %q: JSON = %v, want %v", last, json.Valid([]byte(last)), tc.wantJSON)
			}
		})
	}
}

// TestBuffered: lines reach the writer on the timer and on Close, whole.
func TestBuffered(t *testing.T) {
	var out testenv.LogBuffer
	b := NewBuffered(&out, 20*time.Millisecond)
	l := slog.New(slog.NewJSONHandler(b, nil))
	l.Info("first")
	testenv.WaitFor(t, 10*time.Second, "the timer to write the line", func() bool { return strings.Contains(out.String(), "first") })
	for range 100 {
		l.Info("many")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), `"msg":"many"`); n != 100 {
		t.Fatalf("%d lines after Close, want 100", n)
	}
	if err := b.Close(); err != nil { // twice is harmless
		t.Fatal(err)
	}
}
