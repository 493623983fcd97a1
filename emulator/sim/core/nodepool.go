package core

import (
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

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
	if !containsVersion(list, master) {
		list = append([]catalog.Version{master}, list...)
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

func containsVersion(list []catalog.Version, v catalog.Version) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
