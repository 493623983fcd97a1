package api

// Compute Engine v1 objects: those GKE creates for LoadBalancer Services (R-LB-2) and those
// users create outside GKE (backend services, unmanaged instance groups; R-LB-5). Then the
// emulator's own views of a load balancer: its status (what backs it, how healthy) and the
// path of a packet through it (R-LB-7). Field names are those of compute.googleapis.com v1.

// ComputeList is a Compute Engine list answer (forwardingRuleList, backendServiceList ...).
type ComputeList struct {
	Kind     string `json:"kind"`
	Id       string `json:"id"`
	Items    any    `json:"items"`
	SelfLink string `json:"selfLink"`
}

type ForwardingRule struct {
	Kind                string   `json:"kind"`
	Id                  string   `json:"id"`
	CreationTimestamp   string   `json:"creationTimestamp"`
	Name                string   `json:"name"`
	Description         string   `json:"description,omitempty"`
	Region              string   `json:"region"`
	IPAddress           string   `json:"IPAddress"`
	IPProtocol          string   `json:"IPProtocol"`
	PortRange           string   `json:"portRange,omitempty"`
	Ports               []string `json:"ports,omitempty"`
	AllPorts            bool     `json:"allPorts,omitempty"`
	Target              string   `json:"target,omitempty"`
	BackendService      string   `json:"backendService,omitempty"`
	LoadBalancingScheme string   `json:"loadBalancingScheme"`
	Network             string   `json:"network,omitempty"`
	Subnetwork          string   `json:"subnetwork,omitempty"`
	NetworkTier         string   `json:"networkTier"`
	IpVersion           string   `json:"ipVersion,omitempty"`
	SelfLink            string   `json:"selfLink"`
	Fingerprint         string   `json:"fingerprint"`
}

type Backend struct {
	Group         string `json:"group"`
	BalancingMode string `json:"balancingMode"`
}

type ConnectionDraining struct {
	DrainingTimeoutSec int32 `json:"drainingTimeoutSec"`
}

type BackendService struct {
	Kind                string              `json:"kind"`
	Id                  string              `json:"id"`
	CreationTimestamp   string              `json:"creationTimestamp"`
	Name                string              `json:"name"`
	Description         string              `json:"description,omitempty"`
	Region              string              `json:"region"`
	Backends            []*Backend          `json:"backends"`
	HealthChecks        []string            `json:"healthChecks"`
	Protocol            string              `json:"protocol"`
	LoadBalancingScheme string              `json:"loadBalancingScheme"`
	SessionAffinity     string              `json:"sessionAffinity"`
	ConnectionDraining  *ConnectionDraining `json:"connectionDraining"`
	Network             string              `json:"network,omitempty"`
	TimeoutSec          int32               `json:"timeoutSec"`
	PortName            string              `json:"portName,omitempty"`
	SelfLink            string              `json:"selfLink"`
	Fingerprint         string              `json:"fingerprint"`
}

// HealthStatus is one backend VM's health in a backendServices.getHealth or
// targetPools.getHealth answer.
type HealthStatus struct {
	IpAddress        string `json:"ipAddress"`
	Port             int32  `json:"port,omitempty"`
	Instance         string `json:"instance"`
	HealthState      string `json:"healthState"`
	ForwardingRule   string `json:"forwardingRule,omitempty"`
	ForwardingRuleIp string `json:"forwardingRuleIp,omitempty"`
}

type BackendServiceGroupHealth struct {
	Kind         string          `json:"kind"`
	HealthStatus []*HealthStatus `json:"healthStatus"`
}

// ResourceGroupReference is the body of backendServices.getHealth.
type ResourceGroupReference struct {
	Group string `json:"group"`
}

// InstanceReference is the body of targetPools.getHealth.
type InstanceReference struct {
	Instance string `json:"instance"`
}

type TargetPool struct {
	Kind              string   `json:"kind"`
	Id                string   `json:"id"`
	CreationTimestamp string   `json:"creationTimestamp"`
	Name              string   `json:"name"`
	Description       string   `json:"description,omitempty"`
	Region            string   `json:"region"`
	HealthChecks      []string `json:"healthChecks"`
	Instances         []string `json:"instances"`
	SessionAffinity   string   `json:"sessionAffinity"`
	SelfLink          string   `json:"selfLink"`
}

type TargetPoolInstanceHealth struct {
	Kind         string          `json:"kind"`
	HealthStatus []*HealthStatus `json:"healthStatus"`
}

type NetworkEndpointGroup struct {
	Kind                string `json:"kind"`
	Id                  string `json:"id"`
	CreationTimestamp   string `json:"creationTimestamp"`
	Name                string `json:"name"`
	Description         string `json:"description,omitempty"`
	NetworkEndpointType string `json:"networkEndpointType"`
	Size                int32  `json:"size"`
	Zone                string `json:"zone"`
	Network             string `json:"network"`
	Subnetwork          string `json:"subnetwork"`
	SelfLink            string `json:"selfLink"`
}

type NetworkEndpoint struct {
	IpAddress string `json:"ipAddress"`
	Instance  string `json:"instance"`
}

type HealthStatusForNetworkEndpoint struct {
	BackendService *BackendServiceReference `json:"backendService,omitempty"`
	HealthCheck    *HealthCheckReference    `json:"healthCheck,omitempty"`
	HealthState    string                   `json:"healthState"`
}

type BackendServiceReference struct {
	BackendService string `json:"backendService"`
}

type HealthCheckReference struct {
	HealthCheck string `json:"healthCheck"`
}

type NetworkEndpointWithHealthStatus struct {
	NetworkEndpoint *NetworkEndpoint                  `json:"networkEndpoint"`
	Healths         []*HealthStatusForNetworkEndpoint `json:"healths,omitempty"`
}

// ListNetworkEndpointsRequest is the body of networkEndpointGroups.listNetworkEndpoints.
type ListNetworkEndpointsRequest struct {
	HealthStatus string `json:"healthStatus,omitempty"`
}

type NetworkEndpointGroupsListNetworkEndpoints struct {
	Kind  string                             `json:"kind"`
	Items []*NetworkEndpointWithHealthStatus `json:"items"`
}

type NamedPort struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

type InstanceGroup struct {
	Kind              string       `json:"kind"`
	Id                string       `json:"id"`
	CreationTimestamp string       `json:"creationTimestamp"`
	Name              string       `json:"name"`
	Description       string       `json:"description,omitempty"`
	NamedPorts        []*NamedPort `json:"namedPorts,omitempty"`
	Network           string       `json:"network"`
	Subnetwork        string       `json:"subnetwork,omitempty"`
	Fingerprint       string       `json:"fingerprint"`
	Zone              string       `json:"zone"`
	Size              int32        `json:"size"`
	SelfLink          string       `json:"selfLink"`
}

// InstanceGroupsInstancesRequest is the body of instanceGroups.addInstances and
// instanceGroups.removeInstances.
type InstanceGroupsInstancesRequest struct {
	Instances []*InstanceReference `json:"instances"`
}

// ComputeOperation is a zonal or regional Compute Engine Operation, the answer of the write
// methods (insert, delete, addInstances, removeInstances).
type ComputeOperation struct {
	Kind          string `json:"kind"`
	Id            string `json:"id"`
	Name          string `json:"name"`
	Zone          string `json:"zone,omitempty"`
	Region        string `json:"region,omitempty"`
	OperationType string `json:"operationType"`
	TargetLink    string `json:"targetLink"`
	TargetId      string `json:"targetId"`
	Status        string `json:"status"`
	User          string `json:"user"`
	Progress      int32  `json:"progress"`
	InsertTime    string `json:"insertTime"`
	StartTime     string `json:"startTime"`
	EndTime       string `json:"endTime"`
	SelfLink      string `json:"selfLink"`
}

type InstanceWithNamedPorts struct {
	Instance string `json:"instance"`
	Status   string `json:"status"`
}

type InstanceGroupsListInstances struct {
	Kind  string                    `json:"kind"`
	Items []*InstanceWithNamedPorts `json:"items"`
}

type HTTPHealthCheckSpec struct {
	Port              int32  `json:"port"`
	RequestPath       string `json:"requestPath"`
	ProxyHeader       string `json:"proxyHeader"`
	PortSpecification string `json:"portSpecification"`
}

type HealthCheck struct {
	Kind               string               `json:"kind"`
	Id                 string               `json:"id"`
	CreationTimestamp  string               `json:"creationTimestamp"`
	Name               string               `json:"name"`
	Description        string               `json:"description,omitempty"`
	Region             string               `json:"region,omitempty"`
	CheckIntervalSec   int32                `json:"checkIntervalSec"`
	TimeoutSec         int32                `json:"timeoutSec"`
	HealthyThreshold   int32                `json:"healthyThreshold"`
	UnhealthyThreshold int32                `json:"unhealthyThreshold"`
	Type               string               `json:"type"`
	HttpHealthCheck    *HTTPHealthCheckSpec `json:"httpHealthCheck"`
	SelfLink           string               `json:"selfLink"`
}

// HttpHealthCheck is the legacy health check target pools use.
type HttpHealthCheck struct {
	Kind               string `json:"kind"`
	Id                 string `json:"id"`
	CreationTimestamp  string `json:"creationTimestamp"`
	Name               string `json:"name"`
	Description        string `json:"description,omitempty"`
	Port               int32  `json:"port"`
	RequestPath        string `json:"requestPath"`
	CheckIntervalSec   int32  `json:"checkIntervalSec"`
	TimeoutSec         int32  `json:"timeoutSec"`
	HealthyThreshold   int32  `json:"healthyThreshold"`
	UnhealthyThreshold int32  `json:"unhealthyThreshold"`
	SelfLink           string `json:"selfLink"`
}

type FirewallAllowed struct {
	IPProtocol string   `json:"IPProtocol"`
	Ports      []string `json:"ports,omitempty"`
}

type Firewall struct {
	Kind              string             `json:"kind"`
	Id                string             `json:"id"`
	CreationTimestamp string             `json:"creationTimestamp"`
	Name              string             `json:"name"`
	Description       string             `json:"description,omitempty"`
	Network           string             `json:"network"`
	Priority          int32              `json:"priority"`
	Direction         string             `json:"direction"`
	SourceRanges      []string           `json:"sourceRanges"`
	TargetTags        []string           `json:"targetTags"`
	Allowed           []*FirewallAllowed `json:"allowed"`
	Disabled          bool               `json:"disabled"`
	SelfLink          string             `json:"selfLink"`
}

// ---- Emulator views (not Compute Engine) ----

// LoadBalancerStatus is what GKE realised for a LoadBalancer Service: GET
// /emulator/v1/projects/{p}/locations/{l}/clusters/{c}/loadBalancers/{namespace}/{name}.
type LoadBalancerStatus struct {
	Service string `json:"service"`
	// Kind is internal-neg, internal-instance-group, external-backend-service or
	// external-target-pool (R-LB-2).
	Kind                  string `json:"kind"`
	Scheme                string `json:"scheme"`
	State                 string `json:"state"`
	IP                    string `json:"ip,omitempty"`
	ExternalTrafficPolicy string `json:"externalTrafficPolicy"`
	// Why says which rule chose the kind.
	Why                   string              `json:"why"`
	ForwardingRules       []string            `json:"forwardingRules,omitempty"`
	BackendService        string              `json:"backendService,omitempty"`
	TargetPool            string              `json:"targetPool,omitempty"`
	NetworkEndpointGroups []string            `json:"networkEndpointGroups,omitempty"`
	InstanceGroups        []string            `json:"instanceGroups,omitempty"`
	HealthCheck           *LoadBalancerHC     `json:"healthCheck,omitempty"`
	FirewallRules         []string            `json:"firewallRules,omitempty"`
	Backends              []*LoadBalancerNode `json:"backends"`
	BackendCount          int                 `json:"backendCount"`
	HealthyBackends       int                 `json:"healthyBackends"`
	ProvisionedTime       string              `json:"provisionedTime,omitempty"`
	Warnings              []string            `json:"warnings,omitempty"`
	// Resources are the Compute Engine resources, as paths under projects/{p}/.
	Resources  []string             `json:"resources,omitempty"`
	Subsetting *LoadBalancerSubsets `json:"subsetting,omitempty"`
	// Blocked says why GKE cannot build the load balancer or sync its instance groups, and
	// when it tries again (R-LB-5).
	Blocked *LoadBalancerBlock `json:"blocked,omitempty"`
}

// LoadBalancerBlock is a node in a load-balanced instance group created outside GKE, which
// keeps GKE from putting it in its own instance group (R-LB-5).
type LoadBalancerBlock struct {
	Reason string `json:"reason"`
	// Instance, InstanceGroup and BackendService are paths (projects/{p}/...): the node, the
	// conflicting group and the backend service that has the group as a backend.
	Instance       string `json:"instance"`
	InstanceGroup  string `json:"instanceGroup"`
	BackendService string `json:"backendService"`
	Attempts       int    `json:"attempts"`
	Since          string `json:"since"`
	NextRetry      string `json:"nextRetry"`
}

// LoadBalancerHC is the health check a load balancer probes its backends with (R-LB-6).
type LoadBalancerHC struct {
	Name               string `json:"name"`
	Collection         string `json:"collection"`
	Port               int32  `json:"port"`
	RequestPath        string `json:"requestPath"`
	CheckIntervalSec   int32  `json:"checkIntervalSec"`
	HealthyThreshold   int32  `json:"healthyThreshold"`
	UnhealthyThreshold int32  `json:"unhealthyThreshold"`
	Shared             bool   `json:"shared"`
}

// LoadBalancerSubsets says how GKE subsetting picked the NEG endpoints (R-LB-3).
type LoadBalancerSubsets struct {
	Limit      int            `json:"limit"`
	Candidates int            `json:"candidates"`
	PerZone    map[string]int `json:"perZone"`
}

// LoadBalancerNode is one backend VM of a load balancer and its health.
type LoadBalancerNode struct {
	Node        string `json:"node"`
	Zone        string `json:"zone"`
	IP          string `json:"ip"`
	Health      string `json:"health"`
	Passing     bool   `json:"passing"`
	Since       string `json:"since,omitempty"`
	TransitAt   string `json:"transitionAt,omitempty"`
	ServingPods int    `json:"servingPods"`
}

type LoadBalancerList struct {
	LoadBalancers []*LoadBalancerStatus `json:"loadBalancers"`
}

// PacketTrace answers GET /emulator/v1/projects/{p}/locations/{l}/clusters/{c}/trace: where a
// packet to ip:port would land (R-LB-7).
type PacketTrace struct {
	Destination string `json:"destination"`
	Protocol    string `json:"protocol"`
	Client      string `json:"client"`
	// Result is DELIVERED, DROPPED, REJECTED or NO_MATCH.
	Result  string     `json:"result"`
	Reason  string     `json:"reason,omitempty"`
	Service string     `json:"service,omitempty"`
	Via     string     `json:"via,omitempty"`
	Kind    string     `json:"loadBalancerKind,omitempty"`
	Policy  string     `json:"externalTrafficPolicy,omitempty"`
	Node    *TraceNode `json:"node,omitempty"`
	Pod     *TracePod  `json:"pod,omitempty"`
	// SourceIPAtPod is the source address the pod sees: the client's (Local) or the node's
	// after SNAT (Cluster).
	SourceIPAtPod string   `json:"sourceIpAtPod,omitempty"`
	SNAT          bool     `json:"snat"`
	Hops          []string `json:"hops"`
}

type TraceNode struct {
	Name       string `json:"name"`
	Zone       string `json:"zone"`
	IP         string `json:"ip"`
	Health     string `json:"health,omitempty"`
	Candidates int    `json:"candidates"`
}

type TracePod struct {
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	IP          string `json:"ip"`
	Port        int32  `json:"port"`
	Node        string `json:"node"`
	Ready       bool   `json:"ready"`
	Terminating bool   `json:"terminating"`
	SameNode    bool   `json:"sameNode"`
}
