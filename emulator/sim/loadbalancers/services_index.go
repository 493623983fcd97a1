package loadbalancers

import (
	"slices"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// A cluster's Service index: what its Services hold (cluster IPs, node ports), which have a
// load balancer, and their endpoints (the serving pods, per node), kept current as pods change.

// ServiceIndex is a cluster's derived view of its Services: allocations and endpoints. It is
// rebuilt from the state on first use and kept current by every change.
type ServiceIndex struct {
	NodePorts  map[int32]string  // node port (healthCheckNodePort too) -> service key
	ClusterIPs map[string]string // cluster IP -> service key
	byNS       map[string]map[string]*model.Service
	// inNS is byNS[namespace] in name order with each Service's key, made when a pod of the
	// namespace first changes after a Service of it was added or removed.
	inNS      map[string][]keyedService
	selectors map[string]labels.Selector // nil: the Service has no selector (no endpoints)
	// serving: service key -> its serving pods (running, ready, not terminating) -> node.
	serving map[string]map[*model.Pod]string
	// perNode: service key -> node -> serving pods there.
	PerNode map[string]map[string]int
	// lbs are the Services with a load balancer, in any state.
	Lbs        map[string]*model.Service
	SyncQueued map[string]bool
}

// ServiceIndex returns the Service index of c, building it if needed.
func (w *LoadBalancers) ServiceIndex(c *model.Cluster) *ServiceIndex {
	if w.Svcs == nil {
		w.Svcs = map[*model.Cluster]*ServiceIndex{}
	}
	if ix, ok := w.Svcs[c]; ok {
		return ix
	}
	ix := &ServiceIndex{NodePorts: map[int32]string{}, ClusterIPs: map[string]string{}, byNS: map[string]map[string]*model.Service{},
		inNS:      map[string][]keyedService{},
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
func (ix *ServiceIndex) track(s *model.Service) {
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
	delete(ix.inNS, s.Namespace)
	ix.selectors[key] = nil
	if len(s.Spec.Selector) > 0 {
		ix.selectors[key] = labels.SelectorFromSet(s.Spec.Selector)
	}
	if s.LB != nil {
		ix.Lbs[key] = s
	}
}

// untrack removes a Service's allocations from the index.
func (ix *ServiceIndex) untrack(s *model.Service) {
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
	delete(ix.inNS, s.Namespace)
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
		if p.Namespace() == s.Namespace && sel.Matches(labels.Set(p.Labels)) && servingPod(c, p) {
			ix.serving[key][p] = p.Node
			ix.PerNode[key][p.Node]++
		}
	}
}

// ServicePodChanged keeps the endpoints of the Services selecting p current: called when a pod
// starts, becomes ready, starts terminating or goes. Nodes that gain their first or lose their
// last serving pod change the load balancer's view (R-LB-3 Local membership, R-LB-6 health).
func (w *LoadBalancers) ServicePodChanged(c *model.Cluster, p *model.Pod) {
	if len(c.Services) == 0 {
		return
	}
	ix := w.ServiceIndex(c)
	inNS := ix.servicesIn(p.Namespace())
	if len(inNS) == 0 {
		return
	}
	serving := servingPod(c, p)
	for _, ks := range inNS { // in name order: the events it schedules are deterministic
		s, key := ks.s, ks.key
		sel := ix.selectors[key]
		if sel == nil {
			continue
		}
		node, was := ix.serving[key][p]
		is := serving && sel.Matches(labels.Set(p.Labels))
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

// keyedService is a Service with its key.
type keyedService struct {
	s   *model.Service
	key string
}

// servicesIn lists the Services of namespace ns in name order (ServiceIndex.inNS).
func (ix *ServiceIndex) servicesIn(ns string) []keyedService {
	if l, ok := ix.inNS[ns]; ok {
		return l
	}
	byName := ix.byNS[ns]
	if len(byName) == 0 {
		return nil // not kept: a namespace without Services is looked up in byNS
	}
	l := make([]keyedService, 0, len(byName))
	for _, name := range model.SortedKeys(byName) {
		l = append(l, keyedService{byName[name], byName[name].Key()})
	}
	ix.inNS[ns] = l
	return l
}

// SortedLBs lists services with a load balancer by key.
func (ix *ServiceIndex) SortedLBs() []*model.Service {
	if len(ix.Lbs) == 0 {
		return nil // the common case, at every node change: nothing to build or sort
	}
	out := make([]*model.Service, 0, len(ix.Lbs))
	for _, s := range ix.Lbs {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *model.Service) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}
