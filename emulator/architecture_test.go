package emulator_test

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
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
	"emulator/sim/labelindex":    {},
	"emulator/sim/model":         {"emulator/api", "emulator/sim/catalog", "emulator/sim/eventq"},
	"emulator/sim/engine":        {"emulator/api", "emulator/sim/model"},
	"emulator/sim/maintenance":   {"emulator/api", "emulator/sim/catalog", "emulator/sim/window", "emulator/sim/model", "emulator/sim/engine"},
	"emulator/sim/feed":          {"emulator/api", "emulator/sim/model"},
	"emulator/sim/kuberender":    {"emulator/api", "emulator/sim/catalog", "emulator/sim/model"},
	"emulator/sim/core":          {"emulator/api", "emulator/sim/catalog", "emulator/sim/labelindex", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/feed", "emulator/sim/kuberender"},
	"emulator/sim/workloads":     {"emulator/sim/catalog", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core", "emulator/sim/kuberender"},
	"emulator/sim/loadbalancers": {"emulator/api", "emulator/sim/catalog", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core", "emulator/sim/kuberender"},
	"emulator/sim/compute":       {"emulator/api", "emulator/sim/catalog", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core", "emulator/sim/loadbalancers"},
	"emulator/sim/autoscaler":    {"emulator/api", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core", "emulator/sim/workloads"},
	"emulator/sim/kubeapi":       {"emulator/sim/catalog", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core", "emulator/sim/kuberender", "emulator/sim/workloads", "emulator/sim/loadbalancers"},
	"emulator/sim/upgrade":       {"emulator/api", "emulator/sim/catalog", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core", "emulator/sim/maintenance"},
	"emulator/sim/autoupgrade": {"emulator/api", "emulator/sim/catalog", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core",
		"emulator/sim/maintenance", "emulator/sim/upgrade"},
	"emulator/sim/views": {"emulator/api", "emulator/sim/catalog", "emulator/sim/window", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core",
		"emulator/sim/maintenance", "emulator/sim/loadbalancers", "emulator/sim/upgrade"},
	"emulator/sim/gke": {"emulator/api", "emulator/sim/catalog", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core",
		"emulator/sim/maintenance", "emulator/sim/loadbalancers", "emulator/sim/kubeapi", "emulator/sim/upgrade", "emulator/sim/autoupgrade", "emulator/sim/workloads"},
	"emulator/sim/clusterimport": {"emulator/api", "emulator/sim/catalog", "emulator/sim/model", "emulator/sim/engine", "emulator/sim/core",
		"emulator/sim/maintenance", "emulator/sim/loadbalancers", "emulator/sim/autoupgrade", "emulator/sim/gke", "emulator/sim/workloads", "emulator/sim/kuberender"},
	"emulator/sim": {"emulator/api", "emulator/sim/feed", "emulator/sim/clusterimport", "emulator/sim/gke", "emulator/sim/views", "emulator/sim/catalog", "emulator/sim/eventq", "emulator/sim/window", "emulator/sim/model", "emulator/sim/engine",
		"emulator/sim/maintenance", "emulator/sim/core", "emulator/sim/loadbalancers", "emulator/sim/autoscaler", "emulator/sim/kubeapi",
		"emulator/sim/upgrade", "emulator/sim/autoupgrade", "emulator/sim/workloads", "emulator/sim/compute", "emulator/sim/kuberender"},
	"emulator/store":                      {"emulator/sim"},
	"emulator/server/internal/httpio":     {"emulator/sim"},
	"emulator/server/k8s":                 {"emulator/api", "emulator/sim", "emulator/server/internal/httpio"},
	"emulator/server/internal/servertest": {"emulator/api", "emulator/sim", "emulator/wall"},
	"emulator/server": {"emulator/api", "emulator/console", "emulator/googlejson", "emulator/sim", "emulator/rehearse",
		"emulator/server/internal/httpio", "emulator/server/k8s"},
	"emulator/console":      {},
	"emulator/googlejson":   {},
	"emulator/wall":         {},
	"emulator/kubeconfig":   {},
	"emulator":              {"emulator/server", "emulator/sim", "emulator/store", "emulator/wall"},
	"emulator/emulatortest": {"emulator", "emulator/api"},
	"emulator/rehearse":     {"emulator/api", "emulator/sim", "emulator/sim/catalog"},
	"emulator/cmd/gkesim": {"emulator", "emulator/api", "emulator/cmd/gkesim/internal/serveconfig", "emulator/kubeconfig",
		"emulator/rehearse", "emulator/sim", "emulator/store"},
	"emulator/cmd/gkesim/internal/serveconfig": {"emulator", "emulator/server", "emulator/sim"},
	"emulator/conformance":                     {},
	"emulator/internal/aliascheck":             {},
	"emulator/internal/benchfloor":             {"emulator/sim/eventq"},
	"emulator/internal/tmpfs":                  {},
	"emulator/testdata/snapshot/gen":           {},
	"provider/internal/client":                 {},
	"provider":                                 {"provider/internal/client"},
}

const module = "github.com/gkesim/terraform-provider-gkesim/"

func TestDependencyDirection(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	// Every package is listed: a new one says what it may import before it imports anything.
	for _, pkg := range goPackages(t, root, "emulator", "provider") {
		if _, listed := allowedImports[pkg]; !listed {
			t.Errorf("%s is not in allowedImports: list it with the packages it may import (ARCHITECTURE.md shows the direction)", pkg)
		}
	}
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
	var simPackages []string
	for pkg := range allowedImports {
		if pkg == "emulator/sim" || strings.HasPrefix(pkg, "emulator/sim/") {
			simPackages = append(simPackages, pkg)
		}
	}
	for _, pkg := range simPackages {
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

// goPackages lists the directories under root/dirs that hold non-test Go files, as paths
// relative to root.
func goPackages(t *testing.T, root string, dirs ...string) []string {
	seen := map[string]bool{}
	for _, d := range dirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			seen[filepath.ToSlash(rel)] = true
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	out := make([]string, 0, len(seen))
	for pkg := range seen {
		out = append(out, pkg)
	}
	sort.Strings(out)
	return out
}

// fileRef is a Go file named in a comment or in ARCHITECTURE.md ("core/nodes.go").
var fileRef = regexp.MustCompile(`(?:^|[^\w./-])((?:[a-z0-9_]+/)*[a-z0-9_]+\.go)\b`)

// Comments and ARCHITECTURE.md name files to read next; every file they name exists. A Go
// comment names a file of its own package, or a path from its package, from emulator/ or from
// emulator/sim/; ARCHITECTURE.md names a path that some file's path ends with.
func TestNamedFilesExist(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	exists := func(p string) bool { _, err := os.Stat(filepath.Join(root, p)); return err == nil }
	for _, pkg := range goPackages(t, root, "emulator", "provider") {
		names, _ := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		for _, name := range names {
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, cg := range f.Comments {
				for _, m := range fileRef.FindAllStringSubmatch(cg.Text(), -1) {
					ref := m[1]
					if !exists(filepath.Join(pkg, ref)) && !exists(filepath.Join("emulator", ref)) && !exists(filepath.Join("emulator/sim", ref)) && !exists(ref) {
						rel, _ := filepath.Rel(root, name)
						t.Errorf("%s: a comment names %s, which does not exist (from its package, emulator/ or emulator/sim/)", rel, ref)
					}
				}
			}
		}
	}
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	_ = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(path, ".go") {
			all = append(all, filepath.ToSlash(path))
		}
		return nil
	})
	for _, m := range fileRef.FindAllStringSubmatch(string(doc), -1) {
		ref, found := m[1], false
		for _, p := range all {
			found = found || strings.HasSuffix(p, "/"+ref)
		}
		if !found {
			t.Errorf("ARCHITECTURE.md names %s, which no file's path ends with", ref)
		}
	}
}

// The size budgets the restructuring set (ARCHITECTURE.md, "Sizes"): no package under emulator/
// over 4,000 lines of non-test Go, no non-test Go file in the repository over 800 lines, no type
// with more than 150 methods. A change that would break one moves code out first.
func TestSizeBudgets(t *testing.T) {
	const maxPackageLines, maxFileLines, maxMethods = 4000, 800, 150
	root := filepath.Join("..")
	packageLines := map[string]int{}
	methods := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := strings.Count(string(src), "\n")
		rel, _ := filepath.Rel(root, path)
		if lines > maxFileLines {
			t.Errorf("%s has %d lines; a file stays under %d: split it by what its parts do", rel, lines, maxFileLines)
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		packageLines[dir] += lines
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv != nil && len(fn.Recv.List) == 1 {
				typ := fn.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if idx, ok := typ.(*ast.IndexExpr); ok {
					typ = idx.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					methods[dir+"."+id.Name]++
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, n := range packageLines {
		if strings.HasPrefix(dir, "emulator/") && n > maxPackageLines {
			t.Errorf("package %s has %d lines of non-test Go; a package stays under %d: move a part that stands on its own into a package of its own", dir, n, maxPackageLines)
		}
	}
	for typ, n := range methods {
		if n > maxMethods {
			t.Errorf("type %s has %d methods; a type stays under %d", typ, n, maxMethods)
		}
	}
	if packageLines["emulator/sim/core"] == 0 {
		t.Fatal("found no lines in emulator/sim/core: the walk is broken")
	}
}
