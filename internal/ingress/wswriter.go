package ingress

import (
	"fmt"
	"io"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/jsonrpc"
)

// closeCreditsSpent closes a connection whose key's daily credits cannot
// pay for its next notification.
const closeCreditsSpent = websocket.ClosePolicyViolation // 1008

// wsOut is one message waiting for a connection's writer: an answer
// (buf), or a notification (note) shared by every subscription of its
// stream, written with this subscription's id spliced in. A queued
// notification holds a reservation on the connection's notes account:
// Written once on the wire, Dropped otherwise.
type wsOut struct {
	buf  *[]byte
	note *jsonrpc.Notification
	id   string
}

func (o wsOut) size() int {
	if o.note != nil {
		return o.note.Len(o.id)
	}
	return len(*o.buf)
}

// dropLocked gives up a message that will not be written.
func (c *wsConn) dropLocked(o wsOut) {
	if o.note != nil {
		c.notes.Dropped()
		return
	}
	putBuf(o.buf)
}

// dropQueueLocked gives up everything queued.
func (c *wsConn) dropQueueLocked() {
	for _, o := range c.queue {
		c.dropLocked(o)
	}
	c.queue, c.queued = nil, 0
}

// enqueue hands an answer to the writer.
func (c *wsConn) enqueue(b *[]byte) { c.queueOut(wsOut{buf: b}) }

// queueOut hands o to the writer; it does no I/O, so the hub's fan-out may
// call it for thousands of connections in a row. A notification is first
// reserved against the key's daily credits (refused: the connection closes
// with 1008). A client whose queue is over the limit is closed with 1008
// rather than buffered without bound; one message larger than the limit
// still goes when the queue is empty.
func (c *wsConn) queueOut(o wsOut) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		if o.buf != nil {
			putBuf(o.buf)
		}
		return
	}
	if o.note != nil {
		if ok, reason := c.notes.Reserve(c.key.Load()); !ok {
			c.mu.Unlock()
			go c.closeWith(closeCreditsSpent, reason) // may wait on the socket
			return
		}
	}
	size := o.size()
	if c.queued > 0 && c.queued+size > c.s.WebSocket.SendQueueBytes {
		c.closed = true
		c.dead.Store(true)
		c.dropQueueLocked()
		c.dropLocked(o)
		c.mu.Unlock()
		go c.closeWith(closeSlowReader, fmt.Sprintf("slow reader: more than %d bytes waiting", c.s.WebSocket.SendQueueBytes))
		return
	}
	c.queue = append(c.queue, o)
	c.queued += size
	start := !c.writing
	c.writing = true
	c.mu.Unlock()
	if start {
		go c.writeLoop()
	}
}

// writeLoop writes queued messages in order and ends when the queue is
// empty: a connection has a writer goroutine only while it has output.
func (c *wsConn) writeLoop() {
	for {
		c.mu.Lock()
		if len(c.queue) == 0 || c.closed {
			c.writing = false
			c.queue = nil // an idle connection keeps no queue memory
			c.mu.Unlock()
			return
		}
		o := c.queue[0]
		c.queue[0] = wsOut{}
		c.queue = c.queue[1:]
		c.queued -= o.size()
		notes := c.notes
		c.mu.Unlock()
		err := c.write(o)
		switch {
		case o.note == nil:
			putBuf(o.buf)
		case err == nil:
			notes.Written()
		default:
			notes.Dropped()
		}
		if err != nil {
			c.closeWith(websocket.CloseAbnormalClosure, "")
			return
		}
	}
}

// write writes one message as one text frame; a notification's parts go
// straight into the connection's pooled write buffer.
func (c *wsConn) write(o wsOut) error {
	_ = c.ws.SetWriteDeadline(time.Now().Add(c.s.WebSocket.WriteTimeout))
	if o.note == nil {
		return c.ws.WriteMessage(websocket.TextMessage, *o.buf)
	}
	w, err := c.ws.NextWriter(websocket.TextMessage)
	if err != nil {
		return err
	}
	_, _ = w.Write(jsonrpc.NotificationHead())
	_, _ = io.WriteString(w, o.id)
	_, _ = w.Write(o.note.Tail())
	return w.Close() // a failed write above fails Close too
}
