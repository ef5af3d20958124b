package methods

import (
	"encoding/json"
	"errors"
)

// jsonObject accepts any JSON object (state and block overrides); the node
// checks what is inside.
type jsonObject struct{}

var errNotObject = errors.New("json: cannot unmarshal non-object into override")

// UnmarshalJSON implements json.Unmarshaler.
func (*jsonObject) UnmarshalJSON(raw []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return errNotObject
	}
	return nil
}
