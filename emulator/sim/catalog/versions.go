package catalog

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// The version table: which GKE versions exist at an emulated time, per release channel.
//
// It is generated from a deterministic schedule rather than hard-coded, so that it is realistic
// at any emulated date and gains new patch and minor versions as emulated time passes:
//   - a Kubernetes minor every 122 days (1.33 on 2025-04-23, as upstream);
//   - it enters Rapid 30 days after release, Regular after 90, Stable after 150;
//   - standard support ends 14 months (420 days) after it entered Regular, extended support
//     24 months (720 days) after;
//   - a patch every 28 days from Rapid entry; a patch reaches Regular a week after Rapid and
//     Stable three weeks after.

// Version is a GKE version 1.MINOR.PATCH-gke.BUILD.
type Version struct {
	Minor, Patch, Build int
}

func (v Version) String() string {
	return fmt.Sprintf("1.%d.%d-gke.%d", v.Minor, v.Patch, v.Build)
}

// MinorString is "1.MINOR".
func (v Version) MinorString() string { return fmt.Sprintf("1.%d", v.Minor) }

// Compare orders versions: -1, 0 or 1.
func (v Version) Compare(o Version) int {
	for _, d := range [][2]int{{v.Minor, o.Minor}, {v.Patch, o.Patch}, {v.Build, o.Build}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// ParseVersion parses "1.X.Y-gke.N".
func ParseVersion(s string) (Version, bool) {
	rest, ok := strings.CutPrefix(s, "1.")
	if !ok {
		return Version{}, false
	}
	mp, build, ok := strings.Cut(rest, "-gke.")
	if !ok {
		return Version{}, false
	}
	ms, ps, ok := strings.Cut(mp, ".")
	if !ok {
		return Version{}, false
	}
	minor, ok1 := versionNumber(ms)
	patch, ok2 := versionNumber(ps)
	b, ok3 := versionNumber(build)
	if !ok1 || !ok2 || !ok3 {
		return Version{}, false
	}
	return Version{Minor: minor, Patch: patch, Build: b}, true
}

// versionNumber reads one number of a version as GKE writes it: decimal digits, no sign, no
// leading zero ("1.33.04-gke.1" is not a GKE version), at most 9 digits.
func versionNumber(s string) (int, bool) {
	if s == "" || len(s) > 9 || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

const day = 24 * time.Hour

var (
	minorEpoch        = time.Date(2025, 4, 23, 0, 0, 0, 0, time.UTC) // Kubernetes 1.33
	minorEpochNumber  = 33
	minorCadence      = 122 * day
	rapidDelay        = 30 * day
	regularDelay      = 90 * day
	stableDelay       = 150 * day
	standardSupport   = 420 * day
	extendedSupport   = 720 * day
	patchCadence      = 28 * day
	regularPatchDelay = 7 * day
	stablePatchDelay  = 21 * day
	versionsPerMinor  = 3
	nodeVersionsShown = 6
)

// MinorSchedule is the life of one Kubernetes minor on GKE.
type MinorSchedule struct {
	Minor         int
	Release       time.Time
	RapidEntry    time.Time
	RegularEntry  time.Time
	StableEntry   time.Time
	EndOfStandard time.Time
	EndOfExtended time.Time
}

// ScheduleOf returns the schedule of minor 1.m.
func ScheduleOf(m int) MinorSchedule {
	rel := minorEpoch.Add(time.Duration(m-minorEpochNumber) * minorCadence)
	reg := rel.Add(regularDelay)
	return MinorSchedule{
		Minor: m, Release: rel, RapidEntry: rel.Add(rapidDelay), RegularEntry: reg,
		StableEntry: rel.Add(stableDelay), EndOfStandard: reg.Add(standardSupport),
		EndOfExtended: reg.Add(extendedSupport),
	}
}

// buildOf gives each patch a stable, realistic-looking build number (gke.1xxx000 .. gke.2xxx000).
func buildOf(minor, patch int) int {
	return 1000000 + ((minor*131+patch*977)%1900)*1000
}

// Patch returns version 1.m.p.
func (s MinorSchedule) Patch(p int) Version {
	return Version{Minor: s.Minor, Patch: p, Build: buildOf(s.Minor, p)}
}

// Channel availability delays of a patch after it reaches Rapid, and of a minor after release.
func ChannelDelays(channel string) (patchDelay time.Duration, entry func(MinorSchedule) time.Time, end func(MinorSchedule) time.Time) {
	standardEnd := func(s MinorSchedule) time.Time { return s.EndOfStandard }
	switch channel {
	case api.ChannelRapid:
		return 0, func(s MinorSchedule) time.Time { return s.RapidEntry }, standardEnd
	case api.ChannelStable:
		return stablePatchDelay, func(s MinorSchedule) time.Time { return s.StableEntry }, standardEnd
	case api.ChannelExtended:
		return regularPatchDelay, func(s MinorSchedule) time.Time { return s.RegularEntry },
			func(s MinorSchedule) time.Time { return s.EndOfExtended }
	default: // REGULAR, and the no-channel list
		return regularPatchDelay, func(s MinorSchedule) time.Time { return s.RegularEntry }, standardEnd
	}
}

// VersionTable is the set of versions available at one emulated time.
type VersionTable struct {
	At       time.Time
	Channels map[string]*ChannelVersions
	// Master is the list for clusters not enrolled in a channel (validMasterVersions).
	Master []Version
	// Node is validNodeVersions: what node pools may run, newest first.
	Node []Version
}

// ChannelVersions is one release channel's versions, newest first, and its default.
type ChannelVersions struct {
	Valid   []Version
	Default Version
}

var Channels = []string{api.ChannelRapid, api.ChannelRegular, api.ChannelStable, api.ChannelExtended}

// VersionsAt computes the version table at emulated time t.
func VersionsAt(t time.Time) *VersionTable {
	vt := &VersionTable{At: t, Channels: map[string]*ChannelVersions{}}
	newest := minorEpochNumber + int(t.Sub(minorEpoch)/minorCadence) + 1
	for _, ch := range Channels {
		vt.Channels[ch] = channelVersionsAt(ch, t, newest)
	}
	vt.Master = channelList(api.ChannelRegular, t, newest, func(s MinorSchedule) time.Time { return s.RapidEntry })
	// Nodes may run any patch of a minor still in standard support, and the minors up to two
	// behind the oldest supported control plane.
	oldest := newest
	for m := newest; m > newest-12; m-- {
		s := ScheduleOf(m)
		if t.Before(s.EndOfStandard) && !t.Before(s.RapidEntry) {
			oldest = m
		}
	}
	for m := newest; m >= oldest-2; m-- {
		s := ScheduleOf(m)
		if t.Before(s.RapidEntry) {
			continue
		}
		n := 0
		for p := latestPatchAt(s, t, 0); p >= 0 && n < nodeVersionsShown; p-- {
			vt.Node = append(vt.Node, s.Patch(p))
			n++
		}
	}
	return vt
}

// latestPatchAt is the newest patch of s available with the given delay at t, or -1.
func latestPatchAt(s MinorSchedule, t time.Time, delay time.Duration) int {
	if t.Before(s.RapidEntry.Add(delay)) {
		return -1
	}
	return int(t.Sub(s.RapidEntry.Add(delay)) / patchCadence)
}

func channelList(ch string, t time.Time, newest int, entryOverride func(MinorSchedule) time.Time) []Version {
	delay, entry, end := ChannelDelays(ch)
	if entryOverride != nil {
		entry = entryOverride
		delay = 0
	}
	var out []Version
	for m := newest; m > newest-12; m-- {
		s := ScheduleOf(m)
		if t.Before(entry(s)) || !t.Before(end(s)) {
			continue
		}
		latest := latestPatchAt(s, t, delay)
		for p, n := latest, 0; p >= 0 && n < versionsPerMinor; p, n = p-1, n+1 {
			out = append(out, s.Patch(p))
		}
	}
	return out
}

func channelVersionsAt(ch string, t time.Time, newest int) *ChannelVersions {
	cv := &ChannelVersions{Valid: channelList(ch, t, newest, nil)}
	if len(cv.Valid) == 0 {
		return cv
	}
	cv.Default = cv.Valid[0]
	if ch == api.ChannelRapid {
		return cv
	}
	// Regular, Stable and Extended default to the newest minor that has been in the channel for
	// at least a month.
	_, entry, _ := ChannelDelays(ch)
	for _, v := range cv.Valid {
		if !t.Before(entry(ScheduleOf(v.Minor)).Add(30 * day)) {
			cv.Default = v
			break
		}
	}
	return cv
}

// ValidFor is the list a cluster's control-plane version must come from.
func (vt *VersionTable) ValidFor(channel string) []Version {
	if cv, ok := vt.Channels[channel]; ok {
		return cv.Valid
	}
	return vt.Master
}

// DefaultFor is the version a cluster gets when it names none.
func (vt *VersionTable) DefaultFor(channel string) Version {
	if cv, ok := vt.Channels[channel]; ok && len(cv.Valid) > 0 {
		return cv.Default
	}
	return vt.Channels[api.ChannelRegular].Default
}

// Resolve turns a requested version or alias into a version from list: "latest", "1.X",
// "1.X.Y", "1.X.Y-gke.N"; "" and "-" give def.
func Resolve(req string, list []Version, def Version) (Version, bool) {
	switch req {
	case "", "-":
		return def, true
	case "latest":
		if len(list) == 0 {
			return Version{}, false
		}
		return newestOf(list), true
	}
	if v, ok := ParseVersion(req); ok {
		for _, x := range list {
			if x == v {
				return v, true
			}
		}
		return Version{}, false
	}
	parts := strings.Split(strings.TrimPrefix(req, "1."), ".")
	if !strings.HasPrefix(req, "1.") || len(parts) > 2 {
		return Version{}, false
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return Version{}, false
		}
		nums[i] = n
	}
	var match []Version
	for _, x := range list {
		if x.Minor == nums[0] && (len(nums) == 1 || x.Patch == nums[1]) {
			match = append(match, x)
		}
	}
	if len(match) == 0 {
		return Version{}, false
	}
	return newestOf(match), true
}

func newestOf(list []Version) Version {
	best := list[0]
	for _, v := range list[1:] {
		if v.Compare(best) > 0 {
			best = v
		}
	}
	return best
}

func VersionStrings(list []Version) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = v.String()
	}
	return out
}

// ServerConfig renders the table as GKE's serverConfig.
func (vt *VersionTable) ServerConfig() *api.ServerConfig {
	sc := &api.ServerConfig{
		DefaultClusterVersion: vt.DefaultFor(api.ChannelRegular).String(),
		ValidNodeVersions:     VersionStrings(vt.Node),
		DefaultImageType:      DefaultImageType,
		ValidImageTypes:       append([]string(nil), ImageTypes...),
		ValidMasterVersions:   VersionStrings(vt.Master),
	}
	for _, ch := range Channels {
		cv := vt.Channels[ch]
		if len(cv.Valid) == 0 {
			continue
		}
		sc.Channels = append(sc.Channels, &api.ReleaseChannelConfig{
			Channel: ch, DefaultVersion: cv.Default.String(), ValidVersions: VersionStrings(cv.Valid),
			UpgradeTargetVersion: cv.Default.String(),
		})
	}
	sort.SliceStable(sc.Channels, func(i, j int) bool {
		return channelOrder(sc.Channels[i].Channel) < channelOrder(sc.Channels[j].Channel)
	})
	return sc
}

func channelOrder(ch string) int {
	for i, c := range Channels {
		if c == ch {
			return i
		}
	}
	return len(Channels)
}
