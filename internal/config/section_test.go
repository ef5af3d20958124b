package config

import (
	"reflect"
	"testing"

	"github.com/nodegate/nodegate/internal/familykind"
)

// TestSectionsAreKinds: a network's family section is the one its kind
// names (familykind.Kind.Section): Network.Starknet's yaml key is the
// Starknet kind's section, and every kind's section is a key of Network.
func TestSectionsAreKinds(t *testing.T) {
	t.Parallel()
	keys := map[string]string{}
	nt := reflect.TypeFor[Network]()
	for i := range nt.NumField() {
		keys[nt.Field(i).Tag.Get("yaml")] = nt.Field(i).Name
	}
	for _, k := range familykind.All {
		if k.Section != "" && keys[k.Section] == "" {
			t.Errorf("family %s's section %q is no key of a network", k.Name, k.Section)
		}
	}
	if f, _ := nt.FieldByName("Starknet"); f.Tag.Get("yaml") != starknetSection {
		t.Fatalf("Network.Starknet is %q, starknetSection %q", f.Tag.Get("yaml"), starknetSection)
	}
}
