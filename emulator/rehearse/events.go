package rehearse

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// The event log as the report reads it. The simulation says what it does in messages meant for
// people; the report needs the pods, nodes, budgets and numbers in them. Each message the report
// relies on has its pattern here, and a message of those types that does not match is an error
// (the rehearsal fails loudly rather than report less than happened).

var (
	reNodeCreating    = regexp.MustCompile(`^creating node (\S+) in (\S+) \(`)
	reEvictionBlocked = regexp.MustCompile(`^cannot evict pod (\S+): PodDisruptionBudget (\S+) allows`)
	rePodEvicted      = regexp.MustCompile(`^evicted pod (\S+) from (\S+) \(grace `)
	rePodDeleted      = regexp.MustCompile(`^deleted pod (\S+) from (\S+?)(?:: PodDisruptionBudget timeout of (\S+) reached| \(deleted without eviction\)) \(grace ([^,)]+)(?:, capped from ([^)]+))?\)$`)
	rePodKilled       = regexp.MustCompile(`^killed pod (\S+) on (\S+): still terminating at the drain's deadline of (\S+)$`)
	reFailedSched     = regexp.MustCompile(`^pod (\S+): (.+)$`)
	reScheduled       = regexp.MustCompile(`^pod (\S+) scheduled to (\S+)$`)
	reLBSynced        = regexp.MustCompile(`^service (\S+): .* \(\+(\d+) -(\d+)\)`)
	reBatchDraining   = regexp.MustCompile(`^draining batch (\d+): \[(.*)\]$`)
	reBatchDrained    = regexp.MustCompile(`^batch (\d+) drained`)
	reBatchSoaking    = regexp.MustCompile(`^soaking batch (\d+) for (\S+)$`)
	rePhase           = regexp.MustCompile(`^([A-Z_]+): (.*)$`)
	rePaused          = regexp.MustCompile(`^surge upgrade of \S+ paused after (\d+) of (\d+) nodes: (.+); nodes mid-upgrade finish, (.+)$`)
	reWaiting         = regexp.MustCompile(` has not begun: (.+); (.+)\. To apply it now`)
	reUntil           = regexp.MustCompile(`waiting until (\S+)`)
	reSurgeStarted    = regexp.MustCompile(`, zones \[(.*)\]$`)
)

// event is a log entry with its time parsed.
type event struct {
	*api.Event
	at time.Time
}

func parseEvent(e *api.Event) (event, error) {
	t, err := time.Parse(time.RFC3339, e.Time)
	if err != nil {
		return event{}, fmt.Errorf("event %d has time %q: %w", e.Seq, e.Time, err)
	}
	return event{Event: e, at: t}, nil
}

// unreadable says that the report cannot read a message it depends on.
func unreadable(e event) error {
	return fmt.Errorf("the rehearsal cannot read event %d (%s): %q; the simulation's messages and the report's patterns (emulator/rehearse/events.go) disagree",
		e.Seq, e.Type, e.Message)
}

func match(re *regexp.Regexp, e event) ([]string, error) {
	m := re.FindStringSubmatch(e.Message)
	if m == nil {
		return nil, unreadable(e)
	}
	return m, nil
}

// twoTokens reads a message of the shape prefix TOKEN mid TOKEN rest, where a token has no
// white space (\S+) and rest is the suffix to the end (end) or a prefix of what follows: the
// two patterns every pod's log lines have (rePodEvicted, reScheduled), read without a regular
// expression, for they are most of a large upgrade's events. It answers as FindStringSubmatch
// would (TestTwoTokensAgreeWithThePatterns).
func twoTokens(e event, prefix, mid, rest string, end bool) ([]string, error) {
	s, ok := strings.CutPrefix(e.Message, prefix)
	i := strings.IndexAny(s, " \t\n\f\r")
	if !ok || i <= 0 {
		return nil, unreadable(e)
	}
	first := s[:i]
	s, ok = strings.CutPrefix(s[i:], mid)
	j := strings.IndexAny(s, " \t\n\f\r")
	if j < 0 {
		j = len(s)
	}
	second, tail := s[:j], s[j:]
	if !ok || second == "" || (end && tail != rest) || (!end && !strings.HasPrefix(tail, rest)) {
		return nil, unreadable(e)
	}
	return []string{e.Message[:len(e.Message)-len(tail)+len(rest)], first, second}, nil
}

func parseDur(s string) time.Duration {
	d, _ := time.ParseDuration(s)
	return d
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// untilOf reads "waiting until T" from a message; zero if it has none.
func untilOf(s string) time.Time {
	m := reUntil.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339, strings.TrimRight(m[1], ";.,"))
	return t
}
