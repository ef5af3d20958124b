package jsonrpc

import (
	"bytes"
	"errors"
)

// errSyntax is returned by the scanner for input that is not well-formed JSON
// at the level the scanner checks (structure, strings, nesting).
var errSyntax = errors.New("invalid json")

// errTooDeep is returned for nesting deeper than MaxDepth: the input may be
// valid JSON, so it must not be reported as a parse error.
var errTooDeep = errors.New("json nested too deeply")

// MaxDepth bounds nesting so that hostile input cannot exhaust the stack.
const MaxDepth = 128

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value starting at or after
// b[i]. It checks structure (brackets, strings, commas, colons) but not the
// spelling of numbers and literals: it exists to find where raw values begin
// and end without decoding them, so that results pass through untouched.
func skipValue(b []byte, i int) (int, error) {
	var stack [MaxDepth]byte // open brackets, no allocation
	depth := 0
	for {
		// A value.
		i = skipSpace(b, i)
		if i >= len(b) {
			return 0, errSyntax
		}
		switch c := b[i]; {
		case c == '"':
			j, err := skipString(b, i)
			if err != nil {
				return 0, err
			}
			i = j
		case c == '{' || c == '[':
			if depth == MaxDepth {
				return 0, errTooDeep
			}
			stack[depth] = c
			depth++
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == closer(c) {
				depth--
				i++
				break
			}
			if c == '{' {
				j, err := skipKey(b, i)
				if err != nil {
					return 0, err
				}
				i = j
			}
			continue
		default:
			j := i
			for j < len(b) && isLiteralByte(b[j]) {
				j++
			}
			if j == i {
				return 0, errSyntax
			}
			i = j
		}
		// After a value: close containers, or step to the next element.
		for {
			if depth == 0 {
				return i, nil
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return 0, errSyntax
			}
			top := stack[depth-1]
			if b[i] == closer(top) {
				depth--
				i++
				continue
			}
			if b[i] != ',' {
				return 0, errSyntax
			}
			i++
			if top == '{' {
				j, err := skipKey(b, skipSpace(b, i))
				if err != nil {
					return 0, err
				}
				i = j
			}
			break
		}
	}
}

func closer(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

func isLiteralByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// skipKey skips `"key" :` starting at b[i] and returns the index after the colon.
func skipKey(b []byte, i int) (int, error) {
	if i >= len(b) || b[i] != '"' {
		return 0, errSyntax
	}
	j, err := skipString(b, i)
	if err != nil {
		return 0, err
	}
	j = skipSpace(b, j)
	if j >= len(b) || b[j] != ':' {
		return 0, errSyntax
	}
	return j + 1, nil
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	i++
	for {
		// Jump to the next quote (IndexByte is vectorised), then count the
		// backslashes before it: an odd run escapes it. Control characters
		// are not checked here: requests are json.Valid before they are
		// scanned, and a node's answer is passed on as it came.
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, errSyntax
		}
		q := i + j
		n := 0
		for p := q - 1; p >= i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		i = q + 1
	}
}

// objectFields calls fn for each top-level member of the JSON object in b,
// with the raw key (without quotes, escapes untouched) and the raw value.
// It stops early when fn returns false.
func objectFields(b []byte, fn func(key, value []byte) bool) error {
	end, err := objectFieldsAt(b, skipSpace(b, 0), fn)
	if err != nil || end < 0 {
		return err
	}
	return trailing(b, end)
}

// objectFieldsAt is objectFields for the object that starts at b[i],
// followed by anything: it returns the index just past the object, or -1
// when fn stopped the scan.
func objectFieldsAt(b []byte, i int, fn func(key, value []byte) bool) (int, error) {
	if i >= len(b) || b[i] != '{' {
		return 0, errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		i = skipSpace(b, i)
		ks := i
		j, err := skipKey(b, i)
		if err != nil {
			return 0, err
		}
		ke, _ := skipString(b, ks)
		vs := skipSpace(b, j)
		ve, err := skipValue(b, vs)
		if err != nil {
			return 0, err
		}
		if !fn(b[ks+1:ke-1], b[vs:ve]) {
			return -1, nil
		}
		i = skipSpace(b, ve)
		if i >= len(b) {
			return 0, errSyntax
		}
		if b[i] == '}' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return 0, errSyntax
		}
		i++
	}
}

// arrayElements calls fn for each element of the JSON array in b.
func arrayElements(b []byte, fn func(elem []byte) bool) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return trailing(b, i+1)
	}
	for {
		vs := skipSpace(b, i)
		ve, err := skipValue(b, vs)
		if err != nil {
			return err
		}
		if !fn(b[vs:ve]) {
			return nil
		}
		i = skipSpace(b, ve)
		if i >= len(b) {
			return errSyntax
		}
		if b[i] == ']' {
			return trailing(b, i+1)
		}
		if b[i] != ',' {
			return errSyntax
		}
		i++
	}
}

func trailing(b []byte, i int) error {
	if skipSpace(b, i) != len(b) {
		return errSyntax
	}
	return nil
}

// Element is the i-th element (from 0) of the JSON array b, as raw bytes;
// nil when b is not an array or has no such element.
func Element(b []byte, i int) []byte {
	var elem []byte
	n := 0
	_ = arrayElements(b, func(e []byte) bool {
		if n == i {
			elem = e
			return false
		}
		n++
		return true
	})
	return elem
}
