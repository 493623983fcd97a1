package gke

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The clusters half of the GKE v1 API: validate a request against the rules and the current
// state, change the model, and start the operation that carries the change out.

// Limits (GKE quotas page).
const (
	maxNodesPerZonePerPool = 1000
	maxNodesPerCluster     = 15000
)

// DefaultServicesCIDR is the services range GKE gives new clusters.
const DefaultServicesCIDR = "34.118.224.0/20"

func ParseLocationArg(location string) (catalog.Location, error) {
	loc, ok := catalog.ParseLocation(location)
	if !ok {
		return catalog.Location{}, model.InvalidArgument("Location %q does not exist. Use a region (e.g. us-central1) or a zone (e.g. us-central1-a); known regions: %s.",
			location, strings.Join(catalog.KnownRegions(), ", "))
	}
	return loc, nil
}

// ListClusters lists a project's clusters in a location; "-" lists every location.
func (w *GKE) ListClusters(project, location string) ([]*model.Cluster, error) {
	if location != "-" {
		if _, err := ParseLocationArg(location); err != nil {
			return nil, err
		}
	}
	return w.core.ClustersIn(project, location), nil
}

// CreateCluster validates and creates a cluster; its control plane and nodes come up over the
// CREATE_CLUSTER operation.
func (w *GKE) CreateCluster(project, location string, req *api.CreateClusterRequest) (*model.Operation, error) {
	loc, err := ParseLocationArg(location)
	if err != nil {
		return nil, err
	}
	if req == nil || req.Cluster == nil {
		return nil, model.InvalidArgument("Required field \"cluster\" is missing. Send {\"cluster\": {...}}.")
	}
	in := req.Cluster
	if err := model.ValidateResourceName("cluster.name", in.Name); err != nil {
		return nil, err
	}
	if w.core.Cluster(project, location, in.Name) != nil {
		return nil, model.AlreadyExists("projects/%s/locations/%s/clusters/%s.", project, location, in.Name)
	}
	zones, err := ClusterZones(loc, in.Locations, "cluster.locations")
	if err != nil {
		return nil, err
	}
	channel := api.ChannelRegular
	if in.ReleaseChannel != nil {
		if err := model.ValidateEnum("cluster.releaseChannel.channel", in.ReleaseChannel.Channel, append(catalog.Channels, api.ChannelUnspecified)...); err != nil {
			return nil, err
		}
		channel = in.ReleaseChannel.Channel
		if channel == "" {
			channel = api.ChannelUnspecified
		}
	}
	vt := catalog.VersionsAt(w.st.Now)
	master, ok := catalog.Resolve(in.InitialClusterVersion, vt.ValidFor(channel), vt.DefaultFor(channel))
	if !ok {
		return nil, core.UnsupportedVersion("cluster.initialClusterVersion", "Master", in.InitialClusterVersion, channel, vt.ValidFor(channel))
	}
	autopilot := in.Autopilot != nil && in.Autopilot.Enabled
	ignoredAutopilotPool := ""
	if len(in.NodePools) > 0 && (in.InitialNodeCount > 0 || in.NodeConfig != nil) {
		return nil, model.InvalidArgument("Cluster.initial_node_count and Cluster.node_config cannot be used together with Cluster.node_pools; describe the default pool as an entry of node_pools instead.")
	}
	if len(in.NodePools) == 0 && in.InitialNodeCount <= 0 && !autopilot {
		return nil, model.InvalidArgument("Cluster.initial_node_count must be greater than zero.")
	}
	if autopilot && len(in.NodePools) > 1 {
		return nil, model.InvalidField("cluster.nodePools", fmt.Sprintf("%d node pools", len(in.NodePools)),
			"Autopilot clusters manage their own node pools: send at most the one default pool (as `gcloud container clusters create-auto` does), or none")
	}
	profile := api.ProfileBalanced
	var autoscalingExtra api.Extra
	if in.Autoscaling != nil {
		if err := model.ValidateEnum("cluster.autoscaling.autoscalingProfile", in.Autoscaling.AutoscalingProfile,
			api.ProfileUnspecified, api.ProfileOptimizeUtilization, api.ProfileBalanced); err != nil {
			return nil, err
		}
		if p := in.Autoscaling.AutoscalingProfile; p != "" && p != api.ProfileUnspecified {
			profile = p
		}
		autoscalingExtra = in.Autoscaling.Extra
	}

	c := &model.Cluster{
		Project: project, Location: location, Name: in.Name, ID: w.engine.RandHex(64),
		Description: in.Description, Locations: zones, MasterVersion: master.String(),
		InitialVersion: master.String(), ReleaseChannel: channel, Autopilot: autopilot,
		Status: model.ClusterProvisioning, CreateTime: w.st.Now,
		Network: "default", Subnetwork: "default",
		ResourceLabels: in.ResourceLabels, AutoscalingProfile: profile, AutoscalingExtra: autoscalingExtra,
		InitialNodeCount: in.InitialNodeCount,
		Extra:            in.Extra,
	}
	c.InitMaps()
	if in.Network != "" {
		c.Network = in.Network
	}
	if in.Subnetwork != "" {
		c.Subnetwork = in.Subnetwork
	}
	if in.NetworkConfig != nil {
		c.L4ILBSubsetting = in.NetworkConfig.EnableL4IlbSubsetting
		c.NetworkExtra = in.NetworkConfig.Extra
	}
	if c.L4ILBSubsetting {
		if err := loadbalancers.SubsettingPrereqs(c, "cluster.networkConfig.enableL4ilbSubsetting"); err != nil {
			return nil, err
		}
	}
	if err := loadbalancers.CheckAddons(c, c.Extra[loadbalancers.AddonsField], "cluster.addonsConfig"); err != nil {
		return nil, err // R-LB-8
	}
	c.ClusterIPv4CIDR, c.NodeIPBase = w.ClusterRanges(c, in.ClusterIpv4Cidr)
	c.ServicesIPv4CIDR = DefaultServicesCIDR

	poolReqs := in.NodePools
	switch {
	case autopilot:
		// Autopilot provisions nodes for the pods it runs: one auto-provisioned pool the
		// autoscaler grows from zero (its nodes always upgrade with surge, R-UPG-3). The
		// default pool gcloud sends beside autopilot.enabled (and any initialNodeCount) does
		// not shape it: Autopilot's own default-pool takes its place.
		if len(in.NodePools) > 0 || in.InitialNodeCount > 0 {
			ignoredAutopilotPool = fmt.Sprintf("cluster.nodePools %s and cluster.initialNodeCount %d are managed by Autopilot: its own default-pool replaces them",
				poolNames(in.NodePools), in.InitialNodeCount)
		}
		poolReqs = []*api.NodePool{{Name: "default-pool", Config: &api.NodeConfig{MachineType: "e2-standard-4"},
			Autoscaling: &api.NodePoolAutoscaling{Enabled: true, TotalMaxNodeCount: 1000, Autoprovisioned: true}}}
	case len(poolReqs) == 0 && in.InitialNodeCount > 0:
		poolReqs = []*api.NodePool{{Name: "default-pool", InitialNodeCount: in.InitialNodeCount, Config: in.NodeConfig}}
	}
	total := 0
	for i, pr := range poolReqs {
		field := fmt.Sprintf("cluster.nodePools[%d]", i)
		if pr == nil {
			return nil, model.InvalidArgument("Invalid value for field %q: null. Give each node pool a name and a node count.", field)
		}
		if c.Pool(pr.Name) != nil {
			return nil, model.InvalidField(field+".name", fmt.Sprintf("%q", pr.Name), "Node pool names must be unique within a cluster")
		}
		p, err := w.buildNodePool(c, pr, field)
		if err != nil {
			return nil, err
		}
		total += PoolSize(p)
		c.Pools = append(c.Pools, p)
	}
	if total > maxNodesPerCluster {
		return nil, model.InvalidArgument("The cluster would have %d nodes; a GKE cluster has at most %d nodes.", total, maxNodesPerCluster)
	}
	for _, p := range c.Pools {
		p.Status = model.PoolProvisioning
	}
	c.PolicyVersion = w.engine.RandHex(16)
	if err := w.initMaintenancePolicy(c, in.MaintenancePolicy); err != nil {
		return nil, err
	}
	w.core.TouchCluster(c)
	w.st.Clusters[c.Key()] = c
	w.engine.EmitClusterCreated(c)
	op := w.core.StartOperation(api.OpCreateCluster, c, "", true)
	w.engine.Record("ClusterCreating", c, "", "", op.ID, "creating cluster %s in %s (control plane %s, channel %s, %d node pools, %d nodes)",
		c.Name, location, c.MasterVersion, channel, len(c.Pools), total)
	if ignoredAutopilotPool != "" {
		w.engine.Record("ClusterCreating", c, "", "", op.ID, "%s", ignoredAutopilotPool)
	}
	return op, nil
}

// poolNames lists the names of requested node pools, for messages.
func poolNames(pools []*api.NodePool) []string {
	names := []string{}
	for _, p := range pools {
		if p != nil {
			names = append(names, p.Name)
		}
	}
	return names
}

// ClusterZones validates the node zones of a cluster: each a zone of the cluster's region; a
// zonal cluster's own zone is always among them.
func ClusterZones(loc catalog.Location, requested []string, field string) ([]string, error) {
	if len(requested) == 0 {
		return loc.DefaultZones(), nil
	}
	seen := map[string]bool{}
	for _, z := range requested {
		zl, ok := catalog.ParseLocation(z)
		if !ok || !zl.Zonal || zl.Region != loc.Region {
			return nil, model.InvalidField(field, fmt.Sprintf("%q", z), "Node locations must be zones of region %s: %s", loc.Region, strings.Join(catalog.Zones(loc.Region), ", "))
		}
		if seen[z] {
			return nil, model.InvalidField(field, fmt.Sprintf("%q", z), "Node locations must not repeat a zone")
		}
		seen[z] = true
	}
	if loc.Zonal && !seen[loc.Name] {
		return nil, model.InvalidField(field, fmt.Sprintf("%q", requested), "The locations of a zonal cluster must include the cluster's zone %s", loc.Name)
	}
	return append([]string(nil), requested...), nil
}

// ClusterRanges picks the cluster's pod range (a /14 per cluster unless requested) and the base
// of its node addresses (a /16 of the 10.128.0.0/9 node space, from a hash of the cluster).
func (w *GKE) ClusterRanges(c *model.Cluster, requested string) (string, uint32) {
	n := model.FNV32(c.Key())
	node := uint32(10)<<24 | (128+n%128)<<16
	if requested != "" {
		return requested, node
	}
	return fmt.Sprintf("10.%d.0.0/14", (n>>8)%64*4), node
}

// UpdateCluster applies one ClusterUpdate. As in GKE, exactly one update per request; the
// node-pool qualifiers (desiredNodePoolId, desiredImageType with desiredNodeVersion) and etag
// do not count.
func (w *GKE) UpdateCluster(project, location, name string, req *api.UpdateClusterRequest) (*model.Operation, error) {
	c, err := w.core.GetCluster(project, location, name)
	if err != nil {
		return nil, err
	}
	if req == nil || req.Update == nil {
		return nil, model.InvalidArgument("Must provide an update.")
	}
	u := req.Update
	updates := setFields(u)
	if len(updates) == 0 {
		return nil, model.InvalidArgument("Must provide an update.")
	}
	if len(updates) > 1 {
		return nil, model.InvalidArgument("Exactly one update can be applied to a cluster with each request; got %d: %s. Send them as separate requests.", len(updates), strings.Join(updates, ", "))
	}
	if u.Etag != "" && u.Etag != c.Etag {
		return nil, model.Aborted("The etag %q does not match the cluster's current etag; read the cluster again and retry.", u.Etag)
	}
	// The members that update one node pool run the node pool's own implementation, exactly
	// as the node-pool methods do (busy checks and R-MW-5 included).
	switch updates[0] {
	case "desiredNodeVersion", "desiredImageType":
		p, err := c.TargetPool(u.DesiredNodePoolId)
		if err != nil {
			return nil, err
		}
		return w.requestNodePoolUpdate(c, p, &api.UpdateNodePoolRequest{NodeVersion: u.DesiredNodeVersion, ImageType: u.DesiredImageType}, desiredMember)
	case "desiredNodePoolAutoscaling":
		p, err := c.TargetPool(u.DesiredNodePoolId)
		if err != nil {
			return nil, err
		}
		return w.setNodePoolAutoscaling(c, p, u.DesiredNodePoolAutoscaling, "update.desiredNodePoolAutoscaling")
	}
	if err := w.core.CheckClusterFree(c); err != nil {
		return nil, err
	}
	switch updates[0] {
	case "desiredMasterVersion":
		return w.upgrade.UpgradeMaster(c, u.DesiredMasterVersion)
	case "desiredLocations":
		loc, _ := catalog.ParseLocation(c.Location)
		zones, err := ClusterZones(loc, u.DesiredLocations, "update.desiredLocations")
		if err != nil {
			return nil, err
		}
		c.Locations = zones
		for _, p := range c.Pools {
			w.setPoolLocations(c, p, zones)
		}
		c.Status = model.ClusterReconciling
		return w.metadataUpdate(c, "", "node locations of %s set to %v", c.Name, zones), nil
	case "desiredClusterAutoscaling":
		a := u.DesiredClusterAutoscaling
		if err := model.ValidateEnum("update.desiredClusterAutoscaling.autoscalingProfile", a.AutoscalingProfile,
			api.ProfileUnspecified, api.ProfileOptimizeUtilization, api.ProfileBalanced); err != nil {
			return nil, err
		}
		if a.AutoscalingProfile != "" && a.AutoscalingProfile != api.ProfileUnspecified {
			c.AutoscalingProfile = a.AutoscalingProfile
		}
		mergeExtra(&c.AutoscalingExtra, a.Extra)
		return w.metadataUpdate(c, "", "autoscaling profile of %s is %s", c.Name, c.AutoscalingProfile), nil
	case "desiredReleaseChannel":
		ch := u.DesiredReleaseChannel.Channel
		if err := model.ValidateEnum("update.desiredReleaseChannel.channel", ch, append(catalog.Channels, api.ChannelUnspecified)...); err != nil {
			return nil, err
		}
		if ch == "" {
			ch = api.ChannelUnspecified
		}
		if ch != api.ChannelUnspecified {
			mv, _ := catalog.ParseVersion(c.MasterVersion)
			if !hasMinor(catalog.VersionsAt(w.st.Now).ValidFor(ch), mv.Minor) {
				return nil, model.FailedPrecondition("Cannot enroll cluster %s in release channel %s: its control plane version %s (minor %s) is not available in that channel. Upgrade or choose another channel.",
					c.Name, ch, c.MasterVersion, mv.MinorString())
			}
		}
		c.ReleaseChannel = ch
		return w.metadataUpdate(c, "", "release channel of %s is %s", c.Name, ch), nil
	case "desiredL4ilbSubsettingConfig":
		enabled := u.DesiredL4ilbSubsettingConfig.Enabled
		if c.L4ILBSubsetting && !enabled {
			// R-LB-4: once enabled, subsetting cannot be disabled.
			return nil, model.InvalidField("update.desiredL4ilbSubsettingConfig.enabled", false,
				"GKE subsetting for L4 internal load balancers cannot be disabled once it is enabled (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/load-balancers#r-lb-4); recreate the cluster to turn it off")
		}
		if enabled && !c.L4ILBSubsetting {
			if err := loadbalancers.SubsettingPrereqs(c, "update.desiredL4ilbSubsettingConfig.enabled"); err != nil {
				return nil, err
			}
			w.loadbalancers.LBSubsettingEnabled(c)
		}
		c.L4ILBSubsetting = enabled
		return w.metadataUpdate(c, "", "L4 ILB subsetting of %s enabled=%v", c.Name, enabled), nil
	default:
		// A GKE field the emulator stores but does not simulate: desiredFoo sets foo.
		key := updates[0]
		field := strings.ToLower(key[len("desired"):len("desired")+1]) + key[len("desired")+1:]
		value := u.Extra[key]
		if field == loadbalancers.AddonsField {
			// desiredAddonsConfig changes the add-ons it names and leaves the others as they
			// are (gcloud's --update-addons sends one add-on at a time).
			merged, err := mergeAddons(c.Extra[loadbalancers.AddonsField], value, "update."+key)
			if err != nil {
				return nil, err
			}
			value = merged
		}
		if err := w.setStoredField(c, field, value, "update."+key); err != nil {
			return nil, err
		}
		return w.metadataUpdate(c, "", "%s of %s updated", field, c.Name), nil
	}
}

// desiredMember names the ClusterUpdate member that carries an UpdateNodePoolRequest member:
// nodeVersion -> update.desiredNodeVersion.
func desiredMember(member string) string {
	return "update.desired" + strings.ToUpper(member[:1]) + member[1:]
}

// setFields lists the update members a ClusterUpdate sets, qualifiers excluded.
func setFields(u *api.ClusterUpdate) []string {
	var out []string
	add := func(name string, set bool) {
		if set {
			out = append(out, name)
		}
	}
	add("desiredMasterVersion", u.DesiredMasterVersion != "")
	add("desiredNodeVersion", u.DesiredNodeVersion != "")
	add("desiredImageType", u.DesiredImageType != "" && u.DesiredNodeVersion == "")
	add("desiredNodePoolAutoscaling", u.DesiredNodePoolAutoscaling != nil)
	add("desiredLocations", len(u.DesiredLocations) > 0)
	add("desiredClusterAutoscaling", u.DesiredClusterAutoscaling != nil)
	add("desiredReleaseChannel", u.DesiredReleaseChannel != nil)
	add("desiredL4ilbSubsettingConfig", u.DesiredL4ilbSubsettingConfig != nil)
	var extra []string
	for k := range u.Extra {
		if strings.HasPrefix(k, "desired") && len(k) > len("desired") {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

// metadataUpdate starts an UPDATE_CLUSTER operation for a change that is already applied.
func (w *GKE) metadataUpdate(c *model.Cluster, pool, format string, args ...any) *model.Operation {
	w.core.TouchCluster(c)
	op := w.core.StartOperation(api.OpUpdateCluster, c, pool, true)
	w.engine.Record("ClusterUpdated", c, pool, "", op.ID, format, args...)
	return op
}

func mergeExtra(dst *api.Extra, src api.Extra) {
	for k, v := range src {
		if *dst == nil {
			*dst = api.Extra{}
		}
		(*dst)[k] = v
	}
}

func hasMinor(list []catalog.Version, minor int) bool {
	for _, v := range list {
		if v.Minor == minor {
			return true
		}
	}
	return false
}

// DeleteCluster deletes a cluster and all its nodes over a DELETE_CLUSTER operation.
func (w *GKE) DeleteCluster(project, location, name string) (*model.Operation, error) {
	c, err := w.core.GetCluster(project, location, name)
	if err != nil {
		return nil, err
	}
	if err := w.core.CheckClusterFree(c); err != nil {
		return nil, err
	}
	op := w.core.StartOperation(api.OpDeleteCluster, c, "", true)
	w.engine.Record("ClusterDeleting", c, "", "", op.ID, "deleting cluster %s (%d nodes)", c.Name, len(c.Nodes))
	return op, nil
}

// ServerConfig is the version table at the current emulated time.
func (w *GKE) ServerConfig(location string) (*api.ServerConfig, error) {
	if _, err := ParseLocationArg(location); err != nil {
		return nil, err
	}
	return catalog.VersionsAt(w.st.Now).ServerConfig(), nil
}

// SetClusterField sets one stored, not simulated, cluster field: what the setLogging-style
// custom methods do. value is the field's JSON.
func (w *GKE) SetClusterField(project, location, name, field string, value []byte) (*model.Operation, error) {
	c, err := w.core.GetCluster(project, location, name)
	if err != nil {
		return nil, err
	}
	if err := w.core.CheckClusterFree(c); err != nil {
		return nil, err
	}
	if err := w.setStoredField(c, field, value, field); err != nil {
		return nil, err
	}
	return w.metadataUpdate(c, "", "%s of %s set", field, c.Name), nil
}

// mergeAddons is the add-ons' configuration with the add-ons that update names set as it
// says: each add-on (httpLoadBalancing, horizontalPodAutoscaling, ...) is replaced whole, the
// others are kept. path names the request's member in errors.
func mergeAddons(current, update json.RawMessage, path string) (json.RawMessage, error) {
	addons := map[string]json.RawMessage{}
	if len(current) > 0 {
		if err := json.Unmarshal(current, &addons); err != nil {
			return nil, fmt.Errorf("the stored add-ons configuration is not a JSON object: %w", err)
		}
	}
	var changes map[string]json.RawMessage
	if err := json.Unmarshal(update, &changes); err != nil || changes == nil {
		return nil, model.InvalidField(path, string(update), "The add-ons configuration is an object of add-ons, e.g. {\"httpLoadBalancing\": {\"disabled\": true}}")
	}
	maps.Copy(addons, changes)
	return json.Marshal(addons)
}

// setStoredField sets a cluster field gkesim stores as sent (path names it in errors). The
// add-ons are checked first: HttpLoadBalancing cannot be turned off where GKE needs it, and
// turning it on again builds the load balancers that waited for it (R-LB-8).
func (w *GKE) setStoredField(c *model.Cluster, field string, value json.RawMessage, path string) error {
	before := c.Extra[field]
	if field == loadbalancers.AddonsField {
		if err := loadbalancers.CheckAddons(c, value, path); err != nil {
			return err
		}
	}
	if c.Extra == nil {
		c.Extra = api.Extra{}
	}
	c.Extra[field] = value
	if field == loadbalancers.AddonsField {
		w.loadbalancers.AddonsChanged(c, before)
	}
	return nil
}

// SetResourceLabels is clusters.setResourceLabels. As in GKE, the request carries the
// labelFingerprint the client read with the cluster; one that no longer matches the labels
// (someone changed them since, or none was sent) is refused, so that no change is lost.
func (w *GKE) SetResourceLabels(project, location, name string, labels map[string]string, fingerprint string) (*model.Operation, error) {
	c, err := w.core.GetCluster(project, location, name)
	if err != nil {
		return nil, err
	}
	if want := labelFingerprint(c.ResourceLabels); fingerprint != want {
		return nil, model.FailedPrecondition("Labels could not be set due to fingerprint mismatch; try again with the proper fingerprint: incorrect fingerprint supplied was %q, the expected one is %q. Read the cluster again for its labelFingerprint.",
			fingerprint, want)
	}
	if err := w.core.CheckClusterFree(c); err != nil {
		return nil, err
	}
	c.ResourceLabels = labels
	if len(labels) == 0 {
		c.ResourceLabels = nil
	}
	return w.metadataUpdate(c, "", "resource labels of %s set to %v", c.Name, labels), nil
}

// labelFingerprint is the fingerprint of a set of resource labels: 8 hex digits of a hash of
// the sorted key=value pairs, so that it changes whenever the labels do.
func labelFingerprint(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", k, labels[k])
	}
	return model.Digest([]byte(b.String()), 8)
}
