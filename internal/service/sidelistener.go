package service

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// serveSide serves h on addr for an operator's listener (admin API,
// metrics): small headers, bounded reads. name is for errors and logs;
// setting names the flag and config field of addr, so that a port taken
// by another instance says what to change.
func serveSide(name, setting, addr string, h http.Handler) (net.Listener, *http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("%s listener on %s: %w (set %s to another address, or \"\" to turn it off)", name, addr, err, setting)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          serverErrorLog(name),
	}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error(name+" server stopped", "err", err)
		}
	}()
	return ln, srv, nil
}
