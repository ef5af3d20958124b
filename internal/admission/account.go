package admission

import (
	"context"
	"net"

	"github.com/nodegate/nodegate/internal/keys"
)

// Account is who a call is counted for where the process shares one
// thing between accounts (its execution turns, Turn; the embedded dev
// chain's bytes, evmnode; the Starknet devnet's hashing,
// starknet/devnet): a dashboard key's account, else an operator
// key itself, else the client's address (remote) for a call without a
// key. It is the only definition of an account.
func Account(key *keys.Key, remote string) string {
	switch {
	case key != nil && key.Account != "":
		return "account:" + key.Account
	case key != nil:
		return "key:" + key.ID
	}
	if host, _, err := net.SplitHostPort(remote); err == nil {
		remote = host
	}
	return "address:" + remote
}

// Caller is what a context carries of the call it serves: its Account,
// made only when a component asks for it (a write to an embedded node),
// so that carrying it costs a call nothing more.
type Caller interface {
	Account() string
}

type callerKey struct{}

// WithCaller is ctx carrying c, for the components a call reaches through
// interfaces that pass only a context and a body (the embedded node's Do).
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// AccountOf is the Account of the call ctx serves; "" when ctx carries
// none (a call the process makes itself).
func AccountOf(ctx context.Context) string {
	if c, ok := ctx.Value(callerKey{}).(Caller); ok && c != nil {
		return c.Account()
	}
	return ""
}
