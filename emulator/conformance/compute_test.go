package conformance

import (
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	compute "google.golang.org/api/compute/v1"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// The official Compute Go client, pointed at the emulator, creates what R-LB-5 is about outside
// GKE: a regional backend service on a node pool's managed instance group and an unmanaged
// instance group of cluster nodes. Every write answers with a DONE Operation the client decodes
// and finds again (get and wait); Compute's refusal of a VM in two load-balanced instance groups
// comes back as a googleapi.Error with reason instanceInMultipleLoadBalancedIgs.
func TestGoComputeClientUserLoadBalancerObjects(t *testing.T) {
	t.Parallel()
	_, url := startEmulator(t)
	gke := goClient(t, url)
	loc := "projects/" + project + "/locations/" + zone
	op, err := gke.Projects.Locations.Clusters.Create(loc, &container.CreateClusterRequest{Cluster: &container.Cluster{
		Name: "conf-compute", NodePools: []*container.NodePool{{Name: "default-pool", InitialNodeCount: 2}}}}).Do()
	if err != nil {
		t.Fatalf("clusters.create: %v", err)
	}
	waitOperation(t, gke, op)
	svc, err := compute.NewService(t.Context(), option.WithEndpoint(url+"/compute/v1/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	const region = "us-central1"

	igs, err := svc.InstanceGroups.List(project, zone).Do()
	if err != nil || len(igs.Items) != 1 || !strings.HasSuffix(igs.Items[0].Name, "-grp") {
		t.Fatalf("instanceGroups.list: %v %+v", err, igs)
	}
	mig := igs.Items[0]
	members, err := svc.InstanceGroups.ListInstances(project, zone, mig.Name, &compute.InstanceGroupsListInstancesRequest{}).Do()
	if err != nil || len(members.Items) != 2 {
		t.Fatalf("instanceGroups.listInstances: %v %+v", err, members)
	}

	bop, err := svc.RegionBackendServices.Insert(project, region, &compute.BackendService{Name: "user-bs", LoadBalancingScheme: "INTERNAL", Protocol: "TCP",
		Backends: []*compute.Backend{{Group: mig.SelfLink}}, HealthChecks: []string{"projects/" + project + "/regions/" + region + "/healthChecks/user-hc"}}).Do()
	if err != nil {
		t.Fatalf("regionBackendServices.insert: %v", err)
	}
	if bop.Status != "DONE" || bop.OperationType != "insert" || !strings.HasSuffix(bop.TargetLink, "/regions/"+region+"/backendServices/user-bs") || bop.Error != nil {
		t.Fatalf("insert operation: %+v", bop)
	}
	if got, err := svc.RegionOperations.Get(project, region, bop.Name).Do(); err != nil || got.Status != "DONE" || got.Id != bop.Id {
		t.Errorf("regionOperations.get: %v %+v", err, got)
	}
	bs, err := svc.RegionBackendServices.Get(project, region, "user-bs").Do()
	if err != nil || len(bs.Backends) != 1 || bs.Backends[0].Group != mig.SelfLink || bs.Backends[0].BalancingMode != "CONNECTION" || bs.LoadBalancingScheme != "INTERNAL" {
		t.Fatalf("regionBackendServices.get: %v %+v", err, bs)
	}

	iop, err := svc.InstanceGroups.Insert(project, zone, &compute.InstanceGroup{Name: "custom"}).Do()
	if err != nil || iop.Status != "DONE" || !strings.HasSuffix(iop.Zone, "/zones/"+zone) {
		t.Fatalf("instanceGroups.insert: %v %+v", err, iop)
	}
	aop, err := svc.InstanceGroups.AddInstances(project, zone, "custom", &compute.InstanceGroupsAddInstancesRequest{
		Instances: []*compute.InstanceReference{{Instance: members.Items[0].Instance}}}).Do()
	if err != nil || aop.OperationType != "compute.instanceGroups.addInstances" {
		t.Fatalf("instanceGroups.addInstances: %v %+v", err, aop)
	}
	if got, err := svc.ZoneOperations.Wait(project, zone, aop.Name).Do(); err != nil || got.Status != "DONE" {
		t.Errorf("zoneOperations.wait: %v %+v", err, got)
	}

	// The node is in the managed group, load-balanced by user-bs: R-LB-5.
	_, err = svc.RegionBackendServices.Insert(project, region, &compute.BackendService{Name: "on-custom", LoadBalancingScheme: "EXTERNAL", Protocol: "TCP",
		Backends: []*compute.Backend{{Group: "zones/" + zone + "/instanceGroups/custom"}}}).Do()
	var gerr *googleapi.Error
	if !errors.As(err, &gerr) || gerr.Code != 400 || len(gerr.Errors) != 1 || gerr.Errors[0].Reason != "instanceInMultipleLoadBalancedIgs" ||
		!strings.Contains(gerr.Message, "instance may belong to at most one load-balanced instance group") || !strings.Contains(gerr.Message, mig.Name) {
		t.Fatalf("a second load-balanced group: %v", err)
	}
	_, err = svc.RegionBackendServices.Insert(project, region, &compute.BackendService{Name: "user-bs"}).Do()
	if !errors.As(err, &gerr) || gerr.Code != 409 || gerr.Errors[0].Reason != "alreadyExists" {
		t.Errorf("a taken name: %v", err)
	}

	if dop, err := svc.RegionBackendServices.Delete(project, region, "user-bs").Do(); err != nil || dop.OperationType != "delete" {
		t.Fatalf("regionBackendServices.delete: %v %+v", err, dop)
	}
	if _, err := svc.InstanceGroups.RemoveInstances(project, zone, "custom", &compute.InstanceGroupsRemoveInstancesRequest{
		Instances: []*compute.InstanceReference{{Instance: members.Items[0].Instance}}}).Do(); err != nil {
		t.Fatalf("instanceGroups.removeInstances: %v", err)
	}
	if _, err := svc.InstanceGroups.Delete(project, zone, "custom").Do(); err != nil {
		t.Fatalf("instanceGroups.delete: %v", err)
	}
	if _, err := svc.RegionBackendServices.Get(project, region, "user-bs").Do(); !errors.As(err, &gerr) || gerr.Code != 404 {
		t.Errorf("get after delete: %v", err)
	}
}

// gcloud compute, pointed at the emulator, puts a node pool's managed instance group behind a
// backend service of its own (create + add-backend): GKE then cannot build an internal
// load balancer without GKE subsetting (R-LB-5), until remove-backend; after that, add-backend
// is refused because the nodes are in GKE's load-balanced instance group.
func TestGcloudComputeBackendServiceBlocksGKE(t *testing.T) {
	t.Parallel()
	path, err := exec.LookPath("gcloud")
	if err != nil {
		t.Skipf("gcloud is not installed (%v): install the Google Cloud CLI to run the gcloud conformance test", err)
	}
	_, url := startEmulator(t)
	gke := goClient(t, url)
	op, err := gke.Projects.Locations.Clusters.Create("projects/"+project+"/locations/"+zone, &container.CreateClusterRequest{Cluster: &container.Cluster{
		Name: "conf-r5", NodePools: []*container.NodePool{{Name: "default-pool", InitialNodeCount: 2}}}}).Do()
	if err != nil {
		t.Fatalf("clusters.create: %v", err)
	}
	waitOperation(t, gke, op)
	g := newGcloud(t, path, url)
	g.ok("config", "set", "api_endpoint_overrides/compute", url+"/compute/v1/")

	var groups []struct {
		Name string `json:"name"`
	}
	g.json(&groups, "compute", "instance-groups", "list", "--zones", zone)
	if len(groups) != 1 {
		t.Fatalf("instance-groups list: %+v", groups)
	}
	mig := groups[0].Name
	backend := []string{"user-bs", "--region", "us-central1", "--instance-group", mig, "--instance-group-zone", zone}
	g.ok("compute", "backend-services", "create", "user-bs", "--region", "us-central1", "--load-balancing-scheme", "INTERNAL", "--protocol", "TCP",
		"--health-checks", "user-hc", "--health-checks-region", "us-central1")
	g.ok(append([]string{"compute", "backend-services", "add-backend"}, backend...)...)

	k8s := url + "/k8s/projects/" + project + "/locations/" + zone + "/clusters/conf-r5"
	resp, err := http.Post(k8s+"/api/v1/namespaces/default/services", "application/json", strings.NewReader(`{"metadata": {"name": "ilb",
		"annotations": {"networking.gke.io/load-balancer-type": "Internal"}}, "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}}`))
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create Service: %v %v", err, resp)
	}
	resp.Body.Close()
	lbState := func(want string) lbStatus {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			var st lbStatus
			getJSON(t, url+"/emulator/v1/projects/"+project+"/locations/"+zone+"/clusters/conf-r5/loadBalancers/default/ilb", &st)
			if st.State == want || time.Now().After(deadline) {
				return st
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if st := lbState("FAILED"); st.State != "FAILED" || st.Blocked == nil || !strings.HasSuffix(st.Blocked.BackendService, "/backendServices/user-bs") || st.IP != "" {
		t.Fatalf("with the managed group behind user-bs: %+v", st)
	}
	g.ok(append([]string{"compute", "backend-services", "remove-backend"}, backend...)...)
	if st := lbState("READY"); st.State != "READY" || st.IP == "" || st.Blocked != nil {
		t.Fatalf("after remove-backend: %+v", st)
	}
	_, stderr, err := g.run(append([]string{"compute", "backend-services", "add-backend"}, backend...)...)
	if err == nil || !strings.Contains(stderr, "instance may belong to at most one load-balanced instance group") || !strings.Contains(stderr, "k8s-ig--") {
		t.Errorf("add-backend with the nodes in GKE's group: %v\n%s", err, stderr)
	}
}

// lbStatus is what the test reads of the emulator's load balancer view.
type lbStatus struct {
	State   string `json:"state"`
	IP      string `json:"ip"`
	Blocked *struct {
		BackendService string `json:"backendService"`
	} `json:"blocked"`
}
