package conformance

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"
	containerbeta "google.golang.org/api/container/v1beta1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// The official Go client, pointed at the emulator, through a cluster's and a node pool's whole
// life. Every step checks what the client decoded, not just that it did not fail.
func TestGoClientClusterAndNodePoolLifecycle(t *testing.T) {
	t.Parallel()
	emu, url := startEmulator(t)
	svc := goClient(t, url)
	loc := "projects/" + project + "/locations/" + zone
	clusterName := loc + "/clusters/conf-go"
	poolName := func(p string) string { return clusterName + "/nodePools/" + p }
	wait := func(op *container.Operation) *container.Operation {
		t.Helper()
		return waitOperation(t, svc, op)
	}

	// serverConfig: the versions the rest of the test uses.
	sc, err := svc.Projects.Locations.GetServerConfig(loc).Do()
	if err != nil {
		t.Fatalf("serverConfig: %v", err)
	}
	master := sc.DefaultClusterVersion
	if !slices.Contains(sc.ValidMasterVersions, master) || sc.DefaultImageType != "COS_CONTAINERD" {
		t.Fatalf("serverConfig: default %q not among validMasterVersions %v, or image type %q", master, sc.ValidMasterVersions, sc.DefaultImageType)
	}
	i := slices.Index(sc.ValidNodeVersions, master)
	if i < 0 || i+1 >= len(sc.ValidNodeVersions) {
		t.Fatalf("serverConfig validNodeVersions %v: want the default %s and an older version after it", sc.ValidNodeVersions, master)
	}
	older := sc.ValidNodeVersions[i+1] // newest first: the next older node version
	var regular *container.ReleaseChannelConfig
	for _, ch := range sc.Channels {
		if ch.Channel == "REGULAR" {
			regular = ch
		}
	}
	if regular == nil || regular.DefaultVersion != master || !slices.Contains(regular.ValidVersions, master) {
		t.Fatalf("serverConfig REGULAR channel %+v, want default %s", regular, master)
	}

	// clusters.create with one node pool; no release channel, so that auto-upgrade may be turned off later.
	op, err := svc.Projects.Locations.Clusters.Create(loc, &container.CreateClusterRequest{Cluster: &container.Cluster{
		Name:           "conf-go",
		ReleaseChannel: &container.ReleaseChannel{Channel: "UNSPECIFIED"},
		NodePools: []*container.NodePool{{
			Name: "default-pool", InitialNodeCount: 2,
			Config: &container.NodeConfig{MachineType: "e2-standard-4", DiskSizeGb: 50},
		}},
	}}).Do()
	if err != nil {
		t.Fatalf("clusters.create: %v", err)
	}
	if op.OperationType != "CREATE_CLUSTER" || op.Status == "DONE" || !strings.HasSuffix(op.TargetLink, "/"+clusterName) || op.Location != zone {
		t.Fatalf("clusters.create operation: %s %s target %s location %s", op.OperationType, op.Status, op.TargetLink, op.Location)
	}
	done := wait(op)
	if done.EndTime == "" || done.Progress == nil || metric(done.Progress, "CLUSTER_HEALTHCHECKING") != 1 {
		t.Errorf("finished CREATE_CLUSTER: endTime %q progress %+v", done.EndTime, done.Progress)
	}

	cl, err := svc.Projects.Locations.Clusters.Get(clusterName).Do()
	if err != nil {
		t.Fatalf("clusters.get: %v", err)
	}
	if cl.Status != "RUNNING" || cl.CurrentMasterVersion != master || cl.CurrentNodeCount != 2 || cl.Location != zone ||
		len(cl.NodePools) != 1 || len(cl.InstanceGroupUrls) != 1 || !slices.Equal(cl.Locations, []string{zone}) {
		t.Fatalf("clusters.get: status %s master %s nodes %d location %s pools %d instance groups %d locations %v",
			cl.Status, cl.CurrentMasterVersion, cl.CurrentNodeCount, cl.Location, len(cl.NodePools), len(cl.InstanceGroupUrls), cl.Locations)
	}
	np := cl.NodePools[0]
	if np.Status != "RUNNING" || np.Version != master || np.Config.MachineType != "e2-standard-4" || np.Config.DiskSizeGb != 50 ||
		np.MaxPodsConstraint.MaxPodsPerNode != 110 || np.UpgradeSettings.MaxSurge != 1 || np.UpgradeSettings.Strategy != "SURGE" ||
		!np.Management.AutoUpgrade || !np.Management.AutoRepair {
		t.Errorf("default-pool as read by clusters.get: %+v config %+v", np, np.Config)
	}
	if cl.ReleaseChannel != nil && cl.ReleaseChannel.Channel != "" {
		t.Errorf("releaseChannel %q, want none", cl.ReleaseChannel.Channel)
	}

	for _, l := range []string{loc, "projects/" + project + "/locations/-"} {
		list, err := svc.Projects.Locations.Clusters.List(l).Do()
		if err != nil {
			t.Fatalf("clusters.list %s: %v", l, err)
		}
		if len(list.Clusters) != 1 || list.Clusters[0].Name != "conf-go" || list.Clusters[0].CurrentNodeCount != 2 {
			t.Errorf("clusters.list %s: %d clusters", l, len(list.Clusters))
		}
	}

	// nodePools.create on an older version.
	op, err = svc.Projects.Locations.Clusters.NodePools.Create(clusterName, &container.CreateNodePoolRequest{NodePool: &container.NodePool{
		Name: "pool-b", InitialNodeCount: 1, Version: older,
		Config: &container.NodeConfig{MachineType: "e2-standard-2"},
	}}).Do()
	if err != nil {
		t.Fatalf("nodePools.create: %v", err)
	}
	if op.OperationType != "CREATE_NODE_POOL" || !strings.HasSuffix(op.TargetLink, "/"+poolName("pool-b")) {
		t.Errorf("nodePools.create operation: %s target %s", op.OperationType, op.TargetLink)
	}
	wait(op)
	pb := getPool(t, svc, poolName("pool-b"))
	if pb.Status != "RUNNING" || pb.Version != older || pb.InitialNodeCount != 1 || pb.Config.MachineType != "e2-standard-2" ||
		len(pb.InstanceGroupUrls) != 1 || pb.Autoscaling == nil || pb.Autoscaling.Enabled {
		t.Fatalf("nodePools.get pool-b: status %s version %s (want %s) initial %d machine %s instance groups %d autoscaling %+v",
			pb.Status, pb.Version, older, pb.InitialNodeCount, pb.Config.MachineType, len(pb.InstanceGroupUrls), pb.Autoscaling)
	}
	pools, err := svc.Projects.Locations.Clusters.NodePools.List(clusterName).Do()
	if err != nil {
		t.Fatalf("nodePools.list: %v", err)
	}
	if names := poolNames(pools.NodePools); !slices.Equal(names, []string{"default-pool", "pool-b"}) {
		t.Fatalf("nodePools.list: %v", names)
	}
	cl = getCluster(t, svc, clusterName)
	if cl.CurrentNodeCount != 3 || cl.CurrentNodeVersion != older || len(cl.InstanceGroupUrls) != 2 {
		t.Errorf("cluster with pool-b: %d nodes, node version %s (want the oldest, %s), %d instance groups",
			cl.CurrentNodeCount, cl.CurrentNodeVersion, older, len(cl.InstanceGroupUrls))
	}

	// nodePools.update to the control plane's version. With the clock frozen the upgrade is
	// sure to be in flight: a second mutation gets the "please wait" error, while
	// setManagement (metadata only) may run alongside.
	thaw := freeze(t, emu)
	upgrade, err := svc.Projects.Locations.Clusters.NodePools.Update(poolName("pool-b"), &container.UpdateNodePoolRequest{
		NodeVersion: master, ImageType: "COS_CONTAINERD",
	}).Do()
	if err != nil {
		thaw()
		t.Fatalf("nodePools.update version: %v", err)
	}
	_, err = svc.Projects.Locations.Clusters.NodePools.SetSize(poolName("default-pool"), &container.SetNodePoolSizeRequest{NodeCount: 3}).Do()
	wantPleaseWait(t, err, upgrade.Name)
	mgmt, err := svc.Projects.Locations.Clusters.NodePools.SetManagement(poolName("pool-b"), &container.SetNodePoolManagementRequest{
		Management: &container.NodeManagement{AutoUpgrade: false, AutoRepair: true},
	}).Do()
	thaw()
	if err != nil {
		t.Fatalf("nodePools.setManagement during an upgrade: %v", err)
	}
	if upgrade.OperationType != "UPGRADE_NODES" || mgmt.OperationType != "SET_NODE_POOL_MANAGEMENT" {
		t.Errorf("operation types %s and %s", upgrade.OperationType, mgmt.OperationType)
	}
	wait(upgrade)
	wait(mgmt)
	pb = getPool(t, svc, poolName("pool-b"))
	if pb.Version != master || pb.Status != "RUNNING" || pb.Management.AutoUpgrade || !pb.Management.AutoRepair {
		t.Fatalf("pool-b after upgrade and setManagement: version %s (want %s) status %s management %+v", pb.Version, master, pb.Status, pb.Management)
	}
	if cl = getCluster(t, svc, clusterName); cl.CurrentNodeCount != 3 || cl.CurrentNodeVersion != master {
		t.Errorf("after the surge upgrade: %d nodes on %s, want 3 on %s", cl.CurrentNodeCount, cl.CurrentNodeVersion, master)
	}

	// R-UPG-1: a labels-only update is applied in place; no node is recreated.
	before := k8sNodes(t, cl.Endpoint, "pool-b")
	op, err = svc.Projects.Locations.Clusters.NodePools.Update(poolName("pool-b"), &container.UpdateNodePoolRequest{
		Labels: &container.NodeLabels{Labels: map[string]string{"team": "conformance"}},
	}).Do()
	if err != nil {
		t.Fatalf("nodePools.update labels: %v", err)
	}
	wait(op)
	pb = getPool(t, svc, poolName("pool-b"))
	if pb.Config.Labels["team"] != "conformance" || pb.Version != master {
		t.Errorf("pool-b after the labels update: labels %v version %s", pb.Config.Labels, pb.Version)
	}
	after := k8sNodes(t, cl.Endpoint, "pool-b")
	if len(before) != 1 || len(after) != 1 || before[0].Name != after[0].Name || after[0].Labels["team"] != "conformance" {
		t.Errorf("R-UPG-1: nodes before %+v, after %+v: want the same node, now labelled team=conformance", before, after)
	}

	// nodePools.setSize: 3 nodes in the pool's one zone.
	op, err = svc.Projects.Locations.Clusters.NodePools.SetSize(poolName("pool-b"), &container.SetNodePoolSizeRequest{NodeCount: 3}).Do()
	if err != nil {
		t.Fatalf("nodePools.setSize: %v", err)
	}
	if op.OperationType != "SET_NODE_POOL_SIZE" {
		t.Errorf("setSize operation type %s", op.OperationType)
	}
	wait(op)
	if cl = getCluster(t, svc, clusterName); cl.CurrentNodeCount != 5 {
		t.Errorf("after setSize 3: cluster has %d nodes, want 2 + 3", cl.CurrentNodeCount)
	}
	if n := k8sNodes(t, cl.Endpoint, "pool-b"); len(n) != 3 {
		t.Errorf("after setSize 3: pool-b has %d Kubernetes nodes", len(n))
	}

	// nodePools.delete.
	op, err = svc.Projects.Locations.Clusters.NodePools.Delete(poolName("pool-b")).Do()
	if err != nil {
		t.Fatalf("nodePools.delete: %v", err)
	}
	if op.OperationType != "DELETE_NODE_POOL" {
		t.Errorf("delete operation type %s", op.OperationType)
	}
	wait(op)
	_, err = svc.Projects.Locations.Clusters.NodePools.Get(poolName("pool-b")).Do()
	wantCode(t, err, http.StatusNotFound)
	if cl = getCluster(t, svc, clusterName); cl.CurrentNodeCount != 2 || len(cl.NodePools) != 1 || len(cl.InstanceGroupUrls) != 1 {
		t.Errorf("after deleting pool-b: %d nodes, %d pools, %d instance groups", cl.CurrentNodeCount, len(cl.NodePools), len(cl.InstanceGroupUrls))
	}

	// operations.list has every operation above, all DONE.
	ops, err := svc.Projects.Locations.Operations.List(loc).Do()
	if err != nil {
		t.Fatalf("operations.list: %v", err)
	}
	var types []string
	for _, o := range ops.Operations {
		types = append(types, o.OperationType)
		if o.Status != "DONE" || o.StatusMessage != "" {
			t.Errorf("operation %s (%s): %s %q", o.Name, o.OperationType, o.Status, o.StatusMessage)
		}
	}
	wantTypes := []string{"CREATE_CLUSTER", "CREATE_NODE_POOL", "UPGRADE_NODES", "SET_NODE_POOL_MANAGEMENT", "UPGRADE_NODES", "SET_NODE_POOL_SIZE", "DELETE_NODE_POOL"}
	if !slices.Equal(types, wantTypes) {
		t.Errorf("operations.list types %v, want %v", types, wantTypes)
	}

	// clusters.delete, then a 404.
	op, err = svc.Projects.Locations.Clusters.Delete(clusterName).Do()
	if err != nil {
		t.Fatalf("clusters.delete: %v", err)
	}
	if op.OperationType != "DELETE_CLUSTER" {
		t.Errorf("delete operation type %s", op.OperationType)
	}
	wait(op)
	_, err = svc.Projects.Locations.Clusters.Get(clusterName).Do()
	wantCode(t, err, http.StatusNotFound)
	if list, err := svc.Projects.Locations.Clusters.List(loc).Do(); err != nil || len(list.Clusters) != 0 {
		t.Errorf("clusters.list after delete: %v, %v", list, err)
	}
}

// The same routes answer under /v1beta1 (terraform-provider-google and gcloud beta use it).
func TestGoClientV1beta1(t *testing.T) {
	t.Parallel()
	_, url := startEmulator(t)
	svc := goClient(t, url)
	beta, err := containerbeta.NewService(t.Context(), option.WithEndpoint(url+"/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	loc := "projects/" + project + "/locations/" + zone
	op, err := beta.Projects.Locations.Clusters.Create(loc, &containerbeta.CreateClusterRequest{Cluster: &containerbeta.Cluster{
		Name: "conf-beta", InitialNodeCount: 1,
	}}).Do()
	if err != nil {
		t.Fatalf("v1beta1 clusters.create: %v", err)
	}
	if !strings.Contains(op.SelfLink, "/v1beta1/"+loc+"/operations/") {
		t.Errorf("v1beta1 operation selfLink %s", op.SelfLink)
	}
	waitOperation(t, svc, &container.Operation{Name: op.Name, Location: op.Location})

	cl, err := beta.Projects.Locations.Clusters.Get(loc + "/clusters/conf-beta").Do()
	if err != nil {
		t.Fatalf("v1beta1 clusters.get: %v", err)
	}
	if cl.Status != "RUNNING" || cl.CurrentNodeCount != 1 || len(cl.NodePools) != 1 || cl.NodePools[0].Name != "default-pool" ||
		cl.SelfLink != url+"/v1beta1/"+loc+"/clusters/conf-beta" {
		t.Errorf("v1beta1 clusters.get: status %s nodes %d pools %d selfLink %s", cl.Status, cl.CurrentNodeCount, len(cl.NodePools), cl.SelfLink)
	}
	list, err := beta.Projects.Locations.Clusters.List(loc).Do()
	if err != nil {
		t.Fatalf("v1beta1 clusters.list: %v", err)
	}
	if len(list.Clusters) != 1 || list.Clusters[0].Name != "conf-beta" {
		t.Errorf("v1beta1 clusters.list: %d clusters", len(list.Clusters))
	}
	pools, err := beta.Projects.Locations.Clusters.NodePools.List(loc + "/clusters/conf-beta").Do()
	if err != nil || len(pools.NodePools) != 1 || pools.NodePools[0].Config.MachineType != "e2-medium" {
		t.Errorf("v1beta1 nodePools.list: %v %v", pools, err)
	}
}

// goClient is the official GKE v1 client pointed at the emulator, as a user would point it: a
// custom endpoint and no credentials.
func goClient(t *testing.T, url string) *container.Service {
	t.Helper()
	svc, err := container.NewService(t.Context(), option.WithEndpoint(url+"/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// waitOperation polls operations.get until op is DONE, for at most 30 wall seconds.
func waitOperation(t *testing.T, svc *container.Service, op *container.Operation) *container.Operation {
	t.Helper()
	name := "projects/" + project + "/locations/" + op.Location + "/operations/" + op.Name
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := svc.Projects.Locations.Operations.Get(name).Do()
		if err != nil {
			t.Fatalf("operations.get %s: %v", op.Name, err)
		}
		if got.Status == "DONE" {
			if got.StatusMessage != "" || got.Error != nil {
				t.Fatalf("operation %s (%s) failed: %s", got.Name, got.OperationType, got.StatusMessage)
			}
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("operation %s (%s) still %s after 30s (%s)", got.Name, got.OperationType, got.Status, got.Detail)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func getCluster(t *testing.T, svc *container.Service, name string) *container.Cluster {
	t.Helper()
	cl, err := svc.Projects.Locations.Clusters.Get(name).Do()
	if err != nil {
		t.Fatalf("clusters.get %s: %v", name, err)
	}
	return cl
}

func getPool(t *testing.T, svc *container.Service, name string) *container.NodePool {
	t.Helper()
	np, err := svc.Projects.Locations.Clusters.NodePools.Get(name).Do()
	if err != nil {
		t.Fatalf("nodePools.get %s: %v", name, err)
	}
	return np
}

func poolNames(pools []*container.NodePool) []string {
	var out []string
	for _, p := range pools {
		out = append(out, p.Name)
	}
	return out
}

func metric(p *container.OperationProgress, name string) int64 {
	for _, m := range p.Metrics {
		if m.Name == name {
			return m.IntValue
		}
	}
	return -1
}

func wantCode(t *testing.T, err error, code int) *googleapi.Error {
	t.Helper()
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		t.Fatalf("got %v, want a googleapi.Error with code %d", err, code)
	}
	if ge.Code != code {
		t.Fatalf("googleapi.Error code %d (%s), want %d", ge.Code, ge.Message, code)
	}
	return ge
}

// wantPleaseWait checks GKE's answer to a mutation while another operation holds the cluster.
func wantPleaseWait(t *testing.T, err error, opName string) {
	t.Helper()
	ge := wantCode(t, err, http.StatusBadRequest)
	if len(ge.Errors) != 1 || ge.Errors[0].Reason != "failedPrecondition" {
		t.Errorf("errors %+v, want one with reason failedPrecondition", ge.Errors)
	}
	if !strings.Contains(ge.Message, "Please wait and try again once it is done.") || !strings.Contains(ge.Message, opName) {
		t.Errorf("message %q, want GKE's please-wait naming operation %s", ge.Message, opName)
	}
}
