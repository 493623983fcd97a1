package model

import "fmt"

// Validate checks that a saved state hangs together: every reference between its objects
// names an object that exists. A state edited by hand, or damaged, is refused with the first
// broken reference (in a stable order) rather than loaded into a simulation that would act on
// objects that are not there.
func (st *State) Validate() error {
	for _, key := range SortedKeys(st.Clusters) {
		c := st.Clusters[key]
		if c == nil {
			return fmt.Errorf("clusters[%q] is null", key)
		}
		if c.Key() != key {
			return fmt.Errorf("clusters[%q] holds cluster %s", key, c.Key())
		}
		if err := st.ValidateCluster(c); err != nil {
			return fmt.Errorf("cluster %s: %w", key, err)
		}
	}
	return nil
}

func (st *State) ValidateCluster(c *Cluster) error {
	members := map[string]string{} // node -> "pool/group" listing it
	for i, p := range c.Pools {
		if p == nil {
			return fmt.Errorf("pools[%d] is null", i)
		}
		if other := c.Pool(p.Name); other != p {
			return fmt.Errorf("two node pools are named %q", p.Name)
		}
		for _, g := range p.Groups {
			for _, n := range g.Nodes {
				node := c.Nodes[n]
				if node == nil {
					return fmt.Errorf("instance group %s of node pool %s lists node %s, which is not among the cluster's nodes", g.Name, p.Name, n)
				}
				if prev, dup := members[n]; dup {
					return fmt.Errorf("node %s is listed by two instance groups (%s and %s/%s)", n, prev, p.Name, g.Name)
				}
				members[n] = p.Name + "/" + g.Name
				if node.Pool != p.Name || node.Group != g.Name {
					return fmt.Errorf("instance group %s of node pool %s lists node %s, which says it is in %s/%s", g.Name, p.Name, n, node.Pool, node.Group)
				}
			}
		}
		if u := p.Upgrade; u != nil && u.Op != "" && st.Operations[u.Op] == nil {
			return fmt.Errorf("node pool %s is being upgraded by operation %s, which does not exist", p.Name, u.Op)
		}
	}
	for _, n := range SortedKeys(c.Nodes) {
		node := c.Nodes[n]
		if node == nil {
			return fmt.Errorf("nodes[%q] is null", n)
		}
		if node.Name != n {
			return fmt.Errorf("nodes[%q] holds node %s", n, node.Name)
		}
		if _, ok := members[n]; !ok {
			return fmt.Errorf("node %s (node pool %s) is in no instance group of its node pool", n, node.Pool)
		}
	}
	for _, k := range SortedKeys(c.Pods) {
		p := c.Pods[k]
		if p == nil {
			return fmt.Errorf("pods[%q] is null", k)
		}
		if p.Key() != k {
			return fmt.Errorf("pods[%q] holds pod %s", k, p.Key())
		}
		if c.Namespaces[p.Namespace()] == nil {
			return fmt.Errorf("pod %s is in namespace %s, which does not exist", k, p.Namespace())
		}
		if p.Node != "" && c.Nodes[p.Node] == nil {
			return fmt.Errorf("pod %s is bound to node %s, which is not among the cluster's nodes", k, p.Node)
		}
		if p.OwnerKind == OwnerDeployment && !p.Terminating && c.Deployments[p.OwnerKey()] == nil {
			return fmt.Errorf("pod %s belongs to Deployment %s/%s, which does not exist", k, p.Namespace(), p.Owner)
		}
		if p.OwnerKind == OwnerDaemonSet && c.OwnDaemonSets() && c.DaemonSets[p.OwnerKey()] == nil {
			return fmt.Errorf("pod %s belongs to DaemonSet %s/%s, which does not exist", k, p.Namespace(), p.Owner)
		}
	}
	for _, k := range SortedKeys(c.Deployments) {
		if d := c.Deployments[k]; d == nil || d.Key() != k {
			return fmt.Errorf("deployments[%q] is null or holds another Deployment", k)
		}
	}
	for _, k := range SortedKeys(c.PDBs) {
		b := c.PDBs[k]
		if b == nil {
			return fmt.Errorf("pdbs[%q] is null", k)
		}
		if c.Namespaces[b.Namespace] == nil {
			return fmt.Errorf("PodDisruptionBudget %s is in namespace %s, which does not exist", k, b.Namespace)
		}
	}
	for _, id := range c.OpenOps {
		if st.Operations[id] == nil {
			return fmt.Errorf("open operation %s does not exist", id)
		}
	}
	return nil
}
