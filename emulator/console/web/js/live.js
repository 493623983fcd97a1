// The live event hub: one stream of the emulator's event log (follow=true, JSON lines) for
// the whole console. Views subscribe and refresh their aggregate views when the events concern
// them; nothing polls per node. Events are handed out in batches, at most every 200 ms.

import { get, stream, isAbort } from './api.js';

const subscribers = new Set();
const statusListeners = new Set();
let lastSeq = null;
let latestTime = null;
let batch = [];
let flushTimer = null;
let status = 'connecting';

/** subscribe calls fn with each batch of new events; it returns the unsubscribe function. */
export function subscribe(fn) {
  subscribers.add(fn);
  return () => subscribers.delete(fn);
}

/** onStatus calls fn with 'connecting', 'live' or 'offline' whenever that changes. */
export function onStatus(fn) {
  statusListeners.add(fn);
  fn(status);
}

/** latestEventTime is the emulated time of the newest event seen. */
export function latestEventTime() {
  return latestTime;
}

/** poke tells every subscriber that the world moved (a clock change made here). */
export function poke() {
  for (const fn of subscribers) fn([]);
}

function setStatus(s) {
  if (s === status) return;
  status = s;
  for (const fn of statusListeners) fn(s);
}

function queue(evs) {
  lastSeq = evs[evs.length - 1].seq;
  latestTime = evs[evs.length - 1].time;
  batch.push(...evs);
  if (!flushTimer) flushTimer = setTimeout(flush, 200);
}

function flush() {
  flushTimer = null;
  const evs = batch;
  batch = [];
  for (const fn of subscribers) fn(evs);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** start follows the event log from its current end, reconnecting when the stream breaks. */
export async function start() {
  let backoff = 500;
  for (;;) {
    try {
      if (lastSeq === null) {
        // Start at the end of the log: afterSeq beyond it returns nothing but nextSeq.
        const r = await get('/emulator/v1/events', { afterSeq: '9223372036854775807' });
        lastSeq = r.nextSeq;
      }
      setStatus('live');
      backoff = 500;
      await stream('/emulator/v1/events', { follow: 'true', afterSeq: lastSeq }, queue);
    } catch (e) {
      if (isAbort(e)) return;
      if (e && e.status === 401) {
        setStatus('offline');
        return; // the user declined to give a token
      }
    }
    setStatus('offline');
    await sleep(backoff);
    backoff = Math.min(backoff * 2, 10000);
  }
}
