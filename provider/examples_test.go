package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// Every example and scenario under examples/ applies against an emulator, and the plan after
// the apply is empty (resource.Test checks that after each step).

// stripBlock removes every top-level block whose header line starts with header, returning
// the file without them and the removed blocks.
func stripBlock(src, header string) (string, []string) {
	var out, removed []string
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], header) {
			out = append(out, lines[i])
			continue
		}
		depth, start := 0, i
		for ; i < len(lines); i++ {
			depth += strings.Count(lines[i], "{") - strings.Count(lines[i], "}")
			if depth == 0 {
				break
			}
		}
		removed = append(removed, strings.Join(lines[start:i+1], "\n"))
	}
	return strings.Join(out, "\n"), removed
}

var locationRE = regexp.MustCompile(`(?m)^\s*location\s*=\s*"([^"]+)"`)

// exampleConfig turns an example into a test configuration: the example's own terraform and
// provider blocks give way to one that points at the test's emulator (keeping the example's
// location).
func exampleConfig(t *testing.T, dir, endpoint string) string {
	files, err := filepath.Glob(filepath.Join(dir, "*.tf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no .tf files in %s", dir)
	}
	var body strings.Builder
	location := testZone
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src, _ := stripBlock(string(b), "terraform {")
		src, providers := stripBlock(src, `provider "gkesim" {`)
		for _, p := range providers {
			if m := locationRE.FindStringSubmatch(p); m != nil {
				location = m[1]
			}
		}
		body.WriteString(src)
	}
	return fmt.Sprintf(`
provider "gkesim" {
  endpoint      = %q
  project       = "demo-project"
  location      = %q
  poll_interval = "20ms"
}
`, endpoint, location) + body.String()
}

// otherProviderExample is the one example left out: it is written for hashicorp/google
// (terraform-provider-google pointed at the emulator), which comes from the Terraform Registry,
// and the test machines cannot download it. It is formatted by `make docs` and run by hand.
const otherProviderExample = "terraform-provider-google"

func TestAccExamples(t *testing.T) {
	var dirs []string
	for _, pattern := range []string{"../examples/resources/*", "../examples/data-sources/*", "../examples/scenarios/*"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range m {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				dirs = append(dirs, d)
			}
		}
	}
	if len(dirs) < 6 {
		t.Fatalf("found only %d example directories: %v", len(dirs), dirs)
	}
	for _, dir := range dirs {
		if filepath.Base(dir) == otherProviderExample {
			continue
		}
		t.Run(strings.TrimPrefix(dir, "../examples/"), func(t *testing.T) {
			// Wait for a parallel slot before the emulator's clock starts: examples that show
			// times (an open maintenance window starts "now") must not find hours gone by.
			t.Parallel()
			ep := testEmulator(t)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             checkGone(ep, "gkesim_cluster"),
				Steps:                    []resource.TestStep{{Config: exampleConfig(t, dir, ep)}},
			})
		})
	}
}
