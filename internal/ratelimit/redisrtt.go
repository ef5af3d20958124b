package ratelimit

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// rttHook times every Redis command and pipeline (the round trip as the
// limiter sees it: queueing for a connection included).
type rttHook struct{ obs prometheus.Observer }

func (h rttHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h rttHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmd)
		h.obs.Observe(time.Since(start).Seconds())
		return err
	}
}

func (h rttHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmds)
		h.obs.Observe(time.Since(start).Seconds())
		return err
	}
}
