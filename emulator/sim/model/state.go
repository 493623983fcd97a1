package model

import (
	"strconv"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/eventq"
)

// Event is a scheduled simulation step. It is data (a kind plus references), not a closure,
// so that the queue can be persisted and replayed.
//
// Its fields are the saved form (the JSON keeps their names). An event about a pod or a
// Deployment keeps the object's key in Node, and a load balancer's event keeps the generation it
// is for in Op: such events are made and read through the named constructors and accessors
// below (PodEvent and PodKey, DeploymentEvent and DeploymentKey, LBEvent and LBGeneration),
// never through the fields.
type Event struct {
	Kind    string `json:"kind"`
	Cluster string `json:"cluster,omitempty"`
	Pool    string `json:"pool,omitempty"`
	Node    string `json:"node,omitempty"`
	Op      string `json:"op,omitempty"`
	// Service is namespace/name of a Service (load balancer events).
	Service string `json:"service,omitempty"`
	// pod is the pod a PodEvent was made for: its handle while the simulation runs, not
	// saved (PodIn).
	pod *Pod
}

// PodEvent is an event of kind about pod p of cluster.
func PodEvent(kind, cluster string, p *Pod) Event {
	return Event{Kind: kind, Cluster: cluster, Node: p.Key(), pod: p}
}

// PodKey is the pod (namespace/name) a PodEvent is about.
func (e Event) PodKey() string { return e.Node }

// CheckHandles makes PodIn look the pod up by its key as well, and panic if the handle found
// another: the simulation's tests set it, so that every pod event of every test holds its
// handle to what the key finds.
var CheckHandles bool

// PodIn is the pod a PodEvent is about in c, the cluster it names, or nil. The event's handle
// gives it without hashing its key while that pod is still c's (a pod leaves its cluster only
// in the ways Pod.MarkRemoved names); otherwise, and for an event restored from a saved state
// (which has no handle), it is what the key finds now, as it always was: another pod may have
// taken the key since.
func (e Event) PodIn(c *Cluster) *Pod {
	p := e.pod
	if p == nil || p.Removed() {
		return c.Pods[e.Node]
	}
	if CheckHandles && c.Pods[e.Node] != p {
		panic("pod event " + e.Kind + " for " + e.Node + ": its handle is not the pod its key finds")
	}
	return p
}

// DeploymentEvent is an event of kind about the Deployment key (namespace/name) of cluster.
func DeploymentEvent(kind, cluster, key string) Event {
	return Event{Kind: kind, Cluster: cluster, Node: key}
}

// DeploymentKey is the Deployment (namespace/name) a DeploymentEvent is about.
func (e Event) DeploymentKey() string { return e.Node }

// LBEvent is an event of kind about the load balancer of Service service (namespace/name) of
// cluster, at generation gen of the load balancer; node names a backend when it is about one.
func LBEvent(kind, cluster, service, node string, gen int64) Event {
	return Event{Kind: kind, Cluster: cluster, Service: service, Node: node, Op: strconv.FormatInt(gen, 10)}
}

// LBGeneration is the load balancer generation an LBEvent is for ("": any).
func (e Event) LBGeneration() string { return e.Op }

// State is everything the simulation knows. A store saves and restores it whole.
type State struct {
	Now        time.Time             `json:"now"`
	Seed       uint64                `json:"seed"`
	Rand       []byte                `json:"rand"`
	Clusters   map[string]*Cluster   `json:"clusters"`
	Operations map[string]*Operation `json:"operations"`
	OpSeq      int64                 `json:"opSeq"`
	Faults     []*Fault              `json:"faults,omitempty"`
	FaultSeq   int                   `json:"faultSeq,omitempty"`
	Queue      eventq.Queue[Event]   `json:"queue"`
	Log        EventLog              `json:"log"`
	// Compute is what users created in Compute Engine outside GKE (loadbalancers.go; package compute serves them).
	Compute *UserCompute `json:"compute,omitempty"`
}

// InitMaps makes a cluster's object maps non-nil (new clusters, and states saved without them).
func (c *Cluster) InitMaps() {
	if c.Nodes == nil {
		c.Nodes = map[string]*Node{}
	}
	if c.Namespaces == nil {
		c.Namespaces = map[string]*Namespace{}
	}
	if c.Deployments == nil {
		c.Deployments = map[string]*Deployment{}
	}
	if c.Pods == nil {
		c.Pods = map[string]*Pod{}
	}
	if c.PDBs == nil {
		c.PDBs = map[string]*PDB{}
	}
	// Empty maps are not saved (omitempty): a restored load balancer gets them back.
	for _, s := range c.Services {
		if lb := s.LB; lb != nil {
			if lb.Members == nil {
				lb.Members = map[string]string{}
			}
			if lb.Health == nil {
				lb.Health = map[string]*BackendHealth{}
			}
			if lb.Warned == nil {
				lb.Warned = map[string]bool{}
			}
		}
	}
}

// Day is an emulated day.
const Day = 24 * time.Hour
