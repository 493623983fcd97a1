package workloads

import (
	"strconv"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The messages of a Deployment's Progressing condition name its new ReplicaSet, quoted:
// prefix + "\"NAME-HASH\"" + suffix. The status pass runs at every batch of pod changes and the
// message is mostly the one the condition has already: these helpers recognise it without
// building it.

// rsMessage is one of the Progressing condition's messages; i is its index in rsTexts.
type rsMessage struct {
	prefix, suffix string
	i              int
}

var (
	msgRSAvailable   = rsMessage{"ReplicaSet ", " has successfully progressed.", 0}
	msgRSCreated     = rsMessage{"Created new replica set ", "", 1}
	msgRSProgressing = rsMessage{"ReplicaSet ", " is progressing.", 2}
	msgRSTimedOut    = rsMessage{"ReplicaSet ", " has timed out progressing.", 3}
)

// rsTexts are the messages of one ReplicaSet, by rsMessage.i, built as they are first needed.
// A Deployment's Progressing condition goes back and forth between two of them as its pods
// come and go.
type rsTexts [4]string

// rsTextsKey is a ReplicaSet's name: its Deployment's name and its hash.
type rsTextsKey struct{ name, hash string }

// maxRSTexts bounds the messages kept (a rollout makes a ReplicaSet): past it they are dropped
// and built again as needed.
const maxRSTexts = 4096

// text is the message for d's current ReplicaSet: old itself when it is that message already,
// else the one built before (w.rsTexts, a function of the name: not saved, rebuilt on use).
func (w *Workloads) text(m rsMessage, d *model.Deployment, old string) string {
	if m.is(old, d) {
		return old
	}
	k := rsTextsKey{d.Name, d.Current}
	t := w.rsTexts[k]
	if t == nil {
		if w.rsTexts == nil || len(w.rsTexts) >= maxRSTexts {
			w.rsTexts = map[rsTextsKey]*rsTexts{}
		}
		t = &rsTexts{}
		w.rsTexts[k] = t
	}
	if t[m.i] == "" {
		t[m.i] = m.prefix + quotedReplicaSet(d) + m.suffix
	}
	return t[m.i]
}

// is says whether s is the message for d's current ReplicaSet.
func (m rsMessage) is(s string, d *model.Deployment) bool {
	return len(s) >= len(m.prefix)+len(m.suffix) && strings.HasPrefix(s, m.prefix) && strings.HasSuffix(s, m.suffix) &&
		isQuotedReplicaSet(s[len(m.prefix):len(s)-len(m.suffix)], d)
}

// mentionsReplicaSet is strings.Contains(msg, quotedReplicaSet(d)), without building the name
// when msg is one of the messages for d's current ReplicaSet.
func mentionsReplicaSet(msg string, d *model.Deployment) bool {
	for _, m := range [...]rsMessage{msgRSProgressing, msgRSAvailable, msgRSCreated, msgRSTimedOut} {
		if m.is(msg, d) {
			return true
		}
	}
	return strings.Contains(msg, quotedReplicaSet(d))
}

// quotedReplicaSet is the name of d's current ReplicaSet, quoted as the messages show it.
func quotedReplicaSet(d *model.Deployment) string { return strconv.Quote(d.Name + "-" + d.Current) }

// isQuotedReplicaSet says whether q is quotedReplicaSet(d), building it only when a name
// would be escaped.
func isQuotedReplicaSet(q string, d *model.Deployment) bool {
	if !quotesAsIs(d.Name) || !quotesAsIs(d.Current) {
		return q == quotedReplicaSet(d)
	}
	n := len(d.Name)
	return len(q) == n+len(d.Current)+3 && q[0] == '"' && q[n+1] == '-' && q[len(q)-1] == '"' &&
		q[1:n+1] == d.Name && q[n+2:len(q)-1] == d.Current
}

// quotesAsIs says whether strconv.Quote leaves s as it is between its quotes: printable ASCII
// but the quote and the backslash.
func quotesAsIs(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b > 0x7e || b == '"' || b == '\\' {
			return false
		}
	}
	return true
}
