package jsonrpc

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// The scanner as it was before skipString searched short strings a word at
// a time and skipValue skipped strings and literals without its stack:
// the reference the fuzz test holds the scanner to, result for result.

// skipValueRef returns the index just past the JSON value starting at or after
// b[i]. It checks structure (brackets, strings, commas, colons) but not the
// spelling of numbers and literals: it exists to find where raw values begin
// and end without decoding them, so that results pass through untouched.
func skipValueRef(b []byte, i int) (int, error) {
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
			j, err := skipStringRef(b, i)
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
			if i < len(b) && b[i] == closerRef(c) {
				depth--
				i++
				break
			}
			if c == '{' {
				j, err := skipKeyRef(b, i)
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
			if b[i] == closerRef(top) {
				depth--
				i++
				continue
			}
			if b[i] != ',' {
				return 0, errSyntax
			}
			i++
			if top == '{' {
				j, err := skipKeyRef(b, skipSpace(b, i))
				if err != nil {
					return 0, err
				}
				i = j
			}
			break
		}
	}
}

func closerRef(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// skipKeyRef skips `"key" :` starting at b[i] and returns the index after the colon.
func skipKeyRef(b []byte, i int) (int, error) {
	if i >= len(b) || b[i] != '"' {
		return 0, errSyntax
	}
	j, err := skipStringRef(b, i)
	if err != nil {
		return 0, err
	}
	j = skipSpace(b, j)
	if j >= len(b) || b[j] != ':' {
		return 0, errSyntax
	}
	return j + 1, nil
}

// skipStringRef returns the index just past the string starting at b[i] == '"'.
func skipStringRef(b []byte, i int) (int, error) {
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

// objectFieldsRef calls fn for each top-level member of the JSON object in b,
// with the raw key (without quotes, escapes untouched) and the raw value.
// It stops early when fn returns false.
func objectFieldsRef(b []byte, fn func(key, value []byte) bool) error {
	end, err := objectFieldsAtRef(b, skipSpace(b, 0), fn)
	if err != nil || end < 0 {
		return err
	}
	return trailingRef(b, end)
}

// objectFieldsAtRef is objectFieldsRef for the object that starts at b[i],
// followed by anything: it returns the index just past the object, or -1
// when fn stopped the scan.
func objectFieldsAtRef(b []byte, i int, fn func(key, value []byte) bool) (int, error) {
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
		j, err := skipKeyRef(b, i)
		if err != nil {
			return 0, err
		}
		ke, _ := skipStringRef(b, ks)
		vs := skipSpace(b, j)
		ve, err := skipValueRef(b, vs)
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

// arrayElementsRef calls fn for each element of the JSON array in b.
func arrayElementsRef(b []byte, fn func(elem []byte) bool) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return trailingRef(b, i+1)
	}
	for {
		vs := skipSpace(b, i)
		ve, err := skipValueRef(b, vs)
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
			return trailingRef(b, i+1)
		}
		if b[i] != ',' {
			return errSyntax
		}
		i++
	}
}

func trailingRef(b []byte, i int) error {
	if skipSpace(b, i) != len(b) {
		return errSyntax
	}
	return nil
}

// scanTrace is everything the scanner reports about b, read from offset
// off: skipValue's end, and the members and elements objectFieldsAt,
// objectFields (the whole rest an object) and arrayElements find (raw, in
// order) with their errors.
func scanTrace(b []byte, off int, ref bool) string {
	skip, fields, whole, elems := skipValue, objectFieldsAt, objectFields, arrayElements
	if ref {
		skip, fields, whole, elems = skipValueRef, objectFieldsAtRef, objectFieldsRef, arrayElementsRef
	}
	var out strings.Builder
	end, err := skip(b, off)
	fmt.Fprintf(&out, "value %d %v;", end, err)
	end, err = fields(b, skipSpace(b, off), func(key, value []byte) bool {
		fmt.Fprintf(&out, " %q:%q", key, value)
		return true
	})
	fmt.Fprintf(&out, "; object %d %v;", end, err)
	err = whole(b[min(off, len(b)):], func(key, value []byte) bool {
		fmt.Fprintf(&out, " %q:%q", key, value)
		return true
	})
	fmt.Fprintf(&out, "; whole object %v;", err)
	err = elems(b[min(off, len(b)):], func(elem []byte) bool {
		fmt.Fprintf(&out, " %q", elem)
		return true
	})
	fmt.Fprintf(&out, "; array %v", err)
	return out.String()
}

// FuzzScannerAsReference: on any input, valid JSON or not, from any
// offset, the scanner reports exactly what the reference scanner reports
// (same ends, same members and elements, same errors).
func FuzzScannerAsReference(f *testing.F) {
	for _, b := range seedBodies() {
		f.Add(b, 0)
	}
	for _, s := range []string{
		`{"a":"0123456789abcdef0123456789","b\\":"x\\\"y","c":"\\\\","d":12,"e":[1,{"f":"g"}]}`,
		`["short","exactly8","exactly16exactly","\\","a\\\\\\"b\"","` + strings.Repeat("ab", 40) + `",tru,nul,-1]`,
		`{"k":"unterminated`, `"a\\`, `"\\"`, `{"a"`, `{"a":`, `[,]`, `{"x":1,}`, ` "abc" `,
		`{"hash":"0x487677ab0bf704eec7c0075637b3d0d90ef1379b9660e7824ea84789d77a6584","v":"0x1"}`,
	} {
		f.Add([]byte(s), 0)
		f.Add([]byte(s), 1)
	}
	f.Fuzz(func(t *testing.T, b []byte, off int) {
		if off < 0 || off > len(b) {
			return
		}
		got, want := scanTrace(b, off, false), scanTrace(b, off, true)
		if got != want {
			t.Fatalf("%q from %d:\nscanner   %s\nreference %s", b, off, got, want)
		}
	})
}
