package service

import (
	"bytes"
	"log"
	"log/slog"
)

// quietHandshakes are the net/http server's messages about a client that
// never spoke TLS (or HTTP/2) properly: anyone can send them without a
// key, one per connection, so they are logged at DEBUG.
var quietHandshakes = [][]byte{
	[]byte("http: TLS handshake error"),
	[]byte("http2: server: error reading preface"),
}

// serverErrorLog is an http.Server's ErrorLog: a failed handshake at
// DEBUG, anything else the server reports (accept errors, panics in a
// handler) at WARN, both through the default slog logger.
func serverErrorLog(listener string) *log.Logger {
	return log.New(serverLogWriter(listener), "", 0)
}

type serverLogWriter string

func (w serverLogWriter) Write(p []byte) (int, error) {
	msg := string(bytes.TrimRight(p, "\n"))
	for _, q := range quietHandshakes {
		if bytes.HasPrefix(p, q) {
			slog.Debug(msg, "listener", string(w))
			return len(p), nil
		}
	}
	slog.Warn(msg, "listener", string(w))
	return len(p), nil
}
