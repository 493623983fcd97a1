package catalog

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// What GKE runs in every Standard cluster's kube-system namespace: DaemonSet pods on every node
// and a few Deployments that need some node (R-CA-5: the cluster never scales to zero because
// of them). Requests approximate GKE 1.3x's, so that the capacity left for workloads is close to
// a real cluster's.

// SystemNamespaces exist in every cluster.
var SystemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// GKEDaemonSet is one of the DaemonSets GKE runs in kube-system on every node.
type GKEDaemonSet struct {
	Name string
	Spec corev1.PodSpec
}

func requests(cpu, mem string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}
}

func systemSpec(priorityClass string, containers ...corev1.Container) corev1.PodSpec {
	return corev1.PodSpec{
		Containers:        containers,
		PriorityClassName: priorityClass,
		Tolerations:       []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
	}
}

// SystemDaemonSets run one pod on every node; drains leave them and they go with the node.
var SystemDaemonSets = []*GKEDaemonSet{
	{"kube-proxy", systemSpec("system-node-critical", corev1.Container{Name: "kube-proxy", Image: "gke.gcr.io/kube-proxy-amd64", Resources: requests("100m", "0")})},
	{"fluentbit-gke", systemSpec("system-node-critical",
		corev1.Container{Name: "fluentbit", Image: "gke.gcr.io/fluent-bit", Resources: requests("50m", "100Mi")},
		corev1.Container{Name: "fluentbit-gke", Image: "gke.gcr.io/fluent-bit-gke-exporter", Resources: requests("50m", "100Mi")})},
	{"gke-metrics-agent", systemSpec("system-node-critical", corev1.Container{Name: "gke-metrics-agent", Image: "gke.gcr.io/gke-metrics-agent", Resources: requests("8m", "60Mi")})},
	{"pdcsi-node", systemSpec("system-node-critical", corev1.Container{Name: "gce-pd-driver", Image: "gke.gcr.io/gcp-compute-persistent-disk-csi-driver", Resources: requests("10m", "20Mi")})},
}

// SystemDaemonSetLabels are each system DaemonSet's pod labels: one map shared by all its pods (a
// pod's labels are replaced, never changed in place).
var SystemDaemonSetLabels = func() map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, ds := range SystemDaemonSets {
		out[ds.Name] = map[string]string{"k8s-app": ds.Name}
	}
	return out
}()

// SystemDaemonSetNamed is GKE's kube-system DaemonSet of that name, or nil.
func SystemDaemonSetNamed(name string) *GKEDaemonSet {
	for _, ds := range SystemDaemonSets {
		if ds.Name == name {
			return ds
		}
	}
	return nil
}

// SystemDeployments are kube-system Deployments: name, replicas, pod spec.
var SystemDeployments = []struct {
	Name     string
	Replicas int32
	Spec     corev1.PodSpec
}{
	{"kube-dns", 2, systemSpec("system-cluster-critical",
		corev1.Container{Name: "kubedns", Image: "gke.gcr.io/k8s-dns-kube-dns", Resources: requests("100m", "70Mi")},
		corev1.Container{Name: "dnsmasq", Image: "gke.gcr.io/k8s-dns-dnsmasq-nanny", Resources: requests("150m", "20Mi")},
		corev1.Container{Name: "sidecar", Image: "gke.gcr.io/k8s-dns-sidecar", Resources: requests("10m", "20Mi")})},
	{"kube-dns-autoscaler", 1, systemSpec("system-cluster-critical", corev1.Container{Name: "autoscaler", Image: "gke.gcr.io/cluster-proportional-autoscaler", Resources: requests("20m", "10Mi")})},
	{"konnectivity-agent", 2, systemSpec("system-cluster-critical", corev1.Container{Name: "konnectivity-agent", Image: "gke.gcr.io/proxy-agent", Resources: requests("10m", "30Mi")})},
	{"metrics-server-v1.33.0", 1, systemSpec("system-cluster-critical",
		corev1.Container{Name: "metrics-server", Image: "gke.gcr.io/metrics-server", Resources: requests("43m", "55Mi")},
		corev1.Container{Name: "metrics-server-nanny", Image: "gke.gcr.io/addon-resizer", Resources: requests("5m", "50Mi")})},
	{"event-exporter-gke", 1, systemSpec("", corev1.Container{Name: "event-exporter", Image: "gke.gcr.io/event-exporter", Resources: requests("3m", "20Mi")})},
	{"l7-default-backend", 1, systemSpec("", corev1.Container{Name: "default-http-backend", Image: "gke.gcr.io/ingress-gce-404-server-with-metrics", Resources: requests("10m", "20Mi")})},
}
