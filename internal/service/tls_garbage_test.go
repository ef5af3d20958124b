package service_test

import (
	"github.com/nodegate/nodegate/internal/testenv"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"fmt"
	"github.com/nodegate/nodegate/internal/config"
)

// TestGarbageOnTLSListenerIsQuiet: plaintext HTTP and garbage sent to a TLS
// client listener (no key needed) write no line at INFO, one DEBUG line per
// connection.
func TestGarbageOnTLSListenerIsQuiet(t *testing.T) {
	s := start(t, func(c *config.Config) { c.TLS = config.TLS{SelfSigned: true} })
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		t.Run(level.String(), func(t *testing.T) {
			var out testenv.LogBuffer
			old := slog.Default()
			slog.SetDefault(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: level})))
			t.Cleanup(func() { slog.SetDefault(old) })
			const conns = 20
			for i := range conns {
				c, err := net.DialTimeout("tcp", s.Addr(), 5*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				msg := "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
				if i%2 == 1 {
					msg = "\x00\xff garbage " + strings.Repeat("z", i)
				}
				_, _ = c.Write([]byte(msg))
				_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
				_, _ = io.Copy(io.Discard, c) // until the server closes it
				c.Close()
			}
			if level == slog.LevelDebug {
				testenv.WaitFor(t, 5*time.Second, fmt.Sprintf("%d TLS handshake errors logged", conns), func() bool {
					return strings.Count(out.String(), "TLS handshake error") >= conns
				})
			}
			lines := out.String()
			switch {
			case level == slog.LevelInfo && strings.Contains(lines, "handshake"):
				t.Fatalf("handshake failures logged at INFO:\n%s", lines)
			case level == slog.LevelDebug && strings.Count(lines, "level=DEBUG msg=\"http: TLS handshake error") != conns:
				t.Fatalf("want %d DEBUG lines, got:\n%s", conns, lines)
			}
		})
	}
}
