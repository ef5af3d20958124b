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
// A string or a literal (most members of an answer) is skipped without
// setting up skipContainer's stack.
func skipValue(b []byte, i int) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return 0, errSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return skipContainer(b, i, 0)
	}
	j := skipLiteral(b, i)
	if j == i {
		return 0, errSyntax
	}
	return j, nil
}

// skipLiteral returns the index just past the run of literal bytes (a
// number, true, false, null, spelled or not) at b[i].
func skipLiteral(b []byte, i int) int {
	for i < len(b) && isLiteralByte(b[i]) {
		i++
	}
	return i
}

// skipContainer is skipValue for the object or array at b[i], inside
// depth open containers: one more than MaxDepth is errTooDeep.
func skipContainer(b []byte, i, depth int) (int, error) {
	if depth == MaxDepth {
		return 0, errTooDeep
	}
	end := closer(b[i])
	object := b[i] == '{'
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == end {
		return i + 1, nil
	}
	for {
		if object {
			_, j, err := keyEnd(b, i)
			if err != nil {
				return 0, err
			}
			i = skipSpace(b, j)
		}
		if i >= len(b) {
			return 0, errSyntax
		}
		var err error
		switch b[i] {
		case '"':
			i, err = skipString(b, i)
		case '{', '[':
			i, err = skipContainer(b, i, depth+1)
		default:
			j := skipLiteral(b, i)
			if j == i {
				err = errSyntax
			}
			i = j
		}
		if err != nil {
			return 0, err
		}
		i = skipSpace(b, i)
		switch {
		case i >= len(b):
			return 0, errSyntax
		case b[i] == end:
			return i + 1, nil
		case b[i] != ',':
			return 0, errSyntax
		}
		i = skipSpace(b, i+1)
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

// keyEnd reads `"key" :` starting at b[i]: ke is the index just past the
// key's closing quote, next the index after the colon.
func keyEnd(b []byte, i int) (ke, next int, err error) {
	if i >= len(b) || b[i] != '"' {
		return 0, 0, errSyntax
	}
	ke, err = skipString(b, i)
	if err != nil {
		return 0, 0, err
	}
	j := skipSpace(b, ke)
	if j >= len(b) || b[j] != ':' {
		return 0, 0, errSyntax
	}
	return ke, j + 1, nil
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	i++
	for {
		// Jump to the next quote (IndexByte is vectorised), then count the
		// backslashes before it: an odd run escapes it. Control characters
		// are not checked here: requests are checked valid JSON before they are
		// scanned, and a node's answer is passed on as it came.
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, errSyntax
		}
		q := i + j
		if j == 0 || b[q-1] != '\\' {
			return q + 1, nil // no escape before it: most strings
		}
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
		ks := skipSpace(b, i)
		ke, j, err := keyEnd(b, ks)
		if err != nil {
			return 0, err
		}
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
