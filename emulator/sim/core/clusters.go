package core

import (
	"slices"
	"sort"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Finding clusters and node pools (GKE's 404s), a pool's instance groups, node versions.

// Cluster finds a cluster by project, location and name.
func (w *Core) Cluster(project, location, name string) *model.Cluster {
	return w.st.Clusters[model.ClusterKey(project, location, name)]
}

// ClustersIn lists the clusters of a project in a location ("-" = every location), by name.
func (w *Core) ClustersIn(project, location string) []*model.Cluster {
	var out []*model.Cluster
	for _, c := range w.st.Clusters {
		if c.Project == project && (location == "-" || c.Location == location) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Location != out[j].Location {
			return out[i].Location < out[j].Location
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// TouchCluster gives cluster c a new etag after a change.
func (w *Core) TouchCluster(c *model.Cluster) { c.Etag = w.engine.RandHex(16) }

// GetCluster finds a cluster or returns GKE's 404.
func (w *Core) GetCluster(project, location, name string) (*model.Cluster, error) {
	c := w.Cluster(project, location, name)
	if c == nil {
		return nil, model.NotFound("projects/%s/locations/%s/clusters/%s.", project, location, name)
	}
	return c, nil
}

func UnsupportedVersion(field, what, requested, channel string, valid []catalog.Version) error {
	list := catalog.VersionStrings(valid)
	if len(list) > 6 {
		list = list[:6]
	}
	where := "in release channel " + channel
	if channel == api.ChannelUnspecified || channel == "" {
		where = "for clusters without a release channel"
	}
	return model.InvalidArgument("Invalid value for field %q: %s version %q is unsupported. Versions available %s include %s (see serverConfig); aliases latest, 1.X and 1.X.Y also work.",
		field, what, requested, where, strings.Join(list, ", "))
}

// GetNodePool finds a pool or returns GKE's 404.
func (w *Core) GetNodePool(project, location, cluster, name string) (*model.Cluster, *model.NodePool, error) {
	c, err := w.GetCluster(project, location, cluster)
	if err != nil {
		return nil, nil, err
	}
	p := c.Pool(name)
	if p == nil {
		return nil, nil, model.NotFound("node pool %q not found.", name)
	}
	return c, p, nil
}

// AddGroup creates the pool's instance group in a zone.
func (w *Core) AddGroup(c *model.Cluster, p *model.NodePool, zone string, size int) *model.InstanceGroup {
	hash := w.engine.RandHex(8)
	g := &model.InstanceGroup{Name: model.InstanceGroupName(c.Name, p.Name, hash), Zone: zone, Hash: hash, TargetSize: size}
	p.Groups = append(p.Groups, g)
	return g
}

// ResolveNodeVersion resolves a node version or alias ("-" and "" are the control plane's) and
// checks it against the control plane: never newer, at most two minors older, and within one
// minor when auto-upgrade is on.
func (w *Core) ResolveNodeVersion(c *model.Cluster, requested, field string, autoUpgrade bool) (string, error) {
	master, _ := catalog.ParseVersion(c.MasterVersion)
	vt := catalog.VersionsAt(w.st.Now)
	list := vt.Node
	if !slices.Contains(list, master) {
		list = append([]catalog.Version{master}, list...)
	}
	// An alias picks the highest valid version it names, and a node version is valid only up
	// to the control plane's: "1.X" on a control plane behind the newest 1.X patch is the
	// newest patch not newer than it. An explicit version newer than the control plane is
	// refused below, saying why.
	if _, explicit := catalog.ParseVersion(requested); !explicit {
		list = slices.DeleteFunc(slices.Clone(list), func(v catalog.Version) bool { return v.Compare(master) > 0 })
	}
	v, ok := catalog.Resolve(requested, list, master)
	if !ok {
		return "", model.InvalidArgument("Invalid value for field %q: Node version %q is unsupported. Use one of serverConfig's validNodeVersions (e.g. %s), an alias (latest, 1.X, 1.X.Y), or \"-\" for the control plane's version %s.",
			field, requested, strings.Join(catalog.VersionStrings(vt.Node[:min(3, len(vt.Node))]), ", "), c.MasterVersion)
	}
	if v.Compare(master) > 0 {
		return "", model.InvalidArgument("Invalid value for field %q: node version %q must not be newer than the control plane version %q. Upgrade the control plane first.", field, v, master)
	}
	switch skew := master.Minor - v.Minor; {
	case skew > 2:
		return "", model.InvalidArgument("Invalid value for field %q: node version %q is more than two minor versions older than the control plane version %q.", field, v, master)
	case skew > 1 && autoUpgrade:
		return "", model.InvalidArgument("Auto-upgrade is enabled, node version %q must be within one minor version of master version %q", v.String(), master.String())
	}
	return v.String(), nil
}
