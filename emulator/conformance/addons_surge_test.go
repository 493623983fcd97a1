package conformance

import (
	"net/http"
	"strings"
	"testing"

	container "google.golang.org/api/container/v1"
)

// Through the official Go client: a blue-green pool created without surge settings reads back
// GKE's maxSurge 1 and a kubelet configuration change (what `gcloud container node-pools update
// --system-config-from-file` sends) replaces its nodes and ends, leaving the cluster free
// (R-SURGE-11); the HttpLoadBalancing add-on cannot be disabled on a cluster with GKE subsetting
// (R-LB-8).
func TestGoClientSurgeDefaultsAndAddonDependencies(t *testing.T) {
	t.Parallel()
	_, url := startEmulator(t)
	svc := goClient(t, url)
	loc := "projects/" + project + "/locations/" + zone
	name := loc + "/clusters/conf-addons"
	op, err := svc.Projects.Locations.Clusters.Create(loc, &container.CreateClusterRequest{Cluster: &container.Cluster{
		Name: "conf-addons", NetworkConfig: &container.NetworkConfig{EnableL4ilbSubsetting: true},
		NodePools: []*container.NodePool{{Name: "default-pool", InitialNodeCount: 1}},
	}}).Do()
	if err != nil {
		t.Fatalf("clusters.create: %v", err)
	}
	waitOperation(t, svc, op)

	// R-LB-8: both ways.
	_, err = svc.Projects.Locations.Clusters.Update(name, &container.UpdateClusterRequest{Update: &container.ClusterUpdate{
		DesiredAddonsConfig: &container.AddonsConfig{HttpLoadBalancing: &container.HttpLoadBalancing{Disabled: true}}}}).Do()
	ge := wantCode(t, err, http.StatusBadRequest)
	if !strings.Contains(ge.Message, "update.desiredAddonsConfig.httpLoadBalancing.disabled") || !strings.Contains(ge.Message, "#r-lb-8") {
		t.Fatalf("disabling HttpLoadBalancing under subsetting: %q, want the field and R-LB-8", ge.Message)
	}
	_, err = svc.Projects.Locations.Clusters.SetAddons(name, &container.SetAddonsConfigRequest{
		AddonsConfig: &container.AddonsConfig{HttpLoadBalancing: &container.HttpLoadBalancing{Disabled: true}}}).Do()
	wantCode(t, err, http.StatusBadRequest)
	if cl := getCluster(t, svc, name); cl.AddonsConfig != nil && cl.AddonsConfig.HttpLoadBalancing != nil && cl.AddonsConfig.HttpLoadBalancing.Disabled {
		t.Fatal("a refused request disabled HttpLoadBalancing")
	}

	// R-SURGE-11: a blue-green pool without surge settings.
	op, err = svc.Projects.Locations.Clusters.NodePools.Create(name, &container.CreateNodePoolRequest{NodePool: &container.NodePool{
		Name: "bg", InitialNodeCount: 2, UpgradeSettings: &container.UpgradeSettings{Strategy: "BLUE_GREEN",
			BlueGreenSettings: &container.BlueGreenSettings{NodePoolSoakDuration: "600s"}}}}).Do()
	if err != nil {
		t.Fatalf("nodePools.create: %v", err)
	}
	waitOperation(t, svc, op)
	pool := name + "/nodePools/bg"
	if us := getPool(t, svc, pool).UpgradeSettings; us == nil || us.MaxSurge != 1 || us.MaxUnavailable != 0 || us.Strategy != "BLUE_GREEN" {
		t.Fatalf("upgradeSettings %+v, want maxSurge 1, maxUnavailable 0, BLUE_GREEN", us)
	}
	op, err = svc.Projects.Locations.Clusters.NodePools.Update(pool, &container.UpdateNodePoolRequest{
		KubeletConfig: &container.NodeKubeletConfig{CpuManagerPolicy: "static", PodPidsLimit: 4096}}).Do()
	if err != nil {
		t.Fatalf("nodePools.update kubeletConfig: %v", err)
	}
	if done := waitOperation(t, svc, op); done.OperationType != "UPGRADE_NODES" {
		t.Fatalf("kubelet change ran %s, want UPGRADE_NODES", done.OperationType)
	}
	// The cluster is free again: another change is accepted.
	op, err = svc.Projects.Locations.Clusters.Update(name, &container.UpdateClusterRequest{Update: &container.ClusterUpdate{
		DesiredAddonsConfig: &container.AddonsConfig{HttpLoadBalancing: &container.HttpLoadBalancing{Disabled: false}}}}).Do()
	if err != nil {
		t.Fatalf("clusters.update after the upgrade: %v", err)
	}
	waitOperation(t, svc, op)
}
