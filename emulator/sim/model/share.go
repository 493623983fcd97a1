package model

import (
	"encoding/binary"
	"maps"
	"slices"
)

// ShareRepeats makes the pods of a decoded state share what repeats among them, as the pods the
// simulation makes do. A Deployment's pods are made with its name and its template's hash,
// labels and annotations, a DaemonSet's with its own, and a bound pod with its node's name,
// each one value for all; decoding a saved state gives every pod copies of its own (a
// restored 15,000-node cluster of 150,000 pods held 208 MB live; shared, 115 MB, what the
// emulator that saved it held). After ShareRepeats, a Deployment's pods hold its name, its
// template's hash, labels and annotations, a bound pod its node's name, and the other pods one
// copy of each owner and template name and of each set of labels and of annotations.
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
		for _, k := range keys { // each string after its length: a value may hold any byte
			key = binary.AppendUvarint(key, uint64(len(k)))
			key = append(key, k...)
			key = binary.AppendUvarint(key, uint64(len(m[k])))
			key = append(key, m[k]...)
		}
		if kept, ok := sets[string(key)]; ok {
			return kept
		}
		sets[string(key)] = m
		return m
	}
	// Which of equal values is kept makes no difference: the order of the maps does not matter.
	for _, d := range c.Deployments {
		for _, t := range d.Templates {
			if t != nil { // a saved state may hold none (nothing reads it)
				t.Labels, t.Annotations = share(t.Labels), share(t.Annotations)
			}
		}
	}
	for _, p := range c.Pods {
		if n := c.Nodes[p.Node]; n != nil {
			p.Node = n.Name
		}
		var d *Deployment
		if p.OwnerKind == OwnerDeployment {
			d = c.Deployments[p.OwnerKey()]
		}
		if d == nil {
			p.Owner, p.Template = name(p.Owner), name(p.Template)
			p.Labels, p.Annotation = share(p.Labels), share(p.Annotation)
			continue
		}
		// Most pods are a Deployment's, made with its name, its template's hash, labels and
		// annotations: comparisons find them, without the key share builds.
		if p.Owner == d.Name {
			p.Owner = d.Name
		}
		if p.Template == d.Current {
			p.Template = d.Current
		} else {
			p.Template = name(p.Template)
		}
		t := d.Templates[p.Template]
		if t != nil && sameMaps(p.Labels, t.Labels) {
			p.Labels = t.Labels
		} else {
			p.Labels = share(p.Labels)
		}
		if t != nil && sameMaps(p.Annotation, t.Annotations) {
			p.Annotation = t.Annotations
		} else {
			p.Annotation = share(p.Annotation)
		}
	}
}

// sameMaps says whether a and b hold the same pairs and are both nil or both not.
func sameMaps(a, b map[string]string) bool {
	return (a == nil) == (b == nil) && maps.Equal(a, b)
}
