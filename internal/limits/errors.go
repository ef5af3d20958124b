package limits

import (
	"fmt"
	"strconv"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/jsonrpc"
)

// ErrTooManyParams answers an eth_getLogs with more parameters than allowed.
func ErrTooManyParams(max int) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf("query exceeds max parameters (%d)", max))
}

// ErrTooManyFilters answers a new filter over the filters a key may hold.
func ErrTooManyFilters(max int) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf("too many filters (at most %d per key); uninstall some or let them expire", max))
}

// ErrTimeout answers an eth_getLogs that ran over its duration limit.
func ErrTimeout() *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "query timeout exceeded")
}

// ErrTooManyResults answers an eth_getLogs that matched more than max logs.
// When a range [from, to] starting at the query's first block holds at most
// max logs, data names it so that the client can page; when the first block
// alone holds more, no block range fits and data carries only the limit.
func ErrTooManyResults(max int, from, to uint64, fits bool) *jsonrpc.Error {
	e := jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf("query returned more than %d results", max))
	data := make([]byte, 0, 64)
	data = append(data, '{')
	if fits {
		data = append(data, `"from":"`...)
		data = append(data, hexutil.EncodeUint64(from)...)
		data = append(data, `","to":"`...)
		data = append(data, hexutil.EncodeUint64(to)...)
		data = append(data, `",`...)
	}
	data = append(data, `"limit":`...)
	data = strconv.AppendInt(data, int64(max), 10)
	e.Data = append(data, '}')
	return e
}
