package config

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// typeMismatch is yaml.v3's wording of a value of the wrong type.
var typeMismatch = regexp.MustCompile("^line (\\d+): cannot unmarshal (\\S+)(?: `(.*)`)? into (\\S+)$")

// namedTypeErrors rewords yaml.v3's type errors (`line 7: cannot unmarshal
// !!int `30` into time.Duration`) to name the field's path and the form it
// wants (`field plans.core.call_timeout (line 7): got 30, want a duration
// like "30s"`); other errors are returned as they are.
func namedTypeErrors(root *yaml.Node, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	paths := valuePaths(root)
	out := make([]error, 0, len(te.Errors))
	for _, msg := range te.Errors {
		m := typeMismatch.FindStringSubmatch(msg)
		if m == nil {
			out = append(out, errors.New(msg))
			continue
		}
		line, _ := strconv.Atoi(m[1])
		got := m[3]
		field := "?"
		for _, v := range paths[line] { // a flow mapping has several on a line: the one with this value
			if field == "?" || v.value == got {
				field = v.path
			}
			if v.value == got {
				break
			}
		}
		if got == "" {
			got = strings.TrimPrefix(m[2], "!!")
		}
		out = append(out, fmt.Errorf("field %s (line %d): got %s, want %s", field, line, got, wantForm(m[4])))
	}
	return errors.Join(out...)
}

// wantForm says in words what a Go type takes in YAML.
func wantForm(goType string) string {
	switch strings.TrimPrefix(goType, "*") {
	case "time.Duration":
		return `a duration like "30s"`
	case "int", "int64", "int32", "uint", "uint64", "uint32":
		return "a whole number"
	case "float64", "float32":
		return "a number"
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	}
	if strings.HasPrefix(goType, "[]") {
		return "a list"
	}
	if strings.HasPrefix(goType, "map[") || strings.Contains(goType, ".") {
		return "a mapping (" + goType + ")"
	}
	return goType
}

// A valuePath is a value's field path and, for a scalar, its text.
type valuePath struct{ path, value string }

// valuePaths maps each line to the values on it with their fields' paths
// (plans.core.call_timeout; a list element as upstreams[0]).
func valuePaths(root *yaml.Node) map[int][]valuePath {
	out := map[int][]valuePath{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		if n.Kind == yaml.ScalarNode {
			out[n.Line] = append(out[n.Line], valuePath{path, n.Value})
		} else if path != "" {
			out[n.Line] = append(out[n.Line], valuePath{path: path})
		}
		for i := 0; i < len(n.Content); i++ {
			switch n.Kind {
			case yaml.MappingNode:
				if i%2 == 1 {
					p := n.Content[i-1].Value
					if path != "" {
						p = path + "." + p
					}
					walk(n.Content[i], p)
				}
			case yaml.SequenceNode:
				walk(n.Content[i], fmt.Sprintf("%s[%d]", path, i))
			default:
				walk(n.Content[i], path)
			}
		}
	}
	walk(root, "")
	return out
}
