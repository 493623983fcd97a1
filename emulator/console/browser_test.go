package console_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/emulatortest"
)

// The console in a real browser: headless Chromium driven from Go (chromedp) against an
// in-process emulator running the scenario of scenario_test.go. Each view is checked against
// the API it draws from, the views are reached by clicking (clusters -> pool -> timeline) and by
// keyboard, and any console error or uncaught exception fails the test.
//
// Chromium comes from the system (Debian: apt-get install chromium). Without it the test is
// skipped, unless GKESIM_REQUIRE_BROWSER=1 (CI sets it), when it fails.

var screenshots = flag.String("screenshots", "", "also write the README's screenshots of the console to this directory (make screenshots)")

// readmeShots are the screenshots README.md shows; the others are test artifacts only.
var readmeShots = map[string]bool{"cluster": true, "timeline": true, "maintenance": true, "autoscaler": true}

// chromium finds the browser or skips (fails under GKESIM_REQUIRE_BROWSER=1).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "Chromium is not installed, so the console's browser test cannot run: install it (Debian/Ubuntu: apt-get install -y chromium)"
	if os.Getenv("GKESIM_REQUIRE_BROWSER") == "1" {
		t.Fatal(msg + "; GKESIM_REQUIRE_BROWSER=1 makes this a failure")
	}
	t.Skip(msg + ", or set GKESIM_REQUIRE_BROWSER=1 to make its absence a failure")
	return ""
}

// browser is a headless Chromium tab at 1280x800 that records console errors.
type browser struct {
	t    *testing.T
	ctx  context.Context
	mu   sync.Mutex
	errs []string
	// expected says which console errors a test expects (nil: none).
	expected func(text string) bool
}

func newBrowser(t *testing.T, path string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 800))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	b := &browser{t: t, ctx: ctx}
	t.Cleanup(func() {
		cancelTimeout()
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatalf("start Chromium (%s): %v", path, err)
	}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == "error" || m.Type == "assert" {
				b.mu.Lock()
				if b.expected == nil || !b.expected(m.Text) {
					b.errs = append(b.errs, fmt.Sprintf("%s (%s:%d)", m.String(), m.URL, m.Line+1))
				}
				b.mu.Unlock()
			}
		}
	}()
	return b
}

// noErrors fails the test if the page wrote an error to its console.
func (b *browser) noErrors(where string) {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.errs) > 0 {
		b.t.Fatalf("console errors %s:\n%s", where, strings.Join(b.errs, "\n"))
	}
}

func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression and decodes its value.
func eval[T any](b *browser, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// poll waits until a JavaScript expression is true.
func (b *browser) poll(what, js string) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(15*time.Second), chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		b.t.Fatalf("waiting for %s (%s): %v", what, js, err)
	}
}

// view waits until the view is rendered with data.
func (b *browser) view(name string) {
	b.t.Helper()
	b.poll("view "+name, fmt.Sprintf(`document.querySelector('main[data-view=%q][data-loaded="true"]') !== null`, name))
	b.noErrors("in view " + name)
}

// screenshot saves the viewport as a test artifact, and into -screenshots.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	dirs := []string{b.t.ArtifactDir()}
	if *screenshots != "" && readmeShots[name] {
		dirs = append(dirs, *screenshots)
	}
	for _, dir := range dirs {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
}

func jsString(s string) string { return fmt.Sprintf("%q", s) }

func TestConsoleInBrowser(t *testing.T) {
	path := chromium(t)
	started := time.Now()
	_, base := emulatortest.Start(t, emulator.Options{TimeScale: 0, Seed: 7, Start: scenarioStart})
	api := &client{t: t, base: base}
	sc := buildScenario(t, base)
	t.Logf("scenario built in %s", time.Since(started).Round(time.Millisecond))
	b := newBrowser(t, path)
	b.do("open the console", chromedp.Navigate(base+"/ui/#/clusters"))

	checkClusters(t, b, api, sc)
	b.screenshot("clusters")
	checkCluster(t, b, api, sc)
	b.screenshot("cluster")
	checkPoolAndTimeline(t, b, api, sc)
	checkMaintenance(t, b, api, sc)
	b.screenshot("maintenance")
	checkAutoscaler(t, b, api, sc)
	checkLoadBalancers(t, b, api, sc)
	b.screenshot("load-balancers")
	checkEventsAndClock(t, b, api, sc)
	checkKeyboard(t, b)
	checkKubeAPIUnavailable(t, b, api, sc)
	b.noErrors("at the end")
	t.Logf("browser test took %s", time.Since(started).Round(time.Millisecond))
}

// Clusters: both clusters, with the API's node counts and running operations.
func checkClusters(t *testing.T, b *browser, c *client, sc *scenario) {
	b.view("clusters")
	type row struct {
		Cluster string   `json:"cluster"`
		Nodes   int      `json:"nodes"`
		Ops     []string `json:"ops"`
	}
	rows := eval[[]row](b, `[...document.querySelectorAll('#clusters-table tbody tr')].map(tr => ({cluster: tr.dataset.cluster,
		nodes: +tr.querySelector('[data-nodes]').dataset.nodes, ops: [...tr.querySelectorAll('[data-op]')].map(x => x.dataset.op)}))`)
	var list api.ListClustersResponse
	c.get("/v1/projects/"+project+"/locations/-/clusters", &list)
	if len(rows) != len(list.Clusters) {
		t.Fatalf("the console lists %d clusters, the API %d", len(rows), len(list.Clusters))
	}
	for _, cl := range list.Clusters {
		i := slices.IndexFunc(rows, func(r row) bool { return r.Cluster == project+"/"+cl.Location+"/"+cl.Name })
		if i < 0 || rows[i].Nodes != int(cl.CurrentNodeCount) {
			t.Fatalf("cluster %s: console rows %+v, API currentNodeCount %d", cl.Name, rows, cl.CurrentNodeCount)
		}
	}
	shop := rows[slices.IndexFunc(rows, func(r row) bool { return strings.HasSuffix(r.Cluster, "/shop") })]
	if !slices.Contains(shop.Ops, sc.UpgradeOp) {
		t.Fatalf("shop's running operations %v, want the upgrade %s", shop.Ops, sc.UpgradeOp)
	}
}

// k8sNodesByVersion counts a pool's registered nodes per version, from the Kubernetes API.
func k8sNodesByVersion(c *client, pool string) map[string]int {
	var nodes corev1.NodeList
	c.get("/k8s/projects/"+project+"/locations/"+region+"/clusters/shop/api/v1/nodes?labelSelector="+url.QueryEscape("cloud.google.com/gke-nodepool="+pool), &nodes)
	out := map[string]int{}
	for _, n := range nodes.Items {
		out[strings.TrimPrefix(n.Status.NodeInfo.KubeletVersion, "v")]++
	}
	return out
}

// Cluster: reached by clicking; each pool's nodes per version as the Kubernetes API counts
// them, and the web pool's blue-green phase as the GKE API reports it.
func checkCluster(t *testing.T, b *browser, c *client, sc *scenario) {
	b.do("click the shop cluster", chromedp.Click(chromedp.CSS(`#clusters-table tr[data-cluster$="/shop"] td a`)))
	b.view("cluster")
	got := eval[map[string]int](b, `Object.fromEntries([...document.querySelectorAll('td[data-pool][data-version][data-total]')].map(td => [td.dataset.pool + ' ' + td.dataset.version, +td.dataset.total]))`)
	for _, pool := range []string{"web", "batch"} {
		for v, n := range k8sNodesByVersion(c, pool) {
			if got[pool+" "+v] != n {
				t.Errorf("pool %s: the console shows %d nodes on %s, the Kubernetes API %d (console: %v)", pool, got[pool+" "+v], v, n, got)
			}
		}
	}
	if got["web "+sc.From] == 0 || got["web "+sc.To] == 0 {
		t.Errorf("mid-upgrade the web pool should show blue nodes on %s and green on %s: %v", sc.From, sc.To, got)
	}
	var np api.NodePool
	c.get("/v1/"+sc.Cluster+"/nodePools/web", &np)
	phase := eval[string](b, `document.querySelector('section.pool[data-pool="web"] [data-phase]').dataset.phase`)
	if np.UpdateInfo == nil || np.UpdateInfo.BlueGreenInfo == nil || phase != np.UpdateInfo.BlueGreenInfo.Phase {
		t.Fatalf("the console shows phase %q, the API %+v", phase, np.UpdateInfo)
	}
	pending := eval[string](b, `document.getElementById('stat-pending').textContent`)
	var summary api.ClusterSummaryList
	c.get("/emulator/v1/clusters", &summary)
	for _, cl := range summary.Clusters {
		if cl.Name == "shop" && (pending != fmt.Sprint(cl.PendingPods) || cl.PendingPods == 0) {
			t.Errorf("pending pods: console %s, API %d (want some: the batch pool is at its maximum)", pending, cl.PendingPods)
		}
	}
}

// Pool, then its upgrade's timeline, by clicking: the phases so far, in the order the event log
// has them, and the operation's start mark.
func checkPoolAndTimeline(t *testing.T, b *browser, c *client, sc *scenario) {
	b.do("click the web pool", chromedp.Click(chromedp.CSS(`section.pool[data-pool="web"] h2 a`)))
	b.view("pool")
	b.screenshot("pool")
	b.do("click the upgrade in the pool's operations", chromedp.Click(chromedp.CSS(`#pool-operations a[href$="/op/`+sc.UpgradeOp+`"]`)))
	b.view("timeline")
	b.screenshot("timeline")
	var evs api.ListEventsResponse
	c.get("/emulator/v1/events?type=BlueGreenPhase&operation="+sc.UpgradeOp, &evs)
	var want []string
	for _, e := range evs.Events {
		phase, _, _ := strings.Cut(e.Message, ":")
		want = append(want, phase)
	}
	got := eval[[]string](b, `[...document.querySelectorAll('#bands tr[data-band="phase"]')].map(tr => tr.dataset.label)`)
	if len(want) < 3 || !slices.Equal(got, want) {
		t.Fatalf("timeline phases %v, the event log %v", got, want)
	}
	batches := eval[int](b, `document.querySelectorAll('#bands tr[data-band="batch"]').length`)
	if batches == 0 {
		t.Errorf("no batch band on the timeline of a blue-green upgrade in its drain phase")
	}
	if !eval[bool](b, `document.querySelector('#marks tr[data-mark="UpgradeStarted"]') !== null`) {
		t.Errorf("no UpgradeStarted mark on the timeline")
	}
}

// Maintenance: the window's next opening and when each kind of upgrade may next run, as
// maintenanceSchedule answers.
func checkMaintenance(t *testing.T, b *browser, c *client, sc *scenario) {
	b.do("open the maintenance view", chromedp.Click(chromedp.CSS(`#side a[href$="/maintenance"]`)))
	b.view("maintenance")
	var sched api.MaintenanceSchedule
	c.get("/emulator/v1/"+sc.Cluster+"/maintenanceSchedule", &sched)
	next := eval[string](b, `document.getElementById('next-window').dataset.start`)
	if len(sched.Windows) == 0 || next != sched.Windows[0].StartTime {
		t.Fatalf("the console's next window opening %q, maintenanceSchedule %+v", next, sched.Windows)
	}
	kinds := eval[map[string]string](b, `Object.fromEntries([...document.querySelectorAll('#upgrade-kinds tr[data-kind]')].map(tr => [tr.dataset.kind, tr.querySelector('[data-next]').dataset.next]))`)
	for _, u := range sched.Upgrades {
		if kinds[u.Kind] != u.NextAllowedTime {
			t.Errorf("%s: the console says next %q, maintenanceSchedule %q", u.Kind, kinds[u.Kind], u.NextAllowedTime)
		}
	}
}

// Autoscaler: the batch pool's size, its ScaleUp decisions, and a decision's node in the detail
// panel.
func checkAutoscaler(t *testing.T, b *browser, c *client, sc *scenario) {
	b.do("open the autoscaler view", chromedp.Click(chromedp.CSS(`#side a[href$="/autoscaler"]`)))
	b.view("autoscaler")
	size := eval[int](b, `+document.querySelector('section[data-pool="batch"]').dataset.size`)
	n := 0
	for _, k := range k8sNodesByVersion(c, "batch") {
		n += k
	}
	if size != n || n != 12 {
		t.Fatalf("the console shows the batch pool at %d VMs, the Kubernetes API has %d nodes (want its maximum, 4 x 3 zones)", size, n)
	}
	var ups api.ListEventsResponse
	c.get("/emulator/v1/events?type=ScaleUp&cluster="+url.QueryEscape(sc.Cluster), &ups)
	rows := eval[int](b, `document.querySelectorAll('#decisions tr[data-decision="ScaleUp"]').length`)
	if rows == 0 || rows != len(ups.Events) {
		t.Fatalf("%d ScaleUp decisions in the console, %d in the event log", rows, len(ups.Events))
	}
	b.screenshot("autoscaler")
	node := eval[string](b, `document.querySelector('#decisions tr[data-decision="ScaleUp"] button').textContent`)
	b.do("click a scaled-up node", chromedp.Click(chromedp.CSS(`#decisions tr[data-decision="ScaleUp"] button`)))
	b.poll("the node's details", `(() => { const d = document.getElementById('detail'); return !d.hidden && d.textContent.includes('Node pool') && d.textContent.includes('batch'); })()`)
	if title := eval[string](b, `document.querySelector('#detail h2').textContent`); title != "Node "+node {
		t.Errorf("detail panel %q, want Node %s", title, node)
	}
	b.do("close the details with Escape", chromedp.KeyEvent("\x1b"))
	b.poll("the details to close", `document.getElementById('detail').hidden`)
}

// Load balancers: kind and healthy backends as the load balancer view of the API has them.
func checkLoadBalancers(t *testing.T, b *browser, c *client, sc *scenario) {
	b.do("open the load balancers", chromedp.Click(chromedp.CSS(`#side a[href$="/lb"]`)))
	b.view("lb")
	var lbs api.LoadBalancerList
	c.get("/emulator/v1/"+sc.Cluster+"/loadBalancers", &lbs)
	if len(lbs.LoadBalancers) != 2 {
		t.Fatalf("load balancers %+v, want web and checkout", lbs.LoadBalancers)
	}
	for _, lb := range lbs.LoadBalancers {
		sel := `section[data-service=` + jsString(lb.Service) + `]`
		kind := eval[string](b, `document.querySelector('`+sel+`').dataset.kind`)
		healthy := eval[string](b, `document.querySelector('`+sel+` [data-healthy]').dataset.healthy`)
		if kind != lb.Kind || healthy != fmt.Sprint(lb.HealthyBackends) {
			t.Errorf("%s: console kind %s, %s healthy; API kind %s, %d healthy", lb.Service, kind, healthy, lb.Kind, lb.HealthyBackends)
		}
	}
}

// Event log: filtered by type, and following live while the clock is advanced from the header.
func checkEventsAndClock(t *testing.T, b *browser, c *client, sc *scenario) {
	b.do("open the cluster's events", chromedp.Click(chromedp.CSS(`#side .sub a[href$="/events"]`)))
	b.view("events")
	b.do("filter by type", chromedp.SendKeys(chromedp.CSS(`input[name="type"]`), "BlueGreenBatch"))
	count := func() int {
		var evs api.ListEventsResponse
		c.get("/emulator/v1/events?type=BlueGreenBatch&cluster="+url.QueryEscape(sc.Cluster), &evs)
		return len(evs.Events)
	}
	before := count()
	b.poll("the filtered rows", fmt.Sprintf(`(() => { const r = [...document.querySelectorAll('#events-table tbody tr')]; return r.length === %d && r.every(x => x.dataset.type === 'BlueGreenBatch'); })()`, before))
	b.screenshot("events")
	var clock api.Clock
	c.get("/emulator/v1/clock", &clock)
	now, _ := time.Parse(time.RFC3339Nano, clock.Now)
	b.do("advance the clock by 10 minutes", chromedp.Click(chromedp.CSS(`.clock button[title="Advance the clock by 10m"]`)))
	want := now.Add(10 * time.Minute).UTC().Format("2006-01-02 15:04:05")
	b.poll("the clock to show "+want, `document.querySelector('.clock-now').textContent === `+jsString(want))
	after := count()
	if after <= before {
		t.Fatalf("advancing 10 minutes of a blue-green drain logged no batch event (%d -> %d)", before, after)
	}
	b.poll("the new batch events to stream in", fmt.Sprintf(`document.querySelectorAll('#events-table tbody tr').length === %d`, after))
	c.get("/emulator/v1/clock", &clock)
	if clock.Now[:19] != strings.Replace(want, " ", "T", 1) {
		t.Errorf("the API's clock says %s after the console advanced it to %s", clock.Now, want)
	}
	b.do("resume the clock", chromedp.Click(chromedp.CSS(`.clock button[aria-pressed]`)))
	b.poll("the clock to run", `document.querySelector('.clock button[aria-pressed]').textContent === 'Pause'`)
	c.get("/emulator/v1/clock", &clock)
	if clock.TimeScale != emulator.DefaultTimeScale {
		t.Errorf("after Resume the time scale is %g, want %g", clock.TimeScale, float64(emulator.DefaultTimeScale))
	}
	b.do("pause the clock", chromedp.Click(chromedp.CSS(`.clock button[aria-pressed]`)))
	b.poll("the clock to stop", `document.querySelector('.clock button[aria-pressed]').textContent === 'Resume'`)
	c.get("/emulator/v1/clock", &clock)
	if clock.TimeScale != 0 {
		t.Errorf("after Pause the time scale is %g, want 0", clock.TimeScale)
	}
}

// Keyboard: from the top of the page, Tab reaches the clock's controls, the navigation and
// the view's links, and Enter on a link opens it.
func checkKeyboard(t *testing.T, b *browser) {
	b.do("open the clusters", chromedp.Navigate(strings.Split(eval[string](b, `location.href`), "#")[0]+"#/clusters"))
	b.view("clusters")
	b.do("focus the page", chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`))
	var seen []string
	for i := 0; i < 30; i++ {
		b.do("press Tab", chromedp.KeyEvent("\t"))
		seen = append(seen, eval[string](b, `(() => { const e = document.activeElement; return e.tagName + ' ' + (e.getAttribute('href') || e.textContent.trim() || e.getAttribute('aria-label')); })()`))
		if strings.HasPrefix(seen[len(seen)-1], "A #/c/") {
			break
		}
	}
	joined := strings.Join(seen, " | ")
	for _, want := range []string{"BUTTON Advance", "A #/clusters", "A #/events"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("Tab did not reach %q; focus went %s", want, joined)
		}
	}
	if !strings.HasPrefix(seen[len(seen)-1], "A #/c/") {
		t.Fatalf("Tab did not reach a cluster link within 30 presses: %s", joined)
	}
	b.do("press Enter on the cluster link", chromedp.KeyEvent("\r"))
	b.view("cluster")
}

// R-MW-6: while the zonal cluster edge upgrades its control plane, the clusters view marks its
// Kubernetes API unavailable (the reason on hover), and only its row.
func checkKubeAPIUnavailable(t *testing.T, b *browser, c *client, sc *scenario) {
	var op api.Operation
	c.call(http.MethodPut, "/v1/projects/"+project+"/locations/europe-west1-b/clusters/edge",
		&api.UpdateClusterRequest{Update: &api.ClusterUpdate{DesiredMasterVersion: sc.To}}, &op)
	c.advance(2 * time.Second)
	b.do("open the clusters", chromedp.Navigate(strings.Split(eval[string](b, `location.href`), "#")[0]+"#/clusters"))
	b.view("clusters")
	b.poll("edge's API marked unavailable", `document.querySelector('#clusters-table tr[data-cluster$="/edge"] .api-down') !== null`)
	if n := eval[int](b, `document.querySelectorAll('#clusters-table .api-down').length`); n != 1 {
		t.Errorf("%d clusters marked with the Kubernetes API unavailable, want edge alone", n)
	}
	if title := eval[string](b, `document.querySelector('#clusters-table tr[data-cluster$="/edge"] .api-down').title`); !strings.Contains(title, "zonal cluster edge") {
		t.Errorf("the mark's reason %q does not name the zonal cluster edge", title)
	}
}

// With --auth-token: the console's files load without credentials, the API answers 401, the
// console asks for the token, says so when a wrong one is refused, keeps the right one for the
// tab, and every request after it carries it, the event stream included (a Deployment created
// afterwards streams into the event log view).
func TestConsoleAsksForToken(t *testing.T) {
	path := chromium(t)
	const token = "s3cret-token"
	_, base := emulatortest.Start(t, emulator.Options{TimeScale: 0, Seed: 7, Start: scenarioStart, AuthToken: token})
	c := &client{t: t, base: base, token: token}
	var op api.Operation
	c.call(http.MethodPost, "/v1/projects/"+project+"/locations/"+region+"-a/clusters", &api.CreateClusterRequest{Cluster: &api.Cluster{
		Name: "solo", NodePools: []*api.NodePool{{Name: "default-pool", InitialNodeCount: 1}}}}, &op)
	c.wait(region+"-a", &op)

	b := newBrowser(t, path)
	// The browser logs each 401 answer; those of the requests before the token are expected.
	b.mu.Lock()
	b.expected = func(text string) bool { return strings.Contains(text, "status of 401") }
	b.mu.Unlock()
	b.do("open the console", chromedp.Navigate(base+"/ui/#/events"))
	b.poll("the token form", `document.getElementById('token-dialog').open`)
	b.do("enter a wrong token", chromedp.SendKeys(chromedp.CSS(`#token-dialog input`), "wrong"), chromedp.Click(chromedp.CSS(`#token-dialog button[type="submit"]`)))
	b.poll("the form again, saying the token was refused", `document.getElementById('token-dialog').open && document.querySelector('.token-note').textContent.includes('refused')`)
	b.do("enter the token", chromedp.SendKeys(chromedp.CSS(`#token-dialog input`), token), chromedp.Click(chromedp.CSS(`#token-dialog button[type="submit"]`)))
	b.view("events")
	b.poll("the event stream", `document.getElementById('live').textContent === 'live'`)
	if stored := eval[string](b, `sessionStorage.getItem('gkesim.token')`); stored != token {
		t.Fatalf("sessionStorage holds %q", stored)
	}
	b.poll("the cluster in the side list", `document.querySelector('#side a[href="#/c/`+project+`/`+region+`-a/solo"]') !== null`)
	c.call(http.MethodPost, "/k8s/projects/"+project+"/locations/"+region+"-a/clusters/solo/apis/apps/v1/namespaces/default/deployments", deployment("hello", "default-pool", 1, "100m"), nil)
	b.poll("the new Deployment's event to stream in", `document.querySelector('#events-table tr[data-type="DeploymentCreated"]') !== null`)
	b.noErrors("behind auth")
}
