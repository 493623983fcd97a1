package loadbalancers

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"maps"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Services (core/v1) with the API server's defaulting, validation and allocation: a clusterIP
// from the cluster's services range, nodePorts from 30000-32767 unique in the cluster, a
// healthCheckNodePort for LoadBalancer Services with externalTrafficPolicy Local. What GKE
// builds for a LoadBalancer Service is in loadbalancer.go; which pods serve a Service (its
// endpoints) is kept here, for the load balancer's health checks and the packet path.

const (
	resServices = "services"
	nodePortMin = 30000
	nodePortMax = 32767
)

// Annotations users put on Services (R-LB-1, R-LB-2).
const (
	AnnotationLBType       = "networking.gke.io/load-balancer-type"
	AnnotationLBTypeLegacy = "cloud.google.com/load-balancer-type"
	AnnotationL4RBS        = "cloud.google.com/l4-rbs"
)

// Annotations GKE's L4 load balancer controllers put on the Services they realise, naming the
// Compute Engine resources (ingress-gce's service.kubernetes.io/* keys, and the NEG status).
const (
	AnnotationBackendService    = "service.kubernetes.io/backend-service"
	AnnotationFirewallRule      = "service.kubernetes.io/firewall-rule"
	AnnotationFirewallRuleForHC = "service.kubernetes.io/firewall-rule-for-hc"
	AnnotationHealthcheck       = "service.kubernetes.io/healthcheck"
	AnnotationTCPForwardingRule = "service.kubernetes.io/tcp-forwarding-rule"
	AnnotationUDPForwardingRule = "service.kubernetes.io/udp-forwarding-rule"
	AnnotationNEGStatus         = "cloud.google.com/neg-status"
)

// gkeManagedAnnotation says whether GKE writes an annotation key (users' copies are dropped
// on update; GKE writes them again).
func gkeManagedAnnotation(k string) bool {
	switch k {
	case AnnotationBackendService, AnnotationFirewallRule, AnnotationFirewallRuleForHC, AnnotationHealthcheck,
		AnnotationTCPForwardingRule, AnnotationUDPForwardingRule, AnnotationNEGStatus:
		return true
	}
	return false
}

// SvcIndex is a cluster's derived view of its Services: allocations and endpoints. It is
// rebuilt from the state on first use and kept current by every change.
type SvcIndex struct {
	NodePorts  map[int32]string  // node port (healthCheckNodePort too) -> service key
	ClusterIPs map[string]string // cluster IP -> service key
	byNS       map[string]map[string]*model.Service
	selectors  map[string]labels.Selector // nil: the Service has no selector (no endpoints)
	// serving: service key -> its serving pods (running, ready, not terminating) -> node.
	serving map[string]map[*model.Pod]string
	// perNode: service key -> node -> serving pods there.
	PerNode map[string]map[string]int
	// lbs are the Services with a load balancer, in any state.
	Lbs        map[string]*model.Service
	SyncQueued map[string]bool
}

// ServiceIndex returns the Service index of c, building it if needed.
func (w *LoadBalancers) ServiceIndex(c *model.Cluster) *SvcIndex {
	if w.Svcs == nil {
		w.Svcs = map[*model.Cluster]*SvcIndex{}
	}
	if ix, ok := w.Svcs[c]; ok {
		return ix
	}
	ix := &SvcIndex{NodePorts: map[int32]string{}, ClusterIPs: map[string]string{}, byNS: map[string]map[string]*model.Service{},
		selectors: map[string]labels.Selector{}, serving: map[string]map[*model.Pod]string{}, PerNode: map[string]map[string]int{},
		Lbs: map[string]*model.Service{}, SyncQueued: map[string]bool{}}
	w.Svcs[c] = ix
	for _, key := range model.SortedKeys(c.Services) {
		ix.track(c.Services[key])
	}
	for _, key := range model.SortedKeys(c.Services) {
		w.rescanEndpoints(c, c.Services[key])
	}
	w.engine.QueuedFor(c, func(ev model.Event) {
		if ev.Kind == evLBSync {
			ix.SyncQueued[ev.Service] = true
		}
	})
	return ix
}

// track adds a Service's allocations to the index.
func (ix *SvcIndex) track(s *model.Service) {
	key := s.Key()
	for _, p := range allocatedNodePorts(&s.Spec) {
		ix.NodePorts[p] = key
	}
	if ip := s.Spec.ClusterIP; ip != "" && ip != corev1.ClusterIPNone {
		ix.ClusterIPs[ip] = key
	}
	if ix.byNS[s.Namespace] == nil {
		ix.byNS[s.Namespace] = map[string]*model.Service{}
	}
	ix.byNS[s.Namespace][s.Name] = s
	ix.selectors[key] = nil
	if len(s.Spec.Selector) > 0 {
		ix.selectors[key] = labels.SelectorFromSet(s.Spec.Selector)
	}
	if s.LB != nil {
		ix.Lbs[key] = s
	}
}

// untrack removes a Service's allocations from the index.
func (ix *SvcIndex) untrack(s *model.Service) {
	key := s.Key()
	for _, p := range allocatedNodePorts(&s.Spec) {
		if ix.NodePorts[p] == key {
			delete(ix.NodePorts, p)
		}
	}
	if ix.ClusterIPs[s.Spec.ClusterIP] == key {
		delete(ix.ClusterIPs, s.Spec.ClusterIP)
	}
	delete(ix.byNS[s.Namespace], s.Name)
	delete(ix.selectors, key)
	delete(ix.serving, key)
	delete(ix.PerNode, key)
	delete(ix.Lbs, key)
}

func allocatedNodePorts(spec *corev1.ServiceSpec) []int32 {
	var out []int32
	for _, p := range spec.Ports {
		if p.NodePort != 0 {
			out = append(out, p.NodePort)
		}
	}
	if spec.HealthCheckNodePort != 0 {
		out = append(out, spec.HealthCheckNodePort)
	}
	return out
}

// servingPod says whether p is a ready endpoint: running, ready and not terminating.
func servingPod(c *model.Cluster, p *model.Pod) bool {
	return c.Pods[p.Key()] == p && p.Node != "" && p.Phase == model.PodRunning && p.Ready && !p.Terminating
}

// rescanEndpoints recomputes which pods serve s (after its creation or a selector change).
func (w *LoadBalancers) rescanEndpoints(c *model.Cluster, s *model.Service) {
	ix := w.ServiceIndex(c)
	key := s.Key()
	ix.serving[key] = map[*model.Pod]string{}
	ix.PerNode[key] = map[string]int{}
	sel := ix.selectors[key]
	if sel == nil {
		return
	}
	for _, p := range c.Pods {
		if p.Namespace == s.Namespace && sel.Matches(labels.Set(p.Labels)) && servingPod(c, p) {
			ix.serving[key][p] = p.Node
			ix.PerNode[key][p.Node]++
		}
	}
}

// SvcPodChanged keeps the endpoints of the Services selecting p current: called when a pod
// starts, becomes ready, starts terminating or goes. Nodes that gain their first or lose their
// last serving pod change the load balancer's view (R-LB-3 Local membership, R-LB-6 health).
func (w *LoadBalancers) SvcPodChanged(c *model.Cluster, p *model.Pod) {
	if len(c.Services) == 0 {
		return
	}
	ix := w.ServiceIndex(c)
	inNS := ix.byNS[p.Namespace]
	for _, name := range model.SortedKeys(inNS) { // in name order: the events it schedules are deterministic
		s := inNS[name]
		key := s.Key()
		sel := ix.selectors[key]
		if sel == nil {
			continue
		}
		node, was := ix.serving[key][p]
		is := servingPod(c, p) && sel.Matches(labels.Set(p.Labels))
		if was == is {
			continue
		}
		if is {
			node = p.Node
			ix.serving[key][p] = node
			ix.PerNode[key][node]++
		} else {
			delete(ix.serving[key], p)
			ix.PerNode[key][node]--
			if ix.PerNode[key][node] <= 0 {
				delete(ix.PerNode[key], node)
			}
		}
		if cnt := ix.PerNode[key][node]; (is && cnt == 1) || (!is && cnt == 0) {
			w.lbServingChanged(c, s, node)
		}
	}
}

// ---- allocation ----

func ipToUint(ip net.IP) uint32 { return binary.BigEndian.Uint32(ip.To4()) }

func UintToIP(v uint32) string {
	ip := make(net.IP, 4)
	binary.BigEndian.PutUint32(ip, v)
	return ip.String()
}

// hashOf is a stable 64-bit hash of the seed and parts: allocations that do not depend on the
// order of requests, stable per object for a seed.
func (w *LoadBalancers) hashOf(parts ...string) uint64 {
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
	start := uint32(w.hashOf(c.Key(), "clusterIP", key) % uint64(span))
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
	start := int32(w.hashOf(c.Key(), "nodePort", key, what) % span)
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
	for _, e := range core.ValidateMeta(s.ObjectMeta, namespace, apivalidation.NameIsDNS1035Label) {
		errs = append(errs, e.Error())
	}
	sp := &s.Spec
	if !model.Contains(serviceTypes, string(sp.Type)) {
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

// ---- rendering ----

// lbFinalizer is the finalizer the controller that owns a kind of load balancer puts on the
// Service: it holds the Service until the Compute Engine resources are deleted.
func lbFinalizer(kind string) string {
	switch kind {
	case LBInternalNEG:
		return "gke.networking.io/l4-ilb-v2"
	case LBInternalIG:
		return "gke.networking.io/l4-ilb-v1"
	case LBExternalRBS:
		return "gke.networking.io/l4-netlb-v2"
	}
	return "service.kubernetes.io/load-balancer-cleanup"
}

func (w *LoadBalancers) RenderService(c *model.Cluster, s *model.Service) *corev1.Service {
	meta := metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, UID: types.UID(s.UID), ResourceVersion: model.RvString(s.RV),
		CreationTimestamp: metav1.NewTime(s.CreateTime), Labels: maps.Clone(s.Labels), Annotations: w.serviceAnnotations(c, s),
		ManagedFields: core.CloneManagedFields(s.ManagedFields)}
	if s.LB != nil {
		meta.Finalizers = []string{lbFinalizer(s.LB.Kind)}
	}
	if s.Deleting {
		t := metav1.NewTime(s.DeletionTime)
		zero := int64(0)
		meta.DeletionTimestamp, meta.DeletionGracePeriodSeconds = &t, &zero
	}
	out := &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: meta, Spec: *s.Spec.DeepCopy()}
	if lb := s.LB; lb != nil && lb.State == LbReady {
		vip := corev1.LoadBalancerIPModeVIP
		out.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: lb.IP, IPMode: &vip}}
	}
	return out
}

// ListServices lists Services by namespace and name.
func (w *LoadBalancers) ListServices(c *model.Cluster, o core.ListOptions) *corev1.ServiceList {
	out := &corev1.ServiceList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceList"}, ListMeta: metav1.ListMeta{ResourceVersion: model.RvString(c.RV)}}
	out.Items = []corev1.Service{}
	for _, k := range model.SortedKeys(c.Services) {
		if s := c.Services[k]; o.Matches(s.Namespace, s.Labels) {
			out.Items = append(out.Items, *w.RenderService(c, s))
		}
	}
	return out
}

func (w *LoadBalancers) service(c *model.Cluster, ns, name string) (*model.Service, error) {
	s := c.Services[ns+"/"+name]
	if s == nil {
		return nil, model.KubeNotFound(resServices, name)
	}
	return s, nil
}

// GetService reads a Service.
func (w *LoadBalancers) GetService(c *model.Cluster, ns, name string) (*corev1.Service, error) {
	s, err := w.service(c, ns, name)
	if err != nil {
		return nil, err
	}
	return w.RenderService(c, s), nil
}

func UserAnnotations(a map[string]string) map[string]string {
	var out map[string]string
	for k, v := range a {
		if gkeManagedAnnotation(k) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}

// CreateService creates a Service; a LoadBalancer Service starts its load balancer.
func (w *LoadBalancers) CreateService(c *model.Cluster, ns string, in *corev1.Service) (*corev1.Service, error) {
	if in.Namespace != "" && in.Namespace != ns {
		return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request")
	}
	if err := c.NamespaceFor(ns); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	w.core.GenerateName(&in.ObjectMeta)
	defaultService(in)
	if errs := validateService(in, ns); len(errs) > 0 {
		return nil, model.KubeInvalid("Service", in.Name, errs...)
	}
	key := ns + "/" + in.Name
	if c.Services[key] != nil {
		return nil, model.KubeAlreadyExists(resServices, in.Name)
	}
	if errs := w.allocateService(c, key, &in.Spec); len(errs) > 0 {
		return nil, model.KubeInvalid("Service", in.Name, errs...)
	}
	s := &model.Service{Namespace: ns, Name: in.Name, UID: model.UidOf(c.ID, "svc", ns, in.Name, w.engine.RandHex(8)), Labels: in.Labels,
		Annotations: UserAnnotations(in.Annotations), Spec: in.Spec, CreateTime: w.st.Now, ManagedFields: in.ManagedFields}
	w.addService(c, s)
	w.core.TouchObject(c, s, true)
	w.engine.Record("ServiceCreated", c, "", "", "", "service %s created: type %s, cluster IP %s, ports %s", key, s.Spec.Type, s.Spec.ClusterIP, describePorts(&s.Spec))
	w.ReconcileLB(c, s, nil)
	return w.RenderService(c, s), nil
}

func (w *LoadBalancers) addService(c *model.Cluster, s *model.Service) {
	ix := w.ServiceIndex(c) // before the Service joins, so that a first build does not count it twice
	c.ServicesByName()[s.Key()] = s
	ix.track(s)
	w.rescanEndpoints(c, s)
}

func describePorts(sp *corev1.ServiceSpec) string {
	var parts []string
	for _, p := range sp.Ports {
		s := fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		if p.NodePort != 0 {
			s = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		}
		parts = append(parts, s)
	}
	if sp.HealthCheckNodePort != 0 {
		parts = append(parts, fmt.Sprintf("healthCheckNodePort %d", sp.HealthCheckNodePort))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// keepAllocated carries over what the API server keeps when an update leaves it unset: the
// clusterIP, each port's nodePort (matched by port and protocol) and the healthCheckNodePort;
// and drops them, as it does, when the new type no longer uses them.
func keepAllocated(old, sp *corev1.ServiceSpec) {
	if sp.ClusterIP == "" && len(sp.ClusterIPs) == 0 && sp.Type != corev1.ServiceTypeExternalName {
		sp.ClusterIP, sp.ClusterIPs = old.ClusterIP, append([]string(nil), old.ClusterIPs...)
	}
	if needsNodePorts(old) && needsNodePorts(sp) {
		for i := range sp.Ports {
			if sp.Ports[i].NodePort != 0 {
				continue
			}
			for _, op := range old.Ports {
				if op.Port == sp.Ports[i].Port && op.Protocol == sp.Ports[i].Protocol {
					sp.Ports[i].NodePort = op.NodePort
				}
			}
		}
	}
	if !needsNodePorts(sp) {
		for i := range sp.Ports {
			for _, op := range old.Ports {
				if op.NodePort == sp.Ports[i].NodePort {
					sp.Ports[i].NodePort = 0
				}
			}
		}
	}
	if needsHealthCheckNodePort(old) && needsHealthCheckNodePort(sp) && sp.HealthCheckNodePort == 0 {
		sp.HealthCheckNodePort = old.HealthCheckNodePort
	}
	if !needsHealthCheckNodePort(sp) && sp.HealthCheckNodePort == old.HealthCheckNodePort {
		sp.HealthCheckNodePort = 0
	}
	if !externallyAccessible(sp) && sp.ExternalTrafficPolicy == old.ExternalTrafficPolicy {
		sp.ExternalTrafficPolicy = ""
	}
}

// UpdateService replaces a Service's spec, labels and annotations (PUT; PATCH goes through it).
func (w *LoadBalancers) UpdateService(c *model.Cluster, ns, name string, in *corev1.Service) (*corev1.Service, error) {
	s, err := w.service(c, ns, name)
	if err != nil {
		return nil, err
	}
	if in.Name != "" && in.Name != name {
		return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)", in.Name, name)
	}
	if err := core.CheckRV(in.ResourceVersion, s.RV, resServices, name); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	in.Name = name
	if in.Spec.Type == "" {
		in.Spec.Type = corev1.ServiceTypeClusterIP
	}
	if in.Spec.ExternalTrafficPolicy == "" && externallyAccessible(&in.Spec) {
		in.Spec.ExternalTrafficPolicy = s.Spec.ExternalTrafficPolicy
	}
	defaultService(in)
	keepAllocated(&s.Spec, &in.Spec)
	if errs := validateService(in, ns); len(errs) > 0 {
		return nil, model.KubeInvalid("Service", name, errs...)
	}
	if s.Spec.ClusterIP != "" && in.Spec.ClusterIP != s.Spec.ClusterIP && in.Spec.Type != corev1.ServiceTypeExternalName && s.Spec.Type != corev1.ServiceTypeExternalName {
		return nil, model.KubeInvalid("Service", name, fmt.Sprintf("spec.clusterIPs[0]: Invalid value: []string{%q}: may not change once set", in.Spec.ClusterIP))
	}
	ix := w.ServiceIndex(c)
	old := *s.Spec.DeepCopy()
	oldAnnotations := s.Annotations
	ix.untrack(s) // free what the Service holds, so that it may keep or swap its own values
	if errs := w.allocateService(c, s.Key(), &in.Spec); len(errs) > 0 {
		ix.track(s)
		w.rescanEndpoints(c, s)
		return nil, model.KubeInvalid("Service", name, errs...)
	}
	s.Spec, s.Labels, s.Annotations, s.ManagedFields = in.Spec, in.Labels, UserAnnotations(in.Annotations), in.ManagedFields
	w.core.TouchObject(c, s, false)
	ix.track(s)
	w.rescanEndpoints(c, s)
	if !core.EqualJSON(old, s.Spec) {
		w.engine.Record("ServiceUpdated", c, "", "", "", "service %s updated: type %s, ports %s, externalTrafficPolicy %s", s.Key(), s.Spec.Type,
			describePorts(&s.Spec), orDash(string(s.Spec.ExternalTrafficPolicy)))
	}
	w.ReconcileLB(c, s, &serviceBefore{spec: old, annotations: oldAnnotations})
	return w.RenderService(c, s), nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// serviceBefore is what a Service was before an update, for the load balancer controller.
type serviceBefore struct {
	spec        corev1.ServiceSpec
	annotations map[string]string
}

// DeleteService deletes a Service. One with a load balancer keeps its finalizer, with a
// deletionTimestamp, until GKE has deleted the load balancer's resources.
func (w *LoadBalancers) DeleteService(c *model.Cluster, ns, name string) (*corev1.Service, error) {
	s, err := w.service(c, ns, name)
	if err != nil {
		return nil, err
	}
	if s.System {
		return nil, model.KubeError(http.StatusForbidden, "Forbidden", "services %q is forbidden: gkesim keeps the Services every GKE cluster has (%s)", name, s.Key())
	}
	if s.Deleting {
		return w.RenderService(c, s), nil
	}
	if s.LB != nil {
		s.Deleting, s.DeletionTime = true, w.st.Now
		w.core.TouchObject(c, s, false)
		w.engine.Record("ServiceDeleted", c, "", "", "", "service %s deleted; its finalizer %s holds it until the load balancer is deleted", s.Key(), lbFinalizer(s.LB.Kind))
		w.deleteLB(c, s)
		return w.RenderService(c, s), nil
	}
	out := w.RenderService(c, s)
	w.removeService(c, s)
	w.engine.Record("ServiceDeleted", c, "", "", "", "service %s deleted: cluster IP %s and node ports released", s.Key(), s.Spec.ClusterIP)
	return out, nil
}

// removeService forgets a Service and releases its allocations.
func (w *LoadBalancers) removeService(c *model.Cluster, s *model.Service) {
	w.core.ObjectRemoved(c, s)
	w.ServiceIndex(c).untrack(s)
	delete(c.Services, s.Key())
}

// DeleteServicesIn deletes a namespace's Services (namespace deletion).
func (w *LoadBalancers) DeleteServicesIn(c *model.Cluster, ns string) {
	for _, key := range model.SortedKeys(c.Services) {
		if s := c.Services[key]; s.Namespace == ns && !s.System {
			_, _ = w.DeleteService(c, ns, s.Name)
		}
	}
}

// InitSystemServices creates the Services every GKE cluster has: kubernetes (the API server,
// the first address of the services range) and kube-dns (the tenth).
func (w *LoadBalancers) InitSystemServices(c *model.Cluster) {
	_, cidr, err := net.ParseCIDR(c.ServicesIPv4CIDR)
	if err != nil {
		return
	}
	base := ipToUint(cidr.IP)
	mk := func(ns, name string, offset uint32, lbls, selector map[string]string, ports ...corev1.ServicePort) {
		spec := corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: ports, Selector: selector, ClusterIP: UintToIP(base + offset)}
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
		defaultService(svc)
		svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
		s := &model.Service{Namespace: ns, Name: name, UID: model.UidOf(c.ID, "svc", ns, name), Labels: lbls, Spec: svc.Spec,
			CreateTime: w.st.Now, System: true}
		w.addService(c, s)
		w.core.TouchObject(c, s, true)
	}
	mk("default", "kubernetes", kubernetesServiceOffset, map[string]string{"component": "apiserver", "provider": "kubernetes"}, nil,
		corev1.ServicePort{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(443)})
	if c.Autopilot {
		return
	}
	mk("kube-system", "kube-dns", kubeDNSServiceOffset, map[string]string{"k8s-app": "kube-dns", "kubernetes.io/name": "KubeDNS"},
		map[string]string{"k8s-app": "kube-dns"},
		corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP, TargetPort: intstr.FromInt32(53)},
		corev1.ServicePort{Name: "dns-tcp", Port: 53, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(53)})
}

// sortedServices lists services with a load balancer by key.
func (ix *SvcIndex) SortedLBs() []*model.Service {
	out := make([]*model.Service, 0, len(ix.Lbs))
	for _, s := range ix.Lbs {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out
}
