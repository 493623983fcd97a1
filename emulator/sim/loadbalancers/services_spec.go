package loadbalancers

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
)

// What the API server does to a Service's spec: defaulting, validation, and allocation of the
// clusterIP, nodePorts and healthCheckNodePort (services.go).

// ---- allocation ----

func ipToUint(ip net.IP) uint32 { return binary.BigEndian.Uint32(ip.To4()) }

func UintToIP(v uint32) string {
	ip := make(net.IP, 4)
	binary.BigEndian.PutUint32(ip, v)
	return ip.String()
}

// HashOf is a stable 64-bit hash of the seed and parts: allocations that do not depend on the
// order of requests, stable per object for a seed.
func (w *LoadBalancers) HashOf(parts ...string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strconv.FormatUint(w.st.Seed, 10)))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return h.Sum64()
}

// Fixed addresses GKE gives in every services range.
const (
	kubernetesServiceOffset = 1
	kubeDNSServiceOffset    = 10
)

// allocateClusterIP gives key an address of the services range: want if given (it must be in
// the range and free), else a free one from a hash of the Service.
func (w *LoadBalancers) allocateClusterIP(c *model.Cluster, key, want string) (string, string) {
	ix := w.ServiceIndex(c)
	_, cidr, err := net.ParseCIDR(c.ServicesIPv4CIDR)
	if err != nil {
		return "", fmt.Sprintf("spec.clusterIPs: Invalid value: %q: the cluster has no services range", want)
	}
	ones, bits := cidr.Mask.Size()
	base, size := ipToUint(cidr.IP), uint32(1)<<(bits-ones)
	if want != "" {
		ip := net.ParseIP(want)
		if ip == nil || ip.To4() == nil || !cidr.Contains(ip) {
			return "", fmt.Sprintf("spec.clusterIPs: Invalid value: []string{%q}: failed to allocate IP %s: the provided IP (%s) is not in the valid range. The range of valid IPs is %s",
				want, want, want, c.ServicesIPv4CIDR)
		}
		if other, taken := ix.ClusterIPs[want]; taken && other != key {
			return "", fmt.Sprintf("spec.clusterIPs: Invalid value: []string{%q}: failed to allocate IP %s: provided IP is already allocated", want, want)
		}
		return want, ""
	}
	// Dynamic addresses avoid the network address, broadcast and the first 16 (static ones).
	span := size - 18
	start := uint32(w.HashOf(c.Key(), "clusterIP", key) % uint64(span))
	for i := uint32(0); i < span; i++ {
		ip := UintToIP(base + 17 + (start+i)%span)
		if _, taken := ix.ClusterIPs[ip]; !taken {
			return ip, ""
		}
	}
	return "", fmt.Sprintf("spec.clusterIPs: Invalid value: []string{}: failed to allocate a serviceIP: range is full (%s)", c.ServicesIPv4CIDR)
}

// allocateNodePort gives key a port of 30000-32767: want if given (it must be free), else a
// free one from a hash of the Service and what the port is for. taken holds ports this request
// already uses.
func (w *LoadBalancers) allocateNodePort(c *model.Cluster, key, field string, want int32, what string, taken map[int32]bool) (int32, string) {
	ix := w.ServiceIndex(c)
	free := func(p int32) bool {
		other, used := ix.NodePorts[p]
		return !taken[p] && (!used || other == key)
	}
	if want != 0 {
		if want < nodePortMin || want > nodePortMax {
			return 0, fmt.Sprintf("%s: Invalid value: %d: provided port is not in the valid range. The range of valid ports is %d-%d", field, want, nodePortMin, nodePortMax)
		}
		if !free(want) {
			return 0, fmt.Sprintf("%s: Invalid value: %d: provided port is already allocated", field, want)
		}
		return want, ""
	}
	const span = nodePortMax - nodePortMin + 1
	start := int32(w.HashOf(c.Key(), "nodePort", key, what) % span)
	for i := int32(0); i < span; i++ {
		p := nodePortMin + (start+i)%span
		if free(p) && ix.NodePorts[p] == "" {
			return p, ""
		}
	}
	return 0, fmt.Sprintf("%s: Invalid value: 0: failed to allocate a nodePort: range is full", field)
}

// ---- defaulting and validation ----

func needsNodePorts(spec *corev1.ServiceSpec) bool {
	switch spec.Type {
	case corev1.ServiceTypeNodePort:
		return true
	case corev1.ServiceTypeLoadBalancer:
		return spec.AllocateLoadBalancerNodePorts == nil || *spec.AllocateLoadBalancerNodePorts
	}
	return false
}

func needsHealthCheckNodePort(spec *corev1.ServiceSpec) bool {
	return spec.Type == corev1.ServiceTypeLoadBalancer && spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}

func externallyAccessible(spec *corev1.ServiceSpec) bool {
	return spec.Type == corev1.ServiceTypeLoadBalancer || spec.Type == corev1.ServiceTypeNodePort
}

// defaultService fills the API server's defaults.
func defaultService(s *corev1.Service) {
	sp := &s.Spec
	if sp.Type == "" {
		sp.Type = corev1.ServiceTypeClusterIP
	}
	if sp.SessionAffinity == "" {
		sp.SessionAffinity = corev1.ServiceAffinityNone
	}
	for i := range sp.Ports {
		p := &sp.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if p.TargetPort.Type == intstr.Int && p.TargetPort.IntVal == 0 && p.TargetPort.StrVal == "" {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
	if externallyAccessible(sp) && sp.ExternalTrafficPolicy == "" {
		sp.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if sp.Type != corev1.ServiceTypeExternalName {
		if sp.InternalTrafficPolicy == nil {
			p := corev1.ServiceInternalTrafficPolicyCluster
			sp.InternalTrafficPolicy = &p
		}
		if len(sp.IPFamilies) == 0 {
			sp.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
		}
		if sp.IPFamilyPolicy == nil {
			p := corev1.IPFamilyPolicySingleStack
			sp.IPFamilyPolicy = &p
		}
	}
	if sp.Type == corev1.ServiceTypeLoadBalancer && sp.AllocateLoadBalancerNodePorts == nil {
		t := true
		sp.AllocateLoadBalancerNodePorts = &t
	}
	if sp.ClusterIP == "" && len(sp.ClusterIPs) > 0 {
		sp.ClusterIP = sp.ClusterIPs[0]
	}
}

var serviceTypes = []string{"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}

// validateService applies the API server's static rules (allocation comes after).
func validateService(s *corev1.Service, namespace string) []string {
	var errs []string
	for _, e := range kuberender.ValidateMeta(s.ObjectMeta, namespace, apivalidation.NameIsDNS1035Label) {
		errs = append(errs, e.Error())
	}
	sp := &s.Spec
	if !slices.Contains(serviceTypes, string(sp.Type)) {
		errs = append(errs, fmt.Sprintf("spec.type: Unsupported value: %q: supported values: \"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\"", sp.Type))
		return errs
	}
	if sp.Type == corev1.ServiceTypeExternalName {
		if sp.ExternalName == "" {
			errs = append(errs, "spec.externalName: Required value")
		}
		return errs
	}
	headless := sp.ClusterIP == corev1.ClusterIPNone
	if len(sp.Ports) == 0 && !headless {
		errs = append(errs, "spec.ports: Required value")
	}
	if headless && sp.Type != corev1.ServiceTypeClusterIP {
		errs = append(errs, fmt.Sprintf("spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for %s services", sp.Type))
	}
	names := map[string]bool{}
	type pp struct {
		port  int32
		proto corev1.Protocol
	}
	seen := map[pp]bool{}
	for i, p := range sp.Ports {
		f := fmt.Sprintf("spec.ports[%d]", i)
		switch {
		case p.Name == "" && len(sp.Ports) > 1:
			errs = append(errs, f+".name: Required value")
		case p.Name != "":
			if msgs := validation.IsDNS1123Label(p.Name); len(msgs) > 0 {
				errs = append(errs, fmt.Sprintf("%s.name: Invalid value: %q: %s", f, p.Name, strings.Join(msgs, "; ")))
			}
			if names[p.Name] {
				errs = append(errs, fmt.Sprintf("%s.name: Duplicate value: %q", f, p.Name))
			}
			names[p.Name] = true
		}
		if p.Port < 1 || p.Port > 65535 {
			errs = append(errs, fmt.Sprintf("%s.port: Invalid value: %d: must be between 1 and 65535, inclusive", f, p.Port))
		}
		switch p.Protocol {
		case corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP:
		default:
			errs = append(errs, fmt.Sprintf("%s.protocol: Unsupported value: %q: supported values: \"SCTP\", \"TCP\", \"UDP\"", f, p.Protocol))
		}
		if seen[pp{p.Port, p.Protocol}] {
			errs = append(errs, fmt.Sprintf("%s: Duplicate value: %d/%s: the same port and protocol appear twice", f, p.Port, p.Protocol))
		}
		seen[pp{p.Port, p.Protocol}] = true
		switch tp := p.TargetPort; tp.Type {
		case intstr.Int:
			if tp.IntVal < 1 || tp.IntVal > 65535 {
				errs = append(errs, fmt.Sprintf("%s.targetPort: Invalid value: %d: must be between 1 and 65535, inclusive", f, tp.IntVal))
			}
		case intstr.String:
			if msgs := validation.IsValidPortName(tp.StrVal); len(msgs) > 0 {
				errs = append(errs, fmt.Sprintf("%s.targetPort: Invalid value: %q: %s", f, tp.StrVal, strings.Join(msgs, "; ")))
			}
		}
		if p.NodePort != 0 && !externallyAccessible(sp) {
			errs = append(errs, fmt.Sprintf("%s.nodePort: Forbidden: may not be used when `type` is '%s'", f, sp.Type))
		}
	}
	switch sp.ExternalTrafficPolicy {
	case "":
	case corev1.ServiceExternalTrafficPolicyCluster, corev1.ServiceExternalTrafficPolicyLocal:
		if !externallyAccessible(sp) {
			errs = append(errs, fmt.Sprintf("spec.externalTrafficPolicy: Invalid value: %q: may only be set for externally-accessible services", sp.ExternalTrafficPolicy))
		}
	default:
		errs = append(errs, fmt.Sprintf("spec.externalTrafficPolicy: Unsupported value: %q: supported values: \"Cluster\", \"Local\"", sp.ExternalTrafficPolicy))
	}
	if sp.HealthCheckNodePort != 0 && !needsHealthCheckNodePort(sp) {
		errs = append(errs, fmt.Sprintf("spec.healthCheckNodePort: Invalid value: %d: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'", sp.HealthCheckNodePort))
	}
	switch sp.SessionAffinity {
	case corev1.ServiceAffinityNone, corev1.ServiceAffinityClientIP:
	default:
		errs = append(errs, fmt.Sprintf("spec.sessionAffinity: Unsupported value: %q: supported values: \"ClientIP\", \"None\"", sp.SessionAffinity))
	}
	for k, v := range sp.Selector {
		for _, m := range validation.IsQualifiedName(k) {
			errs = append(errs, fmt.Sprintf("spec.selector: Invalid value: %q: %s", k, m))
		}
		for _, m := range validation.IsValidLabelValue(v) {
			errs = append(errs, fmt.Sprintf("spec.selector: Invalid value: %q: %s", v, m))
		}
	}
	if ip := sp.LoadBalancerIP; ip != "" && net.ParseIP(ip).To4() == nil {
		errs = append(errs, fmt.Sprintf("spec.loadBalancerIP: Invalid value: %q: must be a valid IP address", ip))
	}
	return errs
}

// allocateService gives a Service its clusterIP, nodePorts and healthCheckNodePort, keeping
// those of old (the Service before an update) where the request leaves them unset. It returns
// the API server's messages when a requested value cannot be had.
func (w *LoadBalancers) allocateService(c *model.Cluster, key string, sp *corev1.ServiceSpec) []string {
	var errs []string
	if sp.Type == corev1.ServiceTypeExternalName {
		sp.ClusterIP, sp.ClusterIPs = "", nil
		return nil
	}
	if sp.ClusterIP != corev1.ClusterIPNone {
		ip, msg := w.allocateClusterIP(c, key, sp.ClusterIP)
		if msg != "" {
			errs = append(errs, msg)
		}
		sp.ClusterIP = ip
	}
	sp.ClusterIPs = []string{sp.ClusterIP}
	taken := map[int32]bool{}
	for i := range sp.Ports {
		p := &sp.Ports[i]
		if !needsNodePorts(sp) {
			p.NodePort = 0
			continue
		}
		np, msg := w.allocateNodePort(c, key, fmt.Sprintf("spec.ports[%d].nodePort", i), p.NodePort, fmt.Sprintf("%d/%s", p.Port, p.Protocol), taken)
		if msg != "" {
			errs = append(errs, msg)
		}
		p.NodePort = np
		taken[np] = true
	}
	if needsHealthCheckNodePort(sp) {
		np, msg := w.allocateNodePort(c, key, "spec.healthCheckNodePort", sp.HealthCheckNodePort, "healthCheckNodePort", taken)
		if msg != "" {
			errs = append(errs, msg)
		}
		sp.HealthCheckNodePort = np
	} else {
		sp.HealthCheckNodePort = 0
	}
	return errs
}
