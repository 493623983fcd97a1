package core

import (
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
)

// Draining a node, the one mechanism every caller uses (upgrades, resizes, node pool deletion,
// the autoscaler): cordon, then evict each pod (DaemonSet pods stay and go with the node),
// respecting PodDisruptionBudgets; evictions a budget blocks are retried every few seconds
// until the caller's PDB timeout, after which those pods are deleted anyway; every pod's
// termination grace is capped by the caller. The node is drained once no pod but DaemonSet
// pods is left, and then the caller's next step runs (evNodeDrained).

const (
	evDrainAttempt = "drain.attempt"
	// drainRetry is how often blocked evictions are retried (as kubectl drain does).
	drainRetry = 5 * time.Second
	// drainFinish is how long the last steps of a drain take once no pod is left.
	DrainFinish = 5 * time.Second
)

// Drain policies of GKE's processes.
var (
	// R-SURGE-3: PDBs and graceful termination are respected for up to one hour.
	SurgeDrain = model.DrainPolicy{RespectPDB: true, PDBTimeout: time.Hour, GraceCap: time.Hour}
	// Node pool deletion does not wait for PDBs (nodeDrainConfig.respectPdbDuringNodePoolDeletion
	// defaults to false); pods still get their grace, up to an hour.
	PoolDeletionDrain = model.DrainPolicy{GraceCap: time.Hour}
	// R-BG-5: a blue batch is drained by eviction; what PDBs or long grace periods hold back is
	// left for the delete phase.
	BlueBatchDrain = model.DrainPolicy{RespectPDB: true, PDBTimeout: time.Hour, Settle: true}
	// R-BG-5: the delete phase deletes pods (no eviction, PDBs ignored), grace capped at 60 minutes.
	BlueDeleteDrain = model.DrainPolicy{GraceCap: time.Hour}
	// R-ABG-3: after the wait, blue nodes drain honouring PDBs for 1 hour and grace for 24 hours.
	AutoscaledBlueDrain = model.DrainPolicy{RespectPDB: true, PDBTimeout: time.Hour, GraceCap: 24 * time.Hour}
)

func (w *Core) registerDrainHandlers() {
	w.engine.On(evDrainAttempt, func(ev model.Event) {
		if c, n := w.NodeEvent(ev); n != nil && n.Drain != nil && n.State == model.NodeDraining {
			w.drainStep(c, n)
		}
	})
}

// StartDrain cordons n and starts draining it.
func (w *Core) StartDrain(c *model.Cluster, n *model.Node, policy model.DrainPolicy, why string) {
	w.Cordon(c, n, why)
	w.SetNodeState(c, n, model.NodeDraining)
	n.Drain = &model.DrainState{Policy: policy, Start: w.st.Now, Reason: why}
	w.engine.RecordNodeLine("NodeDraining", c, n.Pool, n.Name, "", "draining node ", w.drainPart(policy), why)
	w.drainStep(c, n)
}

// drainPart is the middle of a NodeDraining line under policy p, made once per policy (a surge
// upgrade drains all its nodes under one); at most 64 are kept.
func (w *Core) drainPart(p model.DrainPolicy) string {
	s, ok := w.drainParts[p]
	if !ok {
		if w.drainParts == nil || len(w.drainParts) >= 64 {
			w.drainParts = map[model.DrainPolicy]string{}
		}
		s = " (" + describeDrain(p) + "): "
		w.drainParts[p] = s
	}
	return s
}

func describeDrain(p model.DrainPolicy) string {
	if !p.RespectPDB {
		return "deleting pods, PDBs not respected"
	}
	s := "evicting, PDBs respected for " + p.PDBTimeout.String()
	if p.GraceCap > 0 {
		s += ", grace up to " + p.GraceCap.String()
	}
	return s
}

// drainStep evicts what it can; it is run again when pods go and every drainRetry while an
// eviction is blocked.
func (w *Core) drainStep(c *model.Cluster, n *model.Node) {
	d := n.Drain
	ix := w.PodIndex(c)
	pdbExpired := !d.Policy.RespectPDB || !w.st.Now.Before(d.Start.Add(d.Policy.PDBTimeout))
	// Pods still terminating are killed once the longer of the PDB timeout and the grace cap
	// has passed: both are 1 hour for surge (R-SURGE-3); R-ABG-3 gives 1 hour and 24 hours.
	forceAt := d.Start.Add(max(d.Policy.PDBTimeout, d.Policy.GraceCap))
	remaining, blocked, settled := 0, false, true
	var buf [32]*model.Pod // a copy, as evictions change the node's list; on the stack for most nodes
	for _, p := range append(buf[:0], ix.OnNode(n).Pods...) {
		if p.OwnerKind == model.OwnerDaemonSet {
			continue
		}
		remaining++
		if p.Terminating {
			// Past the drain's deadline, nothing waits any more (R-SURGE-3's force-evict).
			if d.Policy.RespectPDB && !w.st.Now.Before(forceAt) {
				w.engine.Record("PodKilled", c, n.Pool, n.Name, "", "killed pod %s on %s: still terminating at the drain's deadline of %s", p.Key(), n.Name, forceAt.Sub(d.Start))
				w.TerminatePod(c, p, 0)
			}
			continue
		}
		if until, ok := extendedUntil(p, d.Policy); ok && w.st.Now.Before(until) {
			// R-EXT-1: the pod runs its extended duration first; the drain waits for it.
			blocked, settled = true, false
			if d.Blocked == nil {
				d.Blocked = map[string]bool{}
			}
			if !d.Blocked[p.Key()] {
				d.Blocked[p.Key()] = true
				w.engine.Record("EvictionDeferred", c, n.Pool, n.Name, "", "pod %s is an extended-duration pod (%s: \"false\" on Autopilot); not evicted before %s, 7 days after it started",
					p.Key(), SafeToEvictAnnotation, until.Format(time.RFC3339))
			}
			if d.ExtendedUntil.IsZero() || until.Before(d.ExtendedUntil) || !d.ExtendedUntil.After(w.st.Now) {
				d.ExtendedUntil = until
				w.engine.Schedule(until.Sub(w.st.Now), model.Event{Kind: evDrainAttempt, Cluster: c.Key(), Node: n.Name})
			}
			continue
		}
		_, extended := extendedUntil(p, d.Policy)
		b := w.EvictionBlocker(c, p)
		var grace time.Duration
		if pdbExpired || b == nil { // the pod goes now: with what grace (a blocked one waits)
			grace = GraceOf(w.PodSpec(c, p), d.Policy.GraceCap)
		}
		switch {
		case extended && b == nil:
			// R-EXT-1: the extended duration is over; the pod is evicted like any other now.
			w.engine.Record("PodEvicted", c, n.Pool, n.Name, "", "evicted pod %s from %s (grace %s): its %s extended duration is over", p.Key(), n.Name, grace, ExtendedDuration)
			w.TerminatePod(c, p, grace)
		case pdbExpired:
			// R-SURGE-3: after the hour what is left is forced out, grace periods included: a
			// pod deleted then gets what remains of the drain's deadline (none for surge, whose
			// PDB timeout and grace cap are both an hour; up to 23 hours more for R-ABG-3).
			if d.Policy.GraceCap > 0 {
				grace = min(grace, max(forceAt.Sub(w.st.Now), 0))
			}
			w.engine.Record("PodDeleted", c, n.Pool, n.Name, "", "deleted pod %s from %s%s (grace %s)", p.Key(), n.Name, forcedWhy(d), describeGrace(grace, w.PodSpec(c, p)))
			w.TerminatePod(c, p, grace)
		case b != nil:
			blocked = true
			if !w.blockedForGood(c, b) {
				settled = false
			}
			if d.Blocked == nil {
				d.Blocked = map[string]bool{}
			}
			if !d.Blocked[p.Key()] {
				d.Blocked[p.Key()] = true
				st := w.PDBStatus(c, b)
				w.engine.Record("EvictionBlocked", c, n.Pool, n.Name, "", "cannot evict pod %s: PodDisruptionBudget %s allows %d disruptions (%d healthy, %d needed); retrying until %s",
					p.Key(), b.Key(), st.DisruptionsAllowed, st.CurrentHealthy, st.DesiredHealthy, d.Start.Add(d.Policy.PDBTimeout).Format(time.RFC3339))
			}
		default:
			w.engine.RecordPodLine("PodEvicted", c, n.Pool, n.Name, model.EvictedLine, p.Key(), grace)
			w.TerminatePod(c, p, grace)
		}
	}
	if remaining == 0 || (d.Policy.Settle && settled) {
		n.Drain = nil
		w.engine.Schedule(DrainFinish, model.Event{Kind: evNodeDrained, Cluster: c.Key(), Node: n.Name})
		return
	}
	if !d.Policy.RespectPDB || (pdbExpired && !w.st.Now.Before(forceAt)) {
		return // the pods left are terminating; their going runs the next step
	}
	// Retry blocked evictions soon; in any case come back at the PDB timeout, then at the
	// deadline for the pods still terminating.
	next := forceAt
	if !pdbExpired {
		next = d.Start.Add(d.Policy.PDBTimeout)
		if blocked {
			next = MinTime(next, w.st.Now.Add(drainRetry))
		}
	}
	if d.Next.IsZero() || !d.Next.After(w.st.Now) || next.Before(d.Next) {
		d.Next = next
		w.engine.Schedule(next.Sub(w.st.Now), model.Event{Kind: evDrainAttempt, Cluster: c.Key(), Node: n.Name})
	}
}

// describeGrace is the grace period a drain gives a pod, and the pod's own when the drain cut
// it (R-BG-5: the blue pool's deletion caps it at 60 minutes; R-SURGE-3: nothing is left of it
// at the hour).
func describeGrace(grace time.Duration, spec *corev1.PodSpec) string {
	if own := GraceOf(spec, 0); own > grace {
		return grace.String() + ", capped from " + own.String()
	}
	return grace.String()
}

func MinTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func MaxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// PDBTimeoutReached is how the log says a pod was deleted because its drain's PDB timeout
// passed (the forced end of R-SURGE-3's hour); the operation timeline marks it.
const PDBTimeoutReached = "PodDisruptionBudget timeout of "

func forcedWhy(d *model.DrainState) string {
	if d.Policy.RespectPDB {
		return ": " + PDBTimeoutReached + d.Policy.PDBTimeout.String() + " reached"
	}
	return " (deleted without eviction)"
}

// blockedForGood says a budget will not allow a disruption unless something outside changes
// it: every pod it protects is healthy and still none may go (e.g. minAvailable 100%).
func (w *Core) blockedForGood(c *model.Cluster, b *model.PDB) bool {
	st := w.PDBStatus(c, b)
	return st.DisruptionsAllowed == 0 && st.CurrentHealthy >= st.ExpectedPods
}

// ExtendedDuration is how long Autopilot protects a safe-to-evict=false pod (R-EXT-1).
const ExtendedDuration = 7 * 24 * time.Hour

// extendedUntil says until when a drain with this policy must leave pod p alone (R-EXT-1).
func extendedUntil(p *model.Pod, policy model.DrainPolicy) (time.Time, bool) {
	if !policy.ProtectExtended || p.Annotation[SafeToEvictAnnotation] != "false" {
		return time.Time{}, false
	}
	return p.CreateTime.Time().Add(ExtendedDuration), true
}
