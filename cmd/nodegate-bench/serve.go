package main

import (
	"context"
	"fmt"
	"io"
	"os/signal"
	"syscall"
)

// server is a listener the tool started (the static upstream, the
// pass-through).
type server interface {
	URL() string
	Close() error
}

// serveUntilSignal reports what started (listening on its URL, or the
// error that kept it from starting) and serves until SIGINT or SIGTERM.
// cmd names the subcommand in errors; what names the server in the
// "listening" line.
func serveUntilSignal(cmd, what string, srv server, startErr error, stdout, stderr io.Writer) int {
	if startErr != nil {
		fmt.Fprintf(stderr, "nodegate-bench %s: %v\n", cmd, startErr)
		return 1
	}
	fmt.Fprintf(stdout, "%s listening on %s\n", what, srv.URL())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		fmt.Fprintf(stderr, "nodegate-bench %s: close: %v\n", cmd, err)
		return 1
	}
	return 0
}
