package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	appsv1 "k8s.io/api/apps/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// R-SURGE-3: the drain honours budgets and grace periods for up to one hour, then forces out
// what is left, grace periods included: a pod its budget held the whole hour is deleted at the
// hour with no grace left (its own 90 minutes cut to nothing), and the node is drained at the
// hour, not 90 minutes later.
func TestDrainForcesOutAtTheHourGraceIncluded(t *testing.T) {
	w, c := workloadCluster(t, "e2-standard-4", 1)
	mustCreateDeployment(t, w, c, deployment("db", 1, "100m", func(d *appsv1.Deployment) {
		g := int64(5400)
		d.Spec.Template.Spec.TerminationGracePeriodSeconds = &g
	}))
	advance(w, time.Minute)
	zero := intstr.FromInt32(0)
	if _, err := w.kubeapi.CreatePDB(c, "default", &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &zero, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}}); err != nil {
		t.Fatal(err)
	}
	start := w.engine.Now()
	node := startNodeDrain(t, w, c, "db", core.SurgeDrain)
	advance(w, 61*time.Minute)
	forced, _ := w.engine.Events(engine.EventFilter{Node: node.Name, Type: "PodDeleted"})
	if len(forced) != 1 || !strings.Contains(forced[0].Message, "PodDisruptionBudget timeout of 1h0m0s reached (grace 0s, capped from 1h30m0s)") {
		t.Fatalf("forced deletions %+v", forced)
	}
	drained, _ := w.engine.Events(engine.EventFilter{Node: node.Name, Type: "NodeDrained"})
	if len(drained) != 1 {
		t.Fatalf("node not drained 61 minutes after the drain started")
	}
	if at, _ := time.Parse(time.RFC3339, drained[0].Time); at.Sub(start) != time.Hour+core.DrainFinish {
		t.Errorf("drained %s after the drain started, want the hour and the %s it takes to finish", at.Sub(start), core.DrainFinish)
	}
}

// A pod evicted late in the hour with a long grace period is killed at the hour: the drain's
// deadline is the hour, whatever the pods' grace periods (R-SURGE-3).
func TestDrainKillsAPodStillTerminatingAtTheHour(t *testing.T) {
	w, c := workloadCluster(t, "e2-standard-4", 1)
	mustCreateDeployment(t, w, c, deployment("slow", 1, "100m", func(d *appsv1.Deployment) {
		g := int64(3000)
		d.Spec.Template.Spec.TerminationGracePeriodSeconds = &g
	}))
	advance(w, time.Minute)
	zero := intstr.FromInt32(0)
	if _, err := w.kubeapi.CreatePDB(c, "default", &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "slow"},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &zero, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "slow"}}}}); err != nil {
		t.Fatal(err)
	}
	start := w.engine.Now()
	node := startNodeDrain(t, w, c, "slow", core.SurgeDrain)
	advance(w, 30*time.Minute)
	// The budget goes: the pod is evicted half an hour in, with its 50 minutes of grace.
	if _, err := w.kubeapi.DeletePDB(c, "default", "slow"); err != nil {
		t.Fatal(err)
	}
	advance(w, 31*time.Minute)
	killed, _ := w.engine.Events(engine.EventFilter{Node: node.Name, Type: "PodKilled"})
	if len(killed) != 1 || !strings.Contains(killed[0].Message, "still terminating at the drain's deadline of 1h0m0s") {
		t.Fatalf("kills %+v", killed)
	}
	if at, _ := time.Parse(time.RFC3339, killed[0].Time); at.Sub(start) != time.Hour {
		t.Errorf("killed %s after the drain started, want 1h", at.Sub(start))
	}
}
