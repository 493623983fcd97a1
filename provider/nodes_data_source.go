package provider

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

var _ datasource.DataSourceWithConfigure = &NodesDataSource{}

// Labels and annotations of the emulator's nodes that the data source reads.
const (
	nodePoolLabel      = "cloud.google.com/gke-nodepool"
	zoneLabel          = "topology.kubernetes.io/zone"
	instanceTypeLabel  = "node.kubernetes.io/instance-type"
	requestedCPUAnn    = "gkesim.io/requested-cpu"
	requestedMemoryAnn = "gkesim.io/requested-memory"
	podsAnn            = "gkesim.io/pods"
)

// NodesDataSource is data.gkesim_nodes: the Kubernetes nodes of a cluster or of one node pool.
type NodesDataSource struct {
	data *providerData
}

func NewNodesDataSource() datasource.DataSource { return &NodesDataSource{} }

type nodesDataModel struct {
	Cluster  types.String `tfsdk:"cluster"`
	Project  types.String `tfsdk:"project"`
	Location types.String `tfsdk:"location"`
	NodePool types.String `tfsdk:"node_pool"`
	Nodes    []nodeModel  `tfsdk:"nodes"`
}

type nodeModel struct {
	Name              types.String `tfsdk:"name"`
	NodePool          types.String `tfsdk:"node_pool"`
	Zone              types.String `tfsdk:"zone"`
	Version           types.String `tfsdk:"version"`
	MachineType       types.String `tfsdk:"machine_type"`
	State             types.String `tfsdk:"state"`
	Unschedulable     types.Bool   `tfsdk:"unschedulable"`
	AllocatableCPU    types.String `tfsdk:"allocatable_cpu"`
	AllocatableMemory types.String `tfsdk:"allocatable_memory"`
	RequestedCPU      types.String `tfsdk:"requested_cpu"`
	RequestedMemory   types.String `tfsdk:"requested_memory"`
	Pods              types.Int64  `tfsdk:"pods"`
}

func (d *NodesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_nodes"
}

func (d *NodesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads the Kubernetes nodes of a cluster (or of one node pool) with what the scheduler sees on each: " +
			"allocatable CPU and memory, and what the pods on the node request. CPU is in millicores (`3920m`), memory in MiB (`13349Mi`).",
		Attributes: map[string]schema.Attribute{
			"cluster":   schema.StringAttribute{Required: true, MarkdownDescription: "The cluster: its name or `projects/{project}/locations/{location}/clusters/{name}`."},
			"project":   schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Project. Defaults to the cluster reference's, then the provider's."},
			"location":  schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "The cluster's location. Defaults to the cluster reference's, then the provider's."},
			"node_pool": schema.StringAttribute{Optional: true, MarkdownDescription: "Only the nodes of this node pool."},
			"nodes": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "The registered nodes (VMs still booting are not nodes yet), by name.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":               computedString("Node name (the VM's)."),
					"node_pool":          computedString("Node pool (label `" + nodePoolLabel + "`)."),
					"zone":               computedString("Zone (label `" + zoneLabel + "`)."),
					"version":            computedString("Kubelet version, without the `v` (as a node pool's `version`)."),
					"machine_type":       computedString("Machine type (label `" + instanceTypeLabel + "`)."),
					"state":              computedString("As `kubectl get nodes` shows it: `Ready`, `NotReady` or `Unknown` (a node being deleted), with `,SchedulingDisabled` when cordoned."),
					"unschedulable":      schema.BoolAttribute{Computed: true, MarkdownDescription: "Cordoned: the scheduler places no new pods on it (upgrades and drains cordon nodes)."},
					"allocatable_cpu":    computedString("CPU the pods may request, in millicores (`3920m`): the machine's CPUs minus GKE's reservation."),
					"allocatable_memory": computedString("Memory the pods may request, in MiB (`13349Mi`)."),
					"requested_cpu":      computedString("CPU the node's pods request, in millicores."),
					"requested_memory":   computedString("Memory the node's pods request, in MiB."),
					"pods":               schema.Int64Attribute{Computed: true, MarkdownDescription: "Pods on the node, GKE's DaemonSet pods included."},
				}},
			},
		},
	}
}

func (d *NodesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (d *NodesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m nodesDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	project, location, cluster := d.data.clusterNames(m.Cluster, m.Project, m.Location, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	m.Project, m.Location = types.StringValue(project), types.StringValue(location)
	var list corev1.NodeList
	if err := d.data.client.Kube(project, location, cluster).List(ctx, client.NodesPath(), nil, &list); err != nil {
		resp.Diagnostics.AddError("Error reading nodes", fmt.Sprintf("Listing the nodes of %s: %s", client.ClusterName(project, location, cluster), client.Message(err)))
		return
	}
	m.Nodes = []nodeModel{}
	for i := range list.Items {
		n := &list.Items[i]
		if pool := m.NodePool.ValueString(); pool != "" && n.Labels[nodePoolLabel] != pool {
			continue
		}
		m.Nodes = append(m.Nodes, flattenNode(n))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func flattenNode(n *corev1.Node) nodeModel {
	pods, _ := strconv.ParseInt(n.Annotations[podsAnn], 10, 64)
	return nodeModel{
		Name:              types.StringValue(n.Name),
		NodePool:          types.StringValue(n.Labels[nodePoolLabel]),
		Zone:              types.StringValue(n.Labels[zoneLabel]),
		Version:           types.StringValue(strings.TrimPrefix(n.Status.NodeInfo.KubeletVersion, "v")),
		MachineType:       types.StringValue(n.Labels[instanceTypeLabel]),
		State:             types.StringValue(nodeState(n)),
		Unschedulable:     types.BoolValue(n.Spec.Unschedulable),
		AllocatableCPU:    types.StringValue(milliCPU(n.Status.Allocatable.Cpu())),
		AllocatableMemory: types.StringValue(mebibytes(n.Status.Allocatable.Memory())),
		RequestedCPU:      types.StringValue(normalized(n.Annotations[requestedCPUAnn], milliCPU)),
		RequestedMemory:   types.StringValue(normalized(n.Annotations[requestedMemoryAnn], mebibytes)),
		Pods:              types.Int64Value(pods),
	}
}

// nodeState is kubectl's STATUS column.
func nodeState(n *corev1.Node) string {
	s := "Unknown"
	for _, c := range n.Status.Conditions {
		if c.Type != corev1.NodeReady {
			continue
		}
		switch c.Status {
		case corev1.ConditionTrue:
			s = "Ready"
		case corev1.ConditionFalse:
			s = "NotReady"
		}
	}
	if n.Spec.Unschedulable {
		s += ",SchedulingDisabled"
	}
	return s
}

func milliCPU(q *k8sresource.Quantity) string  { return fmt.Sprintf("%dm", q.MilliValue()) }
func mebibytes(q *k8sresource.Quantity) string { return fmt.Sprintf("%dMi", q.Value()>>20) }

// normalized writes a quantity annotation in the data source's unit ("" reads as zero).
func normalized(s string, unit func(*k8sresource.Quantity) string) string {
	q, err := k8sresource.ParseQuantity(s)
	if err != nil {
		q = k8sresource.Quantity{}
	}
	return unit(&q)
}
