package loadbalancers

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The path of a packet through a Service (R-LB-7): the load balancer, node port or cluster IP
// that answers, the node it is handed to, and kube-proxy's choice of endpoint and source address.

// TraceRequest is a packet to trace.
type TraceRequest struct {
	IP         string
	Port       int32
	Protocol   string
	Client     string
	ClientPort int32
}

// isPrivate says whether ip is an RFC 1918 address (inside a VPC).
func isPrivate(ip net.IP) bool {
	ip4 := ip.To4()
	return ip4 != nil && (ip4[0] == 10 || (ip4[0] == 172 && ip4[1]&0xf0 == 16) || (ip4[0] == 192 && ip4[1] == 168))
}

// TracePacket says where a packet to ip:port would land: which Service answers there, which
// node the load balancer (or node port) hands it to, which pod the node's kube-proxy sends it
// to, and with which source address (R-LB-7). Choices that are random in GKE (the load
// balancer's 5-tuple hash, kube-proxy's pick) are a hash of the packet and the seed.
func (w *LoadBalancers) TracePacket(c *model.Cluster, req TraceRequest) (*api.PacketTrace, error) {
	if req.Protocol == "" {
		req.Protocol = "TCP"
	}
	req.Protocol = strings.ToUpper(req.Protocol)
	dst := net.ParseIP(req.IP)
	if dst == nil || dst.To4() == nil {
		return nil, model.InvalidArgument("Invalid value for parameter \"ip\": %q. Give the IPv4 address the packet is sent to (a load balancer IP, a cluster IP or a node IP).", req.IP)
	}
	if req.Port < 1 || req.Port > 65535 {
		return nil, model.InvalidArgument("Invalid value for parameter \"port\": %d. Give the destination port, 1-65535.", req.Port)
	}
	out := &api.PacketTrace{Destination: fmt.Sprintf("%s:%d", req.IP, req.Port), Protocol: req.Protocol, Hops: []string{}}
	hop := func(format string, args ...any) { out.Hops = append(out.Hops, fmt.Sprintf(format, args...)) }
	pick := func(n int, what string) int {
		return int(w.HashOf("trace", what, req.Client, strconv.Itoa(int(req.ClientPort)), req.IP, strconv.Itoa(int(req.Port)), req.Protocol) % uint64(n))
	}

	s, sp, via, node := w.traceTarget(c, req)
	if s == nil {
		out.Result, out.Reason = "NO_MATCH", fmt.Sprintf("no Service of cluster %s answers on %s:%d/%s", c.Name, req.IP, req.Port, req.Protocol)
		return out, nil
	}
	out.Service, out.Via, out.Policy = s.Key(), via, string(s.Spec.ExternalTrafficPolicy)
	if req.Client == "" {
		req.Client = "203.0.113.10"
		if s.LB != nil && s.LB.Internal || via == "clusterIP" {
			req.Client = "10.128.0.100"
		}
	}
	out.Client = fmt.Sprintf("%s:%d", req.Client, req.ClientPort)
	client := net.ParseIP(req.Client)
	if client == nil || client.To4() == nil {
		return nil, model.InvalidArgument("Invalid value for parameter \"clientIp\": %q. Give the IPv4 address the packet comes from.", req.Client)
	}

	switch via {
	case "loadBalancer":
		lb := s.LB
		out.Kind = lb.Kind
		switch {
		case lb.Failed != "":
			out.Result, out.Reason = "DROPPED", fmt.Sprintf("GKE could not build the load balancer of service %s: %s", s.Key(), lb.Failed)
			return out, nil
		case lb.State != LBReady:
			out.Result, out.Reason = "DROPPED", fmt.Sprintf("the load balancer of service %s is %s", s.Key(), strings.ToLower(lb.State))
			return out, nil
		}
		if lb.Internal && !isPrivate(client) {
			out.Result, out.Reason = "DROPPED", fmt.Sprintf("%s is an internal passthrough Network Load Balancer address: only clients in the VPC network (or connected networks) reach it, not %s", lb.IP, req.Client)
			return out, nil
		}
		n := w.LBNamesOf(c, s)
		hop("forwarding rule %s (%s %s %s:%d) -> %s", n.ForwardingRules[sp.Protocol], Scheme(lb), req.Protocol, lb.IP, req.Port, describeBackend(lb.Kind, n))
		if b := lb.Blocked; b != nil {
			hop("GKE's last %d syncs of its instance groups failed (%s is in %s, a backend of %s, and a VM may be in one load-balanced instance group only); the backends are those from before", b.Attempts, model.LastSegment(b.Instance), b.Group, b.BackendService)
		}
		var healthy, all []string
		for _, m := range model.SortedKeys(lb.Members) {
			all = append(all, m)
			if h := lb.Health[m]; h != nil && h.State == HealthHealthy {
				healthy = append(healthy, m)
			}
		}
		cands := healthy
		switch {
		case len(all) == 0:
			out.Result, out.Reason = "DROPPED", "the load balancer has no backends"
			return out, nil
		case len(healthy) == 0:
			cands = all
			hop("no backend is healthy: the load balancer spreads new connections over all %d backends (failover to all when every backend is unhealthy)", len(all))
		default:
			hop("%d of %d backends healthy (health check %s on port %d)", len(healthy), len(all), n.HealthCheck, w.HCPort(s))
		}
		node = c.Nodes[cands[pick(len(cands), "node")]]
		out.Node = &api.TraceNode{Name: node.Name, Zone: node.Zone, IP: node.InternalIP, Health: lb.Health[node.Name].State, Candidates: len(cands)}
		hop("delivered to node %s (%s, %s) on nic0, destination still %s:%d (passthrough)", node.Name, node.InternalIP, node.Zone, lb.IP, req.Port)
	case "nodePort":
		out.Node = &api.TraceNode{Name: node.Name, Zone: node.Zone, IP: node.InternalIP, Candidates: 1}
		hop("node port %d on node %s", req.Port, node.Name)
	case "clusterIP":
		hop("cluster IP %s:%d of service %s (kube-proxy on the client's node)", s.Spec.ClusterIP, req.Port, s.Key())
	}

	// kube-proxy on the node: DNAT to an endpoint, SNAT unless the policy preserves the client.
	local := via != "clusterIP" && s.Local()
	ix := w.ServiceIndex(c)
	var eps []*model.Pod
	if local {
		for p, n := range ix.serving[s.Key()] {
			if n == node.Name {
				eps = append(eps, p)
			}
		}
	} else {
		for p := range ix.serving[s.Key()] {
			eps = append(eps, p)
		}
	}
	terminating := false
	if len(eps) == 0 {
		mv, _ := catalog.ParseVersion(c.MasterVersion)
		if mv.Minor >= 26 {
			eps = w.terminatingEndpoints(c, s, node, local)
			terminating = len(eps) > 0
		}
	}
	if len(eps) == 0 {
		if local {
			out.Result = "DROPPED"
			out.Reason = fmt.Sprintf("externalTrafficPolicy Local: node %s has no serving pod of %s; kube-proxy drops the packet (the node still passes the health check until the unhealthy threshold)", node.Name, s.Key())
		} else {
			out.Result = "REJECTED"
			out.Reason = fmt.Sprintf("service %s has no serving pod: kube-proxy rejects the connection (ICMP port unreachable / TCP reset)", s.Key())
		}
		return out, nil
	}
	sortPods(eps)
	pod := eps[pick(len(eps), "pod")]
	target, err := targetPortOf(w.core.PodSpec(c, pod), sp)
	if err != "" {
		out.Result, out.Reason = "REJECTED", err
		return out, nil
	}
	out.Pod = &api.TracePod{Namespace: pod.Namespace(), Name: pod.Name(), IP: pod.IP.String(), Port: target, Node: pod.Node, Ready: pod.Ready,
		Terminating: pod.Terminating, SameNode: node == nil || pod.Node == node.Name}
	if terminating {
		hop("no ready endpoint%s: using a terminating pod as a last resort (proxy terminating endpoints, GKE 1.26 and later)", map[bool]string{true: " on this node", false: ""}[local])
	}
	switch {
	case via == "clusterIP":
		out.SourceIPAtPod, out.SNAT = req.Client, false
		hop("DNAT to pod %s (%s:%d) on node %s", pod.Key(), pod.IP, target, pod.Node)
	case local:
		out.SourceIPAtPod, out.SNAT = req.Client, false
		hop("externalTrafficPolicy Local: DNAT to local pod %s (%s:%d); no SNAT, the pod sees the client address %s", pod.Key(), pod.IP, target, req.Client)
	default:
		out.SourceIPAtPod, out.SNAT = node.InternalIP, true
		if pod.Node == node.Name {
			hop("externalTrafficPolicy Cluster: DNAT to pod %s (%s:%d) on this node; SNAT to the node address %s", pod.Key(), pod.IP, target, node.InternalIP)
		} else {
			hop("externalTrafficPolicy Cluster: DNAT to pod %s (%s:%d) on node %s; SNAT to %s, so replies come back through %s, which answers the client directly (direct server return)",
				pod.Key(), pod.IP, target, pod.Node, node.InternalIP, node.Name)
		}
	}
	out.Result = "DELIVERED"
	return out, nil
}

// traceTarget finds the Service, port and path that answer a packet, and the node for a node
// port.
func (w *LoadBalancers) traceTarget(c *model.Cluster, req TraceRequest) (*model.Service, corev1.ServicePort, string, *model.Node) {
	var nodeByIP *model.Node
	for _, name := range core.SortedNodeNames(c) {
		if n := c.Nodes[name]; n.InternalIP == req.IP && n.State != model.NodeProvisioning {
			nodeByIP = n
		}
	}
	for _, key := range model.SortedKeys(c.Services) {
		s := c.Services[key]
		for _, p := range s.Spec.Ports {
			if string(p.Protocol) != req.Protocol {
				continue
			}
			switch {
			case s.LB != nil && s.LB.IP == req.IP && p.Port == req.Port:
				return s, p, "loadBalancer", nil
			case s.Spec.ClusterIP == req.IP && p.Port == req.Port:
				return s, p, "clusterIP", nil
			case nodeByIP != nil && p.NodePort == req.Port && p.NodePort != 0:
				return s, p, "nodePort", nodeByIP
			}
		}
	}
	return nil, corev1.ServicePort{}, "", nil
}

// terminatingEndpoints are the Service's pods that are terminating but still running: kube-proxy
// uses them when no ready endpoint is left (on the node, for Local).
func (w *LoadBalancers) terminatingEndpoints(c *model.Cluster, s *model.Service, node *model.Node, local bool) []*model.Pod {
	sel := w.ServiceIndex(c).selectors[s.Key()]
	if sel == nil {
		return nil
	}
	var out []*model.Pod
	consider := func(p *model.Pod) {
		if p.Namespace() == s.Namespace && p.Terminating && p.Node != "" && p.Phase == model.PodRunning && sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	if local {
		for _, p := range w.core.PodIndex(c).On(node.Name).Pods {
			consider(p)
		}
		return out
	}
	for _, p := range c.Pods {
		consider(p)
	}
	return out
}

func sortPods(ps []*model.Pod) {
	sort.Slice(ps, func(i, j int) bool { return ps[i].Key() < ps[j].Key() })
}

// targetPortOf resolves a Service port's targetPort on a pod (a number, or a container port's name).
func targetPortOf(spec *corev1.PodSpec, sp corev1.ServicePort) (int32, string) {
	if sp.TargetPort.Type == intstr.Int {
		return sp.TargetPort.IntVal, ""
	}
	for _, ct := range spec.Containers {
		for _, p := range ct.Ports {
			if p.Name == sp.TargetPort.StrVal {
				return p.ContainerPort, ""
			}
		}
	}
	return 0, fmt.Sprintf("the pod has no container port named %q (targetPort of port %d): the connection is refused", sp.TargetPort.StrVal, sp.Port)
}

func describeBackend(kind string, n LBNames) string {
	switch kind {
	case LBInternalNEG:
		return "backend service " + n.BackendService + " (GCE_VM_IP NEGs " + n.NEG + ")"
	case LBExternalTargetPool:
		return "target pool " + n.TargetPool
	}
	return "backend service " + n.BackendService + " (instance groups " + n.InstanceGroup + ")"
}
