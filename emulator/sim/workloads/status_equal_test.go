package workloads

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// statusTimes are times that reflect.DeepEqual tells apart in every way it can: two instants,
// one instant in two locations alike at two addresses (as decoding JSON makes them), with and
// without a monotonic reading, and the zero time.
func statusTimes() []metav1.Time {
	t0 := time.Date(2026, 11, 2, 10, 20, 0, 0, time.UTC)
	now := time.Now()
	return []metav1.Time{{}, metav1.NewTime(t0), metav1.NewTime(t0.Add(time.Second)),
		metav1.NewTime(t0.In(time.FixedZone("X", 3600))), metav1.NewTime(t0.In(time.FixedZone("X", 3600))),
		metav1.NewTime(t0.In(time.FixedZone("Y", 3600))), metav1.NewTime(now), metav1.NewTime(now.Round(0))}
}

// int32Ptrs are nil, two pointers to one value at two addresses, and another value.
func int32Ptrs() []*int32 {
	one, alsoOne, two := int32(1), int32(1), int32(2)
	return []*int32{nil, &one, &alsoOne, &two}
}

// variants returns base and copies of it each changed by one of the changes.
func variants[T any](base T, changes ...func(*T)) []T {
	out := []T{base}
	for _, f := range changes {
		v := base
		f(&v)
		out = append(out, v)
	}
	return out
}

// agree checks eq against reflect.DeepEqual on every pair of values.
func agree[T any](t *testing.T, what string, values []T, eq func(a, b *T) bool) {
	t.Helper()
	for i := range values {
		for j := range values {
			if got, want := eq(&values[i], &values[j]), reflect.DeepEqual(values[i], values[j]); got != want {
				t.Errorf("%s %d vs %d: typed comparison %v, reflect.DeepEqual %v:\n%#v\n%#v", what, i, j, got, want, values[i], values[j])
			}
		}
	}
}

func TestStatusEqualAgreesWithDeepEqual(t *testing.T) {
	times, ptrs := statusTimes(), int32Ptrs()
	// Conditions: one per time in each of its times, and each field changed.
	var dconds []appsv1.DeploymentCondition
	dbase := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: "True", Reason: "r", Message: "m"}
	for _, tm := range times {
		dconds = append(dconds, variants(dbase, func(c *appsv1.DeploymentCondition) { c.LastUpdateTime = tm },
			func(c *appsv1.DeploymentCondition) { c.LastTransitionTime = tm })...)
	}
	dconds = append(dconds, variants(dbase, func(c *appsv1.DeploymentCondition) { c.Type = appsv1.DeploymentAvailable },
		func(c *appsv1.DeploymentCondition) { c.Status = "False" }, func(c *appsv1.DeploymentCondition) { c.Reason = "s" },
		func(c *appsv1.DeploymentCondition) { c.Message = "n" })...)
	agree(t, "DeploymentCondition", dconds, deploymentConditionEqual)

	dslices := [][]appsv1.DeploymentCondition{nil, {}, dconds[:1], slices.Clone(dconds[:1]), dconds[1:2], dconds[:2], slices.Clone(dconds[:2]), dconds[2:4]}
	var dstatuses []appsv1.DeploymentStatus
	dsbase := appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3, UnavailableReplicas: 0}
	for _, p := range ptrs {
		dstatuses = append(dstatuses, variants(dsbase, func(s *appsv1.DeploymentStatus) { s.TerminatingReplicas = p },
			func(s *appsv1.DeploymentStatus) { s.CollisionCount = p })...)
	}
	for _, cs := range dslices {
		dstatuses = append(dstatuses, variants(dsbase, func(s *appsv1.DeploymentStatus) { s.Conditions = cs })...)
	}
	dstatuses = append(dstatuses, variants(dsbase, func(s *appsv1.DeploymentStatus) { s.ObservedGeneration++ },
		func(s *appsv1.DeploymentStatus) { s.Replicas++ }, func(s *appsv1.DeploymentStatus) { s.UpdatedReplicas++ },
		func(s *appsv1.DeploymentStatus) { s.ReadyReplicas++ }, func(s *appsv1.DeploymentStatus) { s.AvailableReplicas++ },
		func(s *appsv1.DeploymentStatus) { s.UnavailableReplicas++ })...)
	agree(t, "DeploymentStatus", dstatuses, deploymentStatusEqual)

	var rsconds []appsv1.ReplicaSetCondition
	rcbase := appsv1.ReplicaSetCondition{Type: appsv1.ReplicaSetReplicaFailure, Status: "True", Reason: "r", Message: "m"}
	for _, tm := range times {
		rsconds = append(rsconds, variants(rcbase, func(c *appsv1.ReplicaSetCondition) { c.LastTransitionTime = tm })...)
	}
	rsconds = append(rsconds, variants(rcbase, func(c *appsv1.ReplicaSetCondition) { c.Type = "Other" },
		func(c *appsv1.ReplicaSetCondition) { c.Status = "False" }, func(c *appsv1.ReplicaSetCondition) { c.Reason = "s" },
		func(c *appsv1.ReplicaSetCondition) { c.Message = "n" })...)
	var rsstatuses []appsv1.ReplicaSetStatus
	rsbase := appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 2, ObservedGeneration: 4}
	for _, p := range ptrs {
		rsstatuses = append(rsstatuses, variants(rsbase, func(s *appsv1.ReplicaSetStatus) { s.TerminatingReplicas = p })...)
	}
	for i := range rsconds {
		rsstatuses = append(rsstatuses, variants(rsbase, func(s *appsv1.ReplicaSetStatus) { s.Conditions = rsconds[i : i+1] })...)
	}
	rsstatuses = append(rsstatuses, variants(rsbase, func(s *appsv1.ReplicaSetStatus) { s.Conditions = []appsv1.ReplicaSetCondition{} },
		func(s *appsv1.ReplicaSetStatus) { s.Replicas++ }, func(s *appsv1.ReplicaSetStatus) { s.FullyLabeledReplicas++ },
		func(s *appsv1.ReplicaSetStatus) { s.ReadyReplicas++ }, func(s *appsv1.ReplicaSetStatus) { s.AvailableReplicas++ },
		func(s *appsv1.ReplicaSetStatus) { s.ObservedGeneration++ })...)
	agree(t, "ReplicaSetStatus", rsstatuses, replicaSetStatusEqual)

	var dsconds []appsv1.DaemonSetCondition
	dcbase := appsv1.DaemonSetCondition{Type: "T", Status: "True", Reason: "r", Message: "m"}
	for _, tm := range times {
		dsconds = append(dsconds, variants(dcbase, func(c *appsv1.DaemonSetCondition) { c.LastTransitionTime = tm })...)
	}
	dsconds = append(dsconds, variants(dcbase, func(c *appsv1.DaemonSetCondition) { c.Type = "U" },
		func(c *appsv1.DaemonSetCondition) { c.Status = "False" }, func(c *appsv1.DaemonSetCondition) { c.Reason = "s" },
		func(c *appsv1.DaemonSetCondition) { c.Message = "n" })...)
	var dsstatuses []appsv1.DaemonSetStatus
	dssbase := appsv1.DaemonSetStatus{CurrentNumberScheduled: 5, DesiredNumberScheduled: 5, NumberReady: 4, ObservedGeneration: 1,
		UpdatedNumberScheduled: 5, NumberAvailable: 4, NumberUnavailable: 1}
	for _, p := range ptrs {
		dsstatuses = append(dsstatuses, variants(dssbase, func(s *appsv1.DaemonSetStatus) { s.CollisionCount = p })...)
	}
	for i := range dsconds {
		dsstatuses = append(dsstatuses, variants(dssbase, func(s *appsv1.DaemonSetStatus) { s.Conditions = dsconds[i : i+1] })...)
	}
	dsstatuses = append(dsstatuses, variants(dssbase, func(s *appsv1.DaemonSetStatus) { s.Conditions = []appsv1.DaemonSetCondition{} },
		func(s *appsv1.DaemonSetStatus) { s.CurrentNumberScheduled++ }, func(s *appsv1.DaemonSetStatus) { s.NumberMisscheduled++ },
		func(s *appsv1.DaemonSetStatus) { s.DesiredNumberScheduled++ }, func(s *appsv1.DaemonSetStatus) { s.NumberReady++ },
		func(s *appsv1.DaemonSetStatus) { s.ObservedGeneration++ }, func(s *appsv1.DaemonSetStatus) { s.UpdatedNumberScheduled++ },
		func(s *appsv1.DaemonSetStatus) { s.NumberAvailable++ }, func(s *appsv1.DaemonSetStatus) { s.NumberUnavailable++ })...)
	agree(t, "DaemonSetStatus", dsstatuses, daemonSetStatusEqual)
}

// TestStatusEqualKnowsEveryField fails when an API type the typed comparisons compare gains
// (or loses) a field: the comparison must then compare it too.
func TestStatusEqualKnowsEveryField(t *testing.T) {
	known := map[reflect.Type]string{
		reflect.TypeOf(appsv1.DeploymentStatus{}): "ObservedGeneration Replicas UpdatedReplicas ReadyReplicas AvailableReplicas " +
			"UnavailableReplicas TerminatingReplicas Conditions CollisionCount",
		reflect.TypeOf(appsv1.DeploymentCondition{}): "Type Status LastUpdateTime LastTransitionTime Reason Message",
		reflect.TypeOf(appsv1.ReplicaSetStatus{}): "Replicas FullyLabeledReplicas ReadyReplicas AvailableReplicas TerminatingReplicas " +
			"ObservedGeneration Conditions",
		reflect.TypeOf(appsv1.ReplicaSetCondition{}): "Type Status LastTransitionTime Reason Message",
		reflect.TypeOf(appsv1.DaemonSetStatus{}): "CurrentNumberScheduled NumberMisscheduled DesiredNumberScheduled NumberReady " +
			"ObservedGeneration UpdatedNumberScheduled NumberAvailable NumberUnavailable CollisionCount Conditions",
		reflect.TypeOf(appsv1.DaemonSetCondition{}): "Type Status LastTransitionTime Reason Message",
		reflect.TypeOf(metav1.Time{}):               "Time",
	}
	for typ, want := range known {
		var got []string
		for i := range typ.NumField() {
			got = append(got, typ.Field(i).Name)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s has the fields %v, the typed comparison (status_equal.go) knows %s", typ, got, want)
		}
	}
}

// TestRollingParamsDefaultAsIntstr checks that the default maxSurge and maxUnavailable scale as
// the percentage "25%" does.
func TestRollingParamsDefaultAsIntstr(t *testing.T) {
	pct := intstr.FromString("25%")
	for total := range 2001 {
		for _, up := range []bool{true, false} {
			want, _ := intstr.GetScaledValueFromIntOrPercent(&pct, total, up)
			if got := scaledOrDefault(nil, total, up); got != want {
				t.Errorf("scaledOrDefault(nil, %d, %v) = %d, want %d", total, up, got, want)
			}
		}
	}
}

// TestProgressMessagesAsBuilt checks the Progressing messages' recognition against the
// messages built, for names strconv.Quote leaves as they are and names it escapes.
func TestProgressMessagesAsBuilt(t *testing.T) {
	deployments := []*model.Deployment{{Name: "web", Current: "5897a5cb"}, {Name: "web-2", Current: "abc"},
		{Name: "db~statefulset", Current: "x"}, {Name: `we"b`, Current: "h"}, {Name: "w\\eb", Current: "h"}, {Name: "wéb", Current: "h"},
		{Name: "w\neb", Current: "h"}, {Name: "", Current: ""}, {Name: "web", Current: "5897a5cc"}}
	messages := []rsMessage{msgRSAvailable, msgRSCreated, msgRSProgressing, msgRSTimedOut}
	w := &Workloads{}
	var texts []string
	for _, d := range deployments {
		for _, m := range messages {
			texts = append(texts, m.prefix+strconv.Quote(d.Name+"-"+d.Current)+m.suffix)
		}
	}
	texts = append(texts, "", "ReplicaSet ", `ReplicaSet "web-5897a5cb"`, `x "web-5897a5cb" y`, `ReplicaSet "web-5897a5cb is progressing.`)
	for _, d := range deployments {
		quoted := strconv.Quote(d.Name + "-" + d.Current)
		for _, s := range texts {
			for _, m := range messages {
				built := m.prefix + quoted + m.suffix
				if got, want := m.is(s, d), s == built; got != want {
					t.Errorf("%+v.is(%q, %s/%s) = %v, want %v", m, s, d.Name, d.Current, got, want)
				}
				if got := w.text(m, d, s); got != built {
					t.Errorf("%+v.text(%s/%s, %q) = %q, want %q", m, d.Name, d.Current, s, got, built)
				}
			}
			if got, want := mentionsReplicaSet(s, d), strings.Contains(s, quoted); got != want {
				t.Errorf("mentionsReplicaSet(%q, %s/%s) = %v, want %v", s, d.Name, d.Current, got, want)
			}
		}
	}
}

// TestProgressMessagesPastTheBound checks the messages kept stay right when more ReplicaSets
// than maxRSTexts have had one.
func TestProgressMessagesPastTheBound(t *testing.T) {
	w := &Workloads{}
	for i := range maxRSTexts + 10 {
		for _, d := range []*model.Deployment{{Name: "web", Current: strconv.Itoa(i)}, {Name: "web", Current: strconv.Itoa(i / 2)}} {
			if got, want := w.text(msgRSProgressing, d, ""), `ReplicaSet "web-`+d.Current+`" is progressing.`; got != want {
				t.Fatalf("text(%s) = %q, want %q", d.Current, got, want)
			}
		}
	}
	if len(w.rsTexts) > maxRSTexts {
		t.Errorf("%d messages kept, want at most %d", len(w.rsTexts), maxRSTexts)
	}
}
