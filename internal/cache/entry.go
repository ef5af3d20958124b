package cache

import (
	"encoding/binary"

	"github.com/ethereum/go-ethereum/common"
)

// An entry carries the block its answer is about: a header of a marker
// byte, the block's number (8 bytes, big endian) and hash (32 bytes,
// zero when not known), then the answer. On a read, an entry whose block
// the canonical chain holds with another hash is dropped, not served; a
// reorg drops every entry at or above its fork point (DropFrom). A value
// without the header (written by an older nodegate) is a miss.

// Block is the block an answer is about.
type Block struct {
	Number uint64
	Hash   common.Hash // zero: not known
}

// Canon is the canonical chain an entry is judged against on a read: the
// canonical hash at height n and whether it is known
// (upstream.Pool.Canonical).
type Canon interface {
	Canonical(n uint64) (common.Hash, bool)
}

const (
	entryMark   = 0xb1 // no JSON value starts with it
	entryHeader = 1 + 8 + common.HashLength
)

// encodeEntry is answer behind b's header, in a new slice.
func encodeEntry(b Block, answer []byte) []byte {
	v := make([]byte, entryHeader, entryHeader+len(answer))
	v[0] = entryMark
	binary.BigEndian.PutUint64(v[1:9], b.Number)
	copy(v[9:entryHeader], b.Hash[:])
	return append(v, answer...)
}

// decodeEntry splits a stored value into its block and answer.
func decodeEntry(v []byte) (Block, []byte, bool) {
	if len(v) <= entryHeader || v[0] != entryMark {
		return Block{}, nil, false
	}
	var b Block
	b.Number = binary.BigEndian.Uint64(v[1:9])
	copy(b.Hash[:], v[9:entryHeader])
	return b, v[entryHeader:], true
}

// canonical reports whether b may be served: chain does not hold its
// height, or holds it with b's hash (an entry without a hash is judged by
// number only: it is dropped by DropFrom, not here).
func canonical(chain Canon, b Block) bool {
	if chain == nil || b.Hash == (common.Hash{}) {
		return true
	}
	h, ok := chain.Canonical(b.Number)
	return !ok || h == b.Hash
}
