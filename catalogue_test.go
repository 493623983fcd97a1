package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The catalogue of simulated GKE behaviour (templates/guides, generated into docs/guides) has
// one entry per rule id. The code, the tests and the docs cite those ids; this test keeps them
// and the catalogue in step, and keeps the repository from pointing at documents it does not
// hold.

const (
	guidesDir = "templates/guides"
	// guidesIndex is the guide that lists every entry.
	guidesIndex = "gke-behaviour"
	// registryGuides is where the published provider's guides live.
	registryGuides = "https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/"
)

var (
	// ruleRef matches a citation: R-SURGE-2a, and the lists and ranges the code writes
	// (R-BG-3/4, R-CA-1..4, R-SL-*).
	ruleRef = regexp.MustCompile(`\bR-([A-Z]+)-(\d+[a-z]?|\*)((?:(?:\.\.|/)\d+[a-z]?)*)`)
	// ruleID matches one id.
	ruleID = regexp.MustCompile(`\bR-[A-Z]+-\d+[a-z]?\b`)
	// ruleLink is an id written as a link to its entry: [R-LB-4](../guides/load-balancers.md#r-lb-4).
	ruleLink = regexp.MustCompile(`\[(R-[A-Z]+-\d+[a-z]?)\]\(([^)\s]*)\)`)
	// guideLink matches a link into the guides from outside them, relative (to the .md file
	// and an anchor) or on the registry (the guide's name and an anchor).
	guideLink   = regexp.MustCompile(`guides/([a-z0-9-]+)(\.md)?(#[a-z0-9-]+)?`)
	anchorTag   = regexp.MustCompile(`<a id="([^"]+)"></a>`)
	entryHead   = regexp.MustCompile(`^## (R-[A-Z]+-\d+[a-z]?): \S`)
	testFuncRef = regexp.MustCompile("`((?:Test|Benchmark)\\w*)`")
	testFileRef = regexp.MustCompile("`([\\w./-]+_test\\.go)`")
)

// entry is one rule of the catalogue.
type entry struct {
	id, guide, text string
}

func (e entry) anchor() string { return strings.ToLower(e.id) }

// loadCatalogue reads the guides: every entry by id, and every anchor by guide.
func loadCatalogue(t *testing.T) (map[string]entry, map[string]map[string]bool) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(guidesDir, "*.md.tmpl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no guides under %s: %v", guidesDir, err)
	}
	entries := map[string]entry{}
	anchors := map[string]map[string]bool{}
	for _, f := range files {
		guide := strings.TrimSuffix(filepath.Base(f), ".md.tmpl")
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		anchors[guide] = map[string]bool{}
		lines := strings.Split(string(b), "\n")
		var cur *entry
		flush := func() {
			if cur != nil {
				entries[cur.id] = *cur
				cur = nil
			}
		}
		for i, line := range lines {
			if m := anchorTag.FindStringSubmatch(line); m != nil {
				anchors[guide][m[1]] = true
				flush()
				if i+1 >= len(lines) {
					t.Errorf("%s: anchor %q ends the file", f, m[1])
					continue
				}
				h := entryHead.FindStringSubmatch(lines[i+1])
				switch {
				case h == nil:
					t.Errorf("%s:%d: anchor %q is not followed by a heading \"## R-...: title\"", f, i+1, m[1])
				case strings.ToLower(h[1]) != m[1]:
					t.Errorf("%s:%d: anchor %q heads the entry of %s; the anchor is the id in lower case", f, i+1, m[1], h[1])
				default:
					if prev, dup := entries[h[1]]; dup {
						t.Errorf("%s: %s has a second entry (the first is in %s)", f, h[1], prev.guide)
					}
					cur = &entry{id: h[1], guide: guide}
				}
				continue
			}
			if strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "# ") {
				if h := entryHead.FindStringSubmatch(line); h != nil && (i == 0 || anchorTag.FindStringSubmatch(lines[i-1]) == nil) {
					t.Errorf("%s:%d: the entry of %s has no <a id=%q></a> above its heading", f, i+1, h[1], strings.ToLower(h[1]))
				}
				if cur != nil && !strings.HasPrefix(line, "## R-") {
					flush()
				}
				continue
			}
			if cur != nil {
				cur.text += line + "\n"
			}
		}
		flush()
	}
	return entries, anchors
}

// TestRuleCatalogue checks the catalogue against the repository.
func TestRuleCatalogue(t *testing.T) {
	entries, anchors := loadCatalogue(t)
	files := repoFiles(t)

	t.Run("EveryEntryIsComplete", func(t *testing.T) {
		for _, id := range sortedIDs(entries) {
			e := entries[id]
			for _, part := range []string{"**GKE.**", "**Source.**", "**gkesim.**", "**Where gkesim is simpler.**", "**Tests.**"} {
				if !strings.Contains(e.text, part) {
					t.Errorf("%s (%s): no %s part", id, e.guide, part)
				}
			}
			if !regexp.MustCompile(`\*\*Source\.\*\* [^\n]*\(https://cloud\.google\.com/kubernetes-engine/docs/[^)]+\)`).MatchString(e.text) {
				t.Errorf("%s (%s): the Source part does not link to a page of GKE's documentation on cloud.google.com", id, e.guide)
			}
		}
	})

	t.Run("EveryNamedTestExists", func(t *testing.T) {
		for _, id := range sortedIDs(entries) {
			e := entries[id]
			_, tests, ok := strings.Cut(e.text, "**Tests.**")
			if !ok {
				continue
			}
			tests, _, _ = strings.Cut(tests, "\n\n")
			if strings.Contains(tests, "None: gkesim does not simulate") {
				continue
			}
			file, named := "", 0
			// Walk the backticked names in order: a file, then the tests in it.
			for _, tok := range regexp.MustCompile("`[^`]+`").FindAllString(tests, -1) {
				switch {
				case testFileRef.MatchString(tok):
					file = testFileRef.FindStringSubmatch(tok)[1]
				case testFuncRef.MatchString(tok):
					name := testFuncRef.FindStringSubmatch(tok)[1]
					named++
					if file == "" {
						t.Errorf("%s: test %s is named before any file", id, name)
						continue
					}
					src, err := os.ReadFile(filepath.FromSlash(file))
					if err != nil {
						t.Errorf("%s: names %s in %s, which does not exist", id, name, file)
						continue
					}
					if !bytes.Contains(src, []byte("\nfunc "+name+"(")) {
						t.Errorf("%s: names %s, which is not a function of %s", id, name, file)
					}
				}
			}
			if named == 0 {
				t.Errorf("%s (%s): the Tests part names no test; write \"None: gkesim does not simulate this rule.\" if there is none", id, e.guide)
			}
		}
	})

	t.Run("TheIndexListsEveryEntry", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(guidesDir, guidesIndex+".md.tmpl"))
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]int{}
		for _, m := range ruleLink.FindAllStringSubmatch(string(b), -1) {
			listed[m[1]]++
			e, ok := entries[m[1]]
			if ok && m[2] != e.guide+".md#"+e.anchor() {
				t.Errorf("the index links %s to %s, want %s.md#%s", m[1], m[2], e.guide, e.anchor())
			}
		}
		for _, id := range sortedIDs(entries) {
			if listed[id] != 1 {
				t.Errorf("the index (%s) lists %s %d times, want once", guidesIndex, id, listed[id])
			}
		}
	})

	t.Run("EveryCitedIDHasAnEntry", func(t *testing.T) {
		families := map[string]bool{}
		for id := range entries {
			families[strings.Split(id, "-")[1]] = true
		}
		missing := map[string][]string{}
		for _, f := range files {
			for _, m := range ruleRef.FindAllStringSubmatch(string(f.data), -1) {
				if m[2] == "*" {
					if !families[m[1]] {
						missing["R-"+m[1]+"-*"] = append(missing["R-"+m[1]+"-*"], f.path)
					}
					continue
				}
				for _, id := range expandRef(m) {
					if _, ok := entries[id]; !ok {
						missing[id] = append(missing[id], f.path)
					}
				}
			}
		}
		for _, id := range sortedKeys(missing) {
			t.Errorf("%s is cited in %s but has no entry in %s: add one (see %s.md.tmpl)", id, strings.Join(uniq(missing[id]), ", "), guidesDir, guidesIndex)
		}
	})

	t.Run("EveryGuideLinkResolves", func(t *testing.T) {
		for _, f := range files {
			inGuides := strings.HasPrefix(f.path, guidesDir+"/") || strings.HasPrefix(f.path, "docs/guides/")
			text := string(f.data)
			for _, m := range guideLink.FindAllStringSubmatch(text, -1) {
				checkGuideTarget(t, f.path, m[1], strings.TrimPrefix(m[3], "#"), anchors)
			}
			if inGuides {
				// Links between guides are relative: x.md#anchor and #anchor.
				for _, m := range regexp.MustCompile(`\]\(([a-z0-9-]+)\.md(#[a-z0-9-]+)?\)`).FindAllStringSubmatch(text, -1) {
					checkGuideTarget(t, f.path, m[1], strings.TrimPrefix(m[2], "#"), anchors)
				}
				guide := strings.TrimSuffix(strings.TrimSuffix(path.Base(f.path), ".tmpl"), ".md")
				for _, m := range regexp.MustCompile(`\]\(#([a-z0-9-]+)\)`).FindAllStringSubmatch(text, -1) {
					checkGuideTarget(t, f.path, guide, m[1], anchors)
				}
			}
		}
	})

	t.Run("UserFacingTextLinksItsRules", func(t *testing.T) {
		for _, f := range files {
			switch {
			case strings.HasPrefix(f.path, guidesDir+"/"), strings.HasPrefix(f.path, "docs/guides/"):
				continue // the catalogue itself
			case strings.HasSuffix(f.path, ".go"):
				if !strings.HasSuffix(f.path, "_test.go") {
					checkGoStrings(t, f, entries)
				}
			case userFacing(f.path):
				checkRuleLinks(t, f.path, 0, string(f.data), entries)
			}
		}
	})

	t.Run("NothingPointsOutsideTheRepository", func(t *testing.T) {
		// The names are put together here so that this file does not cite them itself.
		var outside []string
		for _, name := range []string{"DESIGN", "GKE_API", "GKE_RULES", "STYLE"} {
			outside = append(outside, name+".md")
		}
		outside = append(outside, "../"+"shared", "/work/"+"shared")
		for _, f := range files {
			for _, o := range outside {
				if i := bytes.Index(f.data, []byte(o)); i >= 0 {
					t.Errorf("%s:%d cites %s, which is not in the repository: say the point in place, or link the catalogue in %s",
						f.path, 1+bytes.Count(f.data[:i], []byte("\n")), o, guidesDir)
				}
			}
		}
	})
}

// expandRef turns a citation into ids: R-CA-1..4 is R-CA-1 to R-CA-4, R-BG-3/4 is R-BG-3 and
// R-BG-4.
func expandRef(m []string) []string {
	family, first, rest := m[1], m[2], m[3]
	ids := []string{"R-" + family + "-" + first}
	last := first
	for rest != "" {
		sep := "/"
		if strings.HasPrefix(rest, "..") {
			sep = ".."
		}
		rest = rest[len(sep):]
		n := len(rest)
		if i := strings.IndexAny(rest, "./"); i >= 0 {
			n = i
		}
		next := rest[:n]
		rest = rest[n:]
		if sep == ".." {
			a, errA := strconv.Atoi(last)
			b, errB := strconv.Atoi(next)
			if errA == nil && errB == nil {
				for k := a + 1; k < b; k++ {
					ids = append(ids, "R-"+family+"-"+strconv.Itoa(k))
				}
			}
		}
		ids = append(ids, "R-"+family+"-"+next)
		last = next
	}
	return ids
}

func checkGuideTarget(t *testing.T, file, guide, anchor string, anchors map[string]map[string]bool) {
	t.Helper()
	a, ok := anchors[guide]
	switch {
	case !ok:
		t.Errorf("%s links to guide %q, which is not under %s", file, guide, guidesDir)
	case anchor != "" && !a[anchor]:
		t.Errorf("%s links to %s#%s, an entry that guide does not have", file, guide, anchor)
	}
}

// userFacing says whether a file is read by users: the docs and their templates, the README
// files and the examples.
func userFacing(p string) bool {
	switch {
	case strings.HasPrefix(p, "docs/"), strings.HasPrefix(p, "templates/"), strings.HasPrefix(p, "examples/"):
		return true
	}
	return path.Base(p) == "README.md"
}

// checkRuleLinks reports every id in text that is not the text of a link to its own entry.
// line is the line text starts on (0: count from the start of the file).
func checkRuleLinks(t *testing.T, file string, line int, text string, entries map[string]entry) {
	t.Helper()
	linked := map[int]bool{}
	for _, loc := range ruleLink.FindAllStringSubmatchIndex(text, -1) {
		id, target := text[loc[2]:loc[3]], text[loc[4]:loc[5]]
		e, ok := entries[id]
		if !ok {
			continue // reported as a citation without an entry
		}
		if !strings.HasSuffix(target, "#"+e.anchor()) || !strings.Contains(target, e.guide) {
			t.Errorf("%s:%d: [%s](%s) does not link to the entry of %s (%s#%s)", file, line+1+strings.Count(text[:loc[0]], "\n"), id, target, id, e.guide, e.anchor())
		}
		linked[loc[2]] = true
	}
	for _, loc := range ruleID.FindAllStringIndex(text, -1) {
		if linked[loc[0]] {
			continue
		}
		id := text[loc[0]:loc[1]]
		rel, url := "docs/guides/GUIDE.md#ANCHOR", registryGuides+"GUIDE#ANCHOR"
		if e, ok := entries[id]; ok {
			rel, url = "docs/guides/"+e.guide+".md#"+e.anchor(), registryGuides+e.guide+"#"+e.anchor()
		}
		t.Errorf("%s:%d: %s is cited without a link to its entry: in docs write [%s](PATH) with PATH the way from the file to %s; "+
			"in messages write (see %s); or say the rule in words", file, line+1+strings.Count(text[:loc[0]], "\n"), id, id, rel, url)
	}
}

// checkGoStrings applies checkRuleLinks to the string literals of a Go file: error messages,
// event messages, schema descriptions and help texts all reach users.
func checkGoStrings(t *testing.T, f repoFile, entries map[string]entry) {
	t.Helper()
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, f.path, f.data, parser.SkipObjectResolution)
	if err != nil {
		t.Errorf("%s: %v", f.path, err)
		return
	}
	ast.Inspect(af, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING || !ruleID.MatchString(lit.Value) {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			s = lit.Value
		}
		checkRuleLinks(t, f.path, fset.Position(lit.Pos()).Line-1, s, entries)
		return true
	})
}

// repoFile is a text file of the repository.
type repoFile struct {
	path string // slash-separated, relative to the repository root
	data []byte
}

// repoFiles reads the repository's text files, leaving out what is not the project's source
// (git's data, build output).
func repoFiles(t *testing.T) []repoFile {
	t.Helper()
	var out []repoFile
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(name, ".") || name == "bin" || name == "dist" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > 4<<20 {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.IndexByte(data, 0) >= 0 {
			return nil // binary
		}
		out = append(out, repoFile{path: filepath.ToSlash(p), data: data})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sortedIDs(m map[string]entry) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func uniq(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
