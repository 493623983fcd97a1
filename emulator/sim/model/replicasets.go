package model

// TemplateCount counts a Deployment's pods of one template.
type TemplateCount struct{ All, Live, Ready int32 }

// StatusInputs are what a Deployment's status is computed from, but the time.
type StatusInputs struct {
	Generation                      int64
	Current                         string
	Replicas, Total, Updated, Ready int32
	Complete                        bool
}

// Name is the ReplicaSet's name: {deployment}-{pod-template-hash}.
func (rs *ReplicaSet) Name(d *Deployment) string { return d.Name + "-" + rs.Hash }
