package docexamples

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Block is one fenced code block of a doc.
type Block struct {
	File string
	Line int    // line of the opening fence
	Lang string // the fence's info string, first word ("" for none)
	// Marker is the <!-- example: … --> comment on the line before the
	// fence ("" without one).
	Marker string
	Body   string
}

// Name is where the block is, for test names and errors.
func (b Block) Name() string { return fmt.Sprintf("%s:%d", b.File, b.Line) }

var (
	fence  = regexp.MustCompile("^(\\s*)(```+)\\s*([^`\\s]*)")
	marker = regexp.MustCompile(`^\s*<!--\s*example:\s*(.*?)\s*-->\s*$`)
)

// Blocks reads the fenced code blocks of a Markdown file. An unclosed
// fence is an error (the rest of the file would be code).
func Blocks(path string) ([]Block, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		out              []Block
		cur              *Block
		prev, closeFence string
		body             strings.Builder
	)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if cur == nil {
			if m := fence.FindStringSubmatch(line); m != nil {
				cur = &Block{File: path, Line: n, Lang: m[3]}
				closeFence = m[2]
				if mm := marker.FindStringSubmatch(prev); mm != nil {
					cur.Marker = mm[1]
				}
				body.Reset()
			}
			if strings.TrimSpace(line) != "" {
				prev = line
			}
			continue
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, closeFence) && strings.Trim(t, "`") == "" {
			cur.Body = body.String()
			out = append(out, *cur)
			cur, prev = nil, ""
			continue
		}
		body.WriteString(line)
		body.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: the fence is never closed", path, cur.Line)
	}
	return out, nil
}
