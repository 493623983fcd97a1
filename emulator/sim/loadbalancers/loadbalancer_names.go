package loadbalancers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
)

// The names GKE gives a load balancer's Compute Engine resources, the annotations that name
// them on the Service, and their paths under the project.

// lbNames are the Compute Engine resources of a load balancer, named as GKE names them:
// ingress-gce's k8s2-{cluster uid}-{namespace}-{name}-{hash} for NEG ILBs and RBS NetLBs, the
// cloud provider's a{service uid} and k8s-{cluster id}-... for the others.
type lbNames struct {
	forwardingRules map[corev1.Protocol]string
	BackendService  string
	targetPool      string
	neg             string
	InstanceGroup   string
	healthCheck     string
	hcCollection    string // healthChecks or httpHealthChecks
	hcRegional      bool
	hcShared        bool
	firewall        string
	hcFirewall      string
}

func contentHash(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:n]
}

// clusterUIDs are the short cluster ids in GKE's resource names: ingress-gce's 8-character
// hash and the cloud provider's 16-character cluster id, both of the kube-system namespace.
func clusterUIDs(c *model.Cluster) (v2, legacy string) {
	uid := model.UidOf(c.ID, "ns", "kube-system")
	return contentHash(uid, 8), contentHash("cluster-id/"+uid, 16)
}

// trimEvenly shortens namespace and name, the longer first, until together they fit max.
func trimEvenly(max int, ns, name string) (string, string) {
	for len(ns)+len(name) > max {
		if len(ns) >= len(name) {
			ns = ns[:len(ns)-1]
		} else {
			name = name[:len(name)-1]
		}
	}
	return ns, name
}

func (w *LoadBalancers) LbNamesOf(c *model.Cluster, s *model.Service) lbNames {
	lb := s.LB
	v2, legacy := clusterUIDs(c)
	out := lbNames{forwardingRules: map[corev1.Protocol]string{}, hcShared: !s.Local()}
	protos := lbProtocols(&s.Spec)
	if gkeL4Controller(lb.Kind) {
		suffix := contentHash(v2+";"+s.Namespace+";"+s.Name, 8)
		ns, name := trimEvenly(39, s.Namespace, s.Name)
		backend := strings.Join([]string{"k8s2", v2, ns, name, suffix}, "-")
		for _, p := range protos {
			pl := strings.ToLower(string(p))
			ns, name := trimEvenly(39-len(pl)-1, s.Namespace, s.Name)
			out.forwardingRules[p] = strings.Join([]string{"k8s2", pl, v2, ns, name, suffix}, "-")
		}
		out.BackendService, out.firewall = backend, backend
		out.hcCollection, out.hcRegional = "healthChecks", lb.Kind == LBExternalRBS
		if out.hcShared {
			out.healthCheck, out.hcFirewall = "k8s2-"+v2+"-l4-shared-hc", "k8s2-"+v2+"-l4-shared-hc-fw"
		} else {
			out.healthCheck, out.hcFirewall = backend, backend+"-fw"
		}
		if lb.Kind == LBInternalNEG {
			out.neg = backend
		} else {
			out.InstanceGroup = GkeInstanceGroupName(c)
		}
		return out
	}
	name := "a" + strings.ReplaceAll(s.UID, "-", "")
	if len(name) > 32 {
		name = name[:32]
	}
	for _, p := range protos {
		out.forwardingRules[p] = name
	}
	out.firewall = "k8s-fw-" + name
	if out.hcShared {
		out.healthCheck, out.hcFirewall = "k8s-"+legacy+"-node", "k8s-"+legacy+"-node-http-hc"
	} else {
		out.healthCheck, out.hcFirewall = name, "k8s-"+name+"-http-hc"
	}
	if lb.Kind == LBInternalIG {
		out.BackendService, out.InstanceGroup, out.hcCollection = name, GkeInstanceGroupName(c), "healthChecks"
	} else {
		out.targetPool, out.hcCollection = name, "httpHealthChecks"
	}
	return out
}

// lbProtocols lists a Service's protocols in order of first use.
func lbProtocols(sp *corev1.ServiceSpec) []corev1.Protocol {
	var out []corev1.Protocol
	for _, p := range sp.Ports {
		if !containsProto(out, p.Protocol) {
			out = append(out, p.Protocol)
		}
	}
	return out
}

func containsProto(list []corev1.Protocol, p corev1.Protocol) bool {
	for _, x := range list {
		if x == p {
			return true
		}
	}
	return false
}

// serviceAnnotations are a Service's annotations as GKE leaves them: the user's, plus, once
// ingress-gce's L4 controllers have built the load balancer, those naming its resources.
func (w *LoadBalancers) serviceAnnotations(c *model.Cluster, s *model.Service) map[string]string {
	lb := s.LB
	if lb == nil || lb.State != LbReady || !gkeL4Controller(lb.Kind) {
		return maps.Clone(s.Annotations)
	}
	out := map[string]string{}
	for k, v := range s.Annotations {
		out[k] = v
	}
	n := w.LbNamesOf(c, s)
	out[AnnotationBackendService] = n.BackendService
	out[AnnotationFirewallRule] = n.firewall
	out[AnnotationFirewallRuleForHC] = n.hcFirewall
	out[AnnotationHealthcheck] = n.healthCheck
	if fr, ok := n.forwardingRules[corev1.ProtocolTCP]; ok {
		out[AnnotationTCPForwardingRule] = fr
	}
	if fr, ok := n.forwardingRules[corev1.ProtocolUDP]; ok {
		out[AnnotationUDPForwardingRule] = fr
	}
	if lb.Kind == LBInternalNEG {
		b, _ := json.Marshal(map[string]any{"network_endpoint_groups": map[string]string{"0": n.neg}, "zones": c.Locations})
		out[AnnotationNEGStatus] = string(b)
	}
	return out
}

// lbResourcePaths lists a load balancer's Compute Engine resources as paths under the project.
func (w *LoadBalancers) lbResourcePaths(c *model.Cluster, s *model.Service) []string {
	n := w.LbNamesOf(c, s)
	region := RegionOf(c)
	var out []string
	for _, p := range lbProtocols(&s.Spec) {
		out = append(out, "regions/"+region+"/forwardingRules/"+n.forwardingRules[p])
	}
	if n.BackendService != "" {
		out = append(out, "regions/"+region+"/backendServices/"+n.BackendService)
	}
	if n.targetPool != "" {
		out = append(out, "regions/"+region+"/targetPools/"+n.targetPool)
	}
	for _, z := range c.Locations {
		if n.neg != "" {
			out = append(out, "zones/"+z+"/networkEndpointGroups/"+n.neg)
		}
		if n.InstanceGroup != "" {
			out = append(out, "zones/"+z+"/instanceGroups/"+n.InstanceGroup)
		}
	}
	if n.hcRegional {
		out = append(out, "regions/"+region+"/"+n.hcCollection+"/"+n.healthCheck)
	} else {
		out = append(out, "global/"+n.hcCollection+"/"+n.healthCheck)
	}
	return append(out, "global/firewalls/"+n.firewall, "global/firewalls/"+n.hcFirewall)
}

func RegionOf(c *model.Cluster) string {
	if l, ok := catalog.ParseLocation(c.Location); ok {
		return l.Region
	}
	return c.Location
}
