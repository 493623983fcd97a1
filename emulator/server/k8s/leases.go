package k8s

import (
	"fmt"

	"github.com/labstack/echo/v4"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Node leases (kube-node-lease), read-only: the kubelet's heartbeat, which kubectl describe
// node shows under "Lease". Each registered node holds one, renewed at its last heartbeat.

func (s *Server) k8sLeaseRoutes(g *echo.Group) {
	list := s.k8sList("leases", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
		out := &coordinationv1.LeaseList{TypeMeta: metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "LeaseList"},
			ListMeta: metav1.ListMeta{ResourceVersion: fmt.Sprint(cl.RV)}, Items: []coordinationv1.Lease{}}
		if o.Namespace != "" && o.Namespace != corev1.NamespaceNodeLease {
			return out
		}
		nodes := w.K8sNodes(cl)
		for i := range nodes {
			out.Items = append(out.Items, *nodeLease(&nodes[i]))
		}
		return out
	})
	g.GET("/apis/coordination.k8s.io/v1/leases", list)
	g.GET("/apis/coordination.k8s.io/v1/namespaces/:ns/leases", list)
	g.GET("/apis/coordination.k8s.io/v1/namespaces/:ns/leases/:name", s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		if c.Param("ns") != corev1.NamespaceNodeLease {
			return nil, k8sNotFound("leases.coordination.k8s.io", c.Param("name"))
		}
		n, err := w.GetK8sNode(cl, c.Param("name"))
		if err != nil {
			return nil, k8sNotFound("leases.coordination.k8s.io", c.Param("name"))
		}
		return nodeLease(n), nil
	}))
}

func nodeLease(n *corev1.Node) *coordinationv1.Lease {
	renew := metav1.NewMicroTime(n.CreationTimestamp.Time)
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			renew = metav1.NewMicroTime(c.LastHeartbeatTime.Time)
		}
	}
	holder, duration := n.Name, int32(40)
	truth := true
	return &coordinationv1.Lease{
		TypeMeta: metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Namespace: corev1.NamespaceNodeLease, UID: n.UID + "-lease",
			ResourceVersion: n.ResourceVersion, CreationTimestamp: n.CreationTimestamp,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: n.Name, UID: n.UID, Controller: &truth}}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &duration, RenewTime: &renew},
	}
}
