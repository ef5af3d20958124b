package upstream

import (
	"errors"
	"net"
	"syscall"
)

// NotSent reports whether a failed exchange certainly never delivered the
// request to the node (the connection could not be made), so that even a
// write may be tried elsewhere.
func NotSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}
