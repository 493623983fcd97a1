package engine

import (
	"encoding/hex"
	"fmt"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Now is the emulated time.
func (w *Engine) Now() time.Time { return w.st.Now }

// Schedule runs ev after d of emulated time.
func (w *Engine) Schedule(d time.Duration, ev model.Event) {
	w.st.Queue.Push(w.st.Now.Add(d), ev)
}

// QueuedFor calls fn with every queued event of cluster c (derived indexes that remember what
// they queued rebuild that memory from the queue).
func (w *Engine) QueuedFor(c *model.Cluster, fn func(model.Event)) {
	key := c.Key()
	w.st.Queue.Each(func(_ time.Time, ev model.Event) {
		if ev.Cluster == key {
			fn(ev)
		}
	})
}

// NextEventAt is when the next scheduled step is due.
func (w *Engine) NextEventAt() (time.Time, bool) {
	it, ok := w.st.Queue.Peek()
	return it.At, ok
}

// PendingEvents is the number of scheduled steps.
func (w *Engine) PendingEvents() int { return w.st.Queue.Len() }

func (w *Engine) Dispatch(ev model.Event) {
	h, ok := w.handlers[ev.Kind]
	if !ok {
		panic(fmt.Sprintf("sim: no handler for event kind %q", ev.Kind))
	}
	h(ev)
}

func (w *Engine) On(kind string, h func(model.Event)) {
	if _, dup := w.handlers[kind]; dup {
		panic("sim: duplicate handler for " + kind)
	}
	w.handlers[kind] = h
}

// Jitter returns base plus a random extra of up to spread, in whole seconds.
func (w *Engine) Jitter(base, spread time.Duration) time.Duration {
	if spread <= 0 {
		return base
	}
	return base + time.Duration(w.Rng.Int64N(int64(spread/time.Second)+1))*time.Second
}

// RandHex returns n random lowercase hex digits.
func (w *Engine) RandHex(n int) string {
	b := make([]byte, (n+1)/2)
	for i := range b {
		b[i] = byte(w.Rng.UintN(256))
	}
	return hex.EncodeToString(b)[:n]
}

// RandUint32 returns four random bytes, drawn as randHex(8) draws them.
func (w *Engine) RandUint32() uint32 {
	var v uint32
	for range 4 {
		v = v<<8 | uint32(w.Rng.UintN(256))
	}
	return v
}

// RandAlnum returns n random characters from [a-z0-9], as GKE node name suffixes use.
func (w *Engine) RandAlnum(n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[w.Rng.IntN(len(chars))]
	}
	return string(b)
}

// NewPodKey is the key (namespace/name) of a new pod of c named prefix (its parts joined)
// followed by five random characters of the kind Kubernetes puts in generated names, drawn
// again while a pod of c has it, as a controller does when the API server answers
// AlreadyExists. The key is one string (model.KeyedPod makes the pod from it).
func (w *Engine) NewPodKey(c *model.Cluster, namespace string, prefix ...string) string {
	b := append(make([]byte, 0, 64), namespace...)
	b = append(b, '/')
	for _, s := range prefix {
		b = append(b, s...)
	}
	n := len(b)
	for {
		if b = w.AppendRandSafe(b[:n]); c.Pods[string(b)] == nil {
			return string(b)
		}
	}
}

// AppendRandSafe appends the five random characters of a generated name to b.
func (w *Engine) AppendRandSafe(b []byte) []byte {
	for range 5 {
		b = append(b, model.SafeChars[w.Rng.IntN(len(model.SafeChars))])
	}
	return b
}
