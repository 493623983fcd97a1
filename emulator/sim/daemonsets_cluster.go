package sim

import (
	"maps"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// An imported cluster's own DaemonSets (import.go): the real cluster's, GKE's among them, which
// take the place of gkesim's built-in ones (system.go). A node that becomes ready gets a pod of
// every DaemonSet whose template selects it and tolerates its taints, as the DaemonSet
// controller places them; drains leave them, and they go with their node.

// ownDaemonSets says whether the cluster runs DaemonSets of its own (an imported one) rather
// than GKE's built-in ones.
func (c *Cluster) ownDaemonSets() bool { return c.Imported != nil }

// DaemonSet is one of an imported cluster's DaemonSets. A static one stands for the static pods
// the kubelet of every node runs from a manifest (kube-proxy on GKE): they are named
// PREFIX-NODE and their owner is the node.
type DaemonSet struct {
	Namespace   string               `json:"namespace"`
	Name        string               `json:"name"`
	UID         string               `json:"uid"`
	Labels      map[string]string    `json:"labels,omitempty"`
	Annotations map[string]string    `json:"annotations,omitempty"`
	Spec        appsv1.DaemonSetSpec `json:"spec"`
	Generation  int64                `json:"generation"`
	CreateTime  time.Time            `json:"createTime"`
	Static      bool                 `json:"static,omitempty"`
	// NodeNamed: its pods are named NAME-NODE (static pods, and kube-proxy as gkesim runs it).
	NodeNamed bool `json:"nodeNamed,omitempty"`
}

// Key is namespace/name.
func (d *DaemonSet) Key() string { return d.Namespace + "/" + d.Name }

// runsOn says whether the DaemonSet controller puts a pod of ds on a node with these labels and
// taints: its node selector and required node affinity match and it tolerates the taints (the
// controller's own tolerations, such as the cordon's, aside).
func (ds *DaemonSet) runsOn(labels map[string]string, taints []corev1.Taint) bool {
	spec := &ds.Spec.Template.Spec
	for k, v := range spec.NodeSelector {
		if labels[k] != v {
			return false
		}
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil &&
		!matchesNodeSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, labels) {
		return false
	}
	for _, t := range taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule || t.Key == "node.kubernetes.io/unschedulable" || tolerates(spec.Tolerations, t) {
			continue
		}
		return false
	}
	return true
}

// clusterDaemonSetsOn lists, in key order, the cluster's DaemonSets that run on node n.
func (w *World) clusterDaemonSetsOn(c *Cluster, n *Node) []*DaemonSet {
	k := w.RenderK8sNode(c, n)
	var out []*DaemonSet
	for _, key := range sortedKeys(c.DaemonSets) {
		if ds := c.DaemonSets[key]; ds.runsOn(k.Labels, k.Spec.Taints) {
			out = append(out, ds)
		}
	}
	return out
}

// startClusterDaemonPods puts a pod of every DaemonSet of an imported cluster that runs on n.
func (w *World) startClusterDaemonPods(c *Cluster, n *Node) {
	for _, ds := range w.clusterDaemonSetsOn(c, n) {
		var name string
		if ds.Static || ds.NodeNamed {
			name = ds.Name + "-" + n.Name
		} else {
			for {
				name = ds.Name + "-" + w.randSafe(5)
				if c.Pods[ds.Namespace+"/"+name] == nil {
					break
				}
			}
		}
		if c.Pods[ds.Namespace+"/"+name] != nil {
			continue // a static pod of the node's previous life is still going
		}
		w.addPod(c, &Pod{Namespace: ds.Namespace, Name: name, OwnerKind: OwnerDaemonSet, Owner: ds.Name, Node: n.Name,
			Labels: ds.Spec.Template.Labels, Annotation: ds.Spec.Template.Annotations})
	}
}

// daemonPodsFor is what the DaemonSet pods of a new node like n request, and how many there
// are: the autoscaler leaves that room out when it simulates new nodes.
func (w *World) daemonPodsFor(c *Cluster, n *Node) (Resources, int) {
	var req Resources
	switch {
	case c.ownDaemonSets():
		dss := w.clusterDaemonSetsOn(c, n)
		for _, ds := range dss {
			req = req.add(effectiveRequests(&ds.Spec.Template.Spec))
		}
		return req, len(dss)
	case c.Autopilot:
		return req, 0
	}
	for _, ds := range systemDaemonSets {
		req = req.add(effectiveRequests(&ds.spec))
	}
	return req, len(systemDaemonSets)
}

// renderClusterDaemonSet renders an imported cluster's DaemonSet with its status now.
func (w *World) renderClusterDaemonSet(c *Cluster, ds *DaemonSet) *appsv1.DaemonSet {
	st := appsv1.DaemonSetStatus{ObservedGeneration: ds.Generation}
	for _, name := range sortedNodeNames(c) {
		n := c.Nodes[name]
		if n.State != NodeProvisioning && n.State != NodeDeleting {
			k := w.RenderK8sNode(c, n)
			if ds.runsOn(k.Labels, k.Spec.Taints) {
				st.DesiredNumberScheduled++
			}
		}
	}
	for _, p := range c.Pods {
		if p.OwnerKind != OwnerDaemonSet || p.Owner != ds.Name || p.Namespace != ds.Namespace || p.Terminating {
			continue
		}
		st.CurrentNumberScheduled++
		st.UpdatedNumberScheduled++
		if p.Ready {
			st.NumberReady++
			st.NumberAvailable++
		}
	}
	st.NumberUnavailable = max(st.DesiredNumberScheduled-st.NumberAvailable, 0)
	return &appsv1.DaemonSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: ds.Name, Namespace: ds.Namespace, UID: types.UID(ds.UID), ResourceVersion: rvString(c.RV),
			Generation: ds.Generation, CreationTimestamp: metav1.NewTime(ds.CreateTime), Labels: maps.Clone(ds.Labels),
			Annotations: maps.Clone(ds.Annotations)},
		Spec:   *ds.Spec.DeepCopy(),
		Status: st,
	}
}

// listClusterDaemonSets lists an imported cluster's DaemonSets (not the static pods' stand-ins).
func (w *World) listClusterDaemonSets(c *Cluster, o ListOptions) []appsv1.DaemonSet {
	var out []appsv1.DaemonSet
	for _, key := range sortedKeys(c.DaemonSets) {
		ds := c.DaemonSets[key]
		if !ds.Static && o.matches(ds.Namespace, ds.Labels) {
			out = append(out, *w.renderClusterDaemonSet(c, ds))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}
