package keys

import (
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/keys/pgtest"
)

func ptr[T any](v T) *T { return &v }

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func writeFile(path string) error { return os.WriteFile(path, []byte("x"), 0o600) }

// pgDSNOf recovers the DSN of a test's PostgreSQL store: the test made it
// through pgtest, whose schema is the only one on the search path.
func pgDSNOf(t *testing.T, s *sqlStore) string {
	t.Helper()
	var schema string
	if err := s.db.QueryRow("SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(pgtest.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
