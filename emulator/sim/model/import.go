package model

import (
	"time"
)

// ImportRecord says where an imported cluster came from.
type ImportRecord struct {
	SnapshotTime time.Time `json:"snapshotTime"`
	Time         time.Time `json:"time"`
}

func (p *NodePool) GroupNamed(name string) *InstanceGroup {
	for _, g := range p.Groups {
		if g.Name == name {
			return g
		}
	}
	return nil
}
