package devnet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Do answers a raw JSON-RPC body (one request or a batch) of Starknet
// JSON-RPC SpecVersion with the raw response body, as the embedded EVM
// node does. Params may be positional (an array) or by name (an object),
// as Starknet clients send both.
func (d *Devnet) Do(ctx context.Context, body []byte) ([]byte, error) {
	return d.do(ctx, spec010, body)
}

// Do08 is Do in Starknet JSON-RPC SpecVersion08, for older clients.
func (d *Devnet) Do08(ctx context.Context, body []byte) ([]byte, error) {
	return d.do(ctx, spec08, body)
}

func (d *Devnet) do(ctx context.Context, s *spec, body []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(body) > d.cfg.MaxBodyBytes {
		return d.whole(jsonrpc.ErrInvalidRequest(fmt.Sprintf("request body over %d bytes", d.cfg.MaxBodyBytes))), nil
	}
	if !json.Valid(body) {
		return d.whole(jsonrpc.ErrParse()), nil
	}
	body = bytes.TrimSpace(body)
	r := &request{ctx: ctx, account: admission.AccountOf(ctx), hashLeft: int64(d.cfg.MaxRequestHashUnits)}
	if body[0] != '[' {
		return d.one(s, r, nil, body), nil
	}
	n := 0
	tooMany := false
	_ = jsonrpc.Elements(body, func([]byte) bool { n++; tooMany = n > d.cfg.MaxBatch; return !tooMany })
	switch {
	case tooMany:
		return d.whole(jsonrpc.ErrInvalidRequest("batch too large")), nil
	case n == 0:
		return d.whole(jsonrpc.ErrInvalidRequest("empty batch")), nil
	}
	out := make([]byte, 0, 256*n)
	out = append(out, '[')
	first := true
	_ = jsonrpc.Elements(body, func(elem []byte) bool {
		if !first {
			out = append(out, ',')
		}
		first = false
		out = d.one(s, r, out, elem)
		return true
	})
	return append(out, ']'), nil
}

// whole answers a body that could not be read as requests.
func (d *Devnet) whole(e *jsonrpc.Error) []byte {
	return jsonrpc.AppendResponse(nil, jsonrpc.NullID(), jsonrpc.ErrorResponse(e))
}

// envelope is one request object.
type envelope struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// one answers one request object of the body r, appending the response
// to buf.
func (d *Devnet) one(s *spec, r *request, buf, raw []byte) []byte {
	var env envelope
	if raw[0] != '{' || json.Unmarshal(raw, &env) != nil {
		return jsonrpc.AppendResponse(buf, jsonrpc.NullID(), jsonrpc.ErrorResponse(jsonrpc.ErrInvalidRequest("invalid request")))
	}
	id := env.ID
	if !validID(id) {
		return jsonrpc.AppendResponse(buf, jsonrpc.NullID(), jsonrpc.ErrorResponse(jsonrpc.ErrInvalidRequest("invalid request: id must be a number, a string or null")))
	}
	var e *jsonrpc.Error
	switch {
	case env.JSONRPC == nil || *env.JSONRPC != "2.0":
		e = jsonrpc.ErrInvalidRequest(`invalid request: jsonrpc must be "2.0"`)
	case env.Method == nil || *env.Method == "":
		e = jsonrpc.ErrInvalidRequest("invalid request: method must be a non-empty string")
	case len(env.Params) > 0 && env.Params[0] != '[' && env.Params[0] != '{' && string(env.Params) != "null":
		e = jsonrpc.ErrInvalidParams("params must be an array or an object")
	}
	if e != nil {
		return jsonrpc.AppendResponse(buf, id, jsonrpc.ErrorResponse(e))
	}
	result, e := d.call(s, r, *env.Method, env.Params)
	if e != nil {
		return jsonrpc.AppendResponse(buf, id, jsonrpc.ErrorResponse(e))
	}
	return jsonrpc.AppendResponse(buf, id, &jsonrpc.Response{Result: result})
}

func validID(id json.RawMessage) bool {
	if len(id) == 0 || len(id) > jsonrpc.MaxIDLength {
		return false
	}
	c := id[0]
	return c == '"' || c == '-' || c == 'n' || (c >= '0' && c <= '9')
}

// remoteCaller is a client of Handler, counted by its address.
type remoteCaller string

func (c remoteCaller) Account() string { return admission.Account(nil, string(c)) }

// Handler serves the devnet over plain HTTP POST (for running it on its
// own, e.g. behind `nodegate node`): SpecVersion on any path,
// SpecVersion08 on a path ending in /rpc/v0_8 (as Juno and Pathfinder
// name their versions). The gateway calls Do and Do08 in process.
func (d *Devnet) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "use POST", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, int64(d.cfg.MaxBodyBytes)+1))
		if err != nil {
			http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
			return
		}
		s := spec010
		if strings.HasSuffix(r.URL.Path, "/rpc/v0_8") {
			s = spec08
		}
		ctx := r.Context()
		if admission.AccountOf(ctx) == "" { // served on its own: the client's address is its account
			ctx = admission.WithCaller(ctx, remoteCaller(r.RemoteAddr))
		}
		out, err := d.do(ctx, s, body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
}
