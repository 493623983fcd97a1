package rehearse

import (
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
	"time"
)

// The report as one self-contained HTML page (no script, no fetch, no external file): the
// numbers, then a timeline drawn in SVG: phases or zones and maintenance pauses on top, the
// pool's VMs and the pods waiting for a node over time, and every node's life (creating, ready,
// cordoned, draining, held by a PodDisruptionBudget, deleting), with the pods forced out marked.

// laneLimit is the most nodes drawn one per row; bigger pools are drawn per zone.
const laneLimit = 300

// stateColors are the colours of a node's states on the timeline.
var stateColors = map[string]string{
	"creating": "#9ecae1", "ready": "#74c476", "cordoned": "#fdd049", "draining": "#fd8d3c", "drained": "#bdbdbd",
	"deleting": "#636363", "recreating": "#9e9ac8", "deleting pods": "#a6611a",
}

// timeline draws the SVG of one report.
type timeline struct {
	r          *Report
	from, to   time.Time
	x0, width  float64
	b          strings.Builder
	y          float64
	rowH       float64
	labelWidth float64
}

func (t *timeline) x(at time.Time) float64 {
	span := t.to.Sub(t.from).Seconds()
	if span <= 0 {
		return t.x0
	}
	f := at.Sub(t.from).Seconds() / span
	return t.x0 + max(0, min(1, f))*t.width
}

func (t *timeline) rect(from, to time.Time, y, h float64, color, title string) {
	x1, x2 := t.x(from), t.x(to)
	fmt.Fprintf(&t.b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title></rect>`,
		x1, y, max(x2-x1, 0.8), h, color, template.HTMLEscapeString(title))
}

func (t *timeline) label(y float64, text string) {
	fmt.Fprintf(&t.b, `<text x="%.1f" y="%.1f" class="lbl">%s</text>`, t.x0-6, y, template.HTMLEscapeString(text))
}

// steps draws a step series as bars of its value over time, scaled to h from just below its
// lowest value (from zero when zero is among them).
func (t *timeline) steps(name string, points []VMSample, h float64, color string) {
	peak, low := 1, -1
	for _, p := range points {
		peak = max(peak, p.VMs)
		if low < 0 || p.VMs < low {
			low = p.VMs
		}
	}
	floor := max(low-1, 0)
	t.label(t.y+h/2+4, fmt.Sprintf("%s (%d-%d)", name, low, peak))
	for i, p := range points {
		end := t.to
		if i+1 < len(points) {
			end = points[i+1].At
		}
		if p.VMs <= floor || !end.After(p.At) {
			continue
		}
		bh := h * float64(p.VMs-floor) / float64(peak-floor)
		t.rect(p.At, end, t.y+h-bh, bh, color, fmt.Sprintf("%s: %d from %s", name, p.VMs, p.At.UTC().Format(time.RFC3339)))
	}
	t.y += h + 8
}

// pendingSeries is the number of pods waiting for a node over time.
func pendingSeries(r *Report, end time.Time) []VMSample {
	type change struct {
		at time.Time
		d  int
	}
	var cs []change
	for _, p := range r.Pending {
		cs = append(cs, change{p.Since, 1})
		until := p.Until
		if until.IsZero() {
			until = end
		}
		cs = append(cs, change{until, -1})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].at.Before(cs[j].at) })
	out := []VMSample{{At: r.Requested}}
	n := 0
	for _, c := range cs {
		n += c.d
		out = append(out, VMSample{At: c.at, VMs: n})
	}
	return out
}

func (r *Report) end() time.Time {
	end := r.Done
	for _, l := range r.Timeline {
		for _, s := range l.Spans {
			if s.To.After(end) {
				end = s.To
			}
		}
	}
	if end.IsZero() || !end.After(r.Requested) {
		end = r.Requested.Add(time.Minute)
	}
	return end
}

// svg draws the report's timeline.
func (r *Report) svg() template.HTML {
	t := &timeline{r: r, from: r.Requested, to: r.end(), x0: 230, width: 900, rowH: 9, labelWidth: 230}
	t.y = 24
	// Time axis.
	span := t.to.Sub(t.from)
	tick := niceTick(span)
	for at := t.from.Truncate(tick).Add(tick); at.Before(t.to); at = at.Add(tick) {
		fmt.Fprintf(&t.b, `<line x1="%.1f" x2="%.1f" y1="16" y2="%s" class="grid"/><text x="%.1f" y="12" class="tick">%s</text>`,
			t.x(at), t.x(at), "{{H}}", t.x(at), at.UTC().Format("15:04"))
	}
	// Phases, zones, batches and pauses.
	band := func(name string, from, to time.Time, color string) {
		if to.IsZero() {
			to = t.to
		}
		t.rect(from, to, t.y, 14, color, fmt.Sprintf("%s: %s to %s (%s)", name, from.UTC().Format("15:04:05"), to.UTC().Format("15:04:05"), human(to.Sub(from))))
		if w := t.x(to) - t.x(from); w > 60 {
			fmt.Fprintf(&t.b, `<text x="%.1f" y="%.1f" class="band">%s</text>`, t.x(from)+3, t.y+11, template.HTMLEscapeString(name))
		}
	}
	if len(r.Phases)+len(r.Zones) > 0 {
		t.label(t.y+11, map[bool]string{true: "phases", false: "zones"}[len(r.Phases) > 0])
		colors := []string{"#c6dbef", "#9ecae1", "#6baed6", "#c7e9c0", "#a1d99b", "#fdd0a2"}
		for i, p := range r.Phases {
			band(p.Phase, p.Start, p.End, colors[i%len(colors)])
		}
		for i, z := range r.Zones {
			if !z.Start.IsZero() {
				band(z.Zone, z.Start, z.End, colors[i%len(colors)])
			}
		}
		t.y += 20
	}
	if len(r.Pauses) > 0 {
		t.label(t.y+11, "maintenance policy")
		for _, p := range r.Pauses {
			band("held: "+p.Why, p.From, p.Until, "#fcbba1")
		}
		t.y += 20
	}
	t.steps("pool VMs", r.VMs.Samples, 40, "#6baed6")
	t.steps("pods waiting for a node", pendingSeries(r, t.to), 30, "#fb6a4a")
	// Node lanes.
	holds := map[string][]*Hold{}
	for _, d := range r.Drains {
		holds[d.Node] = append(holds[d.Node], d.Holds...)
	}
	if len(r.Timeline) <= laneLimit {
		for _, l := range r.Timeline {
			name := l.Node
			if l.New {
				name = "+ " + name
			}
			t.label(t.y+t.rowH-1, name)
			for _, s := range l.Spans {
				t.rect(s.From, s.To, t.y, t.rowH, stateColors[s.State], fmt.Sprintf("%s %s: %s to %s", l.Node, s.State, s.From.UTC().Format("15:04:05"), s.To.UTC().Format("15:04:05")))
			}
			for _, h := range holds[l.Node] {
				t.rect(h.From, h.Until, t.y+2, t.rowH-4, "#cb181d", fmt.Sprintf("held %s by PodDisruptionBudget %s (%s)", human(dur(h.DurationSeconds)), h.PDB, strings.Join(h.Pods, ", ")))
			}
			t.y += t.rowH + 2
		}
	} else {
		// Per zone: how many of the pool's nodes are in each state over time.
		t.label(t.y+10, fmt.Sprintf("%d nodes: drains per zone", r.VMs.Before))
		t.y += 14
		byZone := map[string][]*NodeLane{}
		for _, l := range r.Timeline {
			byZone[l.Zone] = append(byZone[l.Zone], l)
		}
		for _, z := range sortedKeysOf(byZone) {
			var pts []VMSample
			type change struct {
				at time.Time
				d  int
			}
			var cs []change
			for _, l := range byZone[z] {
				for _, s := range l.Spans {
					if s.State == "draining" || s.State == "deleting pods" {
						cs = append(cs, change{s.From, 1}, change{s.To, -1})
					}
				}
			}
			sort.SliceStable(cs, func(i, j int) bool { return cs[i].at.Before(cs[j].at) })
			n := 0
			pts = append(pts, VMSample{At: t.from})
			for _, c := range cs {
				n += c.d
				pts = append(pts, VMSample{At: c.at, VMs: n})
			}
			t.steps(z+" draining", pts, 24, "#fd8d3c")
		}
	}
	for _, f := range r.Forced {
		fmt.Fprintf(&t.b, `<text x="%.1f" y="%.1f" class="forced"><title>%s</title>×</text>`, t.x(f.At), float64(20),
			template.HTMLEscapeString(fmt.Sprintf("%s forced out (%s) at %s", f.Pod, f.Why, f.At.UTC().Format("15:04:05"))))
	}
	h := t.y + 10
	body := strings.ReplaceAll(t.b.String(), `"{{H}}"`, fmt.Sprintf(`"%.0f"`, h))
	return template.HTML(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f">%s</svg>`,
		t.x0+t.width+10, h, t.x0+t.width+10, h, body))
}

func sortedKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// niceTick picks a time-axis step giving at most about a dozen ticks.
func niceTick(span time.Duration) time.Duration {
	for _, d := range []time.Duration{time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour,
		2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 48 * time.Hour, 7 * 24 * time.Hour} {
		if span/d <= 12 {
			return d
		}
	}
	return 30 * 24 * time.Hour
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"human": func(s float64) string { return human(dur(s)) },
	"clock": func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format("2006-01-02 15:04:05")
	},
	"join":  strings.Join,
	"short": shortPod,
	"forcedWhy": func(w string) string {
		return map[string]string{ForcedPDBTimeout: "deleted at the 1 h PodDisruptionBudget timeout", ForcedDeadline: "killed at the drain's deadline",
			ForcedBlueDeletion: "deleted with the blue pool", ForcedGraceCapped: "deleted with the blue pool, grace capped at 60 min"}[w]
	},
	"holdEnd": func(s string) string { return holdEnd[s] },
	"label":   strategyLabel,
	"lbTotals": func(r *Report) string {
		a, d := r.LBTotals()
		return fmt.Sprintf("%d / %d", a, d)
	},
	"forcedTimeout": func(r *Report) int { return r.ForcedBy(ForcedPDBTimeout) + r.ForcedBy(ForcedDeadline) },
	"forcedBlue":    func(r *Report) int { return r.ForcedBy(ForcedBlueDeletion) + r.ForcedBy(ForcedGraceCapped) },
	"longest": func(r *Report) string {
		l := 0.0
		for _, p := range r.PDBs {
			l = max(l, p.LongestSeconds)
		}
		return human(dur(l))
	},
	"legend": func() []struct{ State, Color string } {
		var out []struct{ State, Color string }
		for _, s := range []string{"creating", "ready", "cordoned", "draining", "drained", "deleting pods", "recreating", "deleting"} {
			out = append(out, struct{ State, Color string }{s, stateColors[s]})
		}
		return append(out, struct{ State, Color string }{"held by a PDB", "#cb181d"})
	},
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:20px}h2{font-size:17px;margin-top:28px}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right}
.cards{display:flex;flex-wrap:wrap;gap:10px}.card{border:1px solid #ddd;border-radius:6px;padding:8px 12px;min-width:120px}
.card b{display:block;font-size:18px}.muted{color:#777}
svg .lbl{font-size:10px;text-anchor:end}svg .tick{font-size:10px;text-anchor:middle;fill:#555}svg .grid{stroke:#eee}
svg .band{font-size:10px}svg .forced{font-size:14px;fill:#cb181d;text-anchor:middle}
.legend span{display:inline-block;margin-right:12px}.legend i{display:inline-block;width:12px;height:10px;margin-right:4px;vertical-align:middle}
.scroll{overflow-x:auto}
</style></head><body>
<h1>{{.Title}}</h1>
<p class="muted">Rehearsed by gkesim on a virtual clock from a snapshot of the cluster; every number below is read from the simulation's event log.</p>
{{if gt (len .Reports) 1}}
<h2>Strategies side by side</h2>
<table><tr><th></th>{{range .Reports}}<th>{{label .Report}}</th>{{end}}</tr>
<tr><td>duration</td>{{range .Reports}}<td class="n">{{if .Finished}}{{human .DurationSeconds}}{{else}}not done{{end}}</td>{{end}}</tr>
<tr><td>drains held by a PDB</td>{{range .Reports}}<td class="n">{{.HeldDrains}}</td>{{end}}</tr>
<tr><td>longest hold</td>{{range .Reports}}<td class="n">{{longest .Report}}</td>{{end}}</tr>
<tr><td>forced at the 1 h timeout</td>{{range .Reports}}<td class="n">{{forcedTimeout .Report}}</td>{{end}}</tr>
<tr><td>deleted with the blue pool</td>{{range .Reports}}<td class="n">{{forcedBlue .Report}}</td>{{end}}</tr>
<tr><td>pods that waited for a node</td>{{range .Reports}}<td class="n">{{len .Pending}}</td>{{end}}</tr>
<tr><td>left Pending</td>{{range .Reports}}<td class="n">{{len .LeftPending}}</td>{{end}}</tr>
<tr><td>peak extra VMs</td>{{range .Reports}}<td class="n">{{.VMs.PeakExtra}}</td>{{end}}</tr>
<tr><td>extra VM-hours</td>{{range .Reports}}<td class="n">{{printf "%.1f" .VMs.ExtraHours}}</td>{{end}}</tr>
<tr><td>window pauses</td>{{range .Reports}}<td class="n">{{len .Pauses}}</td>{{end}}</tr>
<tr><td>LB backends added / removed</td>{{range .Reports}}<td class="n">{{lbTotals .Report}}</td>{{end}}</tr>
</table>
{{end}}
{{range .Reports}}
<h2>{{label .Report}}: {{.Strategy}}</h2>
<p>{{if .Automatic}}Automatic{{else}}Manual{{end}} upgrade of node pool <b>{{.Pool}}</b> of cluster <b>{{.Cluster}}</b> ({{.Location}}) from {{join .From ", "}} to {{.To}} (control plane {{.Control}}).
Snapshot taken {{clock .SnapshotTime}}; asked for at {{clock .Requested}}; {{if .Finished}}done at {{clock .Done}}{{else}}not done when the rehearsal stopped{{end}}.</p>
<div class="cards">
<div class="card">duration<b>{{if .Finished}}{{human .DurationSeconds}}{{else}}not done{{end}}</b></div>
<div class="card">nodes<b>{{.Nodes}}</b></div>
<div class="card">drains held by a PDB<b>{{.HeldDrains}} of {{len .Drains}}</b></div>
<div class="card">pods forced out<b>{{len .Forced}}</b></div>
<div class="card">waited for a node<b>{{len .Pending}}</b><span class="muted">{{len .LeftPending}} left Pending</span></div>
<div class="card">peak extra VMs<b>{{.VMs.PeakExtra}}</b><span class="muted">{{printf "%.1f" .VMs.ExtraHours}} extra VM-hours</span></div>
<div class="card">window pauses<b>{{len .Pauses}}</b></div>
</div>
<h3>Timeline</h3>
<p class="legend">{{range legend}}<span><i style="background:{{.Color}}"></i>{{.State}}</span>{{end}}<span><b style="color:#cb181d">×</b> pod forced out</span></p>
<div class="scroll">{{.SVG}}</div>
{{if .Zones}}<h3>Zones</h3><table><tr><th>zone</th><th>from</th><th>to</th><th>took</th><th>nodes</th></tr>
{{range .Zones}}<tr><td>{{.Zone}}</td><td>{{clock .Start}}</td><td>{{clock .End}}</td><td class="n">{{human .DurationSeconds}}</td><td class="n">{{.Nodes}}</td></tr>{{end}}</table>{{end}}
{{if .Phases}}<h3>Phases</h3><table><tr><th>phase</th><th>from</th><th>to</th><th>took</th></tr>
{{range .Phases}}<tr><td>{{.Phase}}</td><td>{{clock .Start}}</td><td>{{clock .End}}</td><td class="n">{{human .DurationSeconds}}</td></tr>{{end}}</table>{{end}}
{{if .Batches}}<h3>Batches</h3><table><tr><th>batch</th><th>nodes</th><th>from</th><th>drained</th><th>took</th><th>soak</th></tr>
{{range .Batches}}<tr><td class="n">{{.Batch}}</td><td>{{join .Nodes ", "}}</td><td>{{clock .Start}}</td><td>{{clock .Drained}}</td><td class="n">{{human .DurationSeconds}}</td><td class="n">{{human .SoakSeconds}}</td></tr>{{end}}</table>{{end}}
{{if .Pauses}}<h3>Maintenance policy</h3><table><tr><th>from</th><th>until</th><th>why</th></tr>
{{range .Pauses}}<tr><td>{{clock .From}}</td><td>{{clock .Until}}</td><td>{{if .BeforeStart}}waited to begin: {{else}}paused after {{.Done}} nodes: {{end}}{{.Why}}</td></tr>{{end}}</table>{{end}}
{{if .PDBs}}<h3>PodDisruptionBudgets that held drains</h3><table><tr><th>budget</th><th>drains</th><th>in all</th><th>longest</th><th>forced at the timeout</th><th>deleted with the blue pool</th></tr>
{{range .PDBs}}<tr><td>{{.PDB}}</td><td class="n">{{.Drains}}</td><td class="n">{{human .TotalSeconds}}</td><td class="n">{{human .LongestSeconds}}</td><td class="n">{{.ForcedAtTimeout}}</td><td class="n">{{.DeletedWithoutEviction}}</td></tr>{{end}}</table>{{end}}
<h3>Drains</h3><table><tr><th>node</th><th>zone</th><th>from</th><th>took</th><th>evicted</th><th>forced</th><th>held by</th></tr>
{{range .Drains}}<tr><td>{{.Node}}</td><td>{{.Zone}}</td><td>{{clock .Start}}</td><td class="n">{{human .DurationSeconds}}</td><td class="n">{{.Evicted}}</td><td class="n">{{.Forced}}{{if .Deleting}} (blue pool deletion){{end}}</td>
<td>{{range .Holds}}{{.PDB}} {{human .DurationSeconds}} ({{join .Pods ", "}}), {{holdEnd .Ended}}<br>{{end}}</td></tr>{{end}}</table>
{{if .Forced}}<h3>Pods forced out</h3><table><tr><th>pod</th><th>node</th><th>at</th><th>how</th><th>budget</th><th>grace</th></tr>
{{range .Forced}}<tr><td>{{.Pod}}</td><td>{{.Node}}</td><td>{{clock .At}}</td><td>{{forcedWhy .Why}}</td><td>{{.PDB}}</td><td>{{.Grace}}{{if .OwnGrace}} (its own: {{.OwnGrace}}){{end}}</td></tr>{{end}}</table>{{end}}
{{if .Pending}}<h3>Pods that waited for a node</h3><table><tr><th>pod</th><th>from</th><th>waited</th><th>why</th></tr>
{{range .Pending}}<tr><td>{{.Pod}}</td><td>{{clock .Since}}</td><td class="n">{{human .DurationSeconds}}{{if .Until.IsZero}} (still){{end}}</td><td>{{.Reason}}</td></tr>{{end}}</table>{{end}}
{{if .LoadBalancers}}<h3>Load balancer backends</h3><table><tr><th>Service</th><th>added</th><th>removed</th><th>syncs</th></tr>
{{range .LoadBalancers}}<tr><td>{{.Service}}</td><td class="n">{{.Added}}</td><td class="n">{{.Removed}}</td><td class="n">{{.Syncs}}</td></tr>{{end}}</table>{{end}}
<h3>VMs of the pool</h3><p>{{.VMs.Before}} before; peak {{.VMs.Peak}} (+{{.VMs.PeakExtra}}) at {{clock .VMs.PeakAt}}; {{printf "%.1f" .VMs.VMHours}} VM-hours, {{printf "%.1f" .VMs.ExtraHours}} of them extra{{if .VMs.ExtraCostUSD}} (about ${{printf "%.2f" .VMs.ExtraCostUSD}} at list price){{end}}.</p>
{{with .Import}}{{if or .Approximations .NotSimulated .Warnings}}<h3>How the snapshot was imported</h3>
{{range .Approximations}}<p><b>Approximation:</b> {{.Note}}{{if .Objects}}: {{join .Objects ", "}}{{end}}</p>{{end}}
{{range .NotSimulated}}<p><b>Not simulated:</b> {{.Note}}{{if .Objects}}: {{join .Objects ", "}}{{end}}</p>{{end}}
{{range .Warnings}}<p><b>Warning:</b> {{.Note}}{{if .Objects}}: {{join .Objects ", "}}{{end}}</p>{{end}}{{end}}{{end}}
{{end}}
</body></html>
`))

// htmlReport is a report with its timeline drawn.
type htmlReport struct {
	*Report
	SVG template.HTML
}

// WriteHTML writes one report, or several of the same upgrade side by side, as an HTML page.
func WriteHTML(out io.Writer, reports ...*Report) error {
	if len(reports) == 0 {
		return nil
	}
	r0 := reports[0]
	title := fmt.Sprintf("Upgrade of node pool %s of cluster %s to %s", r0.Pool, r0.Cluster, r0.To)
	var hs []htmlReport
	for _, r := range reports {
		hs = append(hs, htmlReport{Report: r, SVG: r.svg()})
	}
	return pageTemplate.Execute(out, struct {
		Title   string
		Reports []htmlReport
	}{title, hs})
}
