package core

import (
	"encoding/binary"
	"net/netip"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What the core adds to the Kubernetes rendering (package kuberender): a pod's snapshot with
// what comes from around it, pod addresses, and generated names.

// EvDeploymentSync is the event of one Deployment controller pass (package workloads); the
// pod index keeps which passes are queued.
const EvDeploymentSync = "deployment.sync"

// PodSnapshot is pod p as it is now, with what its rendering needs from around it.
func (w *Core) PodSnapshot(c *model.Cluster, p *model.Pod) *kuberender.PodSnap {
	s := &kuberender.PodSnap{}
	w.snapPod(s, c, p)
	return s
}

// snapPod makes s the snapshot of p as it is now.
func (w *Core) snapPod(s *kuberender.PodSnap, c *model.Cluster, p *model.Pod) {
	s.Take(p, w.PodSpec(c, p), c.ID)
	s.OwnerGen, s.OwnerRefs, s.OwnerOK = w.podOwner(c, p)
	if n := c.Nodes[p.Node]; n != nil {
		s.HostIP = n.InternalIP
	}
}

// allocatePodIP gives a pod the next address of the cluster's pod range.
func (w *Core) allocatePodIP(c *model.Cluster) model.IP {
	cidr, err := netip.ParsePrefix(c.ClusterIPv4CIDR)
	if err != nil || !cidr.Addr().Is4() {
		return 0
	}
	c.NextPodIP++
	base := cidr.Masked().Addr().As4()
	return model.IP(binary.BigEndian.Uint32(base[:]) + c.NextPodIP)
}

// GenerateName gives an object that asks for one (metadata.generateName) its name, as the API
// server does before validating: the prefix and five random characters.
func (w *Core) GenerateName(meta *metav1.ObjectMeta) {
	if meta.Name != "" || meta.GenerateName == "" {
		return
	}
	const alphabet = "bcdfghjklmnpqrstvwxz2456789" // the API server's: no vowels, no look-alikes
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[w.engine.Rng.IntN(len(alphabet))]
	}
	meta.Name = meta.GenerateName + string(b)
}
