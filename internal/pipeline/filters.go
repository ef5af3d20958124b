package pipeline

import (
	"context"
	"encoding/json"

	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/nodegate/nodegate/internal/limits"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// errFilterNotFound is go-ethereum's answer for a filter it does not hold
// (code -32000, its default for errors without a code of their own).
func errFilterNotFound() *jsonrpc.Error { return jsonrpc.NewError(-32000, "filter not found") }

// filterLimits puts filters under the key that installed them and log
// filters under eth_getLogs's limits:
//   - eth_newFilter is refused over the parameter limit, as eth_getLogs is,
//     and every new filter over the key's filter bound (filterbook.go);
//   - eth_getFilterLogs, eth_getFilterChanges and eth_uninstallFilter of a
//     filter the caller's key did not install (or that expired) answer as
//     the node does for an unknown id;
//   - eth_getFilterLogs is answered as an eth_getLogs of the filter's
//     object, with its result and duration limits (wide ranges split);
//   - eth_getFilterChanges of a log filter obeys the same result and
//     duration limits.
//
// Its book of filters is made once per network (EVM.Stages) and kept when
// the network takes other limits (a reload: withLimits) and by every
// pipeline that serves the network, so a reload forgets no filter.
// limits nil: docs/spec.md's.
type filterLimits struct {
	limits *limits.Set
	book   *filterBook
}

func (filterLimits) Name() string { return "filterLimits" }

func (f filterLimits) withLimits(set *limits.Set) Stage {
	return filterLimits{limits: set, book: f.book}
}

func (f filterLimits) Wrap(next Handler) Handler {
	book := f.book
	return func(ctx context.Context, c *Call) *jsonrpc.Response {
		if c.Rule != nil && c.Rule.Session == methods.SessionSubscribe {
			if filter, ok := logsSubscription(c.Req.Params); ok {
				if e := limits.CheckParams(f.limits.For(planLimits(c)), filter); e != nil {
					return jsonrpc.ErrorResponse(e)
				}
			}
			return next(ctx, c)
		}
		if c.Rule == nil || c.Rule.Limit != methods.LimitFilter {
			return next(ctx, c)
		}
		switch c.Req.Method {
		case "eth_newFilter":
			return newLogFilter(ctx, c, f.limits, book, next)
		case "eth_newBlockFilter":
			return newFilter(ctx, c, book, next, blockFilter, nil)
		case "eth_newPendingTransactionFilter":
			return newFilter(ctx, c, book, next, pendingTxFilter, nil)
		}
		id, _ := firstParsed[rpc.ID](c)
		if id == nil { // not reachable: the rule decodes the id
			return jsonrpc.ErrorResponse(errFilterNotFound())
		}
		ref := filterRef{network: c.Network.Name, id: string(*id)}
		entry, ok := book.lookup(ref, owner(c))
		switch c.Req.Method {
		case "eth_uninstallFilter":
			if !ok {
				return &jsonrpc.Response{Result: json.RawMessage("false")} // the node's answer for an unknown id
			}
			book.remove(ref)
			return next(ctx, c)
		case "eth_getFilterLogs":
			if !ok || entry.kind != logFilter {
				return jsonrpc.ErrorResponse(errFilterNotFound())
			}
			return forget(book, ref, filterLogs(ctx, c, f.limits, entry, next))
		case "eth_getFilterChanges":
			if !ok {
				return jsonrpc.ErrorResponse(errFilterNotFound())
			}
			book.touch(ref)
			if entry.kind != logFilter {
				return forget(book, ref, next(ctx, c))
			}
			v := f.limits.For(planLimits(c))
			return forget(book, ref, limits.GetFilterChanges(ctx, v, func(ctx context.Context) *jsonrpc.Response { return next(ctx, c) }))
		}
		return next(ctx, c)
	}
}

// newLogFilter checks eth_newFilter's object against eth_getLogs's
// parameter limit before the node installs it.
func newLogFilter(ctx context.Context, c *Call, set *limits.Set, book *filterBook, next Handler) *jsonrpc.Response {
	raw := jsonrpc.Element(c.Req.Params, 0)
	if e := limits.CheckParams(set.For(planLimits(c)), raw); e != nil {
		return jsonrpc.ErrorResponse(e)
	}
	return newFilter(ctx, c, book, next, logFilter, append([]byte(nil), raw...))
}

// newFilter installs a filter on the node within the key's bound and
// records it under the id the node returned.
func newFilter(ctx context.Context, c *Call, book *filterBook, next Handler, kind filterKind, crit []byte) *jsonrpc.Response {
	who := owner(c)
	if !book.reserve(who, len(crit)) {
		return jsonrpc.ErrorResponse(limits.ErrTooManyFilters(maxFiltersPerKey))
	}
	resp := next(ctx, c)
	var id string
	if resp.Err != nil || json.Unmarshal(resp.Result, &id) != nil || id == "" {
		book.release(who, len(crit))
		return resp
	}
	book.add(filterRef{network: c.Network.Name, id: id}, who, kind, crit)
	return resp
}

// filterLogs answers eth_getFilterLogs as eth_getLogs of the filter's
// object would be answered. A query made in one call is the client's own
// eth_getFilterLogs (the node's answer, its errors included); a wide range
// is asked in eth_getLogs sub-ranges.
func filterLogs(ctx context.Context, c *Call, set *limits.Set, f filterEntry, next Handler) *jsonrpc.Response {
	crit := new(filters.FilterCriteria)
	if err := json.Unmarshal(f.crit, crit); err != nil { // not reachable: decoded at eth_newFilter
		return jsonrpc.ErrorResponse(errFilterNotFound())
	}
	params := make([]byte, 0, len(f.crit)+2)
	params = append(append(append(params, '['), f.crit...), ']')
	getLogs, _ := c.Network.Methods.Lookup("eth_getLogs")
	b := limits.Backend{
		Logs: func(ctx context.Context, sp json.RawMessage, span *limits.Span) *jsonrpc.Response {
			if span == nil {
				return next(ctx, c)
			}
			sub := c.Sub(sp)
			sub.Req.Method = "eth_getLogs"
			sub.Rule = getLogs
			sub.Parsed = methods.Parsed{subFilter(crit, span)}
			return next(ctx, sub)
		},
		Call: c.Network.Read,
	}
	return limits.GetLogs(ctx, set.For(planLimits(c)), limits.Query{Params: params, Filter: crit}, b)
}

// forget drops a filter the node answered it does not know (a node that
// restarted, or another node of the pool), and returns the answer.
func forget(book *filterBook, ref filterRef, resp *jsonrpc.Response) *jsonrpc.Response {
	if resp.Err != nil && resp.Err.Message == "filter not found" {
		book.remove(ref)
	}
	return resp
}

// owner is who a filter belongs to: the caller's key ("" without keys).
func owner(c *Call) string {
	if c.Key == nil {
		return ""
	}
	return c.Key.ID
}

// firstParsed is the call's first decoded param when it has type T.
func firstParsed[T any](c *Call) (*T, bool) {
	if len(c.Parsed) == 0 {
		return nil, false
	}
	v, ok := c.Parsed[0].(*T)
	return v, ok
}

// logsSubscription is the filter of eth_subscribe("logs", filter), as
// go-ethereum reads the subscription's name; ok is false for another
// subscription, or logs without a filter (nothing to count).
func logsSubscription(params []byte) (filter []byte, ok bool) {
	var name string
	if json.Unmarshal(jsonrpc.Element(params, 0), &name) != nil || name != "logs" {
		return nil, false
	}
	filter = jsonrpc.Element(params, 1)
	return filter, filter != nil && string(filter) != "null"
}
