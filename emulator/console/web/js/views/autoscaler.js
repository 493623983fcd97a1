// Autoscaler: each pool's size over time against its min and max, the pending pods, and every
// decision (ScaleUp, ScaleDown, ScaleDownBlocked, NotTriggerScaleUp) with its reason; the nodes
// and pods a decision names open in the detail panel.

import { get } from '../api.js';
import { h, table, empty, clusterHash, fmtTime, parseTime, isoSeconds } from '../dom.js';
import { liveView, heading, clusterOf, widthOf } from '../view.js';
import { setup, timeAxis, tooltip, COLOURS } from '../draw.js';
import { showNode, showPod } from '../detail.js';

const DECISION = {
  ScaleUp: ['#1e8e3e', '▲', 'scale-up'], ScaleDown: ['#1a73e8', '▼', 'scale-down'],
  ScaleDownBlocked: ['#5f6368', '■', 'scale-down blocked'], NotTriggerScaleUp: ['#e8710a', '◆', 'no scale-up'],
};
const RANGES = [['1h', 3600], ['6h', 21600], ['24h', 86400], ['7d', 604800]];

function chart(canvas, pool, decisions, since, now, width) {
  const height = 170, left = 40, right = 12, top = 10, bottom = 24;
  const ctx = setup(canvas, width, height);
  const total = Math.max((now - since) / 1000, 1);
  const ymax = Math.max(pool.max, ...pool.series.map((p) => p[1]), 1) + 1;
  const y = (v) => top + (1 - v / ymax) * (height - top - bottom);
  const xOf = timeAxis(ctx, left, width - right, height - bottom, 0, total, since, false, top);
  ctx.fillStyle = COLOURS.muted;
  ctx.strokeStyle = COLOURS.grid;
  const step = Math.max(1, Math.ceil(ymax / 5));
  for (let v = 0; v <= ymax; v += step) {
    ctx.fillText(String(v), 4, y(v));
    ctx.beginPath(); ctx.moveTo(left, Math.round(y(v)) + 0.5); ctx.lineTo(width - right, Math.round(y(v)) + 0.5); ctx.stroke();
  }
  if (pool.enabled) {
    ctx.setLineDash([5, 4]);
    for (const [v, label, col] of [[pool.max, `max ${pool.max}`, COLOURS.red], [pool.min, `min ${pool.min}`, COLOURS.blue]]) {
      ctx.strokeStyle = col;
      ctx.beginPath(); ctx.moveTo(left, Math.round(y(v)) + 0.5); ctx.lineTo(width - right, Math.round(y(v)) + 0.5); ctx.stroke();
      ctx.fillStyle = col;
      ctx.textAlign = 'right';
      ctx.fillText(label, width - right - 2, y(v) - 7);
      ctx.textAlign = 'left';
    }
    ctx.setLineDash([]);
  }
  ctx.strokeStyle = COLOURS.ink;
  ctx.lineWidth = 2;
  ctx.beginPath();
  pool.series.forEach(([t, v], i) => {
    if (i === 0) ctx.moveTo(xOf(t), y(v));
    else { ctx.lineTo(xOf(t), y(pool.series[i - 1][1])); ctx.lineTo(xOf(t), y(v)); }
  });
  ctx.stroke();
  ctx.lineWidth = 1;
  const hits = [];
  const sizeAt = (t) => {
    let v = pool.series[0] ? pool.series[0][1] : 0;
    for (const [pt, pv] of pool.series) { if (pt > t) break; v = pv; }
    return v;
  };
  ctx.textAlign = 'center';
  for (const d of decisions) {
    const t = (parseTime(d.time) - since) / 1000;
    if (t < 0) continue;
    const [col, glyph, label] = DECISION[d.type];
    const x = xOf(t), yy = y(sizeAt(t)) + (d.type === 'ScaleUp' ? 12 : -12);
    ctx.fillStyle = col;
    ctx.fillText(glyph, x, yy);
    hits.push({ x: x - 6, y: yy - 7, w: 12, h: 14, text: `${fmtTime(d.time)} ${label}: ${d.message}` });
  }
  ctx.textAlign = 'left';
  hits.push(...pool.series.map(([t, v], i) => {
    const next = pool.series[i + 1];
    const a = xOf(t), b = next ? xOf(next[0]) : width - right;
    return { x: a, y: top, w: Math.max(b - a, 1), h: height - top - bottom, text: `${v} VMs from ${fmtTime(since + t * 1000)}` };
  }));
  return hits;
}

export function mount(root, params) {
  const c = clusterOf(params);
  let range = Number(params.query.get('range')) || 21600;
  let only = params.query.get('type') || '';
  root.append(...heading([['Clusters', '#/clusters'], [c.name, clusterHash(c)], ['autoscaler']], `Autoscaler of ${c.name}`,
    'Pool sizes (VMs in any state) against their limits, pending pods, and every decision of the cluster autoscaler with its reason.'));
  const rangeSel = h('select', { 'aria-label': 'Time range' }, RANGES.map(([l, s]) => h('option', { value: String(s), selected: s === range }, `last ${l}`)));
  const typeSel = h('select', { 'aria-label': 'Decision type' }, h('option', { value: '' }, 'all decisions'),
    Object.entries(DECISION).map(([t, [, , l]]) => h('option', { value: t, selected: t === only }, l)));
  root.append(h('div', { class: 'filters' }, h('label', {}, 'Range', rangeSel), h('label', {}, 'Decisions', typeSel)));
  const view = liveView(root, {
    async load(signal) {
      // The range ends at the emulated now, which only the emulator knows exactly.
      const { now } = await get('/emulator/v1/clock', null, signal);
      return get(`${c.api}/autoscaler`, { since: isoSeconds(Date.parse(now) - range * 1000) }, signal);
    },
    relevant: (e) => e.cluster === c.key && (DECISION[e.type] || e.type === 'NodeCreating' || e.type === 'NodeDeleted' || e.type === 'FailedScheduling' || e.type === 'Scheduled'),
    gap: 1000,
    render(body, v) {
      const since = parseTime(v.since), now = parseTime(v.now);
      const width = widthOf(body) - 34;
      const pending = v.pending.reduce((a, g) => a + g.count, 0);
      body.append(h('div', { class: 'stats' },
        h('div', { class: 'stat' }, h('b', {}, v.profile === 'OPTIMIZE_UTILIZATION' ? 'optimize-utilization' : 'balanced'), h('span', {}, 'autoscaling profile')),
        h('div', { class: 'stat' }, h('b', { id: 'as-pending' }, String(pending)), h('span', {}, 'pending pods')),
        h('div', { class: 'stat' }, h('b', {}, String(v.decisions.filter((d) => d.type === 'ScaleUp').length)), h('span', {}, 'scale-ups')),
        h('div', { class: 'stat' }, h('b', {}, String(v.decisions.filter((d) => d.type === 'ScaleDown').length)), h('span', {}, 'scale-downs'))));
      if (pending) {
        body.append(h('div', { class: 'pending' }, v.pending.map((g) => h('div', {}, `${g.count} pending: ${g.reason} `,
          g.pods.slice(0, 8).map((k) => [h('button', { type: 'button', class: 'linkish mono', dataset: { fkey: `pod:${k}` }, onclick: () => showPod(c, k) }, k), ' ']),
          g.count > 8 ? h('span', { class: 'note' }, `and ${g.count - 8} more`) : null))));
      }
      const pools = [...v.pools].sort((a, b) => Number(b.enabled) - Number(a.enabled));
      const grid = h('div', { class: 'cards-2' });
      body.append(grid);
      const cw = grid.clientWidth > 880 ? Math.floor(grid.clientWidth / 2) - 40 : width;
      for (const p of pools) {
        const canvas = h('canvas', { role: 'img', 'aria-label': `${p.name}: ${p.size} VMs now, limits ${p.min} to ${p.max}` });
        grid.append(h('section', { class: 'card', dataset: { pool: p.name, size: String(p.size) }, 'aria-labelledby': `as-${p.name}` },
          h('div', { class: 'card-head' }, h('h2', { id: `as-${p.name}` }, h('a', { href: clusterHash(c, 'pool', p.name) }, p.name)),
            h('span', { class: 'meta' }, p.enabled ? `${p.min}–${p.max} ${p.perZone ? `(per zone × ${p.zones} zones)` : 'in total'}${p.locationPolicy ? ` · ${p.locationPolicy}` : ''}` : 'autoscaling off'),
            h('span', { class: 'actions' }, h('b', {}, `${p.size} VMs`), h('span', { class: 'note' }, `${p.ready} ready`))),
          canvas));
        const hits = chart(canvas, p, v.decisions.filter((d) => d.nodePool === p.name), since, now, cw);
        tooltip(canvas, () => hits);
      }
      const list = v.decisions.filter((d) => !only || d.type === only).slice().reverse();
      const rows = list.slice(0, 300).map((d) => {
        const [col, glyph, label] = DECISION[d.type];
        const sw = h('span', { 'aria-hidden': 'true', class: 'glyph' }, glyph);
        sw.style.color = col;
        return h('tr', { dataset: { decision: d.type } }, h('td', { class: 'mono' }, fmtTime(d.time)), h('td', {}, sw, ` ${label}`),
          h('td', {}, d.nodePool || '—'), h('td', {}, d.message,
            (d.nodes || []).length || (d.pods || []).length ? h('div', {},
              (d.nodes || []).map((n) => [h('button', { type: 'button', class: 'linkish mono', dataset: { fkey: `n:${d.seq}:${n}` }, onclick: () => showNode(c, n) }, n), ' ']),
              (d.pods || []).map((k) => [h('button', { type: 'button', class: 'linkish mono', dataset: { fkey: `p:${d.seq}:${k}` }, onclick: () => showPod(c, k) }, `pod ${k}`), ' '])) : null));
      });
      body.append(h('section', { class: 'card', 'aria-labelledby': 'dec-title' }, h('h2', { id: 'dec-title' }, 'Decisions, newest first'),
        rows.length ? table(['Time', 'Decision', 'Pool', 'Reason, nodes and pods'], rows, { class: 'grid compact', id: 'decisions' })
          : empty('No decision in this range.'),
        list.length > 300 || v.decisionsOmitted ? h('p', { class: 'note' }, `${list.length - Math.min(list.length, 300) + (v.decisionsOmitted || 0)} older decisions not shown.`) : null));
    },
  });
  rangeSel.addEventListener('change', () => { range = Number(rangeSel.value); view.events([]); });
  typeSel.addEventListener('change', () => { only = typeSel.value; view.events([]); });
  return view;
}
