package service_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
)

// TestDrainAnswersIdleKeepAlives: a keep-alive connection idle when the
// drain starts is not closed under its client: the request it sends next
// is answered (200), with Connection: close, and then the server closes
// it. (Closing idle connections at the drain's start made a request sent
// at that moment read EOF.)
func TestDrainAnswersIdleKeepAlives(t *testing.T) {
	s := start(t, nil)
	c, err := testenv.DialKept(t, s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	path := "/v3/" + s.GeneratedKey
	if status, closing, err := c.Post(path); err != nil || status != http.StatusOK || closing {
		t.Fatalf("before the drain: %d close=%v %v", status, closing, err)
	}
	s.Drain()
	status, closing, err := c.Post(path)
	if err != nil || status != http.StatusOK {
		t.Fatalf("the idle keep-alive connection's next request during the drain: %d %v", status, err)
	}
	if !closing {
		t.Fatal("an answer during the drain did not ask the client to close (Connection: close)")
	}
	if !closedByServer(c, 10*time.Second) {
		t.Fatal("the connection stayed open after its answer during the drain")
	}
}
