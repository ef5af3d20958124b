package conformance

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Compare checks got against want as hive does: when both carry an error
// object, error.message is dropped from both; everything else must be equal
// as JSON (key order free, array order and hex spelling exact). In
// speconly mode a result only has to be present where one is expected.
func Compare(got, want []byte, specOnly bool) error {
	var g, w map[string]any
	if err := json.Unmarshal(got, &g); err != nil {
		return fmt.Errorf("response is not a JSON object: %w: %s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		return fmt.Errorf("expectation is not a JSON object: %w", err)
	}
	ge, gErr := g["error"].(map[string]any)
	we, wErr := w["error"].(map[string]any)
	if gErr && wErr {
		delete(ge, "message")
		delete(we, "message")
	}
	if specOnly && !wErr {
		if !reflect.DeepEqual(g["id"], w["id"]) || g["jsonrpc"] != w["jsonrpc"] {
			return fmt.Errorf("envelope mismatch\n got: %s\nwant: %s", got, want)
		}
		if gErr {
			return fmt.Errorf("want a result, got error %v", ge)
		}
		if _, ok := g["result"]; !ok {
			return fmt.Errorf("want a result, got none: %s", got)
		}
		return nil
	}
	if !reflect.DeepEqual(g, w) {
		return fmt.Errorf("mismatch\n got: %s\nwant: %s", clip(got), clip(want))
	}
	return nil
}

// clip shortens long documents in messages.
func clip(b []byte) string {
	const max = 400
	if len(b) <= max {
		return string(b)
	}
	return fmt.Sprintf("%s… (%d bytes)", b[:max], len(b))
}
