package admin

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/keys"
)

// TestKeysDocListsEveryField: docs/keys.md's admin API section names every
// field a patch takes and a record shows.
func TestKeysDocListsEveryField(t *testing.T) {
	doc, err := os.ReadFile("../../docs/keys.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## Admin API")
	if !ok {
		t.Fatal("docs/keys.md has no Admin API section")
	}
	for _, v := range []any{keys.Patch{}, keys.Record{}, keys.Security{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !strings.Contains(section, "`"+name+"`") {
				t.Errorf("docs/keys.md's Admin API section does not name %s's field `%s`", typ.Name(), name)
			}
		}
	}
}
