// Canvas drawing shared by the views: colours, node cells, time axes and the tooltip. Nodes are
// drawn on canvas from counts, never as one DOM element per node, so a 15,000-node cluster is
// a few thousand rectangles in one frame.

import { fmtShortTime, fmtDur } from './dom.js';

// Version colours, newest first: the newest version is green, the one before it blue (a
// blue-green upgrade is blue nodes giving way to green ones), older ones further down the list.
const VERSION_COLOURS = ['#1e8e3e', '#1a73e8', '#9334e6', '#e8710a', '#12b5cb', '#b06000', '#5f6368'];

/** versionColours maps each version (oldest first in the list) to its colour. */
export function versionColours(versions) {
  const out = new Map();
  const n = versions.length;
  versions.forEach((v, i) => out.set(v, VERSION_COLOURS[Math.min(n - 1 - i, VERSION_COLOURS.length - 1)]));
  return out;
}

export const COLOURS = {
  ink: '#202124', muted: '#5f6368', grid: '#e3e6ea', amber: '#f9ab00', red: '#d93025', grey: '#9aa0a6',
  green: '#1e8e3e', greenLight: '#a8dab5', blue: '#1a73e8', purple: '#9334e6', orange: '#e8710a', paper: '#ffffff',
};

/** STATE_LABELS explains how each node state is drawn, for legends. */
export const STATE_LABELS = {
  creating: 'creating (outline)', ready: 'ready (solid)', cordoned: 'cordoned (dark, dot)',
  draining: 'draining (amber half)', deleting: 'deleting (grey)', failed: 'failed (red)',
};

/** setup sizes a canvas for the device pixel ratio and returns its 2D context in CSS pixels. */
export function setup(canvas, w, h) {
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.max(1, Math.round(w * dpr));
  canvas.height = Math.max(1, Math.round(h * dpr));
  canvas.style.width = `${w}px`;
  canvas.style.height = `${h}px`;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  ctx.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  ctx.textBaseline = 'middle';
  return ctx;
}

function shade(hex, f) {
  const n = parseInt(hex.slice(1), 16);
  const mix = (c) => Math.round(f < 0 ? c * (1 + f) : c + (255 - c) * f);
  const r = mix(n >> 16), g = mix((n >> 8) & 255), b = mix(n & 255);
  return `rgb(${r},${g},${b})`;
}

/** cell draws one node of colour c in state st, s pixels wide, at x, y. */
export function cell(ctx, x, y, s, c, st) {
  switch (st) {
    case 'creating':
      ctx.fillStyle = shade(c, 0.75);
      ctx.fillRect(x, y, s, s);
      if (s >= 5) { ctx.strokeStyle = c; ctx.lineWidth = 1; ctx.strokeRect(x + 0.5, y + 0.5, s - 1, s - 1); }
      break;
    case 'cordoned':
      ctx.fillStyle = shade(c, -0.35);
      ctx.fillRect(x, y, s, s);
      if (s >= 6) { ctx.fillStyle = '#fff'; ctx.fillRect(x + s / 2 - 1, y + s / 2 - 1, 2, 2); }
      break;
    case 'draining':
      ctx.fillStyle = shade(c, -0.35);
      ctx.fillRect(x, y, s, s);
      ctx.fillStyle = COLOURS.amber;
      ctx.fillRect(x, y + Math.floor(s / 2), s, Math.ceil(s / 2));
      break;
    case 'deleting':
      ctx.fillStyle = '#dadce0';
      ctx.fillRect(x, y, s, s);
      if (s >= 5) { ctx.strokeStyle = COLOURS.grey; ctx.lineWidth = 1; ctx.strokeRect(x + 0.5, y + 0.5, s - 1, s - 1); }
      break;
    case 'failed':
      ctx.fillStyle = COLOURS.red;
      ctx.fillRect(x, y, s, s);
      break;
    default:
      ctx.fillStyle = c;
      ctx.fillRect(x, y, s, s);
  }
}

/** cellSize picks the size of a node cell for the largest zone of a view. */
export function cellSize(maxNodes) {
  if (maxNodes <= 40) return 16;
  if (maxNodes <= 120) return 11;
  if (maxNodes <= 400) return 7;
  if (maxNodes <= 1200) return 4;
  return 3;
}

/**
 * nodeGrid draws a pool's zones as rows of node cells, counted by version and state, and
 * returns hit regions {x, y, w, h, text} for the tooltip.
 */
export function nodeGrid(canvas, zones, colours, width) {
  const label = 150;
  const maxNodes = Math.max(1, ...zones.map((z) => z.nodes));
  const s = cellSize(maxNodes);
  const gap = s >= 7 ? 2 : 1;
  const perRow = Math.max(1, Math.floor((width - label - 8) / (s + gap)));
  const rowsOf = (n) => Math.max(1, Math.ceil(n / perRow));
  const zoneH = (z) => Math.max(rowsOf(z.nodes) * (s + gap) + 10, 38);
  const height = zones.reduce((a, z) => a + zoneH(z), 0) + 4;
  const ctx = setup(canvas, width, height);
  const hits = [];
  let y = 4;
  for (const z of zones) {
    const hz = zoneH(z);
    ctx.fillStyle = COLOURS.ink;
    ctx.fillText(z.zone, 0, y + 7);
    ctx.fillStyle = COLOURS.muted;
    ctx.fillText(`${z.nodes} node${z.nodes === 1 ? '' : 's'}`, 0, y + 22);
    let i = 0;
    for (const c of z.counts) {
      const col = colours.get(c.version) || COLOURS.grey;
      const first = i;
      for (let k = 0; k < c.count; k++, i++) {
        cell(ctx, label + (i % perRow) * (s + gap), y + Math.floor(i / perRow) * (s + gap), s, col, c.state);
      }
      // One hit region per row the run covers.
      for (let r = Math.floor(first / perRow); r <= Math.floor((i - 1) / perRow) && c.count > 0; r++) {
        const a = Math.max(first, r * perRow) % perRow, b = Math.min(i - 1, (r + 1) * perRow - 1) % perRow;
        hits.push({ x: label + a * (s + gap), y: y + r * (s + gap), w: (b - a + 1) * (s + gap), h: s + gap,
          text: `${z.zone}: ${c.count} node${c.count === 1 ? '' : 's'} ${c.state} on ${c.version}` });
      }
    }
    y += hz;
  }
  return hits;
}

// Nice steps for time axes, in seconds.
const STEPS = [1, 5, 10, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800, 1209600, 2592000];

/** niceStep picks a tick step giving about `ticks` ticks over span seconds. */
export function niceStep(span, ticks) {
  return STEPS.find((s) => span / s <= ticks) || STEPS[STEPS.length - 1];
}

/**
 * timeAxis draws ticks under [x0, x1] for seconds [t0, t1] after base (ms, emulated); labels
 * are times of day, or elapsed time when elapsed is set.
 */
export function timeAxis(ctx, x0, x1, y, t0, t1, base, elapsed, gridTop) {
  const span = Math.max(t1 - t0, 1);
  const step = niceStep(span, Math.max(2, Math.floor((x1 - x0) / 95)));
  const xOf = (t) => x0 + ((t - t0) / span) * (x1 - x0);
  ctx.strokeStyle = COLOURS.grid;
  ctx.fillStyle = COLOURS.muted;
  ctx.lineWidth = 1;
  ctx.textAlign = 'center';
  // Align ticks on the step in emulated wall time (whole hours, days...).
  const baseSec = base / 1000;
  let first = Math.ceil((baseSec + t0) / step) * step - baseSec;
  if (elapsed) first = Math.ceil(t0 / step) * step;
  for (let t = first; t <= t1 + 1e-6; t += step) {
    const x = Math.round(xOf(t)) + 0.5;
    if (gridTop !== undefined) {
      ctx.beginPath(); ctx.moveTo(x, gridTop); ctx.lineTo(x, y); ctx.stroke();
    }
    const label = elapsed ? `+${fmtDur(t)}` : fmtShortTime(base + t * 1000);
    const half = ctx.measureText(label).width / 2;
    if (x - half >= x0 - 30 && x + half <= x1 + 6) ctx.fillText(label, x, y + 9);
  }
  ctx.textAlign = 'left';
  return xOf;
}

let tip = null;

/** tooltip shows text near the pointer over a canvas whose hit regions hits() returns. */
export function tooltip(canvas, hits) {
  if (!tip) {
    tip = document.createElement('div');
    tip.className = 'tooltip';
    tip.setAttribute('role', 'tooltip');
    document.body.append(tip);
  }
  canvas.addEventListener('mousemove', (e) => {
    const r = canvas.getBoundingClientRect();
    const x = e.clientX - r.left, y = e.clientY - r.top;
    const hit = hits().find((k) => x >= k.x && x < k.x + k.w && y >= k.y && y < k.y + k.h);
    if (!hit) { tip.hidden = true; return; }
    tip.textContent = hit.text;
    tip.hidden = false;
    tip.style.left = `${Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 8)}px`;
    tip.style.top = `${e.clientY + 14}px`;
  });
  canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
}

/** hideTooltip hides the tooltip (when a view goes away). */
export function hideTooltip() {
  if (tip) tip.hidden = true;
}

/** legend builds swatches: items are [colour, label] or [colour, label, state]. */
export function legend(items) {
  const wrap = document.createElement('div');
  wrap.className = 'legend';
  for (const [colour, label, state] of items) {
    const c = document.createElement('canvas');
    const ctx = setup(c, 14, 14);
    cell(ctx, 0, 0, 14, colour, state || 'ready');
    const item = document.createElement('span');
    item.className = 'legend-item';
    item.append(c, label);
    wrap.append(item);
  }
  return wrap;
}
