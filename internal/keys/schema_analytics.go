package keys

// analyticsSchema is migration 10: the analytics of usage_analytics.go,
// finer than nodegate_usage's days and with what the days do not keep.
//
//   - nodegate_usage_minutes: requests, credits and errors by kind per
//     key, UTC minute (YYYY-MM-DDTHH:MM), network and method, summed in
//     by every replica as nodegate_usage is. Kept MinuteRetention.
//   - nodegate_usage_latency: a latency histogram per key, period,
//     network and method, one row per bucket that saw calls (keys.
//     LatencyBucket: fixed buckets, so replicas' rows add up). span is
//     'm' (at is a minute, kept MinuteRetention) or 'd' (at is a day,
//     kept DayRetention).
//   - nodegate_usage_codes: the calls answered with a JSON-RPC error, by
//     its code, per key, period, network and method; span as above.
var analyticsSchema = []string{
	`CREATE TABLE nodegate_usage_minutes (
		minute              TEXT NOT NULL,
		key_id              TEXT NOT NULL,
		network             TEXT NOT NULL,
		method              TEXT NOT NULL,
		requests            BIGINT NOT NULL DEFAULT 0,
		credits             BIGINT NOT NULL DEFAULT 0,
		errors_rate_limited BIGINT NOT NULL DEFAULT 0,
		errors_daily        BIGINT NOT NULL DEFAULT 0,
		errors_invalid      BIGINT NOT NULL DEFAULT 0,
		errors_forbidden    BIGINT NOT NULL DEFAULT 0,
		errors_limit        BIGINT NOT NULL DEFAULT 0,
		errors_upstream     BIGINT NOT NULL DEFAULT 0,
		errors_node         BIGINT NOT NULL DEFAULT 0,
		PRIMARY KEY (minute, key_id, network, method)
	)`,
	`CREATE INDEX nodegate_usage_minutes_key ON nodegate_usage_minutes (key_id, minute)`,
	`CREATE TABLE nodegate_usage_latency (
		span    TEXT NOT NULL,
		at      TEXT NOT NULL,
		key_id  TEXT NOT NULL,
		network TEXT NOT NULL,
		method  TEXT NOT NULL,
		bucket  BIGINT NOT NULL,
		calls   BIGINT NOT NULL DEFAULT 0,
		PRIMARY KEY (span, at, key_id, network, method, bucket)
	)`,
	`CREATE INDEX nodegate_usage_latency_key ON nodegate_usage_latency (key_id, span, at)`,
	`CREATE TABLE nodegate_usage_codes (
		span    TEXT NOT NULL,
		at      TEXT NOT NULL,
		key_id  TEXT NOT NULL,
		network TEXT NOT NULL,
		method  TEXT NOT NULL,
		code    BIGINT NOT NULL,
		calls   BIGINT NOT NULL DEFAULT 0,
		PRIMARY KEY (span, at, key_id, network, method, code)
	)`,
	`CREATE INDEX nodegate_usage_codes_key ON nodegate_usage_codes (key_id, span, at)`,
}
