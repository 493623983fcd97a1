// The detail panel on the right: a node or a pod, read from the cluster's Kubernetes API when
// a decision, a timeline row or a pending pod is clicked. Escape or the close button hides it.

import { get } from './api.js';
import { h, clear, fmtTime, table, empty } from './dom.js';

const panel = () => document.getElementById('detail');
let opener = null;

/** closeDetail hides the panel and gives focus back to what opened it. */
export function closeDetail() {
  const p = panel();
  if (p.hidden) return;
  p.hidden = true;
  clear(p);
  if (opener && opener.isConnected) opener.focus();
  opener = null;
}

document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape') closeDetail();
});

function open(title) {
  const p = panel();
  opener = document.activeElement;
  clear(p);
  const body = h('div', {}, h('p', { class: 'note' }, 'Loading…'));
  p.append(h('button', { type: 'button', class: 'btn btn-quiet close', 'aria-label': 'Close details', onclick: closeDetail }, '✕'),
    h('h2', {}, title), body);
  p.hidden = false;
  p.focus();
  return body;
}

const kv = (pairs) => h('dl', { class: 'kv' }, pairs.filter(([, v]) => v !== undefined && v !== null && v !== '').flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));

/** showNode shows a node: where it runs, its state, what its pods request, its events. */
export async function showNode(cluster, name) {
  const body = open(`Node ${name}`);
  const [node, evs] = await Promise.allSettled([
    get(`${cluster.k8s}/api/v1/nodes/${encodeURIComponent(name)}`),
    get('/emulator/v1/events', { cluster: cluster.key, node: name }),
  ]);
  clear(body);
  if (node.status === 'fulfilled') {
    const n = node.value, l = n.metadata.labels || {}, a = n.metadata.annotations || {};
    const ready = (n.status.conditions || []).find((c) => c.type === 'Ready');
    body.append(kv([
      ['Node pool', l['cloud.google.com/gke-nodepool']], ['Zone', l['topology.kubernetes.io/zone']],
      ['Machine type', l['node.kubernetes.io/instance-type']], ['Version', n.status.nodeInfo && n.status.nodeInfo.kubeletVersion],
      ['Ready', ready ? `${ready.status} (${ready.reason || ''})` : 'unknown'], ['Schedulable', n.spec.unschedulable ? 'no (cordoned)' : 'yes'],
      ['Internal IP', ((n.status.addresses || []).find((x) => x.type === 'InternalIP') || {}).address],
      ['Requested CPU', a['gkesim.io/requested-cpu']], ['Requested memory', a['gkesim.io/requested-memory']], ['Pods', a['gkesim.io/pods']],
      ['Created', fmtTime(n.metadata.creationTimestamp)],
    ]));
  } else {
    body.append(h('p', { class: 'note' }, `The node is gone from the cluster (${node.reason.message}); its events remain.`));
  }
  body.append(h('h3', {}, 'Events'));
  const list = evs.status === 'fulfilled' ? evs.value.events.slice(-60) : [];
  body.append(list.length ? table(['Time', 'Type', 'Message'], list.map((e) => h('tr', {},
    h('td', { class: 'mono' }, fmtTime(e.time)), h('td', {}, e.type), h('td', {}, e.message))), { class: 'grid compact' }) : empty('No events.'));
}

/** showPod shows a pod: phase, node, why it is pending, what it requests. */
export async function showPod(cluster, key) {
  const [ns, name] = key.split('/');
  const body = open(`Pod ${key}`);
  try {
    const p = await get(`${cluster.k8s}/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(name)}`);
    clear(body);
    const sched = (p.status.conditions || []).find((c) => c.type === 'PodScheduled');
    const req = (p.spec.containers || []).map((c) => {
      const r = (c.resources && c.resources.requests) || {};
      return `${c.name}: cpu ${r.cpu || '0'}, memory ${r.memory || '0'}`;
    }).join('; ');
    const owner = (p.metadata.ownerReferences || [])[0];
    body.append(kv([
      ['Phase', p.status.phase], ['Node', p.spec.nodeName || '(none)'],
      ['Scheduled', sched ? `${sched.status}${sched.message ? ` — ${sched.message}` : ''}` : ''],
      ['Requests', req], ['Owner', owner ? `${owner.kind} ${owner.name}` : 'none (bare pod)'],
      ['Priority', p.spec.priority], ['Created', fmtTime(p.metadata.creationTimestamp)],
    ]));
    if (p.spec.nodeName) {
      body.append(h('p', {}, h('button', { type: 'button', class: 'linkish', onclick: () => showNode(cluster, p.spec.nodeName) }, `Show node ${p.spec.nodeName}`)));
    }
  } catch (e) {
    clear(body);
    body.append(h('p', { class: 'note' }, `The pod is gone (${e.message}).`));
  }
}
