package limits

import (
	"encoding/json"
	"errors"

	"github.com/nodegate/nodegate/jsonrpc"
)

// filterFields are the parts of a filter object the limits look at, kept as
// raw bytes. encoding/json matches keys case-insensitively, as go-ethereum
// does when it decodes the same object, so both read the same fields.
type filterFields struct {
	Address json.RawMessage `json:"address"`
	Topics  json.RawMessage `json:"topics"`
}

var errNotFilter = errors.New("filter is not an object")

func readFilter(raw []byte) (filterFields, error) {
	var f filterFields
	if err := json.Unmarshal(raw, &f); err != nil {
		return f, errNotFilter
	}
	return f, nil
}

// CountParams counts the parameters of a filter object as docs/spec.md's limit
// means them: every address, and every topic value, each alternative of a
// position counted. A null (a wildcard) constrains nothing and costs the
// node nothing, so it is not counted.
func CountParams(raw []byte) (int, error) {
	f, err := readFilter(raw)
	if err != nil {
		return 0, err
	}
	n, err := countValues(f.Address)
	if err != nil {
		return 0, err
	}
	if len(f.Topics) == 0 || f.Topics[0] != '[' {
		return n, nil
	}
	var inner error
	err = jsonrpc.Elements(f.Topics, func(pos []byte) bool {
		k, err := countValues(pos)
		if err != nil {
			inner = err
			return false
		}
		n += k
		return true
	})
	return n, errors.Join(err, inner)
}

// countValues counts a single value (1), null (0) or an array's non-null
// elements.
func countValues(v []byte) (int, error) {
	switch {
	case len(v) == 0 || string(v) == "null":
		return 0, nil
	case v[0] != '[':
		return 1, nil
	}
	n := 0
	err := jsonrpc.Elements(v, func(e []byte) bool {
		if string(e) != "null" {
			n++
		}
		return true
	})
	return n, err
}
