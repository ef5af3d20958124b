package jsonrpc

import "encoding/json"

// notificationHead starts every eth_subscription message, up to the
// subscription id.
const notificationHead = `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"`

// Notification is one eth_subscription message, encoded once for every
// subscription it goes to: NotificationHead, the subscription id, then
// Tail. It is immutable and shared; the id is spliced in when it is written.
type Notification struct {
	tail []byte
}

// NewNotification encodes the message carrying result (go-ethereum's
// shape: {"jsonrpc":"2.0","method":"eth_subscription","params":
// {"subscription":ID,"result":RESULT}}).
func NewNotification(result json.RawMessage) *Notification {
	tail := make([]byte, 0, len(`","result":`)+len(result)+len(`}}`))
	tail = append(tail, `","result":`...)
	if len(result) == 0 {
		tail = append(tail, "null"...)
	} else {
		tail = append(tail, result...)
	}
	return &Notification{tail: append(tail, "}}"...)}
}

// NotificationHead is the bytes before the subscription id; callers must
// not modify them.
func NotificationHead() []byte { return headBytes }

var headBytes = []byte(notificationHead)

// Tail is the bytes after the subscription id; callers must not modify them.
func (n *Notification) Tail() []byte { return n.tail }

// Len is the message's length with subscription id.
func (n *Notification) Len(id string) int { return len(notificationHead) + len(id) + len(n.tail) }

// AppendTo appends the message for subscription id to buf. The id is
// nodegate's own (0x and hex digits): it needs no escaping.
func (n *Notification) AppendTo(buf []byte, id string) []byte {
	buf = append(buf, notificationHead...)
	buf = append(buf, id...)
	return append(buf, n.tail...)
}
