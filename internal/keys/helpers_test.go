package keys

import (
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

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

// The plans of keys' own tests: the default configuration's (config's
// defaultPlans), which this package cannot import (config imports no
// domain package; service/keyconfig maps one onto the other).
const (
	planCore      = "core"
	planDeveloper = "developer"
	planTeam      = "team"
)

func testPlans() map[string]Plan {
	return map[string]Plan{
		planCore:      {Name: planCore, RatePerSecond: 500, DailyCredits: 3_000_000, MaxInFlight: 4, CallTimeout: time.Second, MaxWSConnections: 50, MaxSubscriptions: 100},
		planDeveloper: {Name: planDeveloper, RatePerSecond: 4_000, DailyCredits: 15_000_000, MaxInFlight: 16, CallTimeout: 2 * time.Second, MaxWSConnections: 250, MaxSubscriptions: 1_000},
		planTeam:      {Name: planTeam, RatePerSecond: 40_000, DailyCredits: 75_000_000, Failover: true, MaxInFlight: 64, MaxWSConnections: 1_000, MaxSubscriptions: 10_000},
		"enterprise":  {Name: "enterprise", Failover: true},
	}
}
