// Command gen writes testdata/snapshot/shop-objects.json: what
// `kubectl get nodes,pods,deployments,replicasets,statefulsets,daemonsets,pdb,services -A -o json`
// prints for the cluster of testdata/snapshot/shop-cluster.json (what `gcloud container clusters
// describe shop --location europe-west1 --format json` prints), built from the Kubernetes API
// types so that every object has the API's shape. Run it from emulator/:
//
//	go run ./testdata/snapshot/gen > testdata/snapshot/shop-objects.json
//
// The cluster: three node pools on GKE 1.33 under a 1.34 control plane. default-pool (e2-standard-4,
// two nodes in each of three zones, autoscaled 1..3 per zone) runs web (6 replicas, PDB
// maxUnavailable 1, a LoadBalancer Service with externalTrafficPolicy Local), payments (2
// replicas, PDB maxUnavailable 0, a 90-minute grace period), checkout (an Argo Rollout), a
// report Job pod annotated safe-to-evict "false", a bare debug pod, and ssd-cache, which selects
// a label put on one node by hand; spot-pool (two e2-standard-8 Spot nodes, tainted) runs a
// worker Deployment; db-pool (n2-highmem-4, one node per zone, tainted, blue-green) runs the db
// StatefulSet (PDB minAvailable 2). GKE's DaemonSets and kube-proxy's static pods run on every
// node, with a node-exporter DaemonSet of the user's.
package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var (
	snapshot = time.Date(2026, 3, 10, 2, 40, 0, 0, time.UTC)
	created  = time.Date(2026, 2, 18, 3, 12, 0, 0, time.UTC) // the nodes' last upgrade
	project  = "shop-prod"
	version  = "v1.33.5-gke.1308000"
	truth    = true
	rv       = 4711000
)

func uid(parts ...string) types.UID {
	h := sha256.Sum256([]byte(strings.Join(parts, "/")))
	x := fmt.Sprintf("%x", h[:16])
	return types.UID(x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32])
}

func nextRV() string { rv += 17; return fmt.Sprint(rv) }

func q(s string) resource.Quantity { return resource.MustParse(s) }

func at(t time.Time) metav1.Time { return metav1.NewTime(t) }

type nodeDef struct {
	name, pool, zone, machine string
	ip                        string
	extraLabels               map[string]string
	spot                      bool
	capCPU, capMem            string
	allocCPU, allocMem        string
	taints                    []corev1.Taint
}

var nodes = []nodeDef{
	{name: "gke-shop-default-pool-3f9a6c2e-7k2p", pool: "default-pool", zone: "europe-west1-b", machine: "e2-standard-4", ip: "10.132.0.11", extraLabels: map[string]string{"disktype": "ssd"}},
	{name: "gke-shop-default-pool-3f9a6c2e-q8vz", pool: "default-pool", zone: "europe-west1-b", machine: "e2-standard-4", ip: "10.132.0.12"},
	{name: "gke-shop-default-pool-7b21d0a4-0h5m", pool: "default-pool", zone: "europe-west1-c", machine: "e2-standard-4", ip: "10.132.0.13"},
	{name: "gke-shop-default-pool-7b21d0a4-w3xr", pool: "default-pool", zone: "europe-west1-c", machine: "e2-standard-4", ip: "10.132.0.14"},
	{name: "gke-shop-default-pool-c48e5f19-9dtc", pool: "default-pool", zone: "europe-west1-d", machine: "e2-standard-4", ip: "10.132.0.15"},
	{name: "gke-shop-default-pool-c48e5f19-ln4f", pool: "default-pool", zone: "europe-west1-d", machine: "e2-standard-4", ip: "10.132.0.16"},
	{name: "gke-shop-spot-pool-5d0e8a71-b6jq", pool: "spot-pool", zone: "europe-west1-b", machine: "e2-standard-8", ip: "10.132.0.21", spot: true},
	{name: "gke-shop-spot-pool-5d0e8a71-tz9n", pool: "spot-pool", zone: "europe-west1-b", machine: "e2-standard-8", ip: "10.132.0.22", spot: true},
	{name: "gke-shop-db-pool-e61b9d03-mq2s", pool: "db-pool", zone: "europe-west1-b", machine: "n2-highmem-4", ip: "10.132.0.31"},
	{name: "gke-shop-db-pool-90fa27c5-5rwe", pool: "db-pool", zone: "europe-west1-c", machine: "n2-highmem-4", ip: "10.132.0.32"},
	{name: "gke-shop-db-pool-2c7d4e86-hx7a", pool: "db-pool", zone: "europe-west1-d", machine: "n2-highmem-4", ip: "10.132.0.33"},
}

// Capacity and allocatable as GKE nodes of these types report them.
var shapes = map[string][4]string{
	"e2-standard-4": {"4", "16393220Ki", "3920m", "13255684Ki"},
	"e2-standard-8": {"8", "32882764Ki", "7910m", "29094988Ki"},
	"n2-highmem-4":  {"4", "32882764Ki", "3920m", "29094988Ki"},
}

var poolLabels = map[string]map[string]string{
	"default-pool": {"team": "shop"},
	"db-pool":      {"workload": "db"},
}

var poolTaints = map[string][]corev1.Taint{
	"spot-pool": {{Key: "cloud.google.com/gke-spot", Value: "true", Effect: corev1.TaintEffectNoSchedule}},
	"db-pool":   {{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}},
}

func node(d nodeDef) *corev1.Node {
	region := d.zone[:strings.LastIndex(d.zone, "-")]
	family := strings.SplitN(d.machine, "-", 2)[0]
	sh := shapes[d.machine]
	labels := map[string]string{
		"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/instance-type": d.machine, "beta.kubernetes.io/os": "linux",
		"cloud.google.com/gke-boot-disk": "pd-balanced", "cloud.google.com/gke-container-runtime": "containerd",
		"cloud.google.com/gke-cpu-scaling-level": strings.TrimSuffix(sh[0], "m"), "cloud.google.com/gke-logging-variant": "DEFAULT",
		"cloud.google.com/gke-max-pods-per-node": "110", "cloud.google.com/gke-nodepool": d.pool,
		"cloud.google.com/gke-os-distribution": "cos", "cloud.google.com/gke-provisioning": "standard",
		"cloud.google.com/gke-stack-type": "IPV4", "cloud.google.com/machine-family": family, "cloud.google.com/private-node": "false",
		"failure-domain.beta.kubernetes.io/region": region, "failure-domain.beta.kubernetes.io/zone": d.zone,
		"kubernetes.io/arch": "amd64", "kubernetes.io/hostname": d.name, "kubernetes.io/os": "linux",
		"node.kubernetes.io/instance-type": d.machine, "topology.gke.io/zone": d.zone,
		"topology.kubernetes.io/region": region, "topology.kubernetes.io/zone": d.zone,
	}
	if d.spot {
		labels["cloud.google.com/gke-spot"] = "true"
		labels["cloud.google.com/gke-provisioning"] = "spot"
	}
	for k, v := range poolLabels[d.pool] {
		labels[k] = v
	}
	for k, v := range d.extraLabels {
		labels[k] = v
	}
	heartbeat := snapshot.Add(-time.Duration(len(d.name)%50) * time.Second)
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, Reason: reason, Message: msg, LastHeartbeatTime: at(heartbeat), LastTransitionTime: at(created.Add(90 * time.Second))}
	}
	return &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: d.name, UID: uid("node", d.name), ResourceVersion: nextRV(), CreationTimestamp: at(created), Labels: labels,
			Annotations: map[string]string{
				"container.googleapis.com/instance_id":                   fmt.Sprint(4300000000000000000 + len(d.name)*7919),
				"csi.volume.kubernetes.io/nodeid":                        fmt.Sprintf(`{"pd.csi.storage.gke.io":"projects/%s/zones/%s/instances/%s"}`, project, d.zone, d.name),
				"node.alpha.kubernetes.io/ttl":                           "0",
				"node.gke.io/last-applied-node-labels":                   "cloud.google.com/gke-boot-disk=pd-balanced,cloud.google.com/gke-nodepool=" + d.pool,
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
			}},
		Spec: corev1.NodeSpec{PodCIDR: "10.52.0.0/24", PodCIDRs: []string{"10.52.0.0/24"}, ProviderID: fmt.Sprintf("gce://%s/%s/%s", project, d.zone, d.name),
			Taints: append(append([]corev1.Taint(nil), poolTaints[d.pool]...), d.taints...)},
		Status: corev1.NodeStatus{
			Capacity: corev1.ResourceList{corev1.ResourceCPU: q(sh[0]), corev1.ResourceMemory: q(sh[1]), corev1.ResourcePods: q("110"),
				corev1.ResourceEphemeralStorage: q("98831908Ki"), "hugepages-2Mi": q("0")},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: q(sh[2]), corev1.ResourceMemory: q(sh[3]), corev1.ResourcePods: q("110"),
				corev1.ResourceEphemeralStorage: q("47060071478"), "hugepages-2Mi": q("0")},
			Conditions: []corev1.NodeCondition{
				cond("FrequentUnregisterNetDevice", corev1.ConditionFalse, "NoFrequentUnregisterNetDevice", "node is functioning properly"),
				cond("KernelDeadlock", corev1.ConditionFalse, "KernelHasNoDeadlock", "kernel has no deadlock"),
				cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
				cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
				cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
				cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
			},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: d.ip}, {Type: corev1.NodeHostName, Address: d.name}},
			NodeInfo: corev1.NodeSystemInfo{MachineID: fmt.Sprintf("%x", sha256.Sum256([]byte(d.name)))[:32], KernelVersion: "6.6.97+",
				OSImage: "Container-Optimized OS from Google", ContainerRuntimeVersion: "containerd://2.0.6", KubeletVersion: version,
				KubeProxyVersion: version, OperatingSystem: "linux", Architecture: "amd64", BootID: string(uid("boot", d.name))},
		},
	}
}

// podIPs hands out pod addresses of the cluster's range.
var podIPs = 0

func podIP() string { podIPs++; return fmt.Sprintf("10.52.%d.%d", podIPs/200, 10+podIPs%200) }

func requests(cpu, mem string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: q(cpu), corev1.ResourceMemory: q(mem)}}
}

// admitted is what admission adds to every pod spec: the default tolerations, the service
// account token volume, the defaults.
func admitted(spec corev1.PodSpec, name string) corev1.PodSpec {
	five := int64(300)
	spec.Tolerations = append(spec.Tolerations,
		corev1.Toleration{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &five},
		corev1.Toleration{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &five})
	if spec.Priority == nil {
		zero := int32(0)
		spec.Priority = &zero
	}
	if spec.TerminationGracePeriodSeconds == nil {
		g := int64(30)
		spec.TerminationGracePeriodSeconds = &g
	}
	never := corev1.PreemptLowerPriority
	spec.PreemptionPolicy = &never
	spec.DNSPolicy, spec.RestartPolicy, spec.SchedulerName = corev1.DNSClusterFirst, corev1.RestartPolicyAlways, corev1.DefaultSchedulerName
	spec.EnableServiceLinks = &truth
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = "default"
	}
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "kube-api-access-" + fmt.Sprintf("%x", sha256.Sum256([]byte(name)))[:5], VolumeSource: corev1.VolumeSource{
		Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}}}}})
	for i := range spec.Containers {
		c := &spec.Containers[i]
		c.TerminationMessagePath, c.TerminationMessagePolicy, c.ImagePullPolicy = "/dev/termination-log", corev1.TerminationMessageReadFile, corev1.PullIfNotPresent
	}
	return spec
}

type podDef struct {
	ns, name, node string
	labels         map[string]string
	annotations    map[string]string
	owner          *metav1.OwnerReference
	spec           corev1.PodSpec
	started        time.Time
	hostNetwork    bool
}

func pod(d podDef) *corev1.Pod {
	spec := admitted(d.spec, d.name)
	spec.NodeName = d.node
	ip := ""
	for _, n := range nodes {
		if n.name == d.node && d.hostNetwork {
			ip = n.ip
		}
	}
	if ip == "" {
		ip = podIP()
	}
	host := ""
	for _, n := range nodes {
		if n.name == d.node {
			host = n.ip
		}
	}
	started := d.started
	if started.IsZero() {
		started = created.Add(2 * time.Minute)
	}
	var owners []metav1.OwnerReference
	gen := ""
	if d.owner != nil {
		owners = []metav1.OwnerReference{*d.owner}
		if d.owner.Kind != "Node" && d.owner.Kind != "StatefulSet" {
			gen = d.owner.Name + "-"
		}
	}
	cond := func(t corev1.PodConditionType, when time.Time) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: at(when)}
	}
	var statuses []corev1.ContainerStatus
	for _, c := range spec.Containers {
		statuses = append(statuses, corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: c.Image + "@sha256:" + fmt.Sprintf("%x", sha256.Sum256([]byte(c.Image))),
			ContainerID: "containerd://" + fmt.Sprintf("%x", sha256.Sum256([]byte(d.name+c.Name))), Ready: true, Started: &truth,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at(started.Add(3 * time.Second))}}})
	}
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: d.name, GenerateName: gen, Namespace: d.ns, UID: uid("pod", d.ns, d.name), ResourceVersion: nextRV(),
			CreationTimestamp: at(started), Labels: d.labels, Annotations: d.annotations, OwnerReferences: owners},
		Spec: spec,
		Status: corev1.PodStatus{Phase: corev1.PodRunning, HostIP: host, HostIPs: []corev1.HostIP{{IP: host}}, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
			QOSClass: corev1.PodQOSBurstable, StartTime: &metav1.Time{Time: started},
			Conditions: []corev1.PodCondition{cond("PodReadyToStartContainers", started.Add(2*time.Second)), cond(corev1.PodInitialized, started),
				cond(corev1.PodReady, started.Add(9*time.Second)), cond(corev1.ContainersReady, started.Add(9*time.Second)), cond(corev1.PodScheduled, started)},
			ContainerStatuses: statuses},
	}
}

func controller(apiVersion, kind, name string, id types.UID) *metav1.OwnerReference {
	return &metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: id, Controller: &truth, BlockOwnerDeletion: &truth}
}

var suffixes = []string{"b7xkq", "c2m9t", "d4nwr", "f8hzp", "g3jvs", "h6kqx", "j9lbt", "k2mcw", "l5ndz", "m8pfv", "n4qgx", "p7rhz"}

func suffix(i int) string { return suffixes[i%len(suffixes)] }

type daemonDef struct {
	ns, name string
	spec     corev1.PodSpec
	labels   map[string]string
	nodes    func(nodeDef) bool
}

func main() {
	var items []runtime.Object
	for _, n := range nodes {
		items = append(items, node(n))
	}
	var pods []*corev1.Pod
	nodesOf := func(pool string) []nodeDef {
		var out []nodeDef
		for _, n := range nodes {
			if n.pool == pool {
				out = append(out, n)
			}
		}
		return out
	}
	all := func(nodeDef) bool { return true }
	critical := "system-node-critical"
	prio := int32(2000001000)
	exists := []corev1.Toleration{{Operator: corev1.TolerationOpExists}}

	// kube-proxy: a static pod on every node (its owner is the node).
	for _, n := range nodes {
		spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "kube-proxy", Image: "gke.gcr.io/kube-proxy-amd64:" + version + "-gke.0", Resources: requests("100m", "0")}},
			HostNetwork: true, PriorityClassName: critical, Priority: &prio, Tolerations: exists}
		p := pod(podDef{ns: "kube-system", name: "kube-proxy-" + n.name, node: n.name, labels: map[string]string{"component": "kube-proxy", "tier": "node"},
			annotations: map[string]string{"kubernetes.io/config.hash": "4b2e1f0c9d8a7b6c", "kubernetes.io/config.mirror": "4b2e1f0c9d8a7b6c", "kubernetes.io/config.source": "file"},
			owner:       &metav1.OwnerReference{APIVersion: "v1", Kind: "Node", Name: n.name, UID: uid("node", n.name), Controller: &truth}, spec: spec, hostNetwork: true})
		pods = append(pods, p)
	}
	// GKE's DaemonSets and the user's node-exporter.
	daemons := []daemonDef{
		{"kube-system", "fluentbit-gke", corev1.PodSpec{Containers: []corev1.Container{
			{Name: "fluentbit", Image: "gke.gcr.io/fluent-bit:v1.8.12-gke.42", Resources: requests("50m", "100Mi")},
			{Name: "fluentbit-gke", Image: "gke.gcr.io/fluent-bit-gke-exporter:v0.28.0-gke.7", Resources: requests("50m", "100Mi")}},
			PriorityClassName: critical, Priority: &prio, Tolerations: exists, NodeSelector: map[string]string{"kubernetes.io/os": "linux"}},
			map[string]string{"k8s-app": "fluentbit-gke"}, all},
		{"kube-system", "gke-metrics-agent", corev1.PodSpec{Containers: []corev1.Container{
			{Name: "gke-metrics-agent", Image: "gke.gcr.io/gke-metrics-agent:1.14.4-gke.1", Resources: requests("8m", "60Mi")}},
			PriorityClassName: critical, Priority: &prio, Tolerations: exists}, map[string]string{"component": "gke-metrics-agent", "k8s-app": "gke-metrics-agent"}, all},
		{"kube-system", "pdcsi-node", corev1.PodSpec{Containers: []corev1.Container{
			{Name: "csi-driver-registrar", Image: "gke.gcr.io/csi-node-driver-registrar:v2.13.0-gke.9", Resources: requests("5m", "10Mi")},
			{Name: "gce-pd-driver", Image: "gke.gcr.io/gcp-compute-persistent-disk-csi-driver:v1.17.3-gke.0", Resources: requests("5m", "10Mi")}},
			PriorityClassName: critical, Priority: &prio, Tolerations: exists}, map[string]string{"k8s-app": "gcp-compute-persistent-disk-csi-driver"}, all},
		{"monitoring", "node-exporter", corev1.PodSpec{Containers: []corev1.Container{
			{Name: "node-exporter", Image: "quay.io/prometheus/node-exporter:v1.9.1", Resources: requests("100m", "180Mi")}},
			HostNetwork: true, Tolerations: exists}, map[string]string{"app.kubernetes.io/name": "node-exporter"}, all},
	}
	for _, ds := range daemons {
		id := uid("ds", ds.ns, ds.name)
		var count int32
		for i, n := range nodes {
			if !ds.nodes(n) {
				continue
			}
			count++
			spec := *ds.spec.DeepCopy()
			spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{n.name}}}}}}}}
			labels := map[string]string{"controller-revision-hash": "6d8f9b7c5d", "pod-template-generation": "3"}
			for k, v := range ds.labels {
				labels[k] = v
			}
			pods = append(pods, pod(podDef{ns: ds.ns, name: ds.name + "-" + suffix(i+len(ds.name)), node: n.name, labels: labels,
				owner: controller("apps/v1", "DaemonSet", ds.name, id), spec: spec, hostNetwork: ds.spec.HostNetwork}))
		}
		one := intstr.FromInt32(1)
		items = append(items, &appsv1.DaemonSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
			ObjectMeta: metav1.ObjectMeta{Name: ds.name, Namespace: ds.ns, UID: id, ResourceVersion: nextRV(), Generation: 3, CreationTimestamp: at(created.Add(-200 * 24 * time.Hour)),
				Labels: ds.labels, Annotations: map[string]string{"deprecated.daemonset.template.generation": "3"}},
			Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: ds.labels},
				Template:       corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: ds.labels}, Spec: ds.spec},
				UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one}}},
			Status: appsv1.DaemonSetStatus{CurrentNumberScheduled: count, DesiredNumberScheduled: count, NumberAvailable: count, NumberReady: count, UpdatedNumberScheduled: count, ObservedGeneration: 3}})
	}

	// Deployments: name, namespace, replicas, hash, pod spec, the nodes their pods are on.
	type deployDef struct {
		ns, name, hash string
		labels         map[string]string
		spec           corev1.PodSpec
		on             []string
		annotations    map[string]string
	}
	dp := nodesOf("default-pool")
	sp := nodesOf("spot-pool")
	grace90 := int64(5400)
	spotTol := []corev1.Toleration{{Key: "cloud.google.com/gke-spot", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	deploys := []deployDef{
		{"kube-system", "kube-dns", "5c8f7d9b46", map[string]string{"k8s-app": "kube-dns"}, corev1.PodSpec{Containers: []corev1.Container{
			{Name: "kubedns", Image: "gke.gcr.io/k8s-dns-kube-dns:1.26.3-gke.1", Resources: requests("100m", "70Mi")},
			{Name: "dnsmasq", Image: "gke.gcr.io/k8s-dns-dnsmasq-nanny:1.26.3-gke.1", Resources: requests("150m", "20Mi")},
			{Name: "sidecar", Image: "gke.gcr.io/k8s-dns-sidecar:1.26.3-gke.1", Resources: requests("10m", "20Mi")}},
			PriorityClassName: "system-cluster-critical", Priority: ptr(int32(2000000000))}, []string{dp[0].name, dp[3].name}, nil},
		{"kube-system", "metrics-server-v1.33.0", "7f6d5c4b98", map[string]string{"k8s-app": "metrics-server"}, corev1.PodSpec{Containers: []corev1.Container{
			{Name: "metrics-server", Image: "gke.gcr.io/metrics-server:v0.7.2-gke.24", Resources: requests("48m", "105Mi")}},
			PriorityClassName: "system-cluster-critical", Priority: ptr(int32(2000000000))}, []string{dp[4].name}, nil},
		{"default", "web", "6b9d8c7f5a", map[string]string{"app": "web"}, corev1.PodSpec{Containers: []corev1.Container{
			{Name: "web", Image: "europe-docker.pkg.dev/shop-prod/web/web:2.41.0", Resources: requests("500m", "512Mi"),
				Ports: []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}}},
			[]string{dp[0].name, dp[1].name, dp[2].name, dp[3].name, dp[4].name, dp[5].name}, nil},
		{"default", "payments", "8d7c6b5a49", map[string]string{"app": "payments"}, corev1.PodSpec{Containers: []corev1.Container{
			{Name: "payments", Image: "europe-docker.pkg.dev/shop-prod/payments/payments:1.9.3", Resources: requests("250m", "256Mi")}},
			TerminationGracePeriodSeconds: &grace90}, []string{dp[1].name, dp[2].name}, nil},
		{"default", "ssd-cache", "4c5d6e7f8a", map[string]string{"app": "ssd-cache"}, corev1.PodSpec{Containers: []corev1.Container{
			{Name: "cache", Image: "redis:7.4", Resources: requests("200m", "1Gi")}}, NodeSelector: map[string]string{"disktype": "ssd"}},
			[]string{dp[0].name}, nil},
		{"default", "worker", "9a8b7c6d5e", map[string]string{"app": "worker"}, corev1.PodSpec{Containers: []corev1.Container{
			{Name: "worker", Image: "europe-docker.pkg.dev/shop-prod/worker/worker:3.2.1", Resources: requests("1", "2Gi")}},
			NodeSelector: map[string]string{"cloud.google.com/gke-spot": "true"}, Tolerations: spotTol},
			[]string{sp[0].name, sp[0].name, sp[1].name, sp[1].name}, nil},
	}
	for di, d := range deploys {
		depID, rsID := uid("deploy", d.ns, d.name), uid("rs", d.ns, d.name, d.hash)
		replicas := int32(len(d.on))
		podLabels := map[string]string{"pod-template-hash": d.hash}
		for k, v := range d.labels {
			podLabels[k] = v
		}
		for i, n := range d.on {
			pods = append(pods, pod(podDef{ns: d.ns, name: d.name + "-" + d.hash + "-" + suffix(di*7+i), node: n, labels: podLabels,
				annotations: d.annotations, owner: controller("apps/v1", "ReplicaSet", d.name+"-"+d.hash, rsID), spec: d.spec}))
		}
		tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: d.labels}, Spec: d.spec}
		items = append(items, &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Name: d.name, Namespace: d.ns, UID: depID, ResourceVersion: nextRV(), Generation: 4, CreationTimestamp: at(created.Add(-240 * 24 * time.Hour)),
				Labels: d.labels, Annotations: map[string]string{"deployment.kubernetes.io/revision": "4"}},
			Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: d.labels}, Template: tmpl,
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType}},
			Status: appsv1.DeploymentStatus{ObservedGeneration: 4, Replicas: replicas, UpdatedReplicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas}})
		rsTmpl := tmpl.DeepCopy()
		rsTmpl.Labels = podLabels
		items = append(items, &appsv1.ReplicaSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
			ObjectMeta: metav1.ObjectMeta{Name: d.name + "-" + d.hash, Namespace: d.ns, UID: rsID, ResourceVersion: nextRV(), Generation: 1,
				CreationTimestamp: at(created.Add(-20 * 24 * time.Hour)), Labels: podLabels,
				Annotations:     map[string]string{"deployment.kubernetes.io/desired-replicas": fmt.Sprint(replicas), "deployment.kubernetes.io/max-replicas": fmt.Sprint(replicas + 1), "deployment.kubernetes.io/revision": "4"},
				OwnerReferences: []metav1.OwnerReference{*controller("apps/v1", "Deployment", d.name, depID)}},
			Spec:   appsv1.ReplicaSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: podLabels}, Template: *rsTmpl},
			Status: appsv1.ReplicaSetStatus{Replicas: replicas, FullyLabeledReplicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas, ObservedGeneration: 1}})
		// An old ReplicaSet scaled to zero, as Kubernetes keeps them.
		old := d.hash[:9] + "0"
		zero := int32(0)
		oldLabels := map[string]string{"pod-template-hash": old}
		for k, v := range d.labels {
			oldLabels[k] = v
		}
		items = append(items, &appsv1.ReplicaSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
			ObjectMeta: metav1.ObjectMeta{Name: d.name + "-" + old, Namespace: d.ns, UID: uid("rs", d.ns, d.name, old), ResourceVersion: nextRV(), Generation: 2,
				CreationTimestamp: at(created.Add(-90 * 24 * time.Hour)), Labels: oldLabels,
				Annotations:     map[string]string{"deployment.kubernetes.io/desired-replicas": fmt.Sprint(replicas), "deployment.kubernetes.io/revision": "3"},
				OwnerReferences: []metav1.OwnerReference{*controller("apps/v1", "Deployment", d.name, depID)}},
			Spec:   appsv1.ReplicaSetSpec{Replicas: &zero, Selector: &metav1.LabelSelector{MatchLabels: oldLabels}, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: oldLabels}, Spec: d.spec}},
			Status: appsv1.ReplicaSetStatus{ObservedGeneration: 2}})
	}

	// The db StatefulSet on db-pool, one pod per zone.
	dbLabels := map[string]string{"app": "db"}
	dbSpec := corev1.PodSpec{Containers: []corev1.Container{{Name: "postgres", Image: "postgres:17.5", Resources: requests("1500m", "12Gi")}},
		NodeSelector: map[string]string{"workload": "db"}, Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db", Effect: corev1.TaintEffectNoSchedule}},
		TerminationGracePeriodSeconds: ptr(int64(120))}
	dbID := uid("sts", "default", "db")
	for i, n := range nodesOf("db-pool") {
		labels := map[string]string{"app": "db", "controller-revision-hash": "db-7c9f8d6b5", "statefulset.kubernetes.io/pod-name": fmt.Sprintf("db-%d", i), "apps.kubernetes.io/pod-index": fmt.Sprint(i)}
		spec := *dbSpec.DeepCopy()
		spec.Hostname, spec.Subdomain = fmt.Sprintf("db-%d", i), "db"
		spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: fmt.Sprintf("data-db-%d", i)}}}}
		pods = append(pods, pod(podDef{ns: "default", name: fmt.Sprintf("db-%d", i), node: n.name, labels: labels,
			owner: controller("apps/v1", "StatefulSet", "db", dbID), spec: spec}))
	}
	three := int32(3)
	stsSpec := appsv1.StatefulSetSpec{Replicas: &three, Selector: &metav1.LabelSelector{MatchLabels: dbLabels}, ServiceName: "db",
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: dbLabels}, Spec: dbSpec}, PodManagementPolicy: appsv1.OrderedReadyPodManagement,
		UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
		VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}, Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: q("100Gi")}}}}}}
	items = append(items, &appsv1.StatefulSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default", UID: dbID, ResourceVersion: nextRV(), Generation: 2, CreationTimestamp: at(created.Add(-240 * 24 * time.Hour)), Labels: dbLabels},
		Spec:       stsSpec,
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 3, ReadyReplicas: 3, CurrentReplicas: 3, UpdatedReplicas: 3, AvailableReplicas: 3,
			CurrentRevision: "db-7c9f8d6b5", UpdateRevision: "db-7c9f8d6b5"}})

	// checkout: an Argo Rollout's pods (a custom controller the objects do not describe).
	rollout := uid("rollout", "default", "checkout")
	for i, n := range []nodeDef{dp[2], dp[5]} {
		pods = append(pods, pod(podDef{ns: "default", name: "checkout-6f7b8c9d0e-" + suffix(40+i), node: n.name,
			labels: map[string]string{"app": "checkout", "rollouts-pod-template-hash": "6f7b8c9d0e"},
			owner:  controller("argoproj.io/v1alpha1", "Rollout", "checkout", rollout),
			spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "checkout", Image: "europe-docker.pkg.dev/shop-prod/checkout/checkout:5.0.2", Resources: requests("300m", "384Mi")}}}}))
	}
	// A report Job's pod, which must not be evicted by the autoscaler.
	pods = append(pods, pod(podDef{ns: "default", name: "report-29051040-" + suffix(50), node: dp[3].name,
		labels:      map[string]string{"batch.kubernetes.io/job-name": "report-29051040", "job-name": "report-29051040", "batch.kubernetes.io/controller-uid": string(uid("job", "report"))},
		annotations: map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"},
		owner:       controller("batch/v1", "Job", "report-29051040", uid("job", "report")), started: snapshot.Add(-25 * time.Minute),
		spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "report", Image: "europe-docker.pkg.dev/shop-prod/report/report:1.2.0", Resources: requests("500m", "1Gi")}},
			RestartPolicy: corev1.RestartPolicyNever}}))
	// A bare debug pod, which no controller recreates.
	pods = append(pods, pod(podDef{ns: "default", name: "debug-shell", node: dp[4].name, labels: map[string]string{"run": "debug-shell"},
		annotations: map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"}, started: snapshot.Add(-3 * time.Hour),
		spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "debug-shell", Image: "busybox:1.37", Resources: requests("10m", "16Mi")}}}}))

	for _, p := range pods {
		items = append(items, p)
	}

	// PodDisruptionBudgets.
	pdb := func(name string, sel map[string]string, minAvail, maxUnavail *intstr.IntOrString, expected, healthy, desired, allowed int32) *policyv1.PodDisruptionBudget {
		return &policyv1.PodDisruptionBudget{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: uid("pdb", name), ResourceVersion: nextRV(), Generation: 1, CreationTimestamp: at(created.Add(-200 * 24 * time.Hour))},
			Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: minAvail, MaxUnavailable: maxUnavail, Selector: &metav1.LabelSelector{MatchLabels: sel}},
			Status: policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, ExpectedPods: expected, CurrentHealthy: healthy, DesiredHealthy: desired, DisruptionsAllowed: allowed,
				Conditions: []metav1.Condition{{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionStatus(map[bool]string{true: "True", false: "False"}[allowed > 0]),
					Reason: map[bool]string{true: "SufficientPods", false: "InsufficientPods"}[allowed > 0], ObservedGeneration: 1, LastTransitionTime: at(created.Add(5 * time.Minute))}}}}
	}
	one, zero, two := intstr.FromInt32(1), intstr.FromInt32(0), intstr.FromInt32(2)
	items = append(items,
		pdb("web", map[string]string{"app": "web"}, nil, &one, 6, 6, 5, 1),
		pdb("payments", map[string]string{"app": "payments"}, nil, &zero, 2, 2, 2, 0),
		pdb("db", map[string]string{"app": "db"}, &two, nil, 3, 3, 2, 1))

	// Services.
	local := corev1.ServiceExternalTrafficPolicyLocal
	cluster := corev1.ServiceInternalTrafficPolicyCluster
	single := corev1.IPFamilyPolicySingleStack
	vip := corev1.LoadBalancerIPModeVIP
	svc := func(ns, name string, spec corev1.ServiceSpec, lbIP string, annotations map[string]string) *corev1.Service {
		spec.InternalTrafficPolicy, spec.IPFamilyPolicy, spec.IPFamilies = &cluster, &single, []corev1.IPFamily{corev1.IPv4Protocol}
		if spec.SessionAffinity == "" {
			spec.SessionAffinity = corev1.ServiceAffinityNone
		}
		spec.ClusterIPs = []string{spec.ClusterIP}
		s := &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: uid("svc", ns, name), ResourceVersion: nextRV(), CreationTimestamp: at(created.Add(-240 * 24 * time.Hour)), Annotations: annotations},
			Spec:       spec}
		if lbIP != "" {
			s.Finalizers = []string{"service.kubernetes.io/load-balancer-cleanup"}
			s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: lbIP, IPMode: &vip}}
		}
		return s
	}
	items = append(items,
		svc("default", "kubernetes", corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "34.118.224.1",
			Ports: []corev1.ServicePort{{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(443)}}}, "", nil),
		svc("kube-system", "kube-dns", corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "34.118.224.10", Selector: map[string]string{"k8s-app": "kube-dns"},
			Ports: []corev1.ServicePort{{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP, TargetPort: intstr.FromInt32(53)}, {Name: "dns-tcp", Port: 53, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(53)}}}, "", nil),
		svc("default", "web", corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIP: "34.118.230.77", Selector: map[string]string{"app": "web"},
			ExternalTrafficPolicy: local, HealthCheckNodePort: 31977, AllocateLoadBalancerNodePorts: &truth,
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080), NodePort: 30480}}}, "34.140.77.12", nil),
		svc("default", "db", corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: corev1.ClusterIPNone, Selector: dbLabels,
			Ports: []corev1.ServicePort{{Name: "postgres", Port: 5432, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(5432)}}}, "", nil),
	)

	var raw []json.RawMessage
	for _, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			panic(err)
		}
		raw = append(raw, b)
	}
	out := map[string]any{"apiVersion": "v1", "kind": "List", "items": raw, "metadata": map[string]string{"resourceVersion": ""}}
	b, err := json.MarshalIndent(out, "", "    ")
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(append(b, '\n'))
}

func ptr[T any](v T) *T { return &v }
