package model

import (
	corev1 "k8s.io/api/core/v1"
)

func Tolerates(tols []corev1.Toleration, t corev1.Taint) bool {
	for _, tol := range tols {
		if tol.Effect != "" && tol.Effect != t.Effect {
			continue
		}
		switch {
		case tol.Operator == corev1.TolerationOpExists && (tol.Key == "" || tol.Key == t.Key):
			return true
		case tol.Key == t.Key && tol.Value == t.Value:
			return true
		}
	}
	return false
}

// MatchesNodeSelector evaluates required node affinity terms (ORed) of In, NotIn, Exists,
// DoesNotExist expressions against node labels.
func MatchesNodeSelector(ns *corev1.NodeSelector, lbls map[string]string) bool {
	for _, term := range ns.NodeSelectorTerms {
		ok := true
		for _, e := range term.MatchExpressions {
			v, has := lbls[e.Key]
			switch e.Operator {
			case corev1.NodeSelectorOpIn:
				ok = ok && has && Contains(e.Values, v)
			case corev1.NodeSelectorOpNotIn:
				ok = ok && !(has && Contains(e.Values, v))
			case corev1.NodeSelectorOpExists:
				ok = ok && has
			case corev1.NodeSelectorOpDoesNotExist:
				ok = ok && !has
			}
		}
		if ok {
			return true
		}
	}
	return false
}
