package core

import (
	"sort"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

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
