package core

import (
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

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
