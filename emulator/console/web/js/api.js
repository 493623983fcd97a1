// The console's only way to the emulator: same-origin fetches of its API. When the emulator
// was started with an auth token, the API answers 401; the console then asks for the token
// (once per browser tab, kept in sessionStorage) and sends it as a bearer token on every
// request, the event stream included (which is why the stream is read with fetch, not
// EventSource: EventSource cannot send headers).

const TOKEN_KEY = 'gkesim.token';

/** ApiError is an answer other than 2xx, with the emulator's message. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function headers(extra) {
  const hd = { Accept: 'application/json', ...extra };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) hd.Authorization = `Bearer ${token}`;
  return hd;
}

/** url builds a same-origin path with query parameters (empty ones left out). */
export function url(path, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const qs = q.toString();
  return qs ? `${path}?${qs}` : path;
}

let asking = null;

// askToken shows the token form and resolves once a token is stored; it rejects when the
// user cancels. Concurrent 401s share one form.
function askToken(refused) {
  if (asking) return asking;
  const dlg = document.getElementById('token-dialog');
  const form = dlg.querySelector('form');
  const input = dlg.querySelector('input');
  const note = dlg.querySelector('.token-note');
  note.textContent = refused
    ? 'The emulator refused the token this tab sent. Enter the token it was started with.'
    : 'This emulator was started with an auth token (--auth-token or GKESIM_AUTH_TOKEN). Enter it to continue; it is kept for this tab only.';
  asking = new Promise((resolve, reject) => {
    const done = (ok) => {
      form.removeEventListener('submit', onSubmit);
      dlg.removeEventListener('cancel', onCancel);
      dlg.querySelector('.token-cancel').removeEventListener('click', onCancel);
      dlg.close();
      asking = null;
      if (ok) resolve(); else reject(new ApiError(401, 'No token given: the emulator requires one. Reload the page to enter it.'));
    };
    const onSubmit = (e) => {
      e.preventDefault();
      const v = input.value.trim();
      if (!v) { input.focus(); return; }
      sessionStorage.setItem(TOKEN_KEY, v);
      input.value = '';
      done(true);
    };
    const onCancel = (e) => { e.preventDefault(); done(false); };
    form.addEventListener('submit', onSubmit);
    dlg.addEventListener('cancel', onCancel);
    dlg.querySelector('.token-cancel').addEventListener('click', onCancel);
    dlg.showModal();
    input.focus();
  });
  return asking;
}

// authorized runs a fetch, asking for the token and trying again while the API says 401.
async function authorized(doFetch) {
  for (let attempt = 0; ; attempt++) {
    const res = await doFetch();
    if (res.status !== 401 || attempt >= 5) return res;
    const refused = sessionStorage.getItem(TOKEN_KEY) !== null;
    if (refused) sessionStorage.removeItem(TOKEN_KEY);
    await askToken(refused);
  }
}

async function failure(res) {
  let msg = `${res.status} ${res.statusText}`;
  try {
    const body = await res.json();
    msg = (body.error && body.error.message) || body.message || msg;
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(res.status, msg);
}

const init = (extra) => ({ mode: 'same-origin', credentials: 'same-origin', cache: 'no-store', ...extra });

/** get reads JSON from the API. */
export async function get(path, params, signal) {
  const res = await authorized(() => fetch(url(path, params), init({ headers: headers(), signal })));
  if (!res.ok) throw await failure(res);
  return res.json();
}

/** send sends JSON with a method other than GET and reads the JSON answer. */
export async function send(method, path, body) {
  const res = await authorized(() => fetch(path, init({
    method, headers: headers({ 'Content-Type': 'application/json' }), body: JSON.stringify(body || {}),
  })));
  if (!res.ok) throw await failure(res);
  return res.json();
}

/**
 * stream reads a JSON-lines answer (the event log with follow=true) and hands each batch of
 * parsed lines to onLines, until the server ends it or signal aborts.
 */
export async function stream(path, params, onLines, signal) {
  const res = await authorized(() => fetch(url(path, params), init({ headers: headers({ Accept: 'application/x-ndjson' }), signal })));
  if (!res.ok) throw await failure(res);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    const cut = buf.lastIndexOf('\n');
    if (cut < 0) continue;
    const lines = buf.slice(0, cut).split('\n');
    buf = buf.slice(cut + 1);
    const out = [];
    for (const line of lines) if (line) out.push(JSON.parse(line));
    if (out.length) onLines(out);
  }
}

/** isAbort says whether an error is a fetch cancelled on purpose. */
export function isAbort(e) {
  return e && (e.name === 'AbortError' || e.name === 'TimeoutError');
}
