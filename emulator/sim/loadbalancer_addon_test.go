package sim

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// setHTTPLB sends the add-ons update gcloud sends for --update-addons=HttpLoadBalancing=DISABLED
// (or ENABLED).
func setHTTPLB(w *World, location string, disabled bool) (*model.Operation, error) {
	v, _ := json.Marshal(map[string]any{"httpLoadBalancing": map[string]bool{"disabled": disabled}})
	return w.gke.UpdateCluster("proj", location, "c1", &api.UpdateClusterRequest{Update: &api.ClusterUpdate{
		Extra: api.Extra{"desiredAddonsConfig": v}}})
}

// wantAddonRefusal checks a 400 that names the field and R-LB-8.
func wantAddonRefusal(t *testing.T, what string, err error, field string) {
	t.Helper()
	if e, ok := model.AsError(err); !ok || e.HTTPCode != 400 || !strings.Contains(e.Message, field) ||
		!strings.Contains(e.Message, "HttpLoadBalancing") || !strings.Contains(e.Message, "#r-lb-8") {
		t.Fatalf("%s: %v, want a 400 naming %s, HttpLoadBalancing and R-LB-8", what, err, field)
	}
}

// R-LB-8, R-LB-4: GKE subsetting needs the HttpLoadBalancing add-on both ways. Enabling
// subsetting without the add-on is refused (R-LB-4), and so is disabling the add-on on a cluster
// with subsetting, through clusters.update and clusters.setAddons alike; the add-on stays on and
// a new internal Service still gets its GCE_VM_IP NEG load balancer.
func TestHTTPLoadBalancingCannotBeDisabledUnderSubsetting(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, "us-central1-a", true, &api.NodePool{Name: "pool-a", InitialNodeCount: 2})
	_, err := setHTTPLB(w, "us-central1-a", true)
	wantAddonRefusal(t, "disabling HttpLoadBalancing with subsetting (clusters.update)", err, "update.desiredAddonsConfig.httpLoadBalancing.disabled")
	_, err = w.gke.SetClusterField("proj", "us-central1-a", "c1", "addonsConfig", []byte(`{"httpLoadBalancing":{"disabled":true}}`))
	wantAddonRefusal(t, "disabling HttpLoadBalancing with subsetting (clusters.setAddons)", err, "addonsConfig.httpLoadBalancing.disabled")
	if loadbalancers.HTTPLoadBalancingDisabled(c.Extra["addonsConfig"]) {
		t.Fatal("a refused request disabled the add-on")
	}
	s := mustCreateService(t, w, c, lbService("ilb", internalLB))
	advance(w, 2*time.Minute)
	if s.LB == nil || s.LB.Kind != loadbalancers.LBInternalNEG || s.LB.State != loadbalancers.LBReady {
		t.Fatalf("internal Service under subsetting: %+v, want a ready %s load balancer", s.LB, loadbalancers.LBInternalNEG)
	}
	// Sending the add-on enabled is accepted.
	op, err := setHTTPLB(w, "us-central1-a", false)
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Minute)
}

// R-LB-8: without the add-on, the kinds GKE builds on backend services with its own controller
// wait for it: a new external Service with cloud.google.com/l4-rbs gets no load balancer (a
// SyncLoadBalancerFailed Warning, no address, state FAILED) while target pool-based external and
// instance-group internal load balancers are built as usual; subsetting cannot be enabled
// (R-LB-4); turning the add-on on again builds the waiting one. Autopilot refuses to disable it.
func TestHTTPLoadBalancingAddonAndTheKindsThatNeedIt(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, "us-central1-a", false, &api.NodePool{Name: "pool-a", InitialNodeCount: 2})
	op, err := setHTTPLB(w, "us-central1-a", true)
	if err != nil {
		t.Fatalf("disabling HttpLoadBalancing without subsetting: %v", err)
	}
	runOp(t, w, op, time.Minute)
	rbs := mustCreateService(t, w, c, lbService("rbs", annotate(loadbalancers.AnnotationL4RBS, "enabled")))
	tp := mustCreateService(t, w, c, lbService("netlb"))
	ilb := mustCreateService(t, w, c, lbService("ilb", internalLB))
	advance(w, 5*time.Minute)
	for _, s := range []*model.Service{tp, ilb} {
		if s.LB == nil || s.LB.State != loadbalancers.LBReady || loadbalancers.NeedsHTTPLoadBalancing(s.LB.Kind) {
			t.Fatalf("service %s without the add-on: %+v, want a ready load balancer of a kind that does not need it", s.Key(), s.LB)
		}
	}
	st, _ := w.loadbalancers.GetLoadBalancer(c, "default", "rbs")
	if rbs.LB.State == loadbalancers.LBReady || st.State != "FAILED" || len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "HttpLoadBalancing add-on is disabled") {
		t.Fatalf("l4-rbs Service without the add-on: state %s, warnings %v; want FAILED naming the add-on", st.State, st.Warnings)
	}
	if got := w.loadbalancers.RenderService(c, rbs).Status.LoadBalancer.Ingress; len(got) != 0 {
		t.Fatalf("l4-rbs Service without the add-on shows addresses %v, want none", got)
	}
	if evs := mustEvents(w, "SyncLoadBalancerFailed"); len(evs) != 1 || !strings.Contains(evs[0].Message, "default/rbs") || !strings.Contains(evs[0].Message, "#r-lb-8") {
		t.Fatalf("SyncLoadBalancerFailed events %s, want one for default/rbs citing R-LB-8", mustJSON(evs))
	}
	_, err = w.gke.UpdateCluster("proj", "us-central1-a", "c1", &api.UpdateClusterRequest{Update: &api.ClusterUpdate{
		DesiredL4ilbSubsettingConfig: &api.ILBSubsettingConfig{Enabled: true}}})
	if e, ok := model.AsError(err); !ok || e.HTTPCode != 400 || !strings.Contains(e.Message, "HttpLoadBalancing") || !strings.Contains(e.Message, "#r-lb-4") {
		t.Fatalf("enabling subsetting without HttpLoadBalancing: %v", err)
	}

	op, err = setHTTPLB(w, "us-central1-a", false)
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Minute)
	advance(w, 2*time.Minute)
	if rbs.LB == nil || rbs.LB.Kind != loadbalancers.LBExternalRBS || rbs.LB.State != loadbalancers.LBReady || rbs.LB.Failed != "" {
		t.Fatalf("l4-rbs Service after the add-on is enabled again: %+v, want a ready %s load balancer", rbs.LB, loadbalancers.LBExternalRBS)
	}

	t.Run("Autopilot", func(t *testing.T) {
		w := newTestWorld(t)
		_, err := w.gke.CreateCluster("proj", "us-central1", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c1", Autopilot: &api.Autopilot{Enabled: true},
			Extra: api.Extra{"addonsConfig": json.RawMessage(`{"httpLoadBalancing":{"disabled":true}}`)}}})
		wantAddonRefusal(t, "Autopilot created without HttpLoadBalancing", err, "cluster.addonsConfig.httpLoadBalancing.disabled")
		op, err := w.gke.CreateCluster("proj", "us-central1", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c1", Autopilot: &api.Autopilot{Enabled: true}}})
		if err != nil {
			t.Fatal(err)
		}
		runOp(t, w, op, time.Hour)
		_, err = setHTTPLB(w, "us-central1", true)
		wantAddonRefusal(t, "disabling HttpLoadBalancing on Autopilot", err, "update.desiredAddonsConfig.httpLoadBalancing.disabled")
	})
}

// clusters.update's desiredAddonsConfig changes the add-ons it names and keeps the others, as
// gcloud's --update-addons (one add-on at a time) expects; a value that is not an object of
// add-ons is refused naming the member.
func TestAddonsUpdateChangesOnlyTheAddonsItNames(t *testing.T) {
	w := newTestWorld(t)
	op, err := w.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c1", InitialNodeCount: 1,
		Extra: api.Extra{"addonsConfig": json.RawMessage(`{"horizontalPodAutoscaling":{"disabled":true},"gcePersistentDiskCsiDriverConfig":{"enabled":true}}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	op, err = setHTTPLB(w, "us-central1-a", true)
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Minute)
	var addons map[string]map[string]bool
	if err := json.Unmarshal(w.core.Cluster("proj", "us-central1-a", "c1").Extra["addonsConfig"], &addons); err != nil {
		t.Fatal(err)
	}
	if !addons["httpLoadBalancing"]["disabled"] || !addons["horizontalPodAutoscaling"]["disabled"] || !addons["gcePersistentDiskCsiDriverConfig"]["enabled"] {
		t.Fatalf("add-ons after disabling HttpLoadBalancing alone: %v, want it disabled and the two others as they were", addons)
	}
	_, err = w.gke.UpdateCluster("proj", "us-central1-a", "c1", &api.UpdateClusterRequest{Update: &api.ClusterUpdate{
		Extra: api.Extra{"desiredAddonsConfig": json.RawMessage(`"HttpLoadBalancing=DISABLED"`)}}})
	if e, ok := model.AsError(err); !ok || e.HTTPCode != 400 || !strings.Contains(e.Message, "update.desiredAddonsConfig") {
		t.Fatalf("a string as desiredAddonsConfig: %v, want a 400 naming update.desiredAddonsConfig", err)
	}
}
