package model

import (
	"slices"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Services, the load balancers GKE builds for them, and the users' own Compute objects.

// Service is a core/v1 Service. Spec is kept as sent (defaulted and allocated); the status and
// GKE's annotations are rendered from the load balancer.
type Service struct {
	Namespace   string             `json:"namespace"`
	Name        string             `json:"name"`
	UID         string             `json:"uid"`
	Labels      map[string]string  `json:"labels,omitempty"`
	Annotations map[string]string  `json:"annotations,omitempty"`
	Spec        corev1.ServiceSpec `json:"spec"`
	CreateTime  time.Time          `json:"createTime"`
	RV          int64              `json:"rv"`
	// System marks the Services every cluster has (kubernetes, kube-dns).
	System bool `json:"system,omitempty"`
	// Deleting: the Service is deleted but keeps its finalizer until its load balancer is gone.
	Deleting     bool      `json:"deleting,omitempty"`
	DeletionTime time.Time `json:"deletionTime,omitempty"`
	// LB is what GKE built for it (type LoadBalancer), if anything.
	LB            *LoadBalancer               `json:"lb,omitempty"`
	ManagedFields []metav1.ManagedFieldsEntry `json:"managedFields,omitempty"`
}

// Key is namespace/name.
func (s *Service) Key() string { return NamespacedKey(s.Namespace, s.Name) }

func (s *Service) Local() bool {
	return s.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}

// ServicesByName returns the cluster's Services, making the map on first use.
func (c *Cluster) ServicesByName() map[string]*Service {
	if c.Services == nil {
		c.Services = map[string]*Service{}
	}
	return c.Services
}

// LoadBalancer is what GKE built for a LoadBalancer Service.
type LoadBalancer struct {
	Kind     string `json:"kind"`
	Internal bool   `json:"internal"`
	// Gen tells this load balancer's scheduled events from those of one it replaced.
	Gen       int64     `json:"gen"`
	State     string    `json:"state"`
	IP        string    `json:"ip"`
	Start     time.Time `json:"start"`
	ReadyTime time.Time `json:"readyTime,omitempty"`
	// Failed says why GKE cannot build it (the Service keeps waiting).
	Failed string `json:"failed,omitempty"`
	// Blocked says why GKE's last attempt to build it or sync its instance groups failed, and
	// when it tries again (R-LB-5, loadbalancers/loadbalancer_igs.go).
	Blocked *LBBlock `json:"blocked,omitempty"`
	// Members are the backend VMs: node -> zone.
	Members map[string]string         `json:"members,omitempty"`
	Health  map[string]*BackendHealth `json:"health,omitempty"`
	// Warned remembers the warnings already given (R-LB-3, R-LB-4), so each is given once.
	Warned map[string]bool `json:"warned,omitempty"`
}

// BackendHealth is a backend VM's health as the load balancer sees it.
type BackendHealth struct {
	State string `json:"state"`
	// Passing says whether its probes succeed now.
	Passing bool      `json:"passing"`
	Since   time.Time `json:"since"`
	// Due is when the state changes to what Passing says, if it will.
	Due time.Time `json:"due,omitempty"`
	// WasHealthy: it has been healthy once (later changes are logged).
	WasHealthy bool `json:"wasHealthy,omitempty"`
}

// LBBlock is why GKE's last attempt to build a load balancer or sync its instance groups
// failed (R-LB-5), and when it tries again.
type LBBlock struct {
	// Instance, Group and BackendService are paths: the node, the load-balanced group created
	// outside GKE that holds it, and a backend service that has that group as a backend.
	Instance       string    `json:"instance"`
	Group          string    `json:"group"`
	BackendService string    `json:"backendService"`
	Message        string    `json:"message"`
	Attempts       int       `json:"attempts"`
	Since          time.Time `json:"since"`
	RetryAt        time.Time `json:"retryAt"`
}

// UserCompute is what users created in Compute Engine.
type UserCompute struct {
	// BackendServices by path: projects/P/regions/R/backendServices/N.
	BackendServices map[string]*UserBackendService `json:"backendServices,omitempty"`
	// InstanceGroups by path: projects/P/zones/Z/instanceGroups/N.
	InstanceGroups map[string]*UserInstanceGroup `json:"instanceGroups,omitempty"`
	// Operations are the newest write operations (at most maxComputeOps), oldest first.
	Operations []*ComputeOp `json:"operations,omitempty"`
	Seq        int64        `json:"seq"`
}

// UserBackendService is a regional backend service created outside GKE.
type UserBackendService struct {
	Project             string        `json:"project"`
	Region              string        `json:"region"`
	Name                string        `json:"name"`
	ID                  string        `json:"id"`
	Description         string        `json:"description,omitempty"`
	LoadBalancingScheme string        `json:"loadBalancingScheme"`
	Protocol            string        `json:"protocol"`
	SessionAffinity     string        `json:"sessionAffinity"`
	Network             string        `json:"network,omitempty"`
	HealthChecks        []string      `json:"healthChecks,omitempty"`
	Backends            []UserBackend `json:"backends,omitempty"`
	// TimeoutSec is 0 in states saved before it was kept: Compute's default, 30 s.
	TimeoutSec         int32     `json:"timeoutSec,omitempty"`
	DrainingTimeoutSec int32     `json:"drainingTimeoutSec,omitempty"`
	PortName           string    `json:"portName,omitempty"`
	CreateTime         time.Time `json:"createTime"`
}

// UserBackend is a backend of a user's backend service: an instance group, by path.
type UserBackend struct {
	Group         string `json:"group"`
	BalancingMode string `json:"balancingMode"`
}

// UserInstanceGroup is a zonal unmanaged instance group created outside GKE.
type UserInstanceGroup struct {
	Project     string          `json:"project"`
	Zone        string          `json:"zone"`
	Name        string          `json:"name"`
	ID          string          `json:"id"`
	Description string          `json:"description,omitempty"`
	Network     string          `json:"network,omitempty"`
	NamedPorts  []api.NamedPort `json:"namedPorts,omitempty"`
	// Instances are the member VMs (node names, all in Zone), sorted.
	Instances  []string  `json:"instances,omitempty"`
	CreateTime time.Time `json:"createTime"`
}

// ComputeOp is a finished Compute Engine write.
type ComputeOp struct {
	Name    string `json:"name"`
	ID      string `json:"id"`
	Project string `json:"project"`
	// Scope is zones/Z or regions/R.
	Scope    string    `json:"scope"`
	Type     string    `json:"type"`
	Target   string    `json:"target"`
	TargetID string    `json:"targetId"`
	Time     time.Time `json:"time"`
}

// Remove takes VMs out of the group.
func (ig *UserInstanceGroup) Remove(names ...string) {
	kept := ig.Instances[:0]
	for _, n := range ig.Instances {
		if !slices.Contains(names, n) {
			kept = append(kept, n)
		}
	}
	ig.Instances = kept
}
