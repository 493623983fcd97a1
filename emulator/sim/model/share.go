package model

import "slices"

// ShareRepeats makes the pods of a decoded state share what repeats among them, as the pods the
// simulation makes do. A Deployment's pods are made with its name and its template's hash,
// labels and annotations, a DaemonSet's with its own, and a bound pod with its node's name,
// each one value for all; decoding a saved state gives every pod copies of its own (a
// restored 15,000-node cluster of 150,000 pods held about 200 MB where the one saved held
// about 110). After ShareRepeats, the pods hold one copy of each owner, template and node name
// and of each set of labels and of annotations, the Deployments' and nodes' own where they
// have them.
//
// Sharing a pod's labels and annotations is sound because nothing writes into them: a change
// gives the pod new ones (the API's updates, GKE's label changes), and every rendering copies
// them. The values do not change, so neither does anything the simulation does with them.
func (c *Cluster) ShareRepeats() {
	names := map[string]string{}
	name := func(s string) string {
		if s == "" {
			return s
		}
		if kept, ok := names[s]; ok {
			return kept
		}
		names[s] = s
		return s
	}
	sets := map[string]map[string]string{}
	var key []byte
	var keys []string
	share := func(m map[string]string) map[string]string {
		if len(m) == 0 {
			return m // nil stays nil and empty stays empty
		}
		keys = keys[:0]
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		key = key[:0]
		for _, k := range keys {
			key = append(append(append(append(key, k...), 0), m[k]...), 0)
		}
		if kept, ok := sets[string(key)]; ok {
			return kept
		}
		sets[string(key)] = m
		return m
	}
	// Which of equal values is kept makes no difference: the order of the maps does not matter.
	for _, n := range c.Nodes {
		name(n.Name)
	}
	for _, d := range c.Deployments {
		name(d.Name)
		for h, t := range d.Templates {
			name(h)
			t.Labels, t.Annotations = share(t.Labels), share(t.Annotations)
		}
	}
	for _, p := range c.Pods {
		p.Owner, p.Template, p.Node = name(p.Owner), name(p.Template), name(p.Node)
		p.Labels, p.Annotation = share(p.Labels), share(p.Annotation)
	}
}
