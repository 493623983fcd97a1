// Upgrade timeline: a Gantt of an operation over emulated time. A row per node: created, ready,
// cordoned, draining (held while a PodDisruptionBudget blocks an eviction, forced at the
// timeout), drained, deleting. Above the rows: the blue-green phases, batches, soaks and waits
// (or a surge upgrade's zones) as bands, and cancel, pause, resume, rollback and completion as
// marks. Rows are drawn on a canvas, only those scrolled into view.

import { get } from '../api.js';
import { h, add, table, badge, empty, clusterHash, fmtTime, fmtDur, parseTime } from '../dom.js';
import { liveView, heading, clusterOf, widthOf } from '../view.js';
import { setup, timeAxis, tooltip, COLOURS } from '../draw.js';
import { showNode } from '../detail.js';

const SPAN = {
  creating: ['#a8dab5', 'creating'], ready: [null, 'ready'], cordoned: ['#8ab4f8', 'cordoned'], draining: ['#f9ab00', 'draining'],
  held: ['#e37400', 'held by a PodDisruptionBudget'], drained: ['#dadce0', 'drained (empty)'], deleting: ['#9aa0a6', 'deleting'],
  failed: ['#d93025', 'failed'],
};
const READY = { old: '#1a73e8', new: '#1e8e3e' };
const BAND = { phase: '#e8f0fe', batch: '#c6dafc', soak: '#e9d2fd', wait: '#fde293', zone: '#ceead6' };
const MARK = {
  UpgradeCancelled: ['#d93025', 'cancelled'], UpgradePaused: ['#e37400', 'paused'], UpgradeWaiting: ['#e37400', 'waiting'],
  UpgradeResumed: ['#1e8e3e', 'resumed'], UpgradeRollback: ['#9334e6', 'rollback'], UpgradeCompleted: ['#1a73e8', 'completed'],
  UpgradeForced: ['#e37400', 'forced'], UpgradeStopped: ['#d93025', 'stopped'], UpgradeStarted: ['#5f6368', 'started'],
  UpgradeDone: ['#1e8e3e', 'done'],
};

function spanColour(role, state) {
  if (state === 'ready') return READY[role] || READY.new;
  return (SPAN[state] || ['#bdc1c6'])[0];
}

function rowHeight(n) {
  if (n <= 80) return 14;
  if (n <= 200) return 8;
  if (n <= 600) return 5;
  if (n <= 3000) return 3;
  return 2;
}

const LABEL = 200;
const VIEW_H = 460;

// lanes: the bands and marks above the rows.
function drawLanes(canvas, tl, width, base, total) {
  const lanes = [];
  const phases = tl.bands.filter((b) => b.kind === 'phase');
  const zones = tl.bands.filter((b) => b.kind === 'zone');
  const sub = tl.bands.filter((b) => b.kind === 'batch' || b.kind === 'soak' || b.kind === 'wait');
  if (phases.length) lanes.push(['Phases', phases]);
  if (sub.length) lanes.push(['Batches, soaks, waits', sub]);
  if (zones.length) lanes.push(['Zones', zones]);
  const laneH = 22, marksH = 20, axisH = 20;
  const height = lanes.length * (laneH + 4) + marksH + axisH + 4;
  const ctx = setup(canvas, width, height);
  const x0 = LABEL, x1 = width - 8;
  const xOf = (t) => x0 + (t / total) * (x1 - x0);
  const hits = [];
  let y = 2;
  for (const [name, bands] of lanes) {
    ctx.fillStyle = COLOURS.muted;
    ctx.fillText(name, 0, y + laneH / 2);
    for (const b of bands) {
      const a = xOf(b.from), w = Math.max(xOf(b.to) - a, 2);
      ctx.fillStyle = BAND[b.kind] || '#eee';
      ctx.fillRect(a, y, w, laneH);
      ctx.strokeStyle = '#fff';
      ctx.strokeRect(a + 0.5, y + 0.5, w - 1, laneH - 1);
      if (w >= 44) {
        ctx.save();
        ctx.beginPath(); ctx.rect(a + 3, y, w - 6, laneH); ctx.clip();
        ctx.fillStyle = COLOURS.ink;
        ctx.fillText(b.label.replace(/_/g, ' ').toLowerCase(), a + 4, y + laneH / 2 + 1);
        ctx.restore();
      }
      hits.push({ x: a, y, w, h: laneH, text: `${b.label}: ${fmtTime(base + b.from * 1000)} → ${fmtTime(base + b.to * 1000)} (${fmtDur(b.to - b.from)})` });
    }
    y += laneH + 4;
  }
  ctx.fillStyle = COLOURS.muted;
  ctx.fillText('Marks', 0, y + marksH / 2);
  for (const m of tl.marks) {
    const [col, label] = MARK[m.kind] || ['#5f6368', m.kind];
    const x = Math.round(xOf(m.at)) + 0.5;
    ctx.fillStyle = col;
    ctx.beginPath(); ctx.moveTo(x, y + marksH - 2); ctx.lineTo(x - 5, y + 4); ctx.lineTo(x + 5, y + 4); ctx.closePath(); ctx.fill();
    hits.push({ x: x - 6, y, w: 12, h: marksH, text: `${fmtTime(base + m.at * 1000)} ${label}: ${m.message}` });
  }
  y += marksH;
  timeAxis(ctx, x0, x1, y + 2, 0, total, base, false);
  return { hits, height };
}

function drawRows(canvas, tl, width, base, total, top, rh) {
  const ctx = setup(canvas, width, Math.min(VIEW_H, tl.nodes.length * rh));
  const x0 = LABEL, x1 = width - 8;
  const xOf = (t) => x0 + (t / total) * (x1 - x0);
  const first = Math.floor(top / rh), last = Math.min(tl.nodes.length, Math.ceil((top + VIEW_H) / rh));
  ctx.strokeStyle = COLOURS.grid;
  let zone = null;
  for (let i = first; i < last; i++) {
    const n = tl.nodes[i];
    const y = i * rh - top;
    if (n.zone !== zone && i > 0 && tl.nodes[i - 1].zone !== n.zone) {
      ctx.beginPath(); ctx.moveTo(0, y + 0.5); ctx.lineTo(x1, y + 0.5); ctx.stroke();
    }
    zone = n.zone;
    if (rh >= 14) {
      ctx.fillStyle = n.role === 'old' ? READY.old : READY.new;
      ctx.fillRect(0, y + 3, 3, rh - 6);
      ctx.fillStyle = COLOURS.ink;
      ctx.font = '11px system-ui, sans-serif';
      ctx.fillText(n.name.length > 31 ? `…${n.name.slice(-30)}` : n.name, 8, y + rh / 2 + 1);
    } else if (i === first || tl.nodes[i - 1].zone !== n.zone) {
      ctx.fillStyle = COLOURS.muted;
      ctx.fillText(n.zone, 8, y + 6);
    }
    const pad = rh >= 10 ? 3 : rh >= 6 ? 1 : 0;
    for (const s of n.spans) {
      const a = xOf(s.from), w = Math.max(xOf(s.to) - a, 1);
      ctx.fillStyle = spanColour(n.role, s.state);
      ctx.fillRect(a, y + pad, w, rh - 2 * pad);
      if (s.state === 'held' && rh >= 6) {
        ctx.strokeStyle = '#fff';
        ctx.beginPath();
        for (let hx = a - rh; hx < a + w; hx += 6) { ctx.moveTo(Math.max(hx, a), y + rh - pad); ctx.lineTo(Math.min(hx + rh, a + w), y + pad); }
        ctx.stroke();
        ctx.strokeStyle = COLOURS.grid;
      }
    }
    for (const m of n.marks || []) {
      const x = xOf(m.at);
      if (m.kind === 'DrainForced') {
        ctx.strokeStyle = COLOURS.red; ctx.lineWidth = 2;
        const r = Math.max(2, rh / 2 - 2);
        ctx.beginPath(); ctx.moveTo(x - r, y + rh / 2 - r); ctx.lineTo(x + r, y + rh / 2 + r); ctx.moveTo(x + r, y + rh / 2 - r); ctx.lineTo(x - r, y + rh / 2 + r); ctx.stroke();
        ctx.lineWidth = 1; ctx.strokeStyle = COLOURS.grid;
      } else if (m.kind === 'EvictionBlocked') {
        ctx.fillStyle = '#b06000';
        ctx.beginPath(); ctx.moveTo(x, y + 1); ctx.lineTo(x + 4, y + rh - 1); ctx.lineTo(x - 4, y + rh - 1); ctx.closePath(); ctx.fill();
      } else {
        ctx.fillStyle = COLOURS.purple;
        ctx.beginPath(); ctx.arc(x, y + rh / 2, Math.max(2, rh / 4), 0, 2 * Math.PI); ctx.fill();
      }
    }
  }
  // Now, for a running operation.
  if (tl.operation.status !== 'DONE') {
    ctx.strokeStyle = COLOURS.red;
    ctx.beginPath(); ctx.moveTo(x1 + 0.5, 0); ctx.lineTo(x1 + 0.5, VIEW_H); ctx.stroke();
  }
  return (x, y) => {
    const i = Math.floor((y + top) / rh);
    const n = tl.nodes[i];
    if (!n) return null;
    const t = ((x - x0) / (x1 - x0)) * total;
    const m = (n.marks || []).find((k) => Math.abs(xOf(k.at) - x) < 5);
    if (m) return { node: n, text: `${n.name}: ${m.message}` };
    const s = n.spans.find((k) => t >= k.from && t <= k.to);
    if (!s) return { node: n, text: `${n.name} (${n.zone}, ${n.role})` };
    return { node: n, text: `${n.name} (${n.zone}, ${n.role}): ${(SPAN[s.state] || [0, s.state])[1]} ${fmtTime(base + s.from * 1000)} → ${fmtTime(base + s.to * 1000)} (${fmtDur(s.to - s.from)})` };
  };
}

function legendRow() {
  const items = [['ready (old / blue)', READY.old], ['ready (new / green)', READY.new],
    ...Object.entries(SPAN).filter(([k]) => k !== 'ready').map(([, [c, l]]) => [l, c])];
  return h('div', { class: 'legend' }, items.map(([label, colour]) => {
    const sw = h('canvas', { 'aria-hidden': 'true' });
    const ctx = setup(sw, 18, 10);
    ctx.fillStyle = colour; ctx.fillRect(0, 0, 18, 10);
    return h('span', { class: 'legend-item' }, sw, label);
  }), h('span', { class: 'legend-item' }, '▲ eviction blocked by a PDB'), h('span', { class: 'legend-item' }, '✕ drain forced at the timeout'));
}

export function mount(root, params) {
  const c = clusterOf(params);
  const head = h('div');
  root.append(head);
  let scrollTop = 0;
  let pool = null;
  let done = false;
  return liveView(root, {
    load: (signal) => get(`/emulator/v1/projects/${encodeURIComponent(c.project)}/locations/${encodeURIComponent(c.location)}/operations/${encodeURIComponent(params.op)}/timeline`, null, signal),
    relevant: (e) => !done && e.cluster === c.key && (e.operation === params.op || !pool || e.nodePool === pool),
    gap: 1000,
    render(body, tl) {
      const op = tl.operation;
      pool = op.nodePool || null;
      done = op.status === 'DONE';
      const base = parseTime(tl.start), total = Math.max((parseTime(tl.end) - base) / 1000, 1);
      const crumbs = [['Clusters', '#/clusters'], [c.name, clusterHash(c)]];
      if (pool) crumbs.push([`pool ${pool}`, clusterHash(c, 'pool', pool)]);
      crumbs.push([op.name]);
      head.replaceChildren(...heading(crumbs, `${op.type}${pool ? ` of ${pool}` : ''}`, [
        badge(op.status), tl.strategy ? h('span', {}, `strategy ${tl.strategy.toLowerCase().replace(/_/g, '-')}`) : null,
        h('span', {}, `${fmtTime(tl.start)} → ${op.status === 'DONE' ? fmtTime(tl.end) : 'now'} (${fmtDur(total)})`),
        h('span', { class: 'mono' }, op.name),
      ]));
      add(body, h('p', { class: 'note', id: 'op-detail' }, op.detail || ''), op.error ? h('div', { class: 'error' }, op.error) : null);
      const card = h('section', { class: 'card', 'aria-label': 'Timeline' });
      body.append(card);
      const width = widthOf(body) - 34;
      const lanes = h('canvas', { role: 'img', 'aria-label': `Bands: ${tl.bands.map((b) => b.label).join(', ') || 'none'}; marks: ${tl.marks.map((m) => m.kind).join(', ') || 'none'}` });
      card.append(legendRow(), lanes);
      const { hits } = drawLanes(lanes, tl, width, base, total);
      tooltip(lanes, () => hits);
      if (!tl.nodes.length) {
        card.append(empty('No node was touched by this operation (yet).'));
      } else {
        const rh = rowHeight(tl.nodes.length);
        const fullH = tl.nodes.length * rh;
        const rows = h('canvas', { role: 'img', 'aria-label': `${tl.nodes.length} nodes over time; click a row for the node's details` });
        const box = h('div', { class: 'rowsbox', dataset: { keepScroll: 'rows' } });
        box.style.height = `${Math.min(VIEW_H, fullH) + 2}px`;
        box.style.overflowY = fullH > VIEW_H ? 'auto' : 'hidden';
        box.style.position = 'relative';
        const spacer = h('div');
        spacer.style.height = `${fullH}px`;
        rows.style.position = 'sticky';
        rows.style.top = '0';
        rows.style.marginBottom = `${-Math.min(VIEW_H, fullH)}px`;
        box.append(rows, spacer);
        card.append(box);
        let probe = drawRows(rows, tl, width, base, total, Math.min(scrollTop, Math.max(0, fullH - VIEW_H)), rh);
        box.addEventListener('scroll', () => {
          scrollTop = box.scrollTop;
          probe = drawRows(rows, tl, width, base, total, scrollTop, rh);
        });
        let over = null;
        tooltip(rows, () => (over ? [{ x: 0, y: 0, w: width, h: VIEW_H, text: over.text }] : []));
        rows.addEventListener('mousemove', (e) => {
          const r = rows.getBoundingClientRect();
          over = probe(e.clientX - r.left, e.clientY - r.top);
        });
        rows.addEventListener('click', (e) => {
          const r = rows.getBoundingClientRect();
          const hit = probe(e.clientX - r.left, e.clientY - r.top);
          if (hit) showNode(c, hit.node.name);
        });
        if (tl.nodesOmitted) card.append(h('p', { class: 'note' }, `${tl.nodesOmitted} more nodes not shown.`));
      }
      const cards = h('div', { class: 'cards-2' });
      body.append(cards);
      cards.append(h('section', { class: 'card', 'aria-labelledby': 'bands-title' }, h('h2', { id: 'bands-title' }, 'Phases and bands'),
        tl.bands.length ? table(['Kind', 'What', 'From', 'To', 'Length'], tl.bands.map((b) => h('tr', { dataset: { band: b.kind, label: b.label } },
          h('td', {}, b.kind), h('td', {}, b.label), h('td', { class: 'mono' }, fmtTime(base + b.from * 1000)),
          h('td', { class: 'mono' }, fmtTime(base + b.to * 1000)), h('td', { class: 'num' }, fmtDur(b.to - b.from)))), { class: 'grid compact', id: 'bands' })
          : empty('No phases: a surge upgrade shows its zones once nodes move.')));
      cards.append(h('section', { class: 'card', 'aria-labelledby': 'marks-title' }, h('h2', { id: 'marks-title' }, 'Marks'),
        tl.marks.length ? table(['Time', 'What', 'Message'], tl.marks.map((m) => h('tr', { dataset: { mark: m.kind } },
          h('td', { class: 'mono' }, fmtTime(base + m.at * 1000)), h('td', {}, (MARK[m.kind] || [0, m.kind])[1]), h('td', {}, m.message))), { class: 'grid compact', id: 'marks' })
          : empty('Nothing marked yet.')));
      const held = tl.nodes.filter((n) => (n.marks || []).some((m) => m.kind === 'EvictionBlocked'));
      if (held.length) {
        body.append(h('section', { class: 'card', 'aria-labelledby': 'held-title' }, h('h2', { id: 'held-title' }, 'Drains held by a PodDisruptionBudget'),
          table(['Node', 'Blocked at', 'Forced at', 'Message'], held.slice(0, 100).map((n) => {
            const b = n.marks.find((m) => m.kind === 'EvictionBlocked');
            const f = n.marks.find((m) => m.kind === 'DrainForced');
            return h('tr', {}, h('td', {}, h('button', { type: 'button', class: 'linkish mono', dataset: { fkey: `node:${n.name}` }, onclick: () => showNode(c, n.name) }, n.name)),
              h('td', { class: 'mono' }, fmtTime(base + b.at * 1000)), h('td', { class: 'mono' }, f ? fmtTime(base + f.at * 1000) : '—'), h('td', {}, b.message));
          }), { class: 'grid compact' })));
      }
    },
  });
}
