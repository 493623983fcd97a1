package model

import (
	"fmt"
	"strings"
	"time"
)

// How the event log, errors and the console write durations, each format in one place.

// ShortDuration writes 4h0m0s as 4h and 1h30m0s as 1h30m.
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// DaysDuration writes a duration in whole days and the rest: "30 days", "2 days 4h0m0s".
func DaysDuration(d time.Duration) string {
	days := d / Day
	rest := d - days*Day
	if rest == 0 {
		return fmt.Sprintf("%d days", days)
	}
	return fmt.Sprintf("%d days %s", days, rest)
}

// HoursDuration writes a duration in hours, to the minute: "4h", "1.5h".
func HoursDuration(d time.Duration) string {
	return fmt.Sprintf("%gh", d.Round(time.Minute).Hours())
}
