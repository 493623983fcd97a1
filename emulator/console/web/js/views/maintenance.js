// Maintenance calendar: the next 60 days of the maintenance window and the exclusions by scope,
// the stretches in which upgrades may run and whether GKE counts them (4 hours or more), the
// rolling 32-day availability against GKE's 48 hours, when each kind of upgrade may next run
// (the evaluator behind maintenanceSchedule), and the automatic upgrades that ran or waited.

import { get } from '../api.js';
import { h, table, badge, empty, clusterHash, fmtTime, fmtDur, parseTime } from '../dom.js';
import { liveView, heading, clusterOf, widthOf } from '../view.js';
import { setup, tooltip, COLOURS } from '../draw.js';

const DAY = 86400000;
const SCOPE = {
  NO_UPGRADES: ['#d93025', 'no upgrades'], NO_MINOR_UPGRADES: ['#f9ab00', 'no minor upgrades'],
  NO_MINOR_OR_NODE_UPGRADES: ['#e8710a', 'no minor or node upgrades'],
};
const KIND = {
  CONTROL_PLANE_MINOR: 'Control plane, minor', CONTROL_PLANE_PATCH: 'Control plane, patch', CONTROL_PLANE_VM_DISRUPTION: 'Control plane, VM disruption',
  NODE_MINOR: 'Nodes, minor', NODE_PATCH: 'Nodes, patch', NODE_VM_DISRUPTION: 'Nodes, VM disruption',
};
const WEEKDAY = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

// spans converts [{startTime, endTime}] to [from, to] in ms.
const spans = (list, s = 'startTime', e = 'endTime') => list.map((x) => [parseTime(x[s]), parseTime(x[e])]);

function drawCalendar(canvas, cal, width) {
  const from = parseTime(cal.from), days = cal.rolling.length;
  const day0 = Math.floor(from / DAY) * DAY;
  const cols = width >= 900 ? 2 : 1;
  const perCol = Math.ceil(days / cols);
  const rh = 12, label = 70, colW = Math.floor(width / cols);
  const height = perCol * rh + 22;
  const ctx = setup(canvas, width, height);
  const occ = spans(cal.occurrences), avail = cal.available.map((a) => [parseTime(a.startTime), parseTime(a.endTime), a.counted]);
  const excl = cal.exclusions.map((e) => [parseTime(e.startTime), parseTime(e.endTime), e.scope, e.name]);
  const hits = [];
  ctx.font = '10.5px system-ui, sans-serif';
  for (let c = 0; c < cols; c++) {
    const x0 = c * colW + label, x1 = (c + 1) * colW - 12;
    const hx = (hr) => x0 + (hr / 24) * (x1 - x0);
    ctx.fillStyle = COLOURS.muted;
    for (let hr = 0; hr <= 24; hr += 6) {
      ctx.textAlign = hr === 0 ? 'left' : hr === 24 ? 'right' : 'center';
      ctx.fillText(`${String(hr).padStart(2, '0')}:00`, hx(hr), 8);
    }
    ctx.textAlign = 'left';
    for (let r = 0; r < perCol; r++) {
      const d = c * perCol + r;
      if (d >= days) break;
      const start = day0 + d * DAY, end = start + DAY, y = 18 + r * rh;
      const date = new Date(start);
      ctx.fillStyle = COLOURS.muted;
      ctx.fillText(`${WEEKDAY[date.getUTCDay()]} ${String(date.getUTCMonth() + 1).padStart(2, '0')}-${String(date.getUTCDate()).padStart(2, '0')}`, c * colW, y + rh / 2);
      ctx.fillStyle = '#f1f3f4';
      ctx.fillRect(x0, y, x1 - x0, rh - 2);
      const xt = (t) => hx(((Math.min(Math.max(t, start), end) - start) / DAY) * 24);
      const band = (a, b, fill, yy, hh) => {
        if (b <= start || a >= end) return;
        ctx.fillStyle = fill;
        ctx.fillRect(xt(a), yy, Math.max(xt(b) - xt(a), 1), hh);
      };
      for (const [a, b] of occ) band(a, b, '#ceead6', y, rh - 2);
      for (const [a, b, counted] of avail) {
        band(a, b, counted ? COLOURS.green : '#81c995', y, rh - 2);
        if (b > start && a < end) hits.push({ x: xt(a), y, w: xt(b) - xt(a), h: rh, text: `Available ${fmtTime(a)} → ${fmtTime(b)} (${fmtDur((b - a) / 1000)})${counted ? '' : ': shorter than 4h, so GKE does not count it'}` });
      }
      for (const [a, b, scope, name] of excl) {
        band(a, b, SCOPE[scope][0], y + rh - 5, 3);
        if (b > start && a < end) hits.push({ x: xt(a), y: y + rh - 6, w: xt(b) - xt(a), h: 5, text: `Exclusion ${name} (${scope}) ${fmtTime(a)} → ${fmtTime(b)}` });
      }
      if (from >= start && from < end) {
        ctx.fillStyle = COLOURS.ink;
        ctx.fillRect(xt(from) - 1, y - 1, 2, rh);
      }
    }
  }
  return hits;
}

function drawRolling(canvas, cal, width) {
  const height = 150, left = 44, bottom = 20;
  const ctx = setup(canvas, width, height);
  const max = Math.max(cal.requiredHours * 1.5, ...cal.rolling.map((r) => r.hours), 1);
  const n = cal.rolling.length, bw = (width - left - 8) / n;
  const y = (v) => height - bottom - (v / max) * (height - bottom - 8);
  ctx.strokeStyle = COLOURS.grid;
  ctx.fillStyle = COLOURS.muted;
  for (const v of [0, cal.requiredHours, Math.round(max)]) {
    ctx.beginPath(); ctx.moveTo(left, Math.round(y(v)) + 0.5); ctx.lineTo(width - 8, Math.round(y(v)) + 0.5); ctx.stroke();
    ctx.fillText(`${v}h`, 4, y(v));
  }
  const hits = [];
  cal.rolling.forEach((r, i) => {
    ctx.fillStyle = r.hours >= cal.requiredHours ? COLOURS.green : COLOURS.red;
    const x = left + i * bw;
    ctx.fillRect(x + 1, y(r.hours), Math.max(bw - 2, 1), y(0) - y(r.hours));
    hits.push({ x, y: 0, w: bw, h: height, text: `32 days from ${fmtTime(r.start)}: ${r.hours}h of counted availability (48h required)` });
    if (i % 7 === 0) { ctx.fillStyle = COLOURS.muted; ctx.fillText(fmtTime(r.start).slice(5, 10), x, height - 8); }
  });
  ctx.strokeStyle = COLOURS.red;
  ctx.setLineDash([4, 3]);
  ctx.beginPath(); ctx.moveTo(left, Math.round(y(cal.requiredHours)) + 0.5); ctx.lineTo(width - 8, Math.round(y(cal.requiredHours)) + 0.5); ctx.stroke();
  ctx.setLineDash([]);
  return hits;
}

function nextWindow(cal) {
  const w = cal.schedule.windows[0];
  if (!w) return h('span', { id: 'next-window' }, cal.window ? 'The window does not open within two years.' : 'No window: maintenance may run at any time.');
  const start = parseTime(w.startTime), now = parseTime(cal.now);
  if (start <= now) {
    return h('span', { id: 'next-window', dataset: { start: w.startTime, open: 'true' } }, 'Open now', w.endTime ? `, until ${fmtTime(w.endTime)}` : '');
  }
  return h('span', { id: 'next-window', dataset: { start: w.startTime } }, `Next opening ${fmtTime(w.startTime)} (in ${fmtDur((start - now) / 1000)})`,
    w.endTime ? `, until ${fmtTime(w.endTime)}` : '');
}

export function mount(root, params) {
  const c = clusterOf(params);
  root.append(...heading([['Clusters', '#/clusters'], [c.name, clusterHash(c)], ['maintenance']], `Maintenance of ${c.name}`,
    'Windows and exclusions for the next 60 days, the availability GKE counts, and when each kind of upgrade may run. Times are UTC.'));
  return liveView(root, {
    load: (signal) => get(`${c.api}/maintenanceCalendar`, { days: 60 }, signal),
    relevant: (e) => e.cluster === c.key && /^(AutoUpgrade|ClusterUpdated|Upgrade|ControlPlane)/.test(e.type),
    gap: 1500,
    render(body, cal) {
      const width = widthOf(body) - 34;
      body.append(h('section', { class: 'card', 'aria-labelledby': 'win-title' },
        h('div', { class: 'card-head' }, h('h2', { id: 'win-title' }, 'Window'), h('span', { class: 'meta' }, cal.window || 'none: maintenance may run at any time'),
          h('span', { class: 'actions' }, nextWindow(cal))),
        h('div', { class: 'stats' },
          h('div', { class: 'stat' }, h('b', { id: 'worst-hours', class: cal.worstHours < cal.requiredHours ? 'bad' : null }, `${cal.worstHours}h`),
            h('span', {}, `least availability in 32 days (from ${fmtTime(cal.worstStart).slice(0, 10)}); GKE requires ${cal.requiredHours}h`)),
          h('div', { class: 'stat' }, h('b', {}, String(cal.exclusions.length)), h('span', {}, 'exclusions ahead')),
          cal.schedule.endOfStandardSupport ? h('div', { class: 'stat' }, h('b', {}, fmtTime(cal.schedule.endOfStandardSupport).slice(0, 10)), h('span', {}, 'end of standard support of the control plane\'s minor')) : null)));
      const calCanvas = h('canvas', { role: 'img', 'aria-label': `Calendar of the next ${cal.rolling.length} days: ${cal.occurrences.length} window openings, ${cal.exclusions.length} exclusions` });
      const scopeLegend = Object.entries(SCOPE).map(([, [col, label]]) => [col, `exclusion: ${label}`]);
      body.append(h('section', { class: 'card', 'aria-labelledby': 'cal-title' }, h('h2', { id: 'cal-title' }, 'Next 60 days'),
        h('div', { class: 'legend' }, [['#ceead6', 'window'], [COLOURS.green, 'available, counted (≥ 4h)'], ['#81c995', 'available, < 4h (not counted)'], ['#f1f3f4', 'closed'], ...scopeLegend]
          .map(([col, label]) => { const sw = h('canvas', { 'aria-hidden': 'true' }); const x = setup(sw, 18, 10); x.fillStyle = col; x.fillRect(0, 0, 18, 10); return h('span', { class: 'legend-item' }, sw, label); })),
        calCanvas));
      const calHits = drawCalendar(calCanvas, cal, width);
      tooltip(calCanvas, () => calHits);

      const kinds = table(['Upgrade', 'Now', 'Next allowed', 'Blocked by', 'Why not now'], cal.schedule.upgrades.map((u) => h('tr', { dataset: { kind: u.kind } },
        h('td', {}, KIND[u.kind] || u.kind), h('td', {}, u.allowedNow ? badge('allowed', 'ok') : badge('not now', 'warn')),
        h('td', { class: 'mono', dataset: { next: u.nextAllowedTime || '' } }, u.allowedNow ? 'now' : fmtTime(u.nextAllowedTime)),
        h('td', {}, (u.blockedBy || []).join(', ') || '—'), h('td', { class: 'note' }, u.reason || ''))), { class: 'grid compact', id: 'upgrade-kinds' });
      const rolling = h('canvas', { role: 'img', 'aria-label': `Rolling 32-day availability; least ${cal.worstHours}h` });
      const grid = h('div', { class: 'cards-2' },
        h('section', { class: 'card', 'aria-labelledby': 'kinds-title' }, h('h2', { id: 'kinds-title' }, 'When each kind of upgrade may run'), kinds),
        h('section', { class: 'card', 'aria-labelledby': 'roll-title' }, h('h2', { id: 'roll-title' }, 'Availability in the 32 days from each day'),
          h('p', { class: 'note' }, 'Hours inside the window and outside NO_UPGRADES exclusions, in stretches of at least 4 hours, as GKE counts them. The dashed line is the 48h GKE requires.'), rolling));
      body.append(grid);
      const rhits = drawRolling(rolling, cal, Math.max(300, Math.floor(grid.clientWidth / (grid.clientWidth > 880 ? 2 : 1)) - 40));
      tooltip(rolling, () => rhits);

      body.append(h('section', { class: 'card', 'aria-labelledby': 'excl-title' }, h('h2', { id: 'excl-title' }, 'Exclusions'),
        cal.exclusions.length ? table(['Name', 'Scope', 'From', 'To', 'Blocks'], cal.exclusions.map((e) => h('tr', {},
          h('td', {}, e.name), h('td', {}, h('span', { class: 'badge badge-neutral' }, e.scope)), h('td', { class: 'mono' }, fmtTime(e.startTime)),
          h('td', { class: 'mono' }, fmtTime(e.endTime), e.untilEndOfSupport ? h('div', { class: 'note' }, 'until end of support') : null),
          h('td', { class: 'note' }, e.blocks.map((k) => KIND[k] || k).join('; ')))), { class: 'grid compact' }) : empty('No exclusions ahead.')));
      body.append(h('section', { class: 'card', 'aria-labelledby': 'auto-title' }, h('h2', { id: 'auto-title' }, 'Automatic upgrades'),
        cal.waiting ? h('p', { class: 'pending' }, `Waiting: ${cal.waiting}`) : null,
        cal.autoUpgrades.length ? table(['Time', 'What', 'Pool', 'Upgrade', 'Reason'], cal.autoUpgrades.slice().reverse().map((a) => h('tr', {},
          h('td', { class: 'mono' }, fmtTime(a.time)), h('td', {}, a.type.replace(/^AutoUpgrade/, '').toLowerCase()),
          h('td', {}, a.nodePool || (a.kind && a.kind.startsWith('CONTROL') ? 'control plane' : '')),
          h('td', {}, a.from ? `${a.from} → ${a.to}` : '', a.operation ? h('div', {}, h('a', { href: clusterHash(c, 'op', a.operation), class: 'mono' }, a.operation)) : null),
          h('td', {}, a.message))), { class: 'grid compact' }) : empty('No automatic upgrade has run or waited yet (a release channel target reaches the cluster within 4 days).')));
    },
  });
}
