package keys

import (
	"context"
	"math"
	"testing"
	"time"
)

func TestUsageRecords(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		ctx := context.Background()
		s := open()
		m := testManager(s)
		now := time.Date(2025, 6, 10, 12, 0, 0, 0, time.UTC)
		m.Now = func() time.Time { return now }
		c, err := m.Create(ctx, CreateParams{Plan: planTeam})
		if err != nil {
			t.Fatal(err)
		}
		row := func(day, method string, req, cr int64, e UsageErrors) UsageRow {
			return UsageRow{Day: day, KeyID: c.ID, Network: "mainnet", Method: method, Requests: req, Credits: cr, Errors: e}
		}
		// Two flushes of the same record add up; other days and methods stay apart.
		if err := s.AddUsage(ctx, []UsageRow{row("2025-06-10", "eth_call", 3, 240, UsageErrors{Node: 1}), row("2025-06-01", "eth_call", 1, 80, UsageErrors{})}); err != nil {
			t.Fatal(err)
		}
		if err := s.AddUsage(ctx, []UsageRow{row("2025-06-10", "eth_call", 2, 160, UsageErrors{Node: 1, RateLimited: 4}), row("2025-06-10", "eth_chainId", 1, 5, UsageErrors{})}); err != nil {
			t.Fatal(err)
		}
		got, err := m.Usage(ctx, c.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		want := []UsageRow{
			row("2025-06-10", "eth_call", 5, 400, UsageErrors{Node: 2, RateLimited: 4}),
			row("2025-06-10", "eth_chainId", 1, 5, UsageErrors{}),
		}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("usage today = %+v\nwant %+v", got, want)
		}
		if got, _ := m.Usage(ctx, c.ID, 10); len(got) != 3 || got[2].Day != "2025-06-01" {
			t.Fatalf("usage over 10 days = %+v", got)
		}
		// A config key is not in the store but has records.
		if err := s.AddUsage(ctx, []UsageRow{{Day: "2025-06-10", KeyID: "abcdefabcdef", Network: "n", Method: "m", Requests: 1}}); err != nil {
			t.Fatal(err)
		}
		if got, err := m.Usage(ctx, "abcdefabcdef", 1); err != nil || len(got) != 1 {
			t.Fatalf("static key usage: %v %v", got, err)
		}
		if _, err := m.Usage(ctx, "000000000000", 1); !IsNotFound(err) {
			t.Fatalf("unknown id: %v", err)
		}
		for _, days := range []int{0, -1, MaxUsageDays + 1} {
			if _, err := m.Usage(ctx, c.ID, days); !IsInputError(err) {
				t.Fatalf("days %d: %v", days, err)
			}
		}
	})
}

func TestKeyLimitOverrides(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		ctx := context.Background()
		s := open()
		m := testManager(s)
		c, err := m.Create(ctx, CreateParams{Plan: planCore, Settings: Patch{RatePerSecond: ptr(50.0)}})
		if err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name      string
			patch     Patch
			wantRate  float64
			wantDaily int64
			wantErr   bool
		}{
			{"rate below the plan's applies", Patch{}, 50, 3_000_000, false},
			{"daily below the plan's applies", Patch{DailyCredits: ptr(int64(1000))}, 50, 1000, false},
			{"above the plan's: the plan's applies", Patch{RatePerSecond: ptr(1e6)}, 500, 1000, false},
			{"0 returns to the plan", Patch{RatePerSecond: ptr(0.0), DailyCredits: ptr(int64(0))}, 500, 3_000_000, false},
			{"negative rate refused", Patch{RatePerSecond: ptr(-1.0)}, 0, 0, true},
			{"NaN rate refused", Patch{RatePerSecond: ptr(math.NaN())}, 0, 0, true},
			{"negative daily refused", Patch{DailyCredits: ptr(int64(-5))}, 0, 0, true},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, err := m.Update(ctx, c.ID, tc.patch)
				if tc.wantErr {
					if !IsInputError(err) {
						t.Fatalf("want an input error, got %v", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				cache, err := NewCache(ctx, s, testPlans(), planTeam, nil, CacheOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer cache.Close()
				k, ok := cache.ByID(c.ID)
				if !ok || k.RatePerSecond() != tc.wantRate || k.DailyCredits() != tc.wantDaily {
					t.Fatalf("effective limits %v/s %v/day, want %v/s %v/day", k.RatePerSecond(), k.DailyCredits(), tc.wantRate, tc.wantDaily)
				}
			})
		}
	})
}
