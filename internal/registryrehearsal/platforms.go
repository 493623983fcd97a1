package registryrehearsal

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// CheckPlatforms checks a goreleaser dist directory against what the release promises: every
// platform goreleaser built the provider for (build id buildID, from .goreleaser.yml's goos,
// goarch and ignore) has its zip named in the checksum file, and the checksum file names the
// registry manifest. It gives the platforms, sorted.
func CheckPlatforms(dist, buildID string) ([]string, error) {
	var meta struct {
		ProjectName string `json:"project_name"`
		Version     string `json:"version"`
	}
	if err := readJSON(filepath.Join(dist, "metadata.json"), &meta); err != nil {
		return nil, err
	}
	var artifacts []struct {
		Type   string         `json:"type"`
		GOOS   string         `json:"goos"`
		GOARCH string         `json:"goarch"`
		Extra  map[string]any `json:"extra"`
	}
	if err := readJSON(filepath.Join(dist, "artifacts.json"), &artifacts); err != nil {
		return nil, err
	}
	prefix := meta.ProjectName + "_" + meta.Version
	named, err := readSumsNames(filepath.Join(dist, prefix+"_SHA256SUMS"))
	if err != nil {
		return nil, err
	}
	var platforms, missing []string
	for _, a := range artifacts {
		if a.Type != "Binary" || a.Extra["ID"] != buildID {
			continue
		}
		p := a.GOOS + "_" + a.GOARCH
		platforms = append(platforms, p)
		if !named[prefix+"_"+p+".zip"] {
			missing = append(missing, prefix+"_"+p+".zip")
		}
	}
	if len(platforms) == 0 {
		return nil, fmt.Errorf("%s/artifacts.json has no binary of build %q: is the build id right?", dist, buildID)
	}
	if !named[prefix+"_manifest.json"] {
		missing = append(missing, prefix+"_manifest.json")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s_SHA256SUMS does not name %s: check the archives' name_template and the checksum section's extra_files in .goreleaser.yml", prefix, strings.Join(missing, ", "))
	}
	sort.Strings(platforms)
	return platforms, nil
}

func readSumsNames(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the release's checksum file: %w", err)
	}
	defer f.Close()
	named := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if _, file, ok := strings.Cut(sc.Text(), "  "); ok {
			named[file] = true
		}
	}
	return named, sc.Err()
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("goreleaser's %s: %w (run goreleaser release first)", filepath.Base(path), err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
