package testenv

import (
	"time"

	"github.com/gorilla/websocket"
)

// NextMessage reads ws's next message on a goroutine of its own, within
// the given time: the channel gets its text, or the read error's.
func NextMessage(ws *websocket.Conn, within time.Duration) <-chan string {
	out := make(chan string, 1)
	go func() {
		_ = ws.SetReadDeadline(time.Now().Add(within))
		_, msg, err := ws.ReadMessage()
		if err != nil {
			msg = []byte(err.Error())
		}
		out <- string(msg)
	}()
	return out
}
