package ingress

import (
	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/jsonrpc"
)

// An open WebSocket is not tied to the key record it upgraded with: every
// message is admitted against the key's current record (found again by
// id, with the upgrade's headers), so changed allowlists and plans apply to
// the next message; and whenever the keys change, every open socket is
// checked at once, so that a revoked key (or one whose plan is gone) loses
// its sockets and their subscriptions within one key refresh, not at its
// next message.

// closeKeyRefused is the close code of a socket whose key no longer admits
// it; the reason is the HTTP answer's message (401 or 403).
const closeKeyRefused = websocket.ClosePolicyViolation // 1008

// admitCurrent returns the socket's key as it is now, and what its
// request-level settings admitted (a token's verdict comes from the
// verifier's cache: a socket opened with a token closes once it expires);
// an error means the socket must close.
func (c *wsConn) admitCurrent() (*keys.Key, keys.Admission, *jsonrpc.Error) {
	k, ok := c.s.Keys.ByID(c.keyID)
	if !ok {
		return nil, keys.Admission{}, jsonrpc.ErrUnauthorized(msgUnknownKey)
	}
	a, e := admitKey(k, c.keyReq)
	if e != nil {
		return nil, a, e
	}
	c.key.Store(k)
	return k, a, nil
}

// refuseKey closes the socket because its key no longer admits it.
func (c *wsConn) refuseKey(e *jsonrpc.Error) {
	c.closeWith(closeKeyRefused, e.Message)
}

// watchKeys checks every open socket against its key each time the keys
// change, until stop is closed.
func (s *Server) watchKeys(stop <-chan struct{}) {
	changed := s.Keys.Changed()
	for {
		select {
		case <-stop:
			return
		case <-changed:
		}
		changed = s.Keys.Changed()
		for _, c := range s.ws.list() {
			if _, _, e := c.admitCurrent(); e != nil {
				go c.refuseKey(e) // closing may wait on a slow socket
			}
		}
	}
}
