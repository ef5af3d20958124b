package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// Exchange is one request and the response it must get.
type Exchange struct {
	Request  string
	Expected string
}

// Fixture is one .io file.
type Fixture struct {
	Path      string
	SpecOnly  bool
	Exchanges []Exchange
}

// ReadFixture parses an .io file: `//` comments, then `>>` request and
// `<<` response lines in pairs.
func ReadFixture(path string) (Fixture, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Fixture{}, fmt.Errorf("read fixture: %w", err)
	}
	return ParseFixture(path, raw)
}

// ParseFixture parses the text of an .io file.
func ParseFixture(path string, raw []byte) (Fixture, error) {
	f := Fixture{Path: path}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "":
		case strings.HasPrefix(text, "//"):
			if strings.TrimSpace(strings.TrimPrefix(text, "//")) == "speconly" {
				f.SpecOnly = true
			}
		case strings.HasPrefix(text, ">>"):
			f.Exchanges = append(f.Exchanges, Exchange{Request: strings.TrimSpace(text[2:])})
		case strings.HasPrefix(text, "<<"):
			n := len(f.Exchanges)
			if n == 0 || f.Exchanges[n-1].Expected != "" {
				return f, fmt.Errorf("%s:%d: response without a request", path, line)
			}
			f.Exchanges[n-1].Expected = strings.TrimSpace(text[2:])
		default:
			return f, fmt.Errorf("%s:%d: line is neither comment, request nor response", path, line)
		}
	}
	if err := sc.Err(); err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	for i, ex := range f.Exchanges {
		if ex.Expected == "" {
			return f, fmt.Errorf("%s: request %d has no response", path, i+1)
		}
	}
	return f, nil
}
