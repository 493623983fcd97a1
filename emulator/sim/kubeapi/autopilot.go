package kubeapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Autopilot's resource requests (R-SCHED-5, R-EXT-4). Autopilot bills and sizes nodes by the
// requests of the pods it admits, so its admission rewrites them: a container that asks for
// nothing gets the class's defaults, a pod below the class's minimum or outside its ratio of
// memory to CPU is raised to them (never lowered), and a pod above the maximum is refused.
// Extended-duration pods (safe-to-evict: "false") have a higher minimum. The rewrite shows in the
// object (its requests, and the autopilot.gke.io/resource-adjustment annotation saying what came
// in and what was stored) and as a warning to the client, in GKE's words.

// AdjustmentAnnotation records an Autopilot rewrite of an object's requests: the containers'
// requests and limits as sent ("input") and as stored ("output").
const AdjustmentAnnotation = "autopilot.gke.io/resource-adjustment"

// ComputeClassSelector is the node selector a pod picks its Autopilot compute class with.
const ComputeClassSelector = "cloud.google.com/compute-class"

const (
	mi = int64(1) << 20
	gi = int64(1) << 30
)

// requestRules are one compute class's rules for the requests of a pod (CPU in millicores,
// memory and ephemeral storage in bytes; the ratio in bytes of memory per vCPU).
type requestRules struct {
	class                          string
	defCPU, defMemory, defStorage  int64 // given to a container that requests nothing
	minCPU, minMemory, minStorage  int64 // per pod
	minMemPerCPU, maxMemPerCPU     int64
	maxCPU, maxMemory              int64 // per pod
	extendedMinCPU, extendedMinMem int64 // per extended-duration pod
	// cpuStep is the increment a pod's CPU request is rounded up to (1: none).
	cpuStep int64
}

// autopilotClasses are the compute classes' rules, from GKE's "Resource requests in Autopilot";
// a class not named here (a custom ComputeClass) follows general-purpose's. Autopilot rounded
// every pod's CPU up to a multiple of 250m until Pod bursting (GKE 1.29 and later) let
// general-purpose pods ask for as little as 50m in any amount (rulesFor); the Balanced and
// Scale-Out classes keep their 250m minimum and steps.
var autopilotClasses = map[string]requestRules{
	"general-purpose": {class: "general-purpose", defCPU: 500, defMemory: 2 * gi, defStorage: gi,
		minCPU: 50, minMemory: 52 * mi, minStorage: 10 * mi, minMemPerCPU: gi, maxMemPerCPU: 13 * gi / 2,
		maxCPU: 30000, maxMemory: 110 * gi, extendedMinCPU: 500, extendedMinMem: 512 * mi, cpuStep: 1},
	"Balanced": {class: "Balanced", defCPU: 500, defMemory: 2 * gi, defStorage: gi,
		minCPU: 250, minMemory: 512 * mi, minStorage: 10 * mi, minMemPerCPU: gi, maxMemPerCPU: 8 * gi,
		maxCPU: 222000, maxMemory: 851 * gi, extendedMinCPU: 500, extendedMinMem: 512 * mi, cpuStep: 250},
	"Scale-Out": {class: "Scale-Out", defCPU: 500, defMemory: 2 * gi, defStorage: gi,
		minCPU: 250, minMemory: gi, minStorage: 10 * mi, minMemPerCPU: 4 * gi, maxMemPerCPU: 4 * gi,
		maxCPU: 54000, maxMemory: 216 * gi, extendedMinCPU: 500, extendedMinMem: 2 * gi, cpuStep: 250},
}

// rulesFor are the rules for a pod spec on cluster c: its compute class's, and before Pod
// bursting (a control plane older than 1.29) general-purpose's 250m minimum, steps and 512 MiB.
func rulesFor(c *model.Cluster, spec *corev1.PodSpec) requestRules {
	if r, ok := autopilotClasses[spec.NodeSelector[ComputeClassSelector]]; ok {
		return r
	}
	r := autopilotClasses["general-purpose"]
	if v, ok := catalog.ParseVersion(c.MasterVersion); ok && v.Minor < burstingMinor {
		r.minCPU, r.minMemory, r.cpuStep = 250, 512*mi, 250
	}
	return r
}

// burstingMinor is the first minor with Pod bursting on Autopilot.
const burstingMinor = 29

// adjustment is the value of AdjustmentAnnotation, field for field as GKE writes it.
type adjustment struct {
	Input    adjustedPod `json:"input"`
	Output   adjustedPod `json:"output"`
	Modified bool        `json:"modified"`
}

type adjustedPod struct {
	Containers []adjustedContainer `json:"containers"`
}

type adjustedContainer struct {
	Limits   map[corev1.ResourceName]string `json:"limits,omitempty"`
	Requests map[corev1.ResourceName]string `json:"requests,omitempty"`
	Name     string                         `json:"name"`
}

func containersOf(spec *corev1.PodSpec) adjustedPod {
	out := adjustedPod{Containers: make([]adjustedContainer, len(spec.Containers))}
	for i, ct := range spec.Containers {
		out.Containers[i] = adjustedContainer{Limits: quantities(ct.Resources.Limits), Requests: quantities(ct.Resources.Requests), Name: ct.Name}
	}
	return out
}

func quantities(l corev1.ResourceList) map[corev1.ResourceName]string {
	if len(l) == 0 {
		return nil
	}
	out := make(map[corev1.ResourceName]string, len(l))
	for k, q := range l {
		out[k] = q.String()
	}
	return out
}

// autopilotAdmit applies Autopilot's request rules to the pod spec of an object being created or
// replaced on an Autopilot cluster, and returns the object's annotations with the adjustment
// recorded. kind and key name the object in the warning and the event log.
//
// The warnings and the event log's entry belong to the object once it is stored: the caller
// calls the returned function then (a later check may still refuse the request).
func (w *API) autopilotAdmit(c *model.Cluster, kind, key string, spec *corev1.PodSpec, podAnnotations, annotations map[string]string) (map[string]string, func(), error) {
	if !c.Autopilot || len(spec.Containers) == 0 {
		return annotations, func() {}, nil
	}
	in := containersOf(spec)
	askedCPU, askedMem := podTotal(spec, corev1.ResourceCPU), podTotal(spec, corev1.ResourceMemory)
	r := rulesFor(c, spec)
	// defaulted: which resources were defaulted ("" for all three) -> containers.
	defaulted := map[string][]string{}
	for i := range spec.Containers {
		res := &spec.Containers[i].Resources
		var set []corev1.ResourceName
		for _, def := range []struct {
			name corev1.ResourceName
			q    *resource.Quantity
		}{
			{corev1.ResourceCPU, resource.NewMilliQuantity(r.defCPU, resource.DecimalSI)},
			{corev1.ResourceMemory, resource.NewQuantity(r.defMemory, resource.BinarySI)},
			{corev1.ResourceEphemeralStorage, resource.NewQuantity(r.defStorage, resource.BinarySI)},
		} {
			if _, ok := res.Requests[def.name]; ok {
				continue
			}
			if res.Requests == nil {
				res.Requests = corev1.ResourceList{}
			}
			if lim, ok := res.Limits[def.name]; ok { // requests default to limits
				res.Requests[def.name] = lim.DeepCopy()
				continue
			}
			res.Requests[def.name] = *def.q
			set = append(set, def.name)
		}
		switch len(set) {
		case 0:
		case 3:
			defaulted[""] = append(defaulted[""], spec.Containers[i].Name)
		default:
			for _, name := range set {
				defaulted[string(name)] = append(defaulted[string(name)], spec.Containers[i].Name)
			}
		}
	}
	minCPU, minMem := r.minCPU, r.minMemory
	extended := podAnnotations[core.SafeToEvictAnnotation] == "false"
	if extended {
		minCPU, minMem = max(minCPU, r.extendedMinCPU), max(minMem, r.extendedMinMem)
	}
	cpu, mem, storage := podTotal(spec, corev1.ResourceCPU), podTotal(spec, corev1.ResourceMemory), podTotal(spec, corev1.ResourceEphemeralStorage)
	wantCPU, wantMem := max(cpu, minCPU), max(mem, minMem)
	// The ratio raises the smaller side: memory up to its minimum per vCPU, or CPU up to
	// what the memory needs at the most memory per vCPU (rounded up to a millicore).
	wantCPU = ceilDiv(wantCPU, r.cpuStep) * r.cpuStep
	wantMem = max(wantMem, ceilMiB(ceilDiv(wantCPU*r.minMemPerCPU, 1000)))
	wantCPU = ceilDiv(max(wantCPU, ceilDiv(wantMem*1000, r.maxMemPerCPU)), r.cpuStep) * r.cpuStep
	// A CPU raised for the ratio may need more memory for the ratio's other side: once more.
	wantMem = max(wantMem, ceilMiB(ceilDiv(wantCPU*r.minMemPerCPU, 1000)))
	adjusted := wantCPU != cpu || wantMem != mem || storage < r.minStorage
	first := &spec.Containers[0].Resources
	addTo(first, corev1.ResourceCPU, resource.NewMilliQuantity(wantCPU-cpu, resource.DecimalSI))
	addTo(first, corev1.ResourceMemory, resource.NewQuantity(wantMem-mem, resource.BinarySI))
	addTo(first, corev1.ResourceEphemeralStorage, resource.NewQuantity(max(r.minStorage-storage, 0), resource.BinarySI))
	for i := range spec.Containers { // a limit below the request would be invalid: it rises with it
		res := &spec.Containers[i].Resources
		for name, req := range res.Requests {
			if lim, ok := res.Limits[name]; ok && lim.Cmp(req) < 0 {
				res.Limits[name] = req.DeepCopy()
			}
		}
	}
	if wantCPU > r.maxCPU || wantMem > r.maxMemory {
		return nil, nil, model.KubeError(http.StatusForbidden, "Forbidden",
			"admission webhook \"warden-validating.common-webhooks.networking.gke.io\" denied the request: GKE Warden rejected the request because it violates one or more constraints: "+
				"%s %s requests %dm CPU and %s memory; Autopilot's %s compute class allows at most %dm CPU and %s memory per Pod (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/scheduling#r-sched-5)",
			kind, key, wantCPU, resource.NewQuantity(wantMem, resource.BinarySI), r.class, r.maxCPU, resource.NewQuantity(r.maxMemory, resource.BinarySI))
	}
	out := containersOf(spec)
	annotations = maps.Clone(annotations)
	if len(defaulted) == 0 && !adjusted {
		// Nothing to change: an earlier adjustment stays recorded while it still describes
		// the requests (a client sending back what it read), and goes when they changed.
		var prior adjustment
		if json.Unmarshal([]byte(annotations[AdjustmentAnnotation]), &prior) != nil || !model.EqualJSON(prior.Output, out) {
			delete(annotations, AdjustmentAnnotation)
		}
		return annotations, func() {}, nil
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	b, _ := json.Marshal(adjustment{Input: in, Output: out, Modified: true})
	annotations[AdjustmentAnnotation] = string(b)
	prefix := "autopilot-default-resources-mutator:Autopilot updated " + kind + " " + key + ": "
	var why, warnings []string
	for _, res := range []string{"", string(corev1.ResourceCPU), string(corev1.ResourceMemory), string(corev1.ResourceEphemeralStorage)} {
		if names := defaulted[res]; len(names) > 0 {
			what := "resources"
			if res != "" {
				what = "'" + res + "' resource"
			}
			warnings = append(warnings, fmt.Sprintf("%sdefaulted unspecified %s for containers [%s] (see http://g.co/gke/autopilot-defaults)", prefix, what, strings.Join(names, ", ")))
			why = append(why, "defaulted unspecified "+what+" of containers ["+strings.Join(names, ", ")+"]")
		}
	}
	if adjusted {
		warnings = append(warnings, fmt.Sprintf("%sadjusted resources to meet requirements for containers [%s] (see http://g.co/gke/autopilot-resources)", prefix, spec.Containers[0].Name))
		if extended {
			why = append(why, "raised to "+r.class+"'s minimums for extended-duration Pods (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/extended-run-duration#r-ext-4)")
		} else {
			why = append(why, "raised to "+r.class+"'s minimums and ratio (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/scheduling#r-sched-5)")
		}
	}
	return annotations, func() {
		w.warnings = append(w.warnings, warnings...)
		w.engine.Record("AutopilotResourcesAdjusted", c, "", "", "", "%s %s: Autopilot set its requests to %dm CPU, %dMi memory (asked %dm, %dMi): %s",
			kind, key, wantCPU, wantMem>>20, askedCPU, askedMem>>20, strings.Join(why, "; "))
	}, nil
}

// podTotal is what a pod's containers request of one resource together.
func podTotal(spec *corev1.PodSpec, name corev1.ResourceName) int64 {
	var sum int64
	for _, ct := range spec.Containers {
		if q, ok := ct.Resources.Requests[name]; ok {
			if name == corev1.ResourceCPU {
				sum += q.MilliValue()
			} else {
				sum += q.Value()
			}
		}
	}
	return sum
}

// addTo adds q to a container's request of one resource (nothing when q is zero).
func addTo(res *corev1.ResourceRequirements, name corev1.ResourceName, q *resource.Quantity) {
	if q.Sign() <= 0 {
		return
	}
	cur := res.Requests[name]
	cur.Add(*q)
	res.Requests[name] = cur
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

func ceilMiB(b int64) int64 { return ceilDiv(b, mi) * mi }

// TakeWarnings returns the warnings admission gave the last request (Autopilot's rewrites of
// requests), for the server to send as Warning headers, and forgets them.
func (w *API) TakeWarnings() []string {
	out := w.warnings
	w.warnings = nil
	return out
}
