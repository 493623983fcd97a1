package workloads

import (
	"maps"
	"sort"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// An imported cluster's own DaemonSets (clusterimport/import.go): the real cluster's, GKE's among them, which
// take the place of gkesim's built-in ones (core/kube_system.go). A node that becomes ready gets a pod of
// every DaemonSet whose template selects it and tolerates its taints, as the DaemonSet
// controller places them; drains leave them, and they go with their node.

// clusterDaemonSetsOn lists, in key order, the cluster's DaemonSets that run on node n.
func (w *Workloads) clusterDaemonSetsOn(c *model.Cluster, n *model.Node) []*model.DaemonSet {
	labels, taints := w.core.K8sNodeLabelsAndTaints(c, n)
	var out []*model.DaemonSet
	for _, key := range model.SortedKeys(c.DaemonSets) {
		if ds := c.DaemonSets[key]; ds.RunsOn(labels, taints) {
			out = append(out, ds)
		}
	}
	return out
}

// StartOwnDaemonPods puts a pod of every DaemonSet of an imported cluster that runs on n.
func (w *Workloads) StartOwnDaemonPods(c *model.Cluster, n *model.Node) {
	for _, ds := range w.clusterDaemonSetsOn(c, n) {
		var key string
		if ds.Static || ds.NodeNamed {
			key = model.NamespacedKey(ds.Namespace, ds.Name+"-"+n.Name)
		} else {
			key = w.engine.NewPodKey(c, ds.Namespace, ds.Name, "-")
		}
		if c.Pods[key] != nil {
			continue // a static pod of the node's previous life is still going
		}
		p := model.KeyedPod(key)
		p.OwnerKind, p.Owner, p.Node, p.Labels, p.Annotation = model.OwnerDaemonSet, ds.Name, n.Name, ds.Spec.Template.Labels, ds.Spec.Template.Annotations
		w.core.AddPod(c, p)
	}
}

// DaemonPodsFor is what the DaemonSet pods of a new node like n request, and how many there
// are: the autoscaler leaves that room out when it simulates new nodes.
func (w *Workloads) DaemonPodsFor(c *model.Cluster, n *model.Node) (model.Resources, int) {
	var req model.Resources
	switch {
	case c.OwnDaemonSets():
		dss := w.clusterDaemonSetsOn(c, n)
		for _, ds := range dss {
			req = req.Add(core.EffectiveRequests(&ds.Spec.Template.Spec))
		}
		return req, len(dss)
	case c.Autopilot:
		return req, 0
	}
	for _, ds := range catalog.SystemDaemonSets {
		req = req.Add(core.EffectiveRequests(&ds.Spec))
	}
	return req, len(catalog.SystemDaemonSets)
}

// renderClusterDaemonSet renders an imported cluster's DaemonSet with its status now.
func (w *Workloads) renderClusterDaemonSet(c *model.Cluster, ds *model.DaemonSet) *appsv1.DaemonSet {
	st := appsv1.DaemonSetStatus{ObservedGeneration: ds.Generation}
	for _, name := range core.SortedNodeNames(c) {
		n := c.Nodes[name]
		if n.State != model.NodeProvisioning && n.State != model.NodeDeleting {
			if ds.RunsOn(w.core.K8sNodeLabelsAndTaints(c, n)) {
				st.DesiredNumberScheduled++
			}
		}
	}
	for _, p := range c.Pods {
		if p.OwnerKind != model.OwnerDaemonSet || p.Owner != ds.Name || p.Namespace() != ds.Namespace || p.Terminating {
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
		ObjectMeta: metav1.ObjectMeta{Name: ds.Name, Namespace: ds.Namespace, UID: types.UID(ds.UID), ResourceVersion: model.RVString(c.RV),
			Generation: ds.Generation, CreationTimestamp: metav1.NewTime(ds.CreateTime), Labels: maps.Clone(ds.Labels),
			Annotations: maps.Clone(ds.Annotations)},
		Spec:   *ds.Spec.DeepCopy(),
		Status: st,
	}
}

// listClusterDaemonSets lists an imported cluster's DaemonSets (not the static pods' stand-ins).
func (w *Workloads) listClusterDaemonSets(c *model.Cluster, o model.ListOptions) []appsv1.DaemonSet {
	var out []appsv1.DaemonSet
	for _, key := range model.SortedKeys(c.DaemonSets) {
		ds := c.DaemonSets[key]
		if !ds.Static && o.Matches(ds.Namespace, ds.Labels) {
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
