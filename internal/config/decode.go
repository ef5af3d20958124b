package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Decode decodes YAML strictly into cfg, expanding ${ENV} in values. An
// unset variable and an unknown field are errors that name the variable
// and the field's path (limits.max_batchx), not a Go type.
func Decode(raw []byte, cfg *Config) error {
	var root yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(raw)).Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // an empty file: the defaults
		}
		return fmt.Errorf("decode: %w", err)
	}
	if err := expandEnv(&root); err != nil {
		return err
	}
	if unknown := unknownFields(&root, reflect.TypeFor[Config](), ""); len(unknown) > 0 {
		return errors.Join(unknown...)
	}
	if err := root.Decode(cfg); err != nil {
		return fmt.Errorf("decode: %w", namedTypeErrors(&root, err))
	}
	return nil
}

// expandEnv replaces ${NAME} and $NAME by the environment variable NAME in
// the document's values, and only there: a comment or a key is left as
// written (a ${NAME} in a pasted comment is not an error). A variable
// that is not set is an error naming it (an empty secret would otherwise
// pass silently); one set to "" expands to "". A plain value is read
// again after expansion (${PORT} can fill a number); a quoted one stays a
// string.
func expandEnv(root *yaml.Node) error {
	var missing []string
	var walk func(n *yaml.Node, isKey bool)
	walk = func(n *yaml.Node, isKey bool) {
		if n.Kind == yaml.ScalarNode && !isKey && strings.Contains(n.Value, "$") {
			v := os.Expand(n.Value, func(name string) string {
				v, ok := os.LookupEnv(name)
				if !ok && name != "" {
					missing = append(missing, name)
				}
				return v
			})
			if v != n.Value {
				n.Value = v
				if n.Style == 0 {
					n.Tag = "" // resolved again from the new value
				}
			}
		}
		for i, c := range n.Content {
			walk(c, n.Kind == yaml.MappingNode && i%2 == 0)
		}
	}
	walk(root, false)
	if len(missing) > 0 {
		sort.Strings(missing)
		missing = dedupe(missing)
		return fmt.Errorf("environment variable %s is not set (the config refers to ${%s})", strings.Join(missing, ", "), missing[0])
	}
	return nil
}

func dedupe(sorted []string) []string {
	out := sorted[:0]
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// unknownFields walks a YAML document against the Go type it decodes into
// and names every key the type has no field for, by its path.
func unknownFields(n *yaml.Node, t reflect.Type, path string) []error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return unknownFields(n.Content[0], t, path)
	case yaml.AliasNode:
		return nil // anchors are checked where they are defined
	case yaml.SequenceNode:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return nil // a type mismatch: the decoder names it with its line
		}
		var errs []error
		for i, item := range n.Content {
			errs = append(errs, unknownFields(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i))...)
		}
		return errs
	case yaml.MappingNode:
		var errs []error
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			child := join(path, key.Value)
			switch t.Kind() {
			case reflect.Map:
				errs = append(errs, unknownFields(val, t.Elem(), child)...)
			case reflect.Struct:
				ft, ok := fieldType(t, key.Value)
				if !ok {
					errs = append(errs, fmt.Errorf("line %d: unknown field %s", key.Line, child))
					continue
				}
				errs = append(errs, unknownFields(val, ft, child)...)
			}
		}
		return errs
	}
	return nil
}

// fieldType finds the field of struct t that YAML key name decodes into,
// looking into ",inline" fields.
func fieldType(t reflect.Type, name string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		tagName, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(opts, "inline") {
			if ft, ok := fieldType(f.Type, name); ok {
				return ft, true
			}
			continue
		}
		if tagName == "" {
			tagName = strings.ToLower(f.Name)
		}
		if tagName == name && f.IsExported() {
			return f.Type, true
		}
	}
	return nil, false
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
