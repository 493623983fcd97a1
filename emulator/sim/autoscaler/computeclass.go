package autoscaler

import (
	"fmt"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
)

// Compute classes as the autoscaler reads them (R-CA-11; what a class is: core/computeclass.go):
// the order in which it grows a class's pools and why a class forbids growing a pool.

// ClassRank is where pool p stands for the autoscaler under its compute class: the index of
// the first priority rule it matches (lower first), and "" — or why the class forbids growing it.
// Pools of no class, or of a class the cluster does not have, rank 0.
func (w *Autoscaler) ClassRank(c *model.Cluster, p *model.NodePool) (int, string) {
	name := p.Labels[core.ComputeClassLabel]
	if name == "" {
		return 0, ""
	}
	cc := c.ComputeClass(name)
	if cc == nil {
		return 0, ""
	}
	for i, r := range cc.Priorities {
		if r.Matches(p) {
			return i, ""
		}
	}
	if cc.WhenUnsatisfiable == core.WhenUnsatisfiableScaleUp {
		return len(cc.Priorities), ""
	}
	return 0, fmt.Sprintf("no priority rule of ComputeClass %s matches it (%s) and whenUnsatisfiable is DoNotScaleUp (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/cluster-autoscaler#r-ca-11)", name, p.Spec.MachineType)
}

// ClassRefuses says why the compute class of pool p forbids growing it for a pod of this spec.
func (w *Autoscaler) ClassRefuses(c *model.Cluster, p *model.NodePool, spec *corev1.PodSpec) string {
	if spec.NodeSelector[core.ComputeClassLabel] == "" {
		return ""
	}
	_, why := w.ClassRank(c, p)
	return why
}
