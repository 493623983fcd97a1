package loadbalancers

import (
	"fmt"
	"maps"
	"net"
	"net/http"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Services (core/v1) with the API server's defaulting, validation and allocation: a clusterIP
// from the cluster's services range, nodePorts from 30000-32767 unique in the cluster, a
// healthCheckNodePort for LoadBalancer Services with externalTrafficPolicy Local. What GKE
// builds for a LoadBalancer Service is in loadbalancer.go.
//
// This file holds the Services' lifecycle (create, update, delete, the system Services every
// cluster has) and how they render; the spec's defaulting, validation and allocation are in
// services_spec.go; which pods serve a Service (its endpoints) is kept in services_index.go, for
// the load balancer's health checks and the packet path.

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
	meta := metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, UID: types.UID(s.UID), ResourceVersion: model.RVString(s.RV),
		CreationTimestamp: metav1.NewTime(s.CreateTime), Labels: maps.Clone(s.Labels), Annotations: w.serviceAnnotations(c, s),
		ManagedFields: model.CloneManagedFields(s.ManagedFields)}
	if s.LB != nil {
		meta.Finalizers = []string{lbFinalizer(s.LB.Kind)}
	}
	if s.Deleting {
		t := metav1.NewTime(s.DeletionTime)
		zero := int64(0)
		meta.DeletionTimestamp, meta.DeletionGracePeriodSeconds = &t, &zero
	}
	out := &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: meta, Spec: *s.Spec.DeepCopy()}
	if lb := s.LB; lb != nil && lb.State == LBReady {
		vip := corev1.LoadBalancerIPModeVIP
		out.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: lb.IP, IPMode: &vip}}
	}
	return out
}

// ListServices lists Services by namespace and name.
func (w *LoadBalancers) ListServices(c *model.Cluster, o model.ListOptions) *corev1.ServiceList {
	out := &corev1.ServiceList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceList"}, ListMeta: metav1.ListMeta{ResourceVersion: model.RVString(c.RV)}}
	out.Items = []corev1.Service{}
	for _, k := range model.SortedKeys(c.Services) {
		if s := c.Services[k]; o.Matches(s.Namespace, s.Labels) {
			out.Items = append(out.Items, *w.RenderService(c, s))
		}
	}
	return out
}

func (w *LoadBalancers) service(c *model.Cluster, ns, name string) (*model.Service, error) {
	s := c.Services[model.NamespacedKey(ns, name)]
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
	key := model.NamespacedKey(ns, in.Name)
	if c.Services[key] != nil {
		return nil, model.KubeAlreadyExists(resServices, in.Name)
	}
	if errs := w.allocateService(c, key, &in.Spec); len(errs) > 0 {
		return nil, model.KubeInvalid("Service", in.Name, errs...)
	}
	s := &model.Service{Namespace: ns, Name: in.Name, UID: model.UIDOf(c.ID, "svc", ns, in.Name, w.engine.RandHex(8)), Labels: in.Labels,
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
	if err := model.CheckRV(in.ResourceVersion, s.RV, resServices, name); err != nil {
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
	if !model.EqualJSON(old, s.Spec) {
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
		s := &model.Service{Namespace: ns, Name: name, UID: model.UIDOf(c.ID, "svc", ns, name), Labels: lbls, Spec: svc.Spec,
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
