// Event log: every step of the simulation with its emulated time, filterable by cluster, pool,
// node, operation and type, following the live stream.

import { get } from '../api.js';
import { h, clear, fmtTime, shortCluster, shortOp } from '../dom.js';
import { heading, clusterOf } from '../view.js';
import { showNode } from '../detail.js';

const MAX_ROWS = 1000;
const LOOK_BACK = 50000;
const TYPES = ['ScaleUp', 'ScaleDown', 'ScaleDownBlocked', 'NotTriggerScaleUp', 'UpgradeStarted', 'UpgradeDone', 'UpgradeCancelled', 'UpgradeResumed',
  'UpgradeRollback', 'UpgradeCompleted', 'UpgradePaused', 'UpgradeWaiting', 'BlueGreenPhase', 'BlueGreenBatch', 'BlueGreenSoak', 'NodeCreating', 'NodeReady',
  'NodeCordoned', 'NodeDraining', 'NodeDrained', 'NodeDeleting', 'NodeDeleted', 'NodeFailed', 'EvictionBlocked', 'PodEvicted', 'PodDeleted', 'FailedScheduling',
  'Scheduled', 'AutoUpgradeRollout', 'AutoUpgradeStarted', 'AutoUpgradeWaiting', 'EnsuredLoadBalancer', 'LoadBalancerBackendHealthy', 'LoadBalancerBackendUnhealthy',
  'LoadBalancerBackendsSynced', 'SyncLoadBalancerFailed', 'OperationDone', 'OperationFailed', 'ClusterCreating', 'ClusterRunning'];

// matches applies the event log's own filter rules (a cluster by resource name or bare name).
function matches(f, e) {
  if (f.cluster && e.cluster !== f.cluster && !(e.cluster || '').endsWith(`/clusters/${f.cluster}`)) return false;
  return (!f.nodePool || e.nodePool === f.nodePool) && (!f.node || e.node === f.node) && (!f.operation || e.operation === f.operation) && (!f.type || e.type === f.type);
}

function clusterRef(key) {
  const m = /^projects\/([^/]+)\/locations\/([^/]+)\/clusters\/([^/]+)$/.exec(key || '');
  return m ? clusterOf({ project: m[1], location: m[2], cluster: m[3] }) : null;
}

function row(e, fresh) {
  const c = clusterRef(e.cluster);
  return h('tr', { class: fresh ? 'fresh' : null, dataset: { seq: String(e.seq), type: e.type } },
    h('td', { class: 'time mono' }, fmtTime(e.time)), h('td', { class: 'type' }, e.type),
    h('td', {}, c ? h('a', { href: `#/c/${encodeURIComponent(c.project)}/${encodeURIComponent(c.location)}/${encodeURIComponent(c.name)}` }, shortCluster(e.cluster)) : (e.cluster || '')),
    h('td', {}, e.nodePool || ''),
    h('td', {}, e.node && c ? h('button', { type: 'button', class: 'linkish mono', onclick: () => showNode(c, e.node) }, e.node) : ''),
    h('td', {}, e.operation && c ? h('a', { class: 'mono', href: `#/c/${encodeURIComponent(c.project)}/${encodeURIComponent(c.location)}/${encodeURIComponent(c.name)}/op/${encodeURIComponent(e.operation)}`, title: e.operation }, shortOp(e.operation)) : ''),
    h('td', { class: 'msg' }, e.message));
}

export function mount(root, params) {
  const scoped = params.cluster ? clusterOf(params) : null;
  const q = params.query;
  const f = { cluster: scoped ? scoped.key : q.get('cluster') || '', nodePool: q.get('nodePool') || '', node: q.get('node') || '',
    operation: q.get('operation') || '', type: q.get('type') || '' };
  let follow = q.get('follow') !== 'false';
  const crumbs = scoped ? [['Clusters', '#/clusters'], [scoped.name, `#/c/${scoped.project}/${scoped.location}/${scoped.name}`], ['events']] : [['Event log']];
  root.append(...heading(crumbs, scoped ? `Events of ${scoped.name}` : 'Event log',
    'Every step the simulation took, with its emulated time. Filters apply as you type; the newest events come first.'));
  const input = (name, label, list) => h('label', {}, label, h('input', { type: 'text', name, value: f[name], list, size: name === 'type' ? 22 : 16, spellcheck: 'false', autocomplete: 'off' }));
  const followBox = h('input', { type: 'checkbox', name: 'follow', checked: follow });
  const form = h('form', { class: 'filters', role: 'search', 'aria-label': 'Filter events', onsubmit: (e) => e.preventDefault() },
    scoped ? null : input('cluster', 'Cluster'), input('nodePool', 'Node pool'), input('node', 'Node'), input('operation', 'Operation'),
    input('type', 'Type', 'event-types'), h('datalist', { id: 'event-types' }, TYPES.map((t) => h('option', { value: t }))),
    h('label', { class: 'check' }, followBox, 'Follow live'));
  const status = h('p', { class: 'note', 'aria-live': 'polite' });
  const tbody = h('tbody');
  const tableEl = h('table', { class: 'grid compact events', id: 'events-table' },
    h('thead', {}, h('tr', {}, ['Time', 'Type', 'Cluster', 'Pool', 'Node', 'Operation', 'Message'].map((x) => h('th', { scope: 'col' }, x)))), tbody);
  root.append(form, h('section', { class: 'card' }, status, tableEl));

  let gen = 0;
  let shown = 0;
  const load = async () => {
    const my = ++gen;
    status.textContent = 'Loading…';
    try {
      const end = (await get('/emulator/v1/events', { afterSeq: '9223372036854775807' })).nextSeq;
      const r = await get('/emulator/v1/events', { ...f, afterSeq: Math.max(0, end - LOOK_BACK) });
      if (my !== gen) return;
      clear(tbody);
      const evs = r.events.slice(-MAX_ROWS).reverse();
      tbody.append(...evs.map((e) => row(e, false)));
      shown = evs.length;
      status.textContent = `${r.events.length} matching event${r.events.length === 1 ? '' : 's'} among the last ${Math.min(end, LOOK_BACK)}${r.events.length > MAX_ROWS ? `; the newest ${MAX_ROWS} shown` : ''}${follow ? '; following live' : ''}.`;
      root.dataset.loaded = 'true';
    } catch (e) {
      if (my === gen) status.textContent = `Could not read the event log: ${e.message}`;
    }
  };
  let timer = null;
  form.addEventListener('input', (e) => {
    if (e.target.name === 'follow') {
      follow = followBox.checked;
    } else {
      f[e.target.name] = e.target.value.trim();
    }
    const qs = new URLSearchParams(Object.entries(f).filter(([k, v]) => v && !(scoped && k === 'cluster')));
    if (!follow) qs.set('follow', 'false');
    const base = location.hash.split('?')[0];
    history.replaceState(null, '', qs.toString() ? `${base}?${qs}` : base);
    clearTimeout(timer);
    timer = setTimeout(load, 250);
  });
  load();
  return {
    events(evs) {
      if (!follow || !evs.length) return;
      const add = evs.filter((e) => matches(f, e)).slice(-MAX_ROWS).reverse();
      if (!add.length) return;
      tbody.prepend(...add.map((e) => row(e, true)));
      shown += add.length;
      while (shown > MAX_ROWS) { tbody.lastElementChild.remove(); shown--; }
    },
    destroy() { gen++; clearTimeout(timer); },
  };
}
