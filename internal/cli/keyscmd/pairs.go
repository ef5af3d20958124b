package keyscmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/nodegate/nodegate/internal/keys"
)

// pairFlag is a repeatable NAME=VALUE flag (--jwt-key, --method-rate);
// a later NAME replaces an earlier one.
type pairFlag struct {
	names []string
	vals  map[string]string
}

func (f *pairFlag) String() string {
	parts := make([]string, 0, len(f.names))
	for _, n := range f.names {
		parts = append(parts, n+"="+f.vals[n])
	}
	return strings.Join(parts, ",")
}

func (f *pairFlag) Set(v string) error {
	name, val, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return errors.New("want NAME=VALUE")
	}
	if f.vals == nil {
		f.vals = map[string]string{}
	}
	if _, seen := f.vals[name]; !seen {
		f.names = append(f.names, name)
	}
	f.vals[name] = val
	return nil
}

// maxPEMFile bounds a --jwt-key file read (keys refuses a PEM over 8 KiB).
const maxPEMFile = 64 << 10

// pems reads each NAME=FILE's PEM ("" for NAME=: remove); nil when the
// flag was not given.
func (f *pairFlag) pems() (map[string]string, error) {
	if len(f.names) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(f.names))
	for _, n := range f.names {
		path := f.vals[n]
		if path == "" {
			out[n] = ""
			continue
		}
		pem, err := readSmall(path, maxPEMFile)
		if err != nil {
			return nil, &keys.InputError{Msg: fmt.Sprintf("--jwt-key %s: %v", n, err)}
		}
		if pem == "" {
			return nil, &keys.InputError{Msg: fmt.Sprintf("--jwt-key %s: %s is empty (to remove the key, give %s=)", n, path, n)}
		}
		out[n] = pem
	}
	return out, nil
}

// rates reads each METHOD=CALLS; nil when the flag was not given.
func (f *pairFlag) rates() (map[string]float64, error) {
	if len(f.names) == 0 {
		return nil, nil
	}
	out := make(map[string]float64, len(f.names))
	for _, n := range f.names {
		v, err := strconv.ParseFloat(f.vals[n], 64)
		if err != nil {
			return nil, &keys.InputError{Msg: fmt.Sprintf("--method-rate %s: want calls per second (0 removes), got %q", n, f.vals[n])}
		}
		out[n] = v
	}
	return out, nil
}

// readSmall reads a file of at most limit bytes.
func readSmall(path string, limit int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read the PEM file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return "", fmt.Errorf("%s is over %d bytes: not a PEM public key", path, limit)
	}
	return string(b), nil
}
