package service_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestSubscriptionFilterBudget: the filters of a key's live logs
// subscriptions are bounded together, across its connections, by its
// plan's max_subscription_params: one that would pass it is refused with
// -32005 saying so, a subscription without a filter (and newHeads) is not
// counted, and an unsubscribe or a closed connection gives its filter's
// size back.
func TestSubscriptionFilterBudget(t *testing.T) {
	s := start(t, func(c *config.Config) {
		c.Plans["team"] = config.Plan{MaxSubscriptionParams: 10}
	})
	dial := func() *websocket.Conn {
		c, _, err := websocket.DefaultDialer.Dial(wsEndpoint(s), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	a, b := dial(), dial()
	topic := `"0x` + strings.Repeat("1", 64) + `"`
	six := `["logs",{"address":` + addresses(6) + `}]`
	first, err := wsAsk(t, a, 1, "eth_subscribe", six)
	if err != nil {
		t.Fatalf("6 of 10: %v", err)
	}
	if _, err := wsAsk(t, b, 2, "eth_subscribe", `["logs",{"address":`+addresses(3)+`,"topics":[`+topic+`]}]`); err != nil {
		t.Fatalf("10 of 10, on another connection: %v", err)
	}
	_, err = wsAsk(t, b, 3, "eth_subscribe", `["logs",{"topics":[null,`+topic+`]}]`)
	if err == nil || err.Code != -32005 || !strings.Contains(err.Message, "10 live, 1 in this filter, plan limit 10 (max_subscription_params)") {
		t.Fatalf("11 of 10: %+v", err)
	}
	for i, params := range []string{`["logs"]`, `["logs",{}]`, `["newHeads"]`} {
		if _, err := wsAsk(t, b, 10+i, "eth_subscribe", params); err != nil {
			t.Fatalf("%s with the filters full: %v", params, err)
		}
	}
	if _, err := wsAsk(t, a, 4, "eth_unsubscribe", `[`+string(first)+`]`); err != nil {
		t.Fatal(err)
	}
	if _, err := wsAsk(t, b, 5, "eth_subscribe", six); err != nil {
		t.Fatalf("after an unsubscribe: %v", err)
	}
	b.Close()
	id := 100
	testenv.WaitFor(t, 20*time.Second, "the closed connection's filters given back", func() bool {
		id++
		_, err := wsAsk(t, a, id, "eth_subscribe", `["logs",{"address":`+addresses(10)+`}]`)
		return err == nil
	})
}
