package provider

import (
	"strconv"
	"strings"
)

// GKE version strings (1.X.Y-gke.N) and their aliases (1.X, 1.X.Y), compared by their parts.

// versionParts parses "1.X.Y-gke.N", "1.X.Y" or "1.X" into its numbers; ok is false otherwise.
func versionParts(v string) ([]int, bool) {
	main, build, hasBuild := strings.Cut(v, "-gke.")
	fields := strings.Split(main, ".")
	if hasBuild {
		fields = append(fields, build)
	}
	if len(fields) < 2 {
		return nil, false
	}
	out := make([]int, len(fields))
	for i, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// compareVersionPrefix compares a full version with a version or alias, looking only at the
// parts the second one has: ("1.36.12-gke.2240000", "1.36") is 0, ("1.35.4-gke.1", "1.36") is -1.
// Unparseable input compares as equal.
func compareVersionPrefix(full, prefix string) int {
	a, ok1 := versionParts(full)
	b, ok2 := versionParts(prefix)
	if !ok1 || !ok2 {
		return 0
	}
	for i := range b {
		if i >= len(a) {
			return 0
		}
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// versionSatisfies says whether the server's version is what a configured version or alias
// asks for, so that "1.36" in a configuration does not diff against "1.36.12-gke.2240000".
func versionSatisfies(actual, configured string) bool {
	if configured == actual || configured == "latest" || configured == "-" {
		return true
	}
	_, ok := versionParts(configured)
	return ok && compareVersionPrefix(actual, configured) == 0
}

// newestVersion picks the newest of full versions.
func newestVersion(list []string) string {
	best := list[0]
	for _, v := range list[1:] {
		if compareVersionPrefix(v, best) > 0 {
			best = v
		}
	}
	return best
}
