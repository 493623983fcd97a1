package clusterimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Reading a snapshot of a real cluster (import.go): the cluster as `gcloud container clusters
// describe --format json` prints it and its objects as `kubectl get ... -A -o json` prints
// them. Reading is a pure function of the input: it decodes what the simulation needs, checks
// that the pieces belong together (a node list with its pods, pods on nodes that are in it,
// nodes of the cluster's pools, a GKE cluster and not another kind), and refuses with every
// problem named, so that nothing is imported from a snapshot that does not hold together.
// Objects of kinds gkesim does not simulate are read no further than their kind and name:
// a Secret's data is never looked at.

// Snapshot is a real cluster and its objects, read and checked. It is never changed once
// read, so one snapshot can be imported into several worlds (a rehearsal comparing strategies).
type Snapshot struct {
	cluster *api.Cluster
	// project is the project the cluster's selfLink names ("" if none).
	project string
	// location is the cluster's location (location, or zone in older output).
	location string
	// time is when the snapshot was taken.
	time time.Time

	nodes        []*corev1.Node
	pods         []*corev1.Pod
	namespaces   map[string]*corev1.Namespace
	deployments  map[string]*appsv1.Deployment
	replicaSets  map[string]*appsv1.ReplicaSet
	statefulSets map[string]*appsv1.StatefulSet
	daemonSets   map[string]*appsv1.DaemonSet
	pdbs         []*policyv1.PodDisruptionBudget
	services     []*corev1.Service
	// others are the objects of kinds gkesim does not simulate: kind -> namespace/name.
	others map[string][]string
	// warnings are inconsistencies the import works around.
	warnings []*api.ImportNote
}

// Name, Project, Location and Time describe the snapshot's cluster and when it was taken.
func (s *Snapshot) Name() string     { return s.cluster.Name }
func (s *Snapshot) Project() string  { return s.project }
func (s *Snapshot) Location() string { return s.location }
func (s *Snapshot) Time() time.Time  { return s.time }

// importProblems collects what is wrong with a snapshot, to refuse it with all of it at once.
type importProblems struct{ list []string }

func (p *importProblems) add(format string, args ...any) {
	p.list = append(p.list, fmt.Sprintf(format, args...))
}

// err is the refusal: every problem (the first 25), and that nothing was imported.
func (p *importProblems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	shown := p.list
	more := ""
	if len(shown) > 25 {
		shown, more = shown[:25], fmt.Sprintf("\n- ... and %d more", len(p.list)-25)
	}
	return model.InvalidArgument("The snapshot cannot be imported (nothing was imported): %d problem(s):\n- %s%s",
		len(p.list), strings.Join(shown, "\n- "), more)
}

// commandHint is how a user prints what the import needs.
const commandHint = "print the cluster with `gcloud container clusters describe CLUSTER --location LOCATION --format json` and its objects with " +
	"`kubectl get nodes,pods,deployments,replicasets,statefulsets,daemonsets,pdb,services -A -o json`"

// ReadSnapshot reads and checks an import request.
func ReadSnapshot(req *api.ImportClusterRequest) (*Snapshot, error) {
	return readSnapshot(req, decodeObject)
}

// ReadSnapshotInFull is ReadSnapshot decoding every object into every field of its Kubernetes
// type: what ReadSnapshot must import the same as (the tests compare the two).
func ReadSnapshotInFull(req *api.ImportClusterRequest) (*Snapshot, error) {
	return readSnapshot(req, decodeObjectInFull)
}

func readSnapshot(req *api.ImportClusterRequest, decode func(json.RawMessage, string) decoded) (*Snapshot, error) {
	if req == nil || len(bytes.TrimSpace(req.Cluster)) == 0 {
		return nil, model.InvalidArgument("Required field \"cluster\" is missing: %s, and send them as {\"cluster\": ..., \"objects\": ...}.", commandHint)
	}
	if len(bytes.TrimSpace(req.Objects)) == 0 {
		return nil, model.InvalidArgument("Required field \"objects\" is missing: %s, and send them as {\"cluster\": ..., \"objects\": ...}.", commandHint)
	}
	s := &Snapshot{namespaces: map[string]*corev1.Namespace{}, deployments: map[string]*appsv1.Deployment{},
		replicaSets: map[string]*appsv1.ReplicaSet{}, statefulSets: map[string]*appsv1.StatefulSet{},
		daemonSets: map[string]*appsv1.DaemonSet{}, others: map[string][]string{}}
	if err := s.readCluster(req.Cluster); err != nil {
		return nil, err
	}
	if err := s.readObjects(req.Objects, decode); err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	s.time = s.newestTime()
	if req.SnapshotTime != "" {
		t, err := time.Parse(time.RFC3339, req.SnapshotTime)
		if err != nil {
			return nil, model.InvalidField("snapshotTime", fmt.Sprintf("%q", req.SnapshotTime), "Give the time the snapshot was taken in RFC 3339, e.g. \"2026-05-04T03:00:00Z\"")
		}
		s.time = t.UTC().Truncate(time.Second)
	}
	if s.time.IsZero() {
		return nil, model.InvalidArgument("The snapshot carries no time (no node heartbeat, no creation time): give snapshotTime, the time it was taken.")
	}
	return s, nil
}

// jsonError says where in a document a decoding error is, by line and column.
func jsonError(doc string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	offset := int64(-1)
	switch {
	case errors.As(err, &se):
		offset = se.Offset - 1 // the offending byte
	case errors.As(err, &te):
		offset = te.Offset
	}
	if offset < 0 || offset >= int64(len(data)) {
		return model.InvalidArgument("The %s is not valid JSON: %v.", doc, err)
	}
	line := 1 + bytes.Count(data[:offset], []byte("\n"))
	col := int(offset) - bytes.LastIndexByte(data[:offset], '\n')
	return model.InvalidArgument("The %s is not valid JSON at line %d, column %d: %v.", doc, line, col, err)
}

// readCluster reads the cluster and refuses JSON that describes something else.
func (s *Snapshot) readCluster(data []byte) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return jsonError("cluster JSON", data, err)
	}
	switch {
	case probe["items"] != nil || probe["kind"] != nil:
		return model.InvalidArgument("The cluster JSON is a Kubernetes object (it has \"kind\"): give it as the objects, and as the cluster %s.",
			"what `gcloud container clusters describe CLUSTER --location LOCATION --format json` prints")
	case probe["arn"] != nil || probe["cluster"] != nil:
		return model.InvalidArgument("The cluster JSON is not a GKE cluster: it looks like `aws eks describe-cluster` output (an EKS cluster). gkesim imports GKE clusters: %s.", commandHint)
	case probe["agentPoolProfiles"] != nil || probe["type"] != nil:
		return model.InvalidArgument("The cluster JSON is not a GKE cluster: it looks like an AKS cluster (`az aks show`). gkesim imports GKE clusters: %s.", commandHint)
	}
	var c api.Cluster
	if err := json.Unmarshal(data, &c); err != nil {
		return jsonError("cluster JSON", data, err)
	}
	s.cluster = &c
	var p importProblems
	if c.Name == "" {
		p.add("the cluster JSON has no \"name\": is it `gcloud container clusters describe` output?")
	}
	s.location = c.Location
	if s.location == "" {
		s.location = c.Zone
	}
	if s.location == "" {
		p.add("the cluster JSON has no \"location\" (nor \"zone\")")
	}
	if c.CurrentMasterVersion == "" {
		p.add("the cluster JSON has no \"currentMasterVersion\"")
	}
	if len(c.NodePools) == 0 && (c.Autopilot == nil || !c.Autopilot.Enabled) {
		p.add("the cluster JSON has no \"nodePools\"")
	}
	if c.Autopilot != nil && c.Autopilot.Enabled {
		p.add("cluster %s is an Autopilot cluster: GKE manages its node pools, and gkesim imports Standard clusters only", c.Name)
	}
	// selfLink: https://container.googleapis.com/v1/projects/P/{locations|zones}/L/clusters/C
	if _, rest, ok := strings.Cut(c.SelfLink, "/projects/"); ok {
		s.project, _, _ = strings.Cut(rest, "/")
	}
	return p.err()
}

// objectHeader is what every object has.
type objectHeader struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

func (h objectHeader) key() string {
	if h.Metadata.Namespace == "" {
		return h.Metadata.Name
	}
	return model.NamespacedKey(h.Metadata.Namespace, h.Metadata.Name)
}

// listItems flattens the objects document: a List (kubectl's "List", or a typed list such as
// "PodList", whose items carry no kind), a single object, or a JSON array of those.
func listItems(data []byte, kind string, out *[]json.RawMessage, kinds *[]string) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var docs []json.RawMessage
		if err := json.Unmarshal(data, &docs); err != nil {
			return err
		}
		for _, d := range docs {
			if err := listItems(d, "", out, kinds); err != nil {
				return err
			}
		}
		return nil
	}
	var l struct {
		Kind  string            `json:"kind"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return err
	}
	if l.Items == nil && !strings.HasSuffix(l.Kind, "List") {
		*out = append(*out, data)
		*kinds = append(*kinds, kind)
		return nil
	}
	itemKind := strings.TrimSuffix(l.Kind, "List")
	for _, it := range l.Items {
		*out = append(*out, it)
		*kinds = append(*kinds, itemKind)
	}
	return nil
}

// decoded is one object of the snapshot, decoded.
type decoded struct {
	h   objectHeader
	obj any // *corev1.Node, *corev1.Pod ...; nil for the kinds gkesim does not simulate
	err error
}

// readObjects decodes the objects the simulation needs and notes the others by kind and name.
// Decoding, the bulk of an import's time, runs on every core; what it gives is used in the
// objects' order, so the snapshot is the same however the work was shared.
func (s *Snapshot) readObjects(data []byte, decode func(json.RawMessage, string) decoded) error {
	var items []json.RawMessage
	var listKinds []string
	if err := listItems(data, "", &items, &listKinds); err != nil {
		return jsonError("objects JSON", data, err)
	}
	out := make([]decoded, len(items))
	workers := min(runtime.GOMAXPROCS(0), 8, len(items)/256+1)
	var wg sync.WaitGroup
	for wi := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := wi; i < len(items); i += workers {
				out[i] = decode(items[i], listKinds[i])
			}
		}()
	}
	wg.Wait()
	var p importProblems
	seen := make(map[string]bool, len(items))
	for i, d := range out {
		h := d.h
		switch {
		case d.err != nil && h.Kind == "":
			p.add("objects item %d is not a Kubernetes object: %v", i, d.err)
			continue
		case h.Kind == "":
			p.add("objects item %d (%q) has no kind", i, h.key())
			continue
		case h.Kind == "Cluster" || h.Metadata.Name == "":
			p.add("objects item %d is not a Kubernetes object with a name (kind %q): the objects are `kubectl get ... -o json` output", i, h.Kind)
			continue
		}
		id := h.Kind + " " + h.key()
		if seen[id] {
			p.add("%s appears twice in the objects", id)
			continue
		}
		seen[id] = true
		if d.err != nil {
			p.add("%s: %v", id, d.err)
			continue
		}
		s.keep(h, d.obj)
	}
	sort.Slice(s.nodes, func(i, j int) bool { return s.nodes[i].Name < s.nodes[j].Name })
	sort.Slice(s.pods, func(i, j int) bool { return podKey(s.pods[i]) < podKey(s.pods[j]) })
	sort.Slice(s.pdbs, func(i, j int) bool {
		return s.pdbs[i].Namespace+"/"+s.pdbs[i].Name < s.pdbs[j].Namespace+"/"+s.pdbs[j].Name
	})
	sort.Slice(s.services, func(i, j int) bool {
		return s.services[i].Namespace+"/"+s.services[i].Name < s.services[j].Namespace+"/"+s.services[j].Name
	})
	for k := range s.others {
		sort.Strings(s.others[k])
	}
	return p.err()
}

// readHeader reads an object's kind, API version and name. kubectl and the API server write
// apiVersion, kind and metadata first: those are read and the rest is left unread; an object
// written otherwise is read whole.
func readHeader(raw []byte) (objectHeader, error) {
	var h objectHeader
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return h, json.Unmarshal(raw, &h)
	}
	for range 3 {
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			break
		}
		var into any
		switch key {
		case "apiVersion":
			into = &h.APIVersion
		case "kind":
			into = &h.Kind
		case "metadata":
			into = &h.Metadata
		default:
			return h, json.Unmarshal(raw, &h)
		}
		if err := dec.Decode(into); err != nil {
			return h, err
		}
	}
	if h.Kind == "" || h.Metadata.Name == "" {
		return h, json.Unmarshal(raw, &h)
	}
	return h, nil
}

// decodeObjectInFull decodes one object of a kind the simulation models into its Kubernetes
// type, every field; of the others only the header is read.
func decodeObjectInFull(raw json.RawMessage, listKind string) decoded {
	h, err := readHeader(raw)
	if err != nil {
		return decoded{err: err}
	}
	if h.Kind == "" {
		h.Kind = listKind
	}
	var obj any
	switch h.Kind {
	case "Node":
		obj = &corev1.Node{}
	case "Pod":
		obj = &corev1.Pod{}
	case "Namespace":
		obj = &corev1.Namespace{}
	case "Deployment":
		obj = &appsv1.Deployment{}
	case "ReplicaSet":
		obj = &appsv1.ReplicaSet{}
	case "StatefulSet":
		obj = &appsv1.StatefulSet{}
	case "DaemonSet":
		obj = &appsv1.DaemonSet{}
	case "PodDisruptionBudget":
		obj = &policyv1.PodDisruptionBudget{} // policy/v1beta1's spec reads as policy/v1's
	case "Service":
		obj = &corev1.Service{}
	default:
		// Not simulated; a Secret's data, like everything else of these objects, is not read.
		return decoded{h: h}
	}
	if err := json.Unmarshal(raw, obj); err != nil {
		return decoded{h: h, err: err}
	}
	return decoded{h: h, obj: obj}
}

// keep files a decoded object in the snapshot.
func (s *Snapshot) keep(h objectHeader, obj any) {
	switch o := obj.(type) {
	case *corev1.Node:
		s.nodes = append(s.nodes, o)
	case *corev1.Pod:
		s.pods = append(s.pods, o)
	case *corev1.Namespace:
		s.namespaces[o.Name] = o
	case *appsv1.Deployment:
		s.deployments[h.key()] = o
	case *appsv1.ReplicaSet:
		s.replicaSets[h.key()] = o
	case *appsv1.StatefulSet:
		s.statefulSets[h.key()] = o
	case *appsv1.DaemonSet:
		s.daemonSets[h.key()] = o
	case *policyv1.PodDisruptionBudget:
		s.pdbs = append(s.pdbs, o)
	case *corev1.Service:
		s.services = append(s.services, o)
	default:
		s.others[h.Kind] = append(s.others[h.Kind], h.key())
	}
}

func podKey(p *corev1.Pod) string { return model.NamespacedKey(p.Namespace, p.Name) }

// Labels GKE puts on its nodes.
const (
	labelNodePool     = "cloud.google.com/gke-nodepool"
	labelZone         = "topology.kubernetes.io/zone"
	labelZoneLegacy   = "failure-domain.beta.kubernetes.io/zone"
	labelInstanceType = "node.kubernetes.io/instance-type"
	labelTypeLegacy   = "beta.kubernetes.io/instance-type"
)

func nodeZone(n *corev1.Node) string {
	if z := n.Labels[labelZone]; z != "" {
		return z
	}
	return n.Labels[labelZoneLegacy]
}

// otherProvider names the provider of a node that is not a GKE node, from its providerID.
func otherProvider(n *corev1.Node) string {
	id := n.Spec.ProviderID
	switch {
	case strings.HasPrefix(id, "aws://"):
		return "an EKS (AWS) node"
	case strings.HasPrefix(id, "azure://"):
		return "an AKS (Azure) node"
	case strings.HasPrefix(id, "kind://"):
		return "a kind node"
	case id != "" && !strings.HasPrefix(id, "gce://"):
		return "not a Compute Engine VM (providerID " + id + ")"
	}
	return ""
}

// check refuses a snapshot whose pieces do not belong together.
func (s *Snapshot) check() error {
	var p importProblems
	pools := map[string]bool{}
	for _, np := range s.cluster.NodePools {
		if np != nil {
			pools[np.Name] = true
		}
	}
	nodes := map[string]bool{}
	for _, n := range s.nodes {
		nodes[n.Name] = true
		if other := otherProvider(n); other != "" {
			p.add("node %s is %s: gkesim imports GKE clusters", n.Name, other)
			continue
		}
		pool := n.Labels[labelNodePool]
		switch {
		case pool == "":
			p.add("node %s has no label %s: it is not a GKE node (or not of cluster %s)", n.Name, labelNodePool, s.cluster.Name)
		case !pools[pool]:
			p.add("node %s is in node pool %q, which cluster %s does not have (pools: %s): are the objects from another cluster?",
				n.Name, pool, s.cluster.Name, strings.Join(model.SortedKeys(pools), ", "))
		}
		if nodeZone(n) == "" {
			p.add("node %s has no label %s", n.Name, labelZone)
		}
	}
	expected := int(s.cluster.CurrentNodeCount)
	if expected == 0 {
		for _, np := range s.cluster.NodePools {
			if np != nil && np.InitialNodeCount > 0 {
				expected = -1 // has nodes, how many unknown
			}
		}
	}
	switch {
	case len(s.nodes) == 0 && expected != 0:
		p.add("the objects hold no Node, but cluster %s has nodes: %s (nodes first)", s.cluster.Name, commandHint)
	case len(s.nodes) > 0 && len(s.pods) == 0:
		p.add("the objects hold %d nodes and no Pod (every GKE node runs at least kube-proxy): %s", len(s.nodes), commandHint)
	}
	var away []string
	for _, pod := range s.pods {
		if _, err := model.ParseIP(pod.Status.PodIP); err != nil {
			p.add("pod %s: status.podIP: %v", podKey(pod), err)
		}
		if pod.Spec.NodeName != "" && !nodes[pod.Spec.NodeName] && len(s.nodes) > 0 {
			away = append(away, fmt.Sprintf("pod %s is on node %s", podKey(pod), pod.Spec.NodeName))
		}
	}
	if len(away) > 0 {
		shown := away
		if len(shown) > 10 {
			shown = shown[:10]
		}
		p.add("%d pods are on nodes that are not among the objects' %d nodes (were the nodes and pods printed at different times, or from different clusters?): %s",
			len(away), len(s.nodes), strings.Join(shown, "; "))
	}
	if expected > 0 && len(s.nodes) > 0 && expected != len(s.nodes) {
		s.warnings = append(s.warnings, &api.ImportNote{Note: fmt.Sprintf("the cluster JSON says %d nodes (currentNodeCount) and the objects hold %d: they were printed at different times; the objects' nodes are imported", expected, len(s.nodes))})
	}
	return p.err()
}

// newestTime is the newest time the snapshot carries: node heartbeats and every creation time.
func (s *Snapshot) newestTime() time.Time {
	var t time.Time
	later := func(u time.Time) {
		if u.After(t) {
			t = u
		}
	}
	for _, n := range s.nodes {
		later(n.CreationTimestamp.Time)
		for _, c := range n.Status.Conditions {
			later(c.LastHeartbeatTime.Time)
			later(c.LastTransitionTime.Time)
		}
	}
	for _, p := range s.pods {
		later(p.CreationTimestamp.Time)
		for _, c := range p.Status.Conditions {
			later(c.LastTransitionTime.Time)
		}
	}
	if ct, err := time.Parse(time.RFC3339, s.cluster.CreateTime); err == nil {
		later(ct)
	}
	return t.UTC().Truncate(time.Second)
}
