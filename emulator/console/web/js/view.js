// What every view shares: its cluster, the refresh loop that follows the event hub, errors.

import { h, clear, throttle } from './dom.js';
import { isAbort } from './api.js';
import { hideTooltip } from './draw.js';

/** clusterOf names the route's cluster: {project, location, name, key, api, k8s}. */
export function clusterOf(p) {
  const c = { project: p.project, location: p.location, name: p.cluster };
  c.key = `projects/${c.project}/locations/${c.location}/clusters/${c.name}`;
  c.api = `/emulator/v1/${c.key}`;
  c.k8s = `/k8s/${c.key}`;
  return c;
}

/**
 * liveView renders load()'s answer with render(data) into root now and again whenever the
 * event hub brings events relevant(ev) says matter, at most every `gap` ms, never two loads
 * at once. Focus stays on the element that had it (by data-fkey or href) across renders.
 */
export function liveView(root, { load, render, relevant, gap = 700 }) {
  let dead = false, loading = false, again = false;
  let ctrl = null;
  const errBox = h('div', { class: 'error', role: 'alert', hidden: true });
  const body = h('div');
  root.append(errBox, body);
  const run = async () => {
    if (dead) return;
    if (loading) { again = true; return; }
    loading = true;
    ctrl = new AbortController();
    try {
      const data = await load(ctrl.signal);
      if (dead) return;
      const active = document.activeElement;
      const key = active && root.contains(active) ? (active.dataset.fkey || active.getAttribute('href')) : null;
      const scrolls = [...body.querySelectorAll('[data-keep-scroll]')].map((el) => [el.dataset.keepScroll, el.scrollTop, el.scrollLeft]);
      clear(body);
      render(body, data);
      for (const [k, top, left] of scrolls) {
        const el = body.querySelector(`[data-keep-scroll="${k}"]`);
        if (el) { el.scrollTop = top; el.scrollLeft = left; }
      }
      if (key) {
        const el = [...body.querySelectorAll('[data-fkey],[href]')].find((x) => (x.dataset.fkey || x.getAttribute('href')) === key);
        if (el) el.focus({ preventScroll: true });
      }
      errBox.hidden = true;
      root.dataset.loaded = 'true';
    } catch (e) {
      if (!isAbort(e) && !dead) {
        errBox.textContent = e.message;
        errBox.hidden = false;
      }
    } finally {
      loading = false;
      if (again && !dead) { again = false; refresh(); }
    }
  };
  const refresh = throttle(run, gap);
  const onResize = throttle(run, 250);
  window.addEventListener('resize', onResize);
  run();
  return {
    events(evs) {
      if (!evs.length || !relevant || evs.some(relevant)) refresh();
    },
    destroy() {
      dead = true;
      refresh.cancel();
      onResize.cancel();
      window.removeEventListener('resize', onResize);
      if (ctrl) ctrl.abort();
      hideTooltip();
    },
  };
}

/** heading is a view's title with breadcrumbs. */
export function heading(crumbs, title, sub) {
  return [
    h('div', { class: 'crumbs' }, crumbs.flatMap(([text, href], i) => [i ? ' / ' : '', href ? h('a', { href }, text) : text])),
    h('h1', {}, title),
    sub ? h('div', { class: 'sub-head' }, sub) : null,
  ].filter(Boolean);
}

/** width is the drawing width available in an element (its content box). */
export function widthOf(el, fallback = 900) {
  const w = el.clientWidth;
  return w > 0 ? w : fallback;
}
