package k8s

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Kubernetes Events of a cluster, derived from the emulator's event log: every entry about a
// pod, a Deployment, a PodDisruptionBudget or a node becomes a core/v1 Event whose
// involvedObject is that object, so that `kubectl describe pod|node|deployment` and `kubectl
// get events` show, in emulated time, what the simulation did (scheduled, evicted, cordoned...).
// Entries about the cluster or its operations have no Kubernetes object and are left out.

// The log names objects in its messages as "pod ns/name", "deployment ns/name" and
// "PodDisruptionBudget ns/name"; the first match decides what an entry is about.
var eventSubjects = []struct {
	re         *regexp.Regexp
	kind, apiV string
}{
	{regexp.MustCompile(`(?:^|\s)pod ([a-z0-9][-a-z0-9.]*)/([a-z0-9][-a-z0-9.]*)`), "Pod", "v1"},
	{regexp.MustCompile(`(?:^|\s)deployment ([a-z0-9][-a-z0-9.]*)/([a-z0-9][-a-z0-9.]*)`), "Deployment", "apps/v1"},
	{regexp.MustCompile(`(?:^|\s)PodDisruptionBudget ([a-z0-9][-a-z0-9.]*)/([a-z0-9][-a-z0-9.]*)`), "PodDisruptionBudget", "policy/v1"},
	{serviceSubject, "Service", "v1"},
}

// eventObject says which Kubernetes object a log entry is about.
func eventObject(e *api.Event) (ref corev1.ObjectReference, ok bool) {
	for _, s := range eventSubjects {
		if m := s.re.FindStringSubmatch(e.Message); m != nil {
			return corev1.ObjectReference{Kind: s.kind, APIVersion: s.apiV, Namespace: m[1], Name: m[2]}, true
		}
	}
	if e.Node != "" {
		return corev1.ObjectReference{Kind: "Node", APIVersion: "v1", Name: e.Node}, true
	}
	return ref, false
}

// eventType is Warning for what went wrong (FailedScheduling, EvictionBlocked, ...Failed).
func eventType(reason string) string {
	if strings.Contains(reason, "Fail") || strings.Contains(reason, "Blocked") || serviceWarnings[reason] {
		return corev1.EventTypeWarning
	}
	return corev1.EventTypeNormal
}

// eventSource is the component that reports such an event in a real cluster.
func eventSource(reason string, ref corev1.ObjectReference) string {
	switch {
	case reason == "Scheduled" || reason == "FailedScheduling":
		return "default-scheduler"
	case ref.Kind == "Deployment":
		return "deployment-controller"
	case ref.Kind == "PodDisruptionBudget":
		return "controllermanager"
	case ref.Kind == "Service":
		return "service-controller"
	}
	return "gkesim"
}

// k8sEvents renders the cluster's events in namespace ns ("" = all), oldest first; with name,
// only those that may be about an object of that name (what kubectl describe asks for: the
// log can hold 200,000 entries, and this runs on the simulation's loop). Events are objects of
// the cluster: their resourceVersion comes from its counter (the change feed knows it for the
// newest; older ones show the oldest version the feed holds).
func k8sEvents(w *sim.World, cl *sim.Cluster, ns, name string) *corev1.EventList {
	out := &corev1.EventList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "EventList"}, Items: []corev1.Event{}}
	entries, _ := w.Events(sim.EventFilter{Cluster: cl.Key()})
	out.ResourceVersion = strconv.FormatInt(cl.RV, 10)
	rvs, oldest := w.EventResourceVersions(cl)
	uids := map[corev1.ObjectReference]types.UID{}
	for _, e := range entries {
		if name != "" && e.Node != name && !strings.Contains(e.Message, name) {
			continue
		}
		ev := eventOf(w, cl, e, uids)
		if ev == nil || (ns != "" && ev.Namespace != ns) {
			continue
		}
		rv, ok := rvs[e.Seq]
		if !ok {
			rv = oldest
		}
		ev.ResourceVersion = strconv.FormatInt(rv, 10)
		out.Items = append(out.Items, *ev)
	}
	return out
}

// eventOf renders an event-log entry as a Kubernetes Event, or nil when it is about no
// Kubernetes object. uids caches the uids of the objects (nil: none).
func eventOf(w *sim.World, cl *sim.Cluster, e *api.Event, uids map[corev1.ObjectReference]types.UID) *corev1.Event {
	ref, ok := eventObject(e)
	if !ok {
		return nil
	}
	evNS, host := ref.Namespace, ""
	if ref.Kind == "Node" {
		evNS, host = metav1.NamespaceDefault, ref.Name // where and how the kubelet records node events
	}
	uid, seen := uids[ref]
	if !seen {
		uid = liveUID(w, cl, ref)
		if uids != nil {
			uids[ref] = uid
		}
	}
	ref.UID = uid
	t, _ := time.Parse(time.RFC3339, e.Time)
	ts := metav1.NewTime(t)
	return &corev1.Event{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s.%x", ref.Name, e.Seq), Namespace: evNS,
			UID: eventUID(cl.Key(), e.Seq), CreationTimestamp: ts},
		InvolvedObject: ref, Reason: e.Type, Message: e.Message, Type: eventType(e.Type),
		Source:         corev1.EventSource{Component: eventSource(e.Type, ref), Host: host},
		FirstTimestamp: ts, LastTimestamp: ts, Count: 1,
		ReportingController: "gkesim.io/" + eventSource(e.Type, ref), ReportingInstance: "gkesim",
	}
}

// liveUID is the uid of the object an event is about, if it still exists: kubectl describe
// selects events by involvedObject.uid.
func liveUID(w *sim.World, cl *sim.Cluster, ref corev1.ObjectReference) types.UID {
	key := ref.Namespace + "/" + ref.Name
	switch ref.Kind {
	case "Pod":
		if p := cl.Pods[key]; p != nil {
			return types.UID(sim.PodUID(cl, p))
		}
	case "Deployment":
		if d := cl.Deployments[key]; d != nil {
			return types.UID(d.UID)
		}
	case "PodDisruptionBudget":
		if b := cl.PDBs[key]; b != nil {
			return types.UID(b.UID)
		}
	case "Service":
		if s := cl.Services[key]; s != nil {
			return types.UID(s.UID)
		}
	case "Node":
		if n, err := w.GetK8sNode(cl, ref.Name); err == nil {
			return n.UID
		}
	}
	return ""
}

// eventUID is a stable UUID-shaped id for the seq-th log entry of a cluster.
func eventUID(cluster string, seq int64) types.UID {
	h := fnv.New64a()
	h.Write([]byte(cluster))
	return types.UID(fmt.Sprintf("%08x-%04x-4%03x-8000-%012x", h.Sum64()>>32, h.Sum64()&0xffff, (h.Sum64()>>16)&0xfff, seq))
}

// getEvent finds one event by name.
func getEvent(w *sim.World, cl *sim.Cluster, ns, name string) (*corev1.Event, error) {
	obj := name[:max(strings.LastIndexByte(name, '.'), 0)] // events are named {object}.{seq}
	for _, e := range k8sEvents(w, cl, ns, obj).Items {
		if e.Name == name {
			return &e, nil
		}
	}
	return nil, k8sNotFound("events", name)
}
