// Clusters: every project/location/cluster with status, versions, channel, node count,
// pending pods and running operations.

import { get } from '../api.js';
import { h, table, badge, apiDown, empty, clusterHash, fmtTime } from '../dom.js';
import { liveView, heading } from '../view.js';
import { setup, cell, versionColours, COLOURS } from '../draw.js';

/** stateBar draws a cluster's nodes by state as a thin stacked bar. */
function stateBar(byState) {
  const order = ['ready', 'creating', 'cordoned', 'draining', 'deleting', 'failed'];
  const colour = { ready: COLOURS.green, creating: COLOURS.greenLight, cordoned: '#137333', draining: COLOURS.amber, deleting: COLOURS.grey, failed: COLOURS.red };
  const total = order.reduce((a, s) => a + (byState[s] || 0), 0);
  const c = h('canvas', { role: 'img', 'aria-label': order.filter((s) => byState[s]).map((s) => `${byState[s]} ${s}`).join(', ') || 'no nodes' });
  const W = 96;
  const ctx = setup(c, W, 8);
  let x = 0;
  for (const s of order) {
    const w = total ? (byState[s] || 0) / total * W : 0;
    ctx.fillStyle = colour[s];
    ctx.fillRect(x, 0, w, 8);
    x += w;
  }
  if (!total) { ctx.fillStyle = COLOURS.grid; ctx.fillRect(0, 0, W, 8); }
  return c;
}

function versions(c) {
  const col = versionColours(c.nodeVersions);
  return h('div', {}, h('div', { class: 'mono', title: 'control plane' }, c.version), c.nodeVersions.map((v) => {
    const sw = h('canvas', { 'aria-hidden': 'true' });
    cell(setup(sw, 9, 9), 0, 0, 9, col.get(v), 'ready');
    return h('div', { class: 'note node-version', title: 'node version' }, sw, v);
  }));
}

export function mount(root) {
  root.append(...heading([['Clusters']], 'Clusters', 'Every cluster the emulator runs, in every project and location.'));
  return liveView(root, {
    load: (signal) => get('/emulator/v1/clusters', null, signal),
    relevant: (e) => !!e.cluster,
    gap: 1000,
    render(body, data) {
      if (!data.clusters.length) {
        body.append(h('div', { class: 'card' }, empty('No clusters yet.'),
          h('p', { class: 'note' }, 'Create one with terraform apply (examples/scenarios/quickstart), gcloud container clusters create, or the GKE API; it appears here at once.')));
        return;
      }
      const rows = data.clusters.map((c) => h('tr', { dataset: { cluster: `${c.project}/${c.location}/${c.name}` } },
        h('td', {}, h('a', { href: clusterHash(c) }, c.name), h('div', { class: 'note' }, `${c.project} · ${c.location}`),
          c.autopilot ? h('div', { class: 'note' }, 'Autopilot') : null),
        h('td', {}, badge(c.status), c.statusMessage ? h('div', { class: 'note' }, c.statusMessage) : null, apiDown(c)),
        h('td', {}, versions(c)),
        h('td', {}, c.releaseChannel || 'none'),
        h('td', { class: 'num', dataset: { nodes: String(c.currentNodeCount) } }, String(c.currentNodeCount), stateBar(c.nodesByState)),
        h('td', { class: 'num' }, c.pendingPods ? h('a', { href: clusterHash(c) }, String(c.pendingPods)) : '0'),
        h('td', { class: 'ops' }, c.operations.length ? c.operations.map((o) => h('div', { dataset: { op: o.name } },
          h('a', { href: clusterHash(c, 'op', o.name) }, o.type), o.nodePool ? ` · ${o.nodePool}` : '',
          h('div', { class: 'note' }, o.detail || `${o.status} since ${fmtTime(o.startTime)}`))) : h('span', { class: 'note' }, 'none'))));
      body.append(h('div', { class: 'card scroll-x' }, table(['Cluster', 'Status', 'Version', 'Channel', 'Nodes', 'Pending pods', 'Running operations'], rows, { class: 'grid', id: 'clusters-table' })));
    },
  });
}
