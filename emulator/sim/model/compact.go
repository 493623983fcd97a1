package model

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Compact values of the model: what every pod has, kept in fewer bytes than its usual Go type
// and saved as that type was.

// Stamp is an emulated instant in 8 bytes (a time.Time takes 24 and a pointer the collector
// follows): nanoseconds since the Unix epoch, UTC, with 0 for no time (time.Time's zero). The
// model keeps the times every pod has this way, 210,000 of them in a 15,000-node cluster.
//
// It holds the instants from 1677 to 2262, which the emulated clock never leaves: it starts at
// a time CheckStart allows (the emulator refuses others) and moves at most 400 days per
// advance. StampOf keeps the nearest instant it can hold for a time outside that
// range, and maps an instant at the epoch itself to the next nanosecond, so that 0 stays "no
// time". Saved, a Stamp reads and writes as the time it is (RFC 3339, UTC), exactly as a
// time.Time field did, so saved states read alike both ways.
type Stamp int64

// StampOf is t as a Stamp.
func StampOf(t time.Time) Stamp {
	switch {
	case t.IsZero():
		return 0
	case t.Before(minStampTime):
		return math.MinInt64
	case t.After(maxStampTime):
		return math.MaxInt64
	}
	if s := Stamp(t.UnixNano()); s != 0 {
		return s
	}
	return 1
}

var (
	minStampTime = time.Unix(0, math.MinInt64)
	maxStampTime = time.Unix(0, math.MaxInt64)
)

// CheckStart says whether the emulated clock may start at t: after the epoch's first day and
// before 2200, so that every instant it reaches is one a Stamp holds, with room to advance.
func CheckStart(t time.Time) error {
	if t.Before(earliestStart) || t.After(latestStart) {
		return fmt.Errorf("start the emulated clock between %s and %s", earliestStart.Format(time.RFC3339), latestStart.Format(time.RFC3339))
	}
	return nil
}

var (
	earliestStart = time.Date(1970, 1, 2, 0, 0, 0, 0, time.UTC)
	latestStart   = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Time is the instant s is, in UTC; the zero time for 0.
func (s Stamp) Time() time.Time {
	if s == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(s)).UTC()
}

// IsZero says s is no time.
func (s Stamp) IsZero() bool { return s == 0 }

// MarshalJSON writes s as time.Time does.
func (s Stamp) MarshalJSON() ([]byte, error) { return s.Time().MarshalJSON() }

// UnmarshalJSON reads a time as time.Time does.
func (s *Stamp) UnmarshalJSON(b []byte) error {
	var t time.Time
	if err := t.UnmarshalJSON(b); err != nil {
		return err
	}
	*s = StampOf(t)
	return nil
}

// IP is a pod's address in 4 bytes (a string of it takes 16 and an allocation of its own), one
// of 210,000 in a 15,000-node cluster; 0 is none. An IPv4 address is itself. Any other text
// (an imported pod's IPv6 address, kept as it was given) is kept once, in a table of the
// process, and stands as its place there: a number in 0.0.0.0/8, where no host has an address.
// Saved, an IP reads and writes as the text it stands for, as the string it replaced did.
type IP uint32

// otherIPs are the addresses that are not IPv4, each once: IP(i) stands for list[i-1].
var otherIPs struct {
	sync.Mutex
	list  []string
	index map[string]IP
}

// ParseIP is the address s ("" is none). It fails only once 16 million addresses that are
// not IPv4 have been kept.
func ParseIP(s string) (IP, error) {
	if s == "" {
		return 0, nil
	}
	// (An IPv4 address netip reads is written back as the same text: no zone, no leading zeros.)
	if a, err := netip.ParseAddr(s); err == nil && a.Is4() {
		b := a.As4()
		if v := binary.BigEndian.Uint32(b[:]); v >= 1<<24 {
			return IP(v), nil
		}
	}
	otherIPs.Lock()
	defer otherIPs.Unlock()
	if v, ok := otherIPs.index[s]; ok {
		return v, nil
	}
	if len(otherIPs.list) >= 1<<24-1 {
		return 0, fmt.Errorf("address %q: gkesim keeps at most %d addresses that are not IPv4", s, 1<<24-1)
	}
	if otherIPs.index == nil {
		otherIPs.index = map[string]IP{}
	}
	otherIPs.list = append(otherIPs.list, s)
	v := IP(len(otherIPs.list))
	otherIPs.index[s] = v
	return v, nil
}

// String is the address as text, "" for none.
func (ip IP) String() string {
	switch {
	case ip == 0:
		return ""
	case ip < 1<<24:
		otherIPs.Lock()
		defer otherIPs.Unlock()
		return otherIPs.list[ip-1]
	}
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(ip))
	return netip.AddrFrom4(b).String()
}

// MarshalJSON writes the address as text.
func (ip IP) MarshalJSON() ([]byte, error) { return json.Marshal(ip.String()) }

// UnmarshalJSON reads an address ("" for none).
func (ip *IP) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("pod address: %w", err)
	}
	v, err := ParseIP(s)
	*ip = v
	return err
}

// byteName is the name of v, a kind kept as a byte whose names are names (the zero value's
// first), or kind(N) for a value without one.
func byteName[T ~uint8](names []string, kind string, v T) string {
	if int(v) < len(names) {
		return names[v]
	}
	return kind + "(" + strconv.Itoa(int(v)) + ")"
}

// parseByteName reads a kind kept as a byte from its JSON name; what names the kind and
// choices the names it takes, in the error for any other.
func parseByteName[T ~uint8](b []byte, names []string, what, choices string) (T, error) {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	if i := slices.Index(names, name); i >= 0 {
		return T(i), nil
	}
	return 0, fmt.Errorf("%s %q is not %s", what, name, choices)
}
