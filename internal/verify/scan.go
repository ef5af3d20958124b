package verify

import (
	"encoding/hex"
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Reading the few fields a check needs without decoding the answer: the
// answer is scanned in place (jsonrpc.Fields), and hashes and quantities
// are read into fixed-size values.

// errNotObject: an answer that should be a JSON object is not one.
var errNotObject = errors.New("not a JSON object")

// hexInto reads a JSON string "0x…" of exactly len(dst) bytes into dst.
func hexInto(v, dst []byte) bool {
	if len(v) != 4+2*len(dst) || v[0] != '"' || v[1] != '0' || v[2] != 'x' || v[len(v)-1] != '"' {
		return false
	}
	_, err := hex.Decode(dst, v[3:len(v)-1])
	return err == nil
}

// hashOf reads a JSON string holding a 32-byte hash.
func hashOf(v []byte) (common.Hash, bool) {
	var h common.Hash
	return h, hexInto(v, h[:])
}

// quantityOf reads a JSON string holding a hex quantity ("0x1f").
func quantityOf(v []byte) (uint64, bool) {
	if len(v) < 4 || len(v) > 20 || v[0] != '"' || v[1] != '0' || v[2] != 'x' || v[len(v)-1] != '"' {
		return 0, false
	}
	var n uint64
	for _, c := range v[3 : len(v)-1] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		n = n<<4 | uint64(d)
	}
	return n, true
}

// fields scans the object b, giving fn each member; an answer that is not
// an object is an error.
func fields(b []byte, fn func(key, value []byte)) error {
	if len(b) == 0 || b[0] != '{' {
		return errNotObject
	}
	return jsonrpc.Fields(b, func(key, value []byte) bool {
		fn(key, value)
		return true
	})
}
