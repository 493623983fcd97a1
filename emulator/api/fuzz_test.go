package api

import (
	"testing"
	"time"
)

// ParseDuration reads what clients send as a google.protobuf.Duration ("3600s", "1.5s") or a
// Go duration ("1h30m"): it never panics, refuses what has no time.Duration (NaN, infinities,
// beyond 292 years) instead of wrapping around, and what FormatDuration writes reads back.
func FuzzParseDuration(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			return
		}
		back, err := ParseDuration(FormatDuration(d))
		if err != nil {
			t.Fatalf("ParseDuration(%q) = %v, but its FormatDuration %q does not parse: %v", s, d, FormatDuration(d), err)
		}
		// Seconds as a float64 keep 53 bits: a round trip is exact to a microsecond here.
		if diff := back - d; diff > time.Microsecond || diff < -time.Microsecond {
			if d%time.Second == 0 || d.Abs() < 100*24*time.Hour {
				t.Fatalf("ParseDuration(%q) = %v; its FormatDuration %q reads back as %v", s, d, FormatDuration(d), back)
			}
		}
	})
}
