package rehearse

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/internal/benchfloor"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// bigSnapshot prints, as gcloud and kubectl would, a cluster of 3,000 e2-standard-8 nodes (one
// pool, 1,000 nodes in each of three zones, surge 20/0) running 30,000 pods: GKE's five
// DaemonSet pods on every node and 150 Deployments of 100 pods (500m, 1 GiB), every tenth
// under a PodDisruptionBudget of maxUnavailable 1 and two under maxUnavailable 0.
func bigSnapshot(b testing.TB) *api.ImportClusterRequest {
	b.Helper()
	const zonesN, perZone, deployments, replicas = 3, 1000, 150, 100
	snapshot := time.Date(2026, 3, 10, 2, 40, 0, 0, time.UTC)
	created := snapshot.Add(-20 * 24 * time.Hour)
	zones := []string{"us-central1-a", "us-central1-b", "us-central1-c"}
	var igs []string
	for i, z := range zones {
		igs = append(igs, fmt.Sprintf("https://www.googleapis.com/compute/v1/projects/big/zones/%s/instanceGroupManagers/gke-big-default-pool-%08x-grp", z, i+1))
	}
	cluster := map[string]any{
		"name": "big", "location": "us-central1", "locations": zones, "currentMasterVersion": "1.34.1-gke.1829001", "currentNodeCount": zonesN * perZone,
		"selfLink": "https://container.googleapis.com/v1/projects/big/locations/us-central1/clusters/big", "clusterIpv4Cidr": "10.0.0.0/14",
		"servicesIpv4Cidr": "34.118.224.0/20", "releaseChannel": map[string]any{"channel": "REGULAR"}, "status": "RUNNING",
		"nodePools": []any{map[string]any{"name": "default-pool", "version": "1.33.5-gke.1308000", "initialNodeCount": perZone, "locations": zones,
			"config":     map[string]any{"machineType": "e2-standard-8", "diskSizeGb": 100, "diskType": "pd-balanced", "imageType": "COS_CONTAINERD"},
			"management": map[string]any{"autoRepair": true, "autoUpgrade": true}, "upgradeSettings": map[string]any{"maxSurge": 20, "strategy": "SURGE"},
			"maxPodsConstraint": map[string]any{"maxPodsPerNode": "110"}, "instanceGroupUrls": igs, "status": "RUNNING"}},
	}
	cj, _ := json.Marshal(cluster)
	q := resource.MustParse
	truth := true
	var items []any
	var nodes []string
	for zi, z := range zones {
		for i := range perZone {
			name := fmt.Sprintf("gke-big-default-pool-%08x-%04d", zi+1, i)
			nodes = append(nodes, name)
			items = append(items, &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
				ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(fmt.Sprintf("node-%d-%d", zi, i)), CreationTimestamp: metav1.NewTime(created),
					Labels: map[string]string{"cloud.google.com/gke-nodepool": "default-pool", "topology.kubernetes.io/zone": z,
						"node.kubernetes.io/instance-type": "e2-standard-8", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
						"cloud.google.com/gke-os-distribution": "cos", "topology.gke.io/zone": z}},
				Spec: corev1.NodeSpec{ProviderID: "gce://big/" + z + "/" + name},
				Status: corev1.NodeStatus{
					Capacity:    corev1.ResourceList{corev1.ResourceCPU: q("8"), corev1.ResourceMemory: q("32882764Ki"), corev1.ResourcePods: q("110")},
					Allocatable: corev1.ResourceList{corev1.ResourceCPU: q("7910m"), corev1.ResourceMemory: q("29094988Ki"), corev1.ResourcePods: q("110")},
					Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.NewTime(snapshot),
						LastTransitionTime: metav1.NewTime(created)}},
					Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.128.%d.%d", (zi*perZone+i)/250, 2+(zi*perZone+i)%250)}},
					NodeInfo:  corev1.NodeSystemInfo{KubeletVersion: "v1.33.5-gke.1308000"}}})
		}
	}
	requests := func(cpu, mem string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: q(cpu), corev1.ResourceMemory: q(mem)}}
	}
	running := func(meta metav1.ObjectMeta, spec corev1.PodSpec, node string, ip int) *corev1.Pod {
		spec.NodeName = node
		return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: meta, Spec: spec,
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: fmt.Sprintf("10.%d.%d.%d", 1+ip/65536, ip/256%256, ip%256),
				StartTime:  &metav1.Time{Time: created},
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(created)}}}}
	}
	pods := 0
	critical := int32(2000001000)
	for _, ds := range []struct{ name, cpu, mem string }{{"fluentbit-gke", "100m", "200Mi"}, {"gke-metrics-agent", "8m", "60Mi"},
		{"pdcsi-node", "10m", "20Mi"}, {"netd", "5m", "30Mi"}} {
		lbls := map[string]string{"k8s-app": ds.name}
		spec := corev1.PodSpec{Containers: []corev1.Container{{Name: ds.name, Image: "gke.gcr.io/" + ds.name, Resources: requests(ds.cpu, ds.mem)}},
			PriorityClassName: "system-node-critical", Priority: &critical, Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}
		uid := types.UID("ds-" + ds.name)
		items = append(items, &appsv1.DaemonSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
			ObjectMeta: metav1.ObjectMeta{Name: ds.name, Namespace: "kube-system", UID: uid, Labels: lbls, CreationTimestamp: metav1.NewTime(created)},
			Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: lbls}, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: lbls}, Spec: spec}}})
		for i, n := range nodes {
			items = append(items, running(metav1.ObjectMeta{Name: fmt.Sprintf("%s-%05d", ds.name, i), Namespace: "kube-system", Labels: lbls, CreationTimestamp: metav1.NewTime(created),
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.name, UID: uid, Controller: &truth}}}, spec, n, pods))
			pods++
		}
	}
	for i, n := range nodes {
		spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "kube-proxy", Image: "gke.gcr.io/kube-proxy", Resources: requests("100m", "0")}},
			PriorityClassName: "system-node-critical", Priority: &critical, HostNetwork: true}
		items = append(items, running(metav1.ObjectMeta{Name: "kube-proxy-" + n, Namespace: "kube-system", Labels: map[string]string{"component": "kube-proxy"},
			Annotations: map[string]string{"kubernetes.io/config.mirror": "x"}, CreationTimestamp: metav1.NewTime(created),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: n, Controller: &truth}}}, spec, n, pods))
		pods++
		_ = i
	}
	for d := range deployments {
		name := fmt.Sprintf("svc-%03d", d)
		hash := fmt.Sprintf("5%09d", d)
		lbls := map[string]string{"app": name}
		podLabels := map[string]string{"app": name, "pod-template-hash": hash}
		spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:" + name, Resources: requests("500m", "1Gi")}}}
		r := int32(replicas)
		duid, rsuid := types.UID("deploy-"+name), types.UID("rs-"+name)
		items = append(items, &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: duid, Generation: 1, Labels: lbls, CreationTimestamp: metav1.NewTime(created)},
			Spec: appsv1.DeploymentSpec{Replicas: &r, Selector: &metav1.LabelSelector{MatchLabels: lbls},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: lbls}, Spec: spec}}},
			&appsv1.ReplicaSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
				ObjectMeta: metav1.ObjectMeta{Name: name + "-" + hash, Namespace: "default", UID: rsuid, Labels: podLabels, CreationTimestamp: metav1.NewTime(created),
					Annotations:     map[string]string{"deployment.kubernetes.io/revision": "1"},
					OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: duid, Controller: &truth}}},
				Spec: appsv1.ReplicaSetSpec{Replicas: &r, Selector: &metav1.LabelSelector{MatchLabels: podLabels},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels}, Spec: spec}}})
		for i := range replicas {
			n := nodes[(d*replicas+i)*7%len(nodes)]
			items = append(items, running(metav1.ObjectMeta{Name: fmt.Sprintf("%s-%s-%05d", name, hash, i), Namespace: "default", Labels: podLabels,
				CreationTimestamp: metav1.NewTime(created), OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name + "-" + hash, UID: rsuid, Controller: &truth}}},
				spec, n, pods))
			pods++
		}
		if d%10 == 0 || d < 2 {
			mu := intstr.FromInt32(1)
			if d < 2 {
				mu = intstr.FromInt32(0)
			}
			items = append(items, &policyv1.PodDisruptionBudget{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("pdb-" + name), CreationTimestamp: metav1.NewTime(created)},
				Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &mu, Selector: &metav1.LabelSelector{MatchLabels: lbls}}})
		}
	}
	if pods != 30000 || len(nodes) != 3000 {
		b.Fatalf("%d nodes, %d pods", len(nodes), pods)
	}
	oj, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		b.Fatal(err)
	}
	return &api.ImportClusterRequest{Cluster: cj, Objects: oj}
}

// Reading and importing the snapshot: decoding kubectl's JSON, building the cluster, joining it.
func BenchmarkImport3000Nodes30000Pods(b *testing.B) {
	req := bigSnapshot(b)
	b.SetBytes(int64(len(req.Objects)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := sim.ReadSnapshot(req)
		if err != nil {
			b.Fatal(err)
		}
		w := sim.New(sim.Options{Seed: 1, Start: s.Time()})
		if _, err := w.ImportSnapshot("", "", s); err != nil {
			b.Fatal(err)
		}
	}
}

// Rehearsing the surge upgrade (20/0) of all 3,000 nodes: import into a fresh world, run the
// upgrade to the end, read the event log, build the report.
func BenchmarkRehearseUpgrade3000Nodes30000Pods(b *testing.B) {
	s, err := sim.ReadSnapshot(bigSnapshot(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var r *Report
	floor := benchfloor.StartFloor()
	for b.Loop() {
		if r, err = Run(s, Options{Pool: "default-pool", Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(r.Duration().Hours(), "emulated-h")
	floor.Report(b, r.Events)
	b.Logf("%d nodes in %s emulated, %d held drains, %d forced, peak +%d VMs, %d events", r.Nodes, r.Duration(), r.HeldDrains(), len(r.Forced), r.VMs.PeakExtra, r.Events)
}

// A forecast of the same upgrade on a running emulator's 3,000-node cluster (issue 28's bound:
// under 2 s): the simulation copied at one instant (sim.World.Fork: its state encoded and
// restored), the upgrade run in the copy to the end, the report built.
func BenchmarkForecastUpgrade3000Nodes30000Pods(b *testing.B) {
	s, err := sim.ReadSnapshot(bigSnapshot(b))
	if err != nil {
		b.Fatal(err)
	}
	live := sim.New(sim.Options{Seed: 1, Start: s.Time()})
	sum, err := live.ImportSnapshot("", "", s)
	if err != nil {
		b.Fatal(err)
	}
	live.RunUntil(live.Now().Add(time.Minute))
	parts := strings.Split(sum.Cluster, "/")
	b.ReportAllocs()
	var r *Report
	floor := benchfloor.StartFloor()
	for b.Loop() {
		fork, err := live.Fork()
		if err != nil {
			b.Fatal(err)
		}
		if r, err = Forecast(fork, parts[1], parts[3], parts[5], Options{Pool: "default-pool"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(r.Duration().Hours(), "emulated-h")
	floor.Report(b, r.Events)
	b.Logf("%d nodes in %s emulated, peak +%d VMs, %d events", r.Nodes, r.Duration(), r.VMs.PeakExtra, r.Events)
}

// What a forecast holds the live simulation for: encoding the state of a running emulator's
// 3,000-node, 30,000-pod cluster (sim.World.Copy); restoring the copy happens off the
// simulation goroutine.
func BenchmarkCopyState3000Nodes30000Pods(b *testing.B) {
	s, err := sim.ReadSnapshot(bigSnapshot(b))
	if err != nil {
		b.Fatal(err)
	}
	live := sim.New(sim.Options{Seed: 1, Start: s.Time()})
	if _, err := live.ImportSnapshot("", "", s); err != nil {
		b.Fatal(err)
	}
	live.RunUntil(live.Now().Add(time.Minute))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := live.Copy(); err != nil {
			b.Fatal(err)
		}
	}
}
