package limits

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/nodegate/nodegate/internal/deadline"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Fetch sends one call to the network's node and returns its answer, with
// the result as raw bytes.
type Fetch func(ctx context.Context, method string, params json.RawMessage) *jsonrpc.Response

// Span is a sub-range nodegate asks for, both ends included.
type Span struct{ From, To uint64 }

// LogsFetch sends one eth_getLogs. span is the sub-range when nodegate split
// the query, nil when params are the client's own.
type LogsFetch func(ctx context.Context, params json.RawMessage, span *Span) *jsonrpc.Response

// Backend is how GetLogs reaches the node.
type Backend struct {
	// Logs answers eth_getLogs calls.
	Logs LogsFetch
	// Call answers the calls that resolve tags to numbers.
	Call Fetch
}

// Query is one eth_getLogs call: its params as sent, and the filter object
// go-ethereum decoded from them (the method rules did).
type Query struct {
	Params json.RawMessage
	Filter *filters.FilterCriteria
}

// GetLogs answers an eth_getLogs within v's limits: it refuses a query with
// too many parameters, answers -32005 with a range that fits when more than
// v.GetLogsMaxResults logs match, and gives up (cancelling the upstream
// work) after v.GetLogsTimeout. Results that fit are the node's own bytes.
func GetLogs(ctx context.Context, v Values, q Query, b Backend) *jsonrpc.Response {
	raw := jsonrpc.Element(q.Params, 0)
	if e := CheckParams(v, raw); e != nil {
		return jsonrpc.ErrorResponse(e)
	}
	fields, _ := readFilter(raw) // CheckParams read it already
	qctx, cancel := context.WithTimeout(ctx, v.GetLogsTimeout)
	defer cancel()
	s := &search{max: v.GetLogsMaxResults, params: q.Params, crit: q.Filter, fields: fields, b: b, res: resolver{call: b.Call}}
	resp := s.run(qctx)
	if deadline.Expired(qctx) && !deadline.Expired(ctx) {
		return jsonrpc.ErrorResponse(ErrTimeout())
	}
	return resp
}

// CheckParams refuses a filter object (eth_getLogs's, eth_newFilter's)
// with more parameters than v allows, as eth_getLogs refuses it.
func CheckParams(v Values, filter []byte) *jsonrpc.Error {
	n, err := CountParams(filter)
	if err != nil {
		return jsonrpc.ErrInvalidParams("invalid argument 0: " + err.Error())
	}
	if n > v.GetLogsMaxParams {
		return ErrTooManyParams(v.GetLogsMaxParams)
	}
	return nil
}

// GetFilterChanges answers an eth_getFilterChanges of a log filter within
// eth_getLogs's result and duration limits: the node's answer when it holds
// at most v.GetLogsMaxResults logs, else the same -32005 as eth_getLogs.
// fetch asks the node.
func GetFilterChanges(ctx context.Context, v Values, fetch func(ctx context.Context) *jsonrpc.Response) *jsonrpc.Response {
	qctx, cancel := context.WithTimeout(ctx, v.GetLogsTimeout)
	defer cancel()
	s := &search{max: v.GetLogsMaxResults, b: Backend{Logs: func(ctx context.Context, _ json.RawMessage, _ *Span) *jsonrpc.Response {
		return fetch(ctx)
	}}}
	resp := s.single(qctx, nil)
	if deadline.Expired(qctx) && !deadline.Expired(ctx) {
		return jsonrpc.ErrorResponse(ErrTimeout())
	}
	return resp
}

// search is one eth_getLogs in progress.
type search struct {
	max    int
	params json.RawMessage
	crit   *filters.FilterCriteria
	fields filterFields
	b      Backend
	res    resolver
}

func (s *search) run(ctx context.Context) *jsonrpc.Response {
	if s.crit == nil || s.crit.BlockHash != nil {
		return s.single(ctx, nil) // one block: one call
	}
	from, to := boundOf(s.crit.FromBlock), boundOf(s.crit.ToBlock)
	if from.tag == rpc.PendingBlockNumber || to.tag == rpc.PendingBlockNumber {
		// What pending logs are is the node's to say (go-ethereum refuses
		// them): the query goes as sent, and its answer is counted.
		return s.single(ctx, nil)
	}
	if from.isNum && to.isNum && (to.num < from.num || to.num-from.num < firstSpan) {
		return s.single(ctx, &from.num) // small, or a range the node refuses
	}
	f, err := s.res.resolve(ctx, from)
	if err == nil {
		var t uint64
		if t, err = s.res.resolve(ctx, to); err == nil && t >= f && t-f >= firstSpan {
			return s.split(ctx, f, t)
		}
		if err == nil {
			return s.single(ctx, &f)
		}
	}
	if ctx.Err() != nil {
		return jsonrpc.ErrorResponse(jsonrpc.ErrInternal("request cancelled"))
	}
	// A tag the node cannot resolve: the node answers the query itself
	// (with its own error, usually), still within the limits.
	return s.single(ctx, nil)
}

// single sends the query as the client sent it and counts the answer.
// from is the query's first block when known.
func (s *search) single(ctx context.Context, from *uint64) *jsonrpc.Response {
	resp := s.b.Logs(ctx, s.params, nil)
	if resp.Err != nil || string(resp.Result) == "null" {
		return resp
	}
	count := 0
	var first, over []byte
	err := jsonrpc.Elements(resp.Result, func(e []byte) bool {
		if count == s.max {
			over = e
			return false
		}
		if count == 0 {
			first = e
		}
		count++
		return true
	})
	if err != nil {
		return notLogs()
	}
	if over != nil {
		return s.tooMany(from, first, over)
	}
	return resp
}

// split asks [f, t] in sub-ranges and splices the logs of their answers into
// one array, byte for byte, stopping at the first log over the limit.
func (s *search) split(ctx context.Context, f, t uint64) *jsonrpc.Response {
	out := make([]byte, 1, 4096)
	out[0] = '['
	count := 0
	z := newSizer()
	for a := f; ; {
		span := z.next(s.max + 1 - count)
		b := t
		if t-a >= span {
			b = a + span - 1
		}
		resp := s.b.Logs(ctx, s.subParams(a, b), &Span{From: a, To: b})
		if resp.Err != nil {
			return resp
		}
		got := 0
		var over []byte
		err := jsonrpc.Elements(resp.Result, func(e []byte) bool {
			if count == s.max {
				over = e
				return false
			}
			if count > 0 {
				out = append(out, ',')
			}
			out = append(out, e...)
			count++
			got++
			return true
		})
		if err != nil && string(resp.Result) != "null" {
			return notLogs()
		}
		if over != nil {
			return s.tooMany(&f, nil, over)
		}
		z.observe(b-a+1, got)
		if b == t {
			break
		}
		a = b + 1
	}
	return &jsonrpc.Response{Result: append(out, ']')}
}

// subParams builds the params of one sub-range: the client's address and
// topics, as sent, with numeric bounds.
func (s *search) subParams(a, b uint64) json.RawMessage {
	p := make([]byte, 0, 64+len(s.fields.Address)+len(s.fields.Topics))
	p = append(p, `[{"fromBlock":"`...)
	p = append(p, hexutil.EncodeUint64(a)...)
	p = append(p, `","toBlock":"`...)
	p = append(p, hexutil.EncodeUint64(b)...)
	p = append(p, '"')
	if len(s.fields.Address) > 0 {
		p = append(p, `,"address":`...)
		p = append(p, s.fields.Address...)
	}
	if len(s.fields.Topics) > 0 {
		p = append(p, `,"topics":`...)
		p = append(p, s.fields.Topics...)
	}
	return append(p, "}]"...)
}

// tooMany builds the -32005 answer. The logs come in block order, so every
// block before the one holding the log over the limit fits: the range named
// is [from, that block - 1]. from, when unknown, is the first log's block.
func (s *search) tooMany(from *uint64, first, over []byte) *jsonrpc.Response {
	ob, err := parseLogBlock(over)
	if err != nil {
		return jsonrpc.ErrorResponse(ErrTooManyResults(s.max, 0, 0, false))
	}
	var start uint64
	if from != nil {
		start = *from
	} else if start, err = parseLogBlock(first); err != nil {
		return jsonrpc.ErrorResponse(ErrTooManyResults(s.max, 0, 0, false))
	}
	return jsonrpc.ErrorResponse(ErrTooManyResults(s.max, start, ob-1, ob > start))
}

func notLogs() *jsonrpc.Response {
	slog.Warn("upstream answered eth_getLogs with something that is not an array")
	return jsonrpc.ErrorResponse(jsonrpc.ErrUpstreamUnavailable())
}
