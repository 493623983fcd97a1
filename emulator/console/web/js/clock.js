// The emulated clock in the header: now (emulated, UTC), the time scale, pause and resume,
// and advancing by a duration, through the emulator's clock API (GET/PATCH
// /emulator/v1/clock, POST /emulator/v1/clock:advance). Between reads the display runs at the
// time scale; it reads the clock again every few seconds and after every change.

import { get, send } from './api.js';
import { h, fmtTime, parseDuration, fmtDur } from './dom.js';
import { poke } from './live.js';

const RESUME_KEY = 'gkesim.resumeScale';
const SCALES = [1, 10, 60, 100, 600, 1000, 3600, 10000];
const QUICK = [['+1m', 60], ['+10m', 600], ['+1h', 3600], ['+1d', 86400]];

let state = null; // {now: ms, scale, at: performance.now()}
const listeners = new Set();

/** nowMs is the emulated time now, as the display shows it. */
export function nowMs() {
  if (!state) return Date.now();
  return state.now + (performance.now() - state.at) * state.scale;
}

/** onChange calls fn after the clock was read. */
export function onChange(fn) {
  listeners.add(fn);
}

function take(c) {
  state = { now: Date.parse(c.now), scale: c.timeScale, at: performance.now() };
  if (c.timeScale > 0) sessionStorage.setItem(RESUME_KEY, String(c.timeScale));
  for (const fn of listeners) fn(state);
}

/** mountClock builds the clock controls into el and keeps them current. */
export function mountClock(el, onError) {
  const nowEl = h('output', { class: 'clock-now', 'aria-live': 'off', title: 'Emulated time (UTC)' }, '…');
  const scaleSel = h('select', { 'aria-label': 'Time scale (emulated seconds per wall second)' },
    h('option', { value: '0' }, 'paused'), SCALES.map((s) => h('option', { value: String(s) }, `${s}×`)));
  const pauseBtn = h('button', { type: 'button', class: 'btn' }, 'Pause');
  const advInput = h('input', { type: 'text', size: 6, value: '1h', 'aria-label': 'Duration to advance the clock by (e.g. 90s, 10m, 1h30m, 2d)', spellcheck: 'false' });
  const advBtn = h('button', { type: 'submit', class: 'btn' }, 'Advance');
  const quick = QUICK.map(([label, sec]) => h('button', { type: 'button', class: 'btn btn-quiet', title: `Advance the clock by ${fmtDur(sec)}`, onclick: () => advance(sec) }, label));
  const form = h('form', { class: 'clock-advance', onsubmit: (e) => {
    e.preventDefault();
    const sec = parseDuration(advInput.value);
    if (sec === null || sec <= 0) {
      onError(`"${advInput.value}" is not a duration: write it as 90s, 10m, 1h30m or 2d.`);
      advInput.focus();
      return;
    }
    advance(sec);
  } }, advInput, advBtn);
  el.append(h('span', { class: 'clock-label' }, 'Emulated'), nowEl, scaleSel, pauseBtn, form, ...quick);

  const busy = (on) => {
    for (const b of [advBtn, pauseBtn, scaleSel, advInput, ...quick]) b.disabled = on;
    el.classList.toggle('busy', on);
  };
  const run = async (fn) => {
    busy(true);
    try {
      take(await fn());
      poke();
    } catch (e) {
      onError(e.message);
    } finally {
      busy(false);
    }
  };
  async function advance(sec) {
    await run(() => send('POST', '/emulator/v1/clock:advance', { duration: `${Math.round(sec)}s` }));
  }
  const setScale = (s) => run(() => send('PATCH', '/emulator/v1/clock', { timeScale: s }));
  scaleSel.addEventListener('change', () => setScale(Number(scaleSel.value)));
  pauseBtn.addEventListener('click', () => {
    if (state && state.scale > 0) setScale(0);
    else setScale(Number(sessionStorage.getItem(RESUME_KEY) || 1000));
  });

  onChange((s) => {
    const paused = s.scale === 0;
    pauseBtn.textContent = paused ? 'Resume' : 'Pause';
    pauseBtn.setAttribute('aria-pressed', String(paused));
    const v = String(s.scale);
    if (![...scaleSel.options].some((o) => o.value === v)) scaleSel.append(h('option', { value: v }, `${s.scale}×`));
    scaleSel.value = v;
    el.classList.toggle('paused', paused);
  });
  const tick = () => {
    if (state) nowEl.textContent = fmtTime(nowMs());
  };
  setInterval(tick, 250);
  const read = async () => {
    try {
      take(await get('/emulator/v1/clock'));
      tick();
    } catch (e) {
      if (e.status !== 401) onError(`Reading the clock: ${e.message}`);
    }
  };
  read();
  setInterval(read, 5000);
}
