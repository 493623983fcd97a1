package kubeapi

import (
	"fmt"
	"strconv"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
)

// Extended run duration pods (R-EXT-1..3): a pod annotated
// cluster-autoscaler.kubernetes.io/safe-to-evict: "false". On Autopilot GKE leaves it alone for
// at least 7 days (scale-down and node auto-upgrade wait, see autoscaler/scaledown.go and core/drain.go); Spot
// pods cannot have it, it does not go with inter-pod affinity, and a cluster runs at most 50
// distinct extended workloads (told apart by their CPU request). On Standard the annotation
// blocks scale-down for ever but does not hold back node upgrades (R-EXT-2).

const maxExtendedWorkloads = 50

// checkExtended applies R-EXT-1's rules to a pod spec about to be admitted on an Autopilot
// cluster; self is the workload's own key, not counted against the limit.
func (w *API) checkExtended(c *model.Cluster, kind, name string, spec *corev1.PodSpec, annotations map[string]string, self string) error {
	if !c.Autopilot || annotations[core.SafeToEvictAnnotation] != "false" {
		return nil
	}
	if spec.NodeSelector["cloud.google.com/gke-spot"] == "true" {
		return model.KubeInvalid(kind, name, fmt.Sprintf("metadata.annotations[%s]: Invalid value: \"false\": Spot Pods cannot use extended run duration on Autopilot (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/extended-run-duration#r-ext-1)", core.SafeToEvictAnnotation))
	}
	if a := spec.Affinity; a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
		return model.KubeInvalid(kind, name, "spec.affinity: Invalid value: extended run duration Pods cannot use inter-pod affinity or anti-affinity on Autopilot (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/extended-run-duration#r-ext-1)")
	}
	cpus := map[int64]bool{core.EffectiveRequests(spec).MilliCPU: true}
	for key, d := range c.Deployments {
		if key != self && d.Spec.Template.Annotations[core.SafeToEvictAnnotation] == "false" {
			cpus[core.EffectiveRequests(&d.Spec.Template.Spec).MilliCPU] = true
		}
	}
	for key, p := range c.Pods {
		if key != self && p.OwnerKind == 0 && p.Annotation[core.SafeToEvictAnnotation] == "false" {
			cpus[p.Req.MilliCPU] = true
		}
	}
	if len(cpus) > maxExtendedWorkloads {
		return model.KubeInvalid(kind, name, "metadata.annotations["+core.SafeToEvictAnnotation+"]: Forbidden: the cluster would run "+
			strconv.Itoa(len(cpus))+" distinct extended run duration workloads; Autopilot allows "+strconv.Itoa(maxExtendedWorkloads)+" (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/extended-run-duration#r-ext-1)")
	}
	return nil
}
