package observe

import (
	"time"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/prometheus/client_golang/prometheus"
)

// Live is the collector of state read at scrape time rather than counted
// on the request path: upstream heads, lag and in-flight attempts, the
// best head per network, WebSocket connections, subscriptions and
// notifications, and the key store's freshness.
type Live struct {
	// Networks are the served networks (their pools and hubs).
	Networks func() []*pipeline.Network
	// WebSockets is the number of open client WebSocket connections.
	WebSockets func() int64
	// Keys is the key cache (nil: no key series).
	Keys *keys.Cache
}

var (
	descHead       = prometheus.NewDesc("nodegate_upstream_head", "Last block number the upstream reported.", []string{"network", "upstream"}, nil)
	descLag        = prometheus.NewDesc("nodegate_upstream_lag_blocks", "Blocks the upstream is behind the best head of its network's healthy upstreams.", []string{"network", "upstream"}, nil)
	descUpInFlight = prometheus.NewDesc("nodegate_upstream_in_flight", "Attempts on the upstream waiting for an answer.", []string{"network", "upstream"}, nil)
	descWritesDrop = prometheus.NewDesc("nodegate_upstream_writes_dropped_total", "Broadcast writes not sent to the upstream because it had its bound of writes pending.", []string{"network", "upstream"}, nil)
	descBestHead   = prometheus.NewDesc("nodegate_network_head", "Best head among the network's healthy upstreams.", []string{"network"}, nil)
	descWSConns    = prometheus.NewDesc("nodegate_websocket_connections", "Open client WebSocket connections.", nil, nil)
	descWSSubs     = prometheus.NewDesc("nodegate_websocket_subscriptions", "Open client subscriptions (eth_subscribe).", []string{"network"}, nil)
	descWSNotes    = prometheus.NewDesc("nodegate_websocket_notifications_total", "Subscription notifications handed to client connections (outcome=sent) or given up before (outcome=dropped).", []string{"network", "outcome"}, nil)
	descKeyAge     = prometheus.NewDesc("nodegate_keystore_refresh_age_seconds", "Seconds since the key store last answered this replica's refresh.", nil, nil)
	descKeysLoaded = prometheus.NewDesc("nodegate_keys_loaded", "Usable keys in this replica's memory (static keys included).", nil, nil)
)

// Describe implements prometheus.Collector.
func (l *Live) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descHead, descLag, descUpInFlight, descWritesDrop, descBestHead, descWSConns, descWSSubs, descWSNotes, descKeyAge, descKeysLoaded} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (l *Live) Collect(ch chan<- prometheus.Metric) {
	if l.Networks != nil {
		for _, n := range l.Networks() {
			if n.Pool != nil {
				ch <- prometheus.MustNewConstMetric(descBestHead, prometheus.GaugeValue, float64(n.Pool.BestHead()), n.Name)
				for _, st := range n.Pool.Status() {
					ch <- prometheus.MustNewConstMetric(descHead, prometheus.GaugeValue, float64(st.Head), n.Name, st.Name)
					ch <- prometheus.MustNewConstMetric(descLag, prometheus.GaugeValue, float64(st.Lag), n.Name, st.Name)
					ch <- prometheus.MustNewConstMetric(descUpInFlight, prometheus.GaugeValue, float64(st.InFlight), n.Name, st.Name)
					ch <- prometheus.MustNewConstMetric(descWritesDrop, prometheus.CounterValue, float64(st.WritesDropped), n.Name, st.Name)
				}
			}
			if n.Subs != nil {
				st := n.Subs.Stats()
				ch <- prometheus.MustNewConstMetric(descWSSubs, prometheus.GaugeValue, float64(st.Subscriptions), n.Name)
				ch <- prometheus.MustNewConstMetric(descWSNotes, prometheus.CounterValue, float64(st.Sent), n.Name, "sent")
				ch <- prometheus.MustNewConstMetric(descWSNotes, prometheus.CounterValue, float64(st.Dropped), n.Name, "dropped")
			}
		}
	}
	if l.WebSockets != nil {
		ch <- prometheus.MustNewConstMetric(descWSConns, prometheus.GaugeValue, float64(l.WebSockets()))
	}
	if l.Keys != nil {
		age := 0.0
		if t := l.Keys.Checked(); t.UnixNano() > 0 {
			age = time.Since(t).Seconds()
		}
		ch <- prometheus.MustNewConstMetric(descKeyAge, prometheus.GaugeValue, age)
		ch <- prometheus.MustNewConstMetric(descKeysLoaded, prometheus.GaugeValue, float64(l.Keys.Len()))
	}
}
