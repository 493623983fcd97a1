// DOM building and formatting helpers shared by every view.

/**
 * h builds an element: h('a', {href: '#/x', class: 'link'}, 'text', child, ...).
 * Attributes starting with "on" are listeners; `dataset` sets data-*; null children are skipped.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'class') el.className = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

/** add appends children to el as h does: nulls skipped, arrays flattened, text for strings. */
export function add(el, ...children) {
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** clear empties an element. */
export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
}

/** isoSeconds writes a time (ms) as RFC 3339 in UTC, whole seconds. */
export function isoSeconds(ms) {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
}

/** parseTime reads an RFC 3339 time; null for empty. */
export function parseTime(s) {
  if (!s) return null;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : t;
}

const pad = (n) => String(n).padStart(2, '0');

/** fmtTime shows an emulated time in UTC: 2026-11-02 10:08:38. */
export function fmtTime(t) {
  if (t === null || t === undefined || t === '') return '—';
  const d = new Date(typeof t === 'string' ? Date.parse(t) : t);
  if (Number.isNaN(d.getTime())) return String(t);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** fmtShortTime shows day and minute: 11-02 10:08. */
export function fmtShortTime(t) {
  const d = new Date(typeof t === 'string' ? Date.parse(t) : t);
  return `${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/** fmtDur shows seconds as 2d 3h, 1h 20m, 4m 10s, 12s. */
export function fmtDur(sec) {
  if (sec === null || sec === undefined || !Number.isFinite(sec)) return '—';
  const neg = sec < 0;
  let s = Math.round(Math.abs(sec));
  const d = Math.floor(s / 86400); s -= d * 86400;
  const hh = Math.floor(s / 3600); s -= hh * 3600;
  const m = Math.floor(s / 60); s -= m * 60;
  let out;
  if (d) out = hh ? `${d}d ${hh}h` : `${d}d`;
  else if (hh) out = m ? `${hh}h ${m}m` : `${hh}h`;
  else if (m) out = s ? `${m}m ${s}s` : `${m}m`;
  else out = `${s}s`;
  return neg ? `-${out}` : out;
}

/** parseDuration reads 90s, 10m, 1h30m, 2d, 1.5h (or plain seconds); null when invalid. */
export function parseDuration(s) {
  const str = String(s).trim();
  if (/^\d+(\.\d+)?$/.test(str)) return Number(str);
  const re = /(\d+(?:\.\d+)?)(d|h|m|s)/g;
  let total = 0, used = '', m;
  while ((m = re.exec(str)) !== null) {
    total += Number(m[1]) * { d: 86400, h: 3600, m: 60, s: 1 }[m[2]];
    used += m[0];
  }
  return used.length === str.length && used.length > 0 ? total : null;
}

/** shortCluster turns projects/P/locations/L/clusters/C into C (L). */
export function shortCluster(key) {
  const m = /^projects\/([^/]+)\/locations\/([^/]+)\/clusters\/([^/]+)$/.exec(key || '');
  return m ? `${m[3]} (${m[2]})` : key || '';
}

/** shortOp shortens an operation id (operation-1793579040000-73002239) to its tail. */
export function shortOp(id) {
  const m = /-(\d+)$/.exec(id || '');
  return m ? `…${m[1]}` : id;
}

/** clusterHash is the console route of a cluster. */
export function clusterHash(c, ...rest) {
  return ['#/c', c.project, c.location, c.name, ...rest].map((s, i) => (i ? encodeURIComponent(s) : s)).join('/');
}

/** apiDown marks a cluster whose Kubernetes API refuses requests (a zonal control plane being upgraded, R-MW-6): a pill, the reason on hover. */
export function apiDown(c) {
  return c.kubeApiUnavailable ? h('span', { class: 'api-down', title: c.kubeApiUnavailable }, badge('Kubernetes API unavailable', 'bad')) : null;
}

/** badge shows a status word in a coloured pill. */
export function badge(text, kind) {
  return h('span', { class: `badge badge-${kind || statusKind(text)}` }, text);
}

function statusKind(s) {
  switch (s) {
    case 'RUNNING': case 'DONE': case 'HEALTHY': case 'ready': return 'ok';
    case 'PROVISIONING': case 'RECONCILING': case 'PENDING': return 'busy';
    case 'ERROR': case 'UNHEALTHY': case 'failed': return 'bad';
    case 'STOPPING': case 'ABORTING': return 'warn';
    default: return 'neutral';
  }
}

/** table builds a table from a header list and rows of cells. */
export function table(headers, rows, attrs) {
  return h('table', attrs || { class: 'grid' },
    h('thead', {}, h('tr', {}, headers.map((x) => h('th', { scope: 'col' }, x)))),
    h('tbody', {}, rows));
}

/** empty is a placeholder for a list with nothing in it. */
export function empty(text) {
  return h('p', { class: 'empty' }, text);
}

/** throttle runs fn at most every ms, the last call winning (trailing). */
export function throttle(fn, ms) {
  let timer = null, last = -Infinity, pending = false;
  const run = () => {
    timer = null; pending = false; last = performance.now();
    fn();
  };
  const call = () => {
    pending = true;
    if (timer) return;
    timer = setTimeout(run, Math.max(0, last + ms - performance.now()));
  };
  call.cancel = () => { if (timer) clearTimeout(timer); timer = null; pending = false; };
  call.pending = () => pending;
  return call;
}
