package emulator_test

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The dependency direction ARCHITECTURE.md describes, enforced: each package may import only
// the repository packages listed for it (test files aside).
var allowedImports = map[string][]string{
	"emulator/api":               {},
	"emulator/sim/eventq":        {},
	"emulator/sim/window":        {},
	"emulator/sim/catalog":       {"emulator/api"},
	"emulator/sim/model":         {"emulator/api", "emulator/sim/catalog", "emulator/sim/eventq"},
	"emulator/sim/engine":        {"emulator/api", "emulator/sim/model"},
	"emulator/sim/maintenance":   {"emulator/api", "emulator/sim/catalog", "emulator/sim/window", "emulator/sim/model", "emulator/sim/engine"},
	"emulator/sim/core":          {"emulator/api", "emulator/sim/catalog", "emulator/sim/model", "emulator/sim/engine"},
	"emulator/sim/workloads":     {"emulator/sim/model", "emulator/sim/engine", "emulator/sim/core"},
	"emulator/sim/loadbalancers": {"emulator/api", "emulator/sim/catalog", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core"},
	"emulator/sim/compute":       {"emulator/api", "emulator/sim/catalog", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core", "emulator/sim/loadbalancers"},
	"emulator/sim/autoscaler":    {"emulator/api", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core", "emulator/sim/workloads"},
	"emulator/sim/kubeapi":       {"emulator/sim/model", "emulator/sim/engine", "emulator/sim/core", "emulator/sim/workloads", "emulator/sim/loadbalancers"},
	"emulator/sim/upgrade":       {"emulator/api", "emulator/sim/catalog", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core", "emulator/sim/maintenance"},
	"emulator/sim/autoupgrade": {"emulator/api", "emulator/sim/catalog", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core",
		"emulator/sim/maintenance", "emulator/sim/upgrade"},
	"emulator/sim/views": {"emulator/api", "emulator/sim/catalog", "emulator/sim/window", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core",
		"emulator/sim/maintenance", "emulator/sim/loadbalancers", "emulator/sim/upgrade"},
	"emulator/sim/gke": {"emulator/api", "emulator/sim/catalog", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core",
		"emulator/sim/maintenance", "emulator/sim/loadbalancers", "emulator/sim/kubeapi", "emulator/sim/upgrade", "emulator/sim/autoupgrade", "emulator/sim/workloads"},
	"emulator/sim/clusterimport": {"emulator/api", "emulator/sim/catalog", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core",
		"emulator/sim/maintenance", "emulator/sim/loadbalancers", "emulator/sim/autoupgrade", "emulator/sim/gke", "emulator/sim/workloads"},
	"emulator/sim": {"emulator/api", "emulator/sim/clusterimport", "emulator/sim/gke", "emulator/sim/views", "emulator/sim/catalog", "emulator/sim/eventq", "emulator/sim/window", "emulator/sim/model", "emulator/sim/engine",
		"emulator/sim/maintenance", "emulator/sim/core", "emulator/sim/loadbalancers", "emulator/sim/autoscaler", "emulator/sim/kubeapi",
		"emulator/sim/upgrade", "emulator/sim/autoupgrade", "emulator/sim/workloads", "emulator/sim/compute"},
	"emulator/store":                      {"emulator/sim"},
	"emulator/server/internal/httpio":     {"emulator/sim"},
	"emulator/server/k8s":                 {"emulator/api", "emulator/sim", "emulator/server/internal/httpio"},
	"emulator/server/internal/servertest": {"emulator/api", "emulator/sim", "emulator/wall"},
	"emulator/server": {"emulator/api", "emulator/console", "emulator/googlejson", "emulator/sim",
		"emulator/server/internal/httpio", "emulator/server/k8s"},
	"emulator/console":         {},
	"emulator/googlejson":      {},
	"emulator/wall":            {},
	"emulator/kubeconfig":      {},
	"emulator":                 {"emulator/server", "emulator/sim", "emulator/store", "emulator/wall"},
	"emulator/emulatortest":    {"emulator", "emulator/api"},
	"emulator/rehearse":        {"emulator/api", "emulator/sim", "emulator/sim/catalog"},
	"provider/internal/client": {},
	"provider":                 {"provider/internal/client"},
}

const module = "github.com/gkesim/terraform-provider-gkesim/"

func TestDependencyDirection(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	for pkg, allowed := range allowedImports {
		bp, err := build.Default.ImportDir(filepath.Join(root, pkg), 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, imp := range bp.Imports {
			rel, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			ok := false
			for _, a := range allowed {
				ok = ok || a == rel
			}
			if !ok {
				t.Errorf("%s imports %s, against the dependency direction (allowed: %v); see ARCHITECTURE.md", pkg, rel, allowed)
			}
		}
	}
	// Echo stays inside the server's tree (emulator/server and the packages under it), so that
	// moving to Echo v5 is a change to that tree alone.
	for pkg := range allowedImports {
		if pkg == "emulator/server" || strings.HasPrefix(pkg, "emulator/server/") {
			continue
		}
		bp, _ := build.Default.ImportDir(filepath.Join(root, pkg), 0)
		for _, imp := range bp.Imports {
			if strings.HasPrefix(imp, "github.com/labstack/echo") {
				t.Errorf("%s imports Echo; only emulator/server and the packages under it may", pkg)
			}
		}
	}
}

// Nothing in the simulation reads the wall clock: the runner gets it injected (sim.Wall), and
// everything else lives on emulated time.
func TestSimulationReadsNoWallClock(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	wallClock := map[string]bool{"Now": true, "Since": true, "Until": true, "After": true, "AfterFunc": true, "Sleep": true,
		"NewTimer": true, "NewTicker": true, "Tick": true}
	for _, pkg := range []string{"emulator/sim", "emulator/sim/catalog", "emulator/sim/window", "emulator/sim/eventq", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/maintenance", "emulator/sim/core",
		"emulator/sim/loadbalancers", "emulator/sim/autoscaler", "emulator/sim/kubeapi", "emulator/sim/upgrade", "emulator/sim/autoupgrade", "emulator/sim/views", "emulator/sim/gke", "emulator/sim/clusterimport", "emulator/sim/workloads", "emulator/sim/compute"} {
		dir := filepath.Join(root, pkg)
		bp, err := build.Default.ImportDir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		for _, name := range bp.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "time" && wallClock[sel.Sel.Name] {
						t.Errorf("%s: time.%s reads the wall clock; use emulated time (World.Now) or the injected sim.Wall", fset.Position(sel.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}
