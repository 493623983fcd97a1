package loadbalancers

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
)

// The names GKE gives a load balancer's Compute Engine resources, the annotations that name
// them on the Service, and their paths under the project.

// LBNames are the Compute Engine resources of a load balancer, named as GKE names them:
// ingress-gce's k8s2-{cluster uid}-{namespace}-{name}-{hash} for NEG ILBs and RBS NetLBs, the
// cloud provider's a{service uid} and k8s-{cluster id}-... for the others.
type LBNames struct {
	ForwardingRules map[corev1.Protocol]string
	BackendService  string
	TargetPool      string
	NEG             string
	InstanceGroup   string
	HealthCheck     string
	HCCollection    string // healthChecks or httpHealthChecks
	HCRegional      bool
	HCShared        bool
	Firewall        string
	HCFirewall      string
}

func ContentHash(s string, n int) string {
	return model.Digest([]byte(s), n)
}

// clusterUIDs are the short cluster ids in GKE's resource names: ingress-gce's 8-character
// hash and the cloud provider's 16-character cluster id, both of the kube-system namespace.
func clusterUIDs(c *model.Cluster) (v2, legacy string) {
	uid := model.UIDOf(c.ID, "ns", "kube-system")
	return ContentHash(uid, 8), ContentHash("cluster-id/"+uid, 16)
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

func (w *LoadBalancers) LBNamesOf(c *model.Cluster, s *model.Service) LBNames {
	lb := s.LB
	v2, legacy := clusterUIDs(c)
	out := LBNames{ForwardingRules: map[corev1.Protocol]string{}, HCShared: !s.Local()}
	protos := LBProtocols(&s.Spec)
	if GKEL4Controller(lb.Kind) {
		suffix := ContentHash(v2+";"+s.Namespace+";"+s.Name, 8)
		ns, name := trimEvenly(39, s.Namespace, s.Name)
		backend := strings.Join([]string{"k8s2", v2, ns, name, suffix}, "-")
		for _, p := range protos {
			pl := strings.ToLower(string(p))
			ns, name := trimEvenly(39-len(pl)-1, s.Namespace, s.Name)
			out.ForwardingRules[p] = strings.Join([]string{"k8s2", pl, v2, ns, name, suffix}, "-")
		}
		out.BackendService, out.Firewall = backend, backend
		out.HCCollection, out.HCRegional = "healthChecks", lb.Kind == LBExternalRBS
		if out.HCShared {
			out.HealthCheck, out.HCFirewall = "k8s2-"+v2+"-l4-shared-hc", "k8s2-"+v2+"-l4-shared-hc-fw"
		} else {
			out.HealthCheck, out.HCFirewall = backend, backend+"-fw"
		}
		if lb.Kind == LBInternalNEG {
			out.NEG = backend
		} else {
			out.InstanceGroup = GKEInstanceGroupName(c)
		}
		return out
	}
	name := "a" + strings.ReplaceAll(s.UID, "-", "")
	if len(name) > 32 {
		name = name[:32]
	}
	for _, p := range protos {
		out.ForwardingRules[p] = name
	}
	out.Firewall = "k8s-fw-" + name
	if out.HCShared {
		out.HealthCheck, out.HCFirewall = "k8s-"+legacy+"-node", "k8s-"+legacy+"-node-http-hc"
	} else {
		out.HealthCheck, out.HCFirewall = name, "k8s-"+name+"-http-hc"
	}
	if lb.Kind == LBInternalIG {
		out.BackendService, out.InstanceGroup, out.HCCollection = name, GKEInstanceGroupName(c), "healthChecks"
	} else {
		out.TargetPool, out.HCCollection = name, "httpHealthChecks"
	}
	return out
}

// LBProtocols lists a Service's protocols in order of first use.
func LBProtocols(sp *corev1.ServiceSpec) []corev1.Protocol {
	var out []corev1.Protocol
	for _, p := range sp.Ports {
		if !slices.Contains(out, p.Protocol) {
			out = append(out, p.Protocol)
		}
	}
	return out
}

// serviceAnnotations are a Service's annotations as GKE leaves them: the user's, plus, once
// ingress-gce's L4 controllers have built the load balancer, those naming its resources.
func (w *LoadBalancers) serviceAnnotations(c *model.Cluster, s *model.Service) map[string]string {
	lb := s.LB
	if lb == nil || lb.State != LBReady || !GKEL4Controller(lb.Kind) {
		return maps.Clone(s.Annotations)
	}
	out := map[string]string{}
	for k, v := range s.Annotations {
		out[k] = v
	}
	n := w.LBNamesOf(c, s)
	out[AnnotationBackendService] = n.BackendService
	out[AnnotationFirewallRule] = n.Firewall
	out[AnnotationFirewallRuleForHC] = n.HCFirewall
	out[AnnotationHealthcheck] = n.HealthCheck
	if fr, ok := n.ForwardingRules[corev1.ProtocolTCP]; ok {
		out[AnnotationTCPForwardingRule] = fr
	}
	if fr, ok := n.ForwardingRules[corev1.ProtocolUDP]; ok {
		out[AnnotationUDPForwardingRule] = fr
	}
	if lb.Kind == LBInternalNEG {
		b, _ := json.Marshal(map[string]any{"network_endpoint_groups": map[string]string{"0": n.NEG}, "zones": c.Locations})
		out[AnnotationNEGStatus] = string(b)
	}
	return out
}

// lbResourcePaths lists a load balancer's Compute Engine resources as paths under the project.
func (w *LoadBalancers) lbResourcePaths(c *model.Cluster, s *model.Service) []string {
	n := w.LBNamesOf(c, s)
	region := RegionOf(c)
	var out []string
	for _, p := range LBProtocols(&s.Spec) {
		out = append(out, "regions/"+region+"/forwardingRules/"+n.ForwardingRules[p])
	}
	if n.BackendService != "" {
		out = append(out, "regions/"+region+"/backendServices/"+n.BackendService)
	}
	if n.TargetPool != "" {
		out = append(out, "regions/"+region+"/targetPools/"+n.TargetPool)
	}
	for _, z := range c.Locations {
		if n.NEG != "" {
			out = append(out, "zones/"+z+"/networkEndpointGroups/"+n.NEG)
		}
		if n.InstanceGroup != "" {
			out = append(out, "zones/"+z+"/instanceGroups/"+n.InstanceGroup)
		}
	}
	if n.HCRegional {
		out = append(out, "regions/"+region+"/"+n.HCCollection+"/"+n.HealthCheck)
	} else {
		out = append(out, "global/"+n.HCCollection+"/"+n.HealthCheck)
	}
	return append(out, "global/firewalls/"+n.Firewall, "global/firewalls/"+n.HCFirewall)
}

func RegionOf(c *model.Cluster) string {
	if l, ok := catalog.ParseLocation(c.Location); ok {
		return l.Region
	}
	return c.Location
}
