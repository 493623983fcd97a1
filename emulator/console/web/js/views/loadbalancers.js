// Load balancers: each LoadBalancer Service, the kind of load balancer GKE built and why
// (R-LB-2), its address, health check and backends, and each backend's health over time.

import { get } from '../api.js';
import { h, add, table, badge, empty, clusterHash, fmtTime, fmtDur, parseTime, isoSeconds } from '../dom.js';
import { liveView, heading, clusterOf, widthOf } from '../view.js';
import { setup, timeAxis, tooltip, COLOURS } from '../draw.js';
import { showNode } from '../detail.js';

const HEALTH = { HEALTHY: COLOURS.green, UNHEALTHY: COLOURS.red, UNKNOWN: '#dadce0' };
const RANGES = [['15m', 900], ['1h', 3600], ['6h', 21600], ['24h', 86400]];

function healthChart(canvas, backends, since, now, width) {
  const rh = backends.length > 40 ? 6 : 14, label = 200, top = 4;
  const height = top + backends.length * rh + 24;
  const ctx = setup(canvas, width, height);
  const total = Math.max((now - since) / 1000, 1);
  const xOf = timeAxis(ctx, label, width - 8, height - 20, 0, total, since, false, top);
  const hits = [];
  if (rh < 14) {
    ctx.fillStyle = COLOURS.muted;
    ctx.fillText(`${backends.length} backends, one per row`, 0, top + 8);
    ctx.fillText('(hover for the node)', 0, top + 24);
  }
  backends.forEach((b, i) => {
    const y = top + i * rh;
    if (rh >= 14) {
      ctx.fillStyle = b.member ? COLOURS.ink : COLOURS.muted;
      ctx.fillText(b.node.length > 30 ? `…${b.node.slice(-29)}` : b.node, 0, y + rh / 2);
    }
    for (const s of b.spans) {
      const a = xOf(s.from), w = Math.max(xOf(s.to) - a, 1);
      ctx.fillStyle = HEALTH[s.state] || '#dadce0';
      ctx.fillRect(a, y + 1, w, rh - 2);
      hits.push({ x: a, y, w, h: rh, node: b.node, text: `${b.node}: ${s.state.toLowerCase()} ${fmtTime(since + s.from * 1000)} → ${fmtTime(since + s.to * 1000)} (${fmtDur(s.to - s.from)})${b.member ? '' : ' — no longer a backend'}` });
    }
  });
  return hits;
}

export function mount(root, params) {
  const c = clusterOf(params);
  let range = 3600;
  root.append(...heading([['Clusters', '#/clusters'], [c.name, clusterHash(c)], ['load balancers']], `Load balancers of ${c.name}`,
    'What GKE built for each LoadBalancer Service and why, and how its backends answered their health checks over time.'));
  const rangeSel = h('select', { 'aria-label': 'Time range' }, RANGES.map(([l, s]) => h('option', { value: String(s), selected: s === range }, `last ${l}`)));
  root.append(h('div', { class: 'filters' }, h('label', {}, 'Health over', rangeSel)));
  const view = liveView(root, {
    async load(signal) {
      const { now } = await get('/emulator/v1/clock', null, signal);
      const since = isoSeconds(Date.parse(now) - range * 1000);
      const [list, hist] = await Promise.all([get(`${c.api}/loadBalancers`, null, signal), get(`${c.api}/loadBalancerHistory`, { since }, signal)]);
      return { list: list.loadBalancers, hist };
    },
    relevant: (e) => e.cluster === c.key && /LoadBalancer|^Service|^Node(Ready|Deleted|Cordoned|Draining)|^Pod|^Scheduled/.test(e.type),
    gap: 1000,
    render(body, { list, hist }) {
      if (!list.length) {
        body.append(h('div', { class: 'card' }, empty('No LoadBalancer Service in this cluster.'),
          h('p', { class: 'note' }, 'Create one with kubectl (type: LoadBalancer) or gkesim_load_balancer_service; examples/scenarios/load-balancers puts the four kinds side by side.')));
        return;
      }
      const since = parseTime(hist.since), now = parseTime(hist.now);
      const byService = new Map(hist.loadBalancers.map((l) => [l.service, l]));
      const width = widthOf(body) - 34;
      for (const lb of list) {
        const tl = byService.get(lb.service) || { backends: [], events: [] };
        const hc = lb.healthCheck;
        const canvas = h('canvas', { role: 'img', 'aria-label': `Health of ${lb.backendCount} backends of ${lb.service}: ${lb.healthyBackends} healthy now` });
        const card = h('section', { class: 'card', dataset: { service: lb.service, kind: lb.kind }, 'aria-labelledby': `lb-${lb.service}` },
          h('div', { class: 'card-head' }, h('h2', { id: `lb-${lb.service}` }, lb.service), badge(lb.kind, 'phase'), badge(lb.state),
            h('span', { class: 'meta' }, `${lb.scheme} · ${lb.ip || 'no address yet'} · externalTrafficPolicy ${lb.externalTrafficPolicy}`),
            h('span', { class: 'actions' }, h('b', { dataset: { healthy: String(lb.healthyBackends), backends: String(lb.backendCount) } }, `${lb.healthyBackends}/${lb.backendCount} healthy`))),
          h('p', { class: 'note' }, lb.why),
          lb.blocked ? h('div', { class: 'error' }, `${lb.blocked.reason} (attempt ${lb.blocked.attempts}, next ${fmtTime(lb.blocked.nextRetry)})`) : null,
          (lb.warnings || []).map((w) => h('div', { class: 'pending' }, w)),
          hc ? h('p', { class: 'note' }, `Health check ${hc.name}: port ${hc.port}${hc.requestPath ? ` ${hc.requestPath}` : ''}, every ${hc.checkIntervalSec}s, unhealthy after ${hc.unhealthyThreshold}, healthy after ${hc.healthyThreshold}${hc.shared ? ' (shared)' : ''}`) : null,
          h('div', { class: 'legend' }, Object.entries(HEALTH).map(([k, col]) => {
            const sw = h('canvas', { 'aria-hidden': 'true' }); const x = setup(sw, 18, 10); x.fillStyle = col; x.fillRect(0, 0, 18, 10);
            return h('span', { class: 'legend-item' }, sw, k.toLowerCase());
          })),
          canvas);
        body.append(card);
        const hits = healthChart(canvas, tl.backends, since, now, width);
        tooltip(canvas, () => hits);
        canvas.addEventListener('click', (e) => {
          const r = canvas.getBoundingClientRect();
          const hit = hits.find((k) => e.clientX - r.left >= k.x && e.clientX - r.left < k.x + k.w && e.clientY - r.top >= k.y && e.clientY - r.top < k.y + k.h);
          if (hit) showNode(c, hit.node);
        });
        const evs = tl.events.slice(-8).reverse();
        add(card, h('h3', {}, 'Backends now'), table(['Node', 'Zone', 'Health', 'Since', 'Serving pods'], lb.backends.slice(0, 50).map((b) => h('tr', {},
          h('td', {}, h('button', { type: 'button', class: 'linkish mono', dataset: { fkey: `lb:${lb.service}:${b.node}` }, onclick: () => showNode(c, b.node) }, b.node)),
          h('td', {}, b.zone), h('td', {}, badge(b.health)), h('td', { class: 'mono' }, fmtTime(b.since)), h('td', { class: 'num' }, String(b.servingPods)))),
        { class: 'grid compact' }), lb.backends.length > 50 ? h('p', { class: 'note' }, `${lb.backends.length - 50} more backends.`) : null);
        if (evs.length) {
          card.append(h('h3', {}, 'Latest events'), table(['Time', 'Event', 'Message'], evs.map((e) => h('tr', {},
            h('td', { class: 'mono' }, fmtTime(since + e.at * 1000)), h('td', {}, e.kind), h('td', {}, e.message))), { class: 'grid compact' }));
        }
      }
    },
  });
  rangeSel.addEventListener('change', () => { range = Number(rangeSel.value); view.events([]); });
  return view;
}
