// The console's entry: the header clock, the side navigation, and a router over the URL's
// hash (#/clusters, #/c/PROJECT/LOCATION/CLUSTER[/pool/NAME|/op/ID|/maintenance|/autoscaler|/lb|/events],
// #/events) that mounts one view at a time and feeds it the live event stream.

import { mountClock } from './clock.js';
import * as live from './live.js';
import { get } from './api.js';
import { h, clear, throttle, clusterHash } from './dom.js';
import { closeDetail } from './detail.js';
import * as clustersView from './views/clusters.js';
import * as clusterView from './views/cluster.js';
import * as timelineView from './views/timeline.js';
import * as maintenanceView from './views/maintenance.js';
import * as autoscalerView from './views/autoscaler.js';
import * as lbView from './views/loadbalancers.js';
import * as eventsView from './views/events.js';

const TABS = [
  ['', 'Nodes', clusterView], ['maintenance', 'Maintenance', maintenanceView], ['autoscaler', 'Autoscaler', autoscalerView],
  ['lb', 'Load balancers', lbView], ['events', 'Events', eventsView],
];

/** route reads the hash into {view, params, tab}. */
function route(hash) {
  const [path, query] = (hash.replace(/^#/, '') || '/clusters').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const params = { query: new URLSearchParams(query || '') };
  if (parts[0] === 'events') return { key: 'events', view: eventsView, params, title: 'Event log' };
  if (parts[0] === 'c' && parts.length >= 4) {
    [params.project, params.location, params.cluster] = parts.slice(1, 4);
    const rest = parts.slice(4);
    if (rest[0] === 'pool' && rest[1]) return { key: 'pool', view: clusterView, params: { ...params, pool: rest[1] }, tab: '', title: `Pool ${rest[1]}` };
    if (rest[0] === 'op' && rest[1]) return { key: 'timeline', view: timelineView, params: { ...params, op: rest[1] }, tab: '', title: `Operation ${rest[1]}` };
    const tab = TABS.find(([t]) => t === (rest[0] || ''));
    if (tab) return { key: tab[0] || 'cluster', view: tab[2], params: { ...params, scoped: true }, tab: tab[0], title: `${params.cluster}: ${tab[1]}` };
  }
  return { key: 'clusters', view: clustersView, params, title: 'Clusters' };
}

let current = null;
let currentRoute = null;
const main = document.getElementById('main');
const side = document.getElementById('side');
let clusters = [];

function navigate() {
  if (current) current.destroy();
  closeDetail();
  clear(main);
  currentRoute = route(location.hash);
  document.title = `${currentRoute.title} · gkesim console`;
  delete main.dataset.loaded;
  main.dataset.view = currentRoute.key;
  current = currentRoute.view.mount(main, currentRoute.params);
  renderSide();
}

function renderSide() {
  clear(side);
  const r = currentRoute || route(location.hash);
  const here = location.hash || '#/clusters';
  const link = (href, text, extra) => h('a', { href, 'aria-current': here === href ? 'page' : null }, extra, text);
  const items = [h('li', {}, link('#/clusters', 'All clusters')), h('li', {}, link('#/events', 'Event log'))];
  side.append(h('ul', {}, items), h('div', { class: 'section' }, 'Clusters'));
  const list = h('ul');
  if (!clusters.length) list.append(h('li', { class: 'empty side-empty' }, 'none yet'));
  for (const c of clusters) {
    const href = clusterHash(c);
    const kind = c.status === 'RUNNING' ? (c.operations.length ? 'busy' : 'ok') : c.status === 'ERROR' ? 'bad' : 'busy';
    const isThis = r.params.cluster === c.name && r.params.project === c.project && r.params.location === c.location;
    list.append(h('li', {}, h('a', { href, class: isThis ? 'open' : null }, h('span', { class: `dot dot-${kind}`, title: c.status }), c.name)));
    if (isThis) {
      list.append(h('li', { class: 'sub' }, h('ul', {}, TABS.map(([t, label]) => {
        const tabHref = t ? `${href}/${t}` : href;
        const active = r.key === (t || 'cluster');
        return h('li', {}, h('a', { href: tabHref, 'aria-current': active ? 'page' : null }, label));
      }))));
    }
  }
  side.append(list);
}

const refreshSide = throttle(async () => {
  try {
    clusters = (await get('/emulator/v1/clusters')).clusters;
    renderSide();
  } catch {
    // the views show errors; the side list keeps what it had
  }
}, 2000);

let toastTimer = null;
function toast(msg) {
  const t = document.getElementById('toast');
  t.textContent = msg;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 6000);
}

const liveEl = document.getElementById('live');
live.onStatus((s) => {
  liveEl.textContent = { live: 'live', connecting: 'connecting', offline: 'reconnecting' }[s];
  liveEl.className = `live live-${s === 'live' ? 'on' : s === 'offline' ? 'off' : 'wait'}`;
});
live.subscribe((evs) => {
  if (current) current.events(evs);
  if (!evs.length || evs.some((e) => /^Cluster|^Operation|^Upgrade/.test(e.type))) refreshSide();
});
document.getElementById('skip').addEventListener('click', () => main.focus());
window.addEventListener('hashchange', navigate);
mountClock(document.getElementById('clock'), toast);
navigate();
refreshSide();
live.start();
