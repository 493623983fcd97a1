package gke

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// initKubernetes creates the namespaces and kube-system Deployments of a new cluster.
func (w *GKE) initKubernetes(c *model.Cluster) {
	for _, ns := range catalog.SystemNamespaces {
		n := &model.Namespace{Name: ns, UID: model.UIDOf(c.ID, "ns", ns), CreateTime: w.st.Now, Labels: map[string]string{"kubernetes.io/metadata.name": ns}}
		c.Namespaces[ns] = n
		w.core.TouchObject(c, n, true)
		w.kubeapi.CreateDefaultServiceAccount(c, ns)
	}
	w.loadbalancers.InitSystemServices(c)
	if c.Autopilot {
		return
	}
	w.core.MarkDaemonSets(c) // the DaemonSets' first status
	for _, sd := range catalog.SystemDeployments {
		replicas := sd.Replicas
		lbls := map[string]string{"k8s-app": sd.Name}
		d := &model.Deployment{
			Namespace: "kube-system", Name: sd.Name, UID: model.UIDOf(c.ID, "deploy", sd.Name), Labels: lbls,
			Spec: appsv1.DeploymentSpec{
				Replicas: &replicas,
				Selector: &metav1.LabelSelector{MatchLabels: lbls},
			},
			Generation: 1, CreateTime: w.st.Now, System: true,
		}
		c.Deployments[d.Key()] = d
		w.core.TouchObject(c, d, true)
		w.workloads.RollOut(c, d, corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: lbls}, Spec: sd.Spec})
		w.workloads.QueueSync(c, d.Key())
	}
}
