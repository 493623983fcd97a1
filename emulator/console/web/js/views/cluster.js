// Cluster: each node pool as zones x nodes, coloured by version and drawn by state (creating,
// ready, cordoned, draining, deleting, failed); pending pods; each pool's upgrade with its phase
// or zone, progress and ETA. With a pool in the route, that pool alone, with its upgrade
// operations (each a link to its timeline).

import { get } from '../api.js';
import { h, table, badge, apiDown, empty, clusterHash, fmtTime, fmtDur, parseTime, shortOp } from '../dom.js';
import { liveView, heading, clusterOf, widthOf } from '../view.js';
import { nodeGrid, tooltip, versionColours, legend, STATE_LABELS, COLOURS } from '../draw.js';
import { showPod } from '../detail.js';

const STRATEGY = { SURGE: 'surge', BLUE_GREEN: 'blue-green', AUTOSCALED_BLUE_GREEN: 'autoscaled blue-green', SHORT_LIVED: 'short-lived' };

function autoscaling(a, zones) {
  if (!a) return null;
  if (a.totalMinNodeCount || a.totalMaxNodeCount) return `autoscaling ${a.totalMinNodeCount || 0}–${a.totalMaxNodeCount} in total`;
  return `autoscaling ${a.minNodeCount || 0}–${a.maxNodeCount} per zone (${(a.minNodeCount || 0) * zones}–${a.maxNodeCount * zones})`;
}

function upgradeLine(c, u, now) {
  const pct = u.nodesTotal ? Math.round((u.nodesDone / u.nodesTotal) * 100) : 0;
  const eta = parseTime(u.eta);
  const until = parseTime(u.phaseUntil);
  let state = '';
  if (u.paused) state = 'paused (cancelled): resume or roll back';
  else if (u.stopping) state = 'cancelling: nodes mid-upgrade finish';
  else if (u.waiting) state = u.waiting;
  return h('div', { class: 'upgrade', dataset: { upgrade: u.operation } },
    h('div', { class: 'upgrade-row' },
      h('span', { class: 'what' }, `${u.rollback ? 'Rollback' : u.auto ? 'Auto-upgrade' : 'Upgrade'} (${STRATEGY[u.strategy] || u.strategy})`),
      h('span', {}, u.change),
      u.phase ? h('span', { class: 'badge badge-phase', dataset: { phase: u.phase } }, u.phase) : null,
      u.zone ? h('span', {}, 'in zone ', h('b', { dataset: { zone: u.zone } }, u.zone)) : null,
      h('a', { class: 'push', href: clusterHash(c, 'op', u.operation) }, 'Timeline →')),
    h('div', { class: 'upgrade-row' },
      h('span', {}, h('span', { class: 'progress', role: 'progressbar', 'aria-valuenow': String(pct), 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-label': 'nodes done' }, progressFill(pct)),
        ` ${u.nodesDone} of ${u.nodesTotal} nodes`),
      until ? h('span', {}, `phase ends ${fmtTime(until)} (in ${fmtDur((until - now) / 1000)})`) : null,
      eta ? h('span', { dataset: { eta: u.eta } }, `ETA ${fmtTime(eta)} (in ${fmtDur((eta - now) / 1000)})`) : null,
      state ? h('span', { class: 'note' }, state) : null));
}

function progressFill(pct) {
  const i = h('i');
  i.style.width = `${pct}%`;
  return i;
}

// countsTable lists a pool's nodes per zone and version, with the states in words.
function countsTable(p, versions) {
  const present = versions.filter((v) => p.zones.some((z) => z.counts.some((c) => c.version === v)));
  const rows = p.zones.map((z) => h('tr', {}, h('th', { scope: 'row' }, z.zone), present.map((v) => {
    const cs = z.counts.filter((c) => c.version === v);
    const n = cs.reduce((a, c) => a + c.count, 0);
    const states = cs.length === 1 ? cs[0].state : cs.map((c) => `${c.count} ${c.state}`).join(', ');
    return h('td', { class: 'num', dataset: { zone: z.zone, version: v, count: String(n) } }, n ? h('b', {}, String(n)) : '·',
      n ? h('span', { class: 'note' }, ` ${states}`) : null);
  }), h('td', { class: 'num' }, String(z.nodes))));
  const totals = present.map((v) => {
    const n = p.zones.reduce((a, z) => a + z.counts.filter((c) => c.version === v).reduce((x, c) => x + c.count, 0), 0);
    return h('td', { class: 'num', dataset: { pool: p.name, version: v, total: String(n) } }, h('b', {}, String(n)));
  });
  return table(['Zone', ...present.map((v) => h('span', { class: 'mono' }, v)), 'Nodes'],
    [...rows, h('tr', {}, h('th', { scope: 'row' }, 'All zones'), totals, h('td', { class: 'num' }, h('b', {}, String(p.nodes))))],
    { class: 'grid compact counts', dataset: { pool: p.name } });
}

function poolCard(parent, c, p, versions, colours, focused, width, now) {
  const card = h('section', { class: 'card pool', dataset: { pool: p.name }, 'aria-labelledby': `pool-${p.name}` });
  parent.append(card);
  const poolHref = clusterHash(c, 'pool', p.name);
  card.append(h('div', { class: 'card-head' },
    h('h2', { id: `pool-${p.name}` }, focused ? p.name : h('a', { href: poolHref }, p.name)),
    h('span', { class: 'meta' }, [h('span', { class: 'mono' }, p.version), p.machineType + (p.spot ? ' (Spot)' : ''),
      `${STRATEGY[p.strategy] || p.strategy} upgrades`, autoscaling(p.autoscaling, p.zones.length), `${p.nodes} VMs`].filter(Boolean).flatMap((x, i) => (i ? [' · ', x] : [x]))),
    h('span', { class: 'actions' }, badge(p.status),
      p.operations.length ? h('a', { href: clusterHash(c, 'op', p.operations[0].name) }, 'Latest upgrade timeline') : null)));
  if (p.upgrade) card.append(upgradeLine(c, p.upgrade, now));
  const canvas = h('canvas', { role: 'img', 'aria-label': `Nodes of ${p.name} by zone: ${p.zones.map((z) => `${z.zone} ${z.nodes}`).join(', ')}` });
  const counts = countsTable(p, versions);
  const row = h('div', { class: 'pool-body' }, h('div', { class: 'pool-grid' }, canvas), counts);
  card.append(row);
  // The grid takes what the counts table leaves (all of the card when they wrap below it).
  const side = width - counts.offsetWidth - 24 >= 560 ? counts.offsetWidth + 24 : 0;
  const hits = nodeGrid(canvas, p.zones, colours, Math.max(320, width - side));
  tooltip(canvas, () => hits);
  if (focused) {
    card.append(h('h3', {}, 'Upgrade operations'));
    card.append(p.operations.length ? table(['Operation', 'Status', 'Started', 'Ended', 'Detail'], p.operations.map((o) => h('tr', {},
      h('td', {}, h('a', { href: clusterHash(c, 'op', o.name), class: 'mono', title: o.name }, shortOp(o.name))), h('td', {}, badge(o.status)),
      h('td', { class: 'mono' }, fmtTime(o.startTime)), h('td', { class: 'mono' }, fmtTime(o.endTime)),
      h('td', {}, o.detail, o.error ? h('div', { class: 'note' }, o.error) : null))), { class: 'grid compact', id: 'pool-operations' })
      : empty('No upgrade of this pool yet.'));
  }
  return card;
}

function pendingBox(c, pending) {
  const total = pending.reduce((a, g) => a + g.count, 0);
  if (!total) return null;
  return h('div', { class: 'pending', dataset: { pending: String(total) } },
    h('b', {}, `${total} pending pod${total === 1 ? '' : 's'}`),
    pending.map((g) => h('div', {}, `${g.count} × ${g.reason} `, g.pods.slice(0, 6).map((k) => [h('button', { type: 'button', class: 'linkish mono', dataset: { fkey: `pod:${k}` }, onclick: () => showPod(c, k) }, k), ' ']),
      g.count > 6 ? h('span', { class: 'note' }, `and ${g.count - 6} more`) : null)));
}

export function mount(root, params) {
  const c = clusterOf(params);
  const focus = params.pool;
  const crumbs = [['Clusters', '#/clusters'], [c.name, focus ? clusterHash(c) : null]];
  if (focus) crumbs.push([`pool ${focus}`]);
  const head = h('div');
  root.append(head);
  return liveView(root, {
    load: (signal) => get(`${c.api}/nodeSummary`, null, signal),
    relevant: (e) => e.cluster === c.key && (!focus || !e.nodePool || e.nodePool === focus),
    render(body, s) {
      const cl = s.cluster;
      head.replaceChildren(...heading(crumbs, focus ? `Node pool ${focus}` : `${cl.name}`, [
        badge(cl.status), apiDown(cl), h('span', {}, 'control plane ', h('span', { class: 'mono' }, cl.version)),
        h('span', {}, `channel ${cl.releaseChannel || 'none'}`), h('span', {}, `${cl.project} · ${cl.location}`),
        cl.operations.length ? h('span', {}, `${cl.operations.length} running operation${cl.operations.length === 1 ? '' : 's'}: `,
          cl.operations.map((o, i) => [i ? ', ' : '', h('a', { href: clusterHash(c, 'op', o.name) }, `${o.type}${o.nodePool ? ` ${o.nodePool}` : ''}`)])) : null,
      ]));
      const colours = versionColours(s.versions);
      const pools = focus ? s.pools.filter((p) => p.name === focus) : s.pools;
      if (!focus) {
        body.append(h('div', { class: 'stats' },
          h('div', { class: 'stat' }, h('b', { id: 'stat-nodes' }, String(cl.currentNodeCount)), h('span', {}, 'nodes (registered)')),
          h('div', { class: 'stat' }, h('b', {}, String(s.pools.length)), h('span', {}, 'node pools')),
          h('div', { class: 'stat' }, h('b', { id: 'stat-pending' }, String(cl.pendingPods)), h('span', {}, 'pending pods')),
          h('div', { class: 'stat' }, h('b', {}, String(s.versions.length)), h('span', {}, `node version${s.versions.length === 1 ? '' : 's'}`))));
        const pb = pendingBox(c, s.pending);
        if (pb) body.append(pb);
      }
      body.append(legend([
        ...s.versions.map((v) => [colours.get(v), v]),
        ...s.states.map((st) => [COLOURS.muted, STATE_LABELS[st], st]),
      ]));
      if (!pools.length) {
        body.append(h('div', { class: 'card' }, empty(focus ? `There is no node pool ${focus} in this cluster.` : 'This cluster has no node pools.')));
        return;
      }
      const width = widthOf(body) - 34;
      for (const p of pools) poolCard(body, c, p, s.versions, colours, !!focus, width, parseTime(s.now));
    },
  });
}
