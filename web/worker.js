// tokenguide web app: the Pyodide worker (a dedicated module Web Worker).
//
// Runs Python off the page's thread so the page never freezes. Protocol (page -> worker):
//   {type: 'init', cancelBuffer?: SharedArrayBuffer, prefetch?: [url]}  start Pyodide, load tokenguide (fetch urls meanwhile)
//   {id, type: 'call', name, args}                            call tokenguide._web_bridge.<name>(...args)
//   {id, type: 'vocab', source: {url | file, siblings?}, eos, key}  read a vocabulary (URL or File) and prepare it
//   {id, type: 'run', code, vocabUrl}                         run playground code (output as progress 'output')
//   {type: 'cancel'}                                          stop the running build / guide step / code
// Worker -> page: {type: 'status', text}, {type: 'ready', seconds} or {type: 'fatal', message},
//   {type: 'progress', id, stage, done, total}, {id, type: 'result', ok, result | error}.
//
// Cancel: with cross-origin isolation the page shares a SharedArrayBuffer; the worker makes it
// Pyodide's interrupt buffer (a KeyboardInterrupt anywhere in Python) and the builds also poll it.
// Without it, the 'cancel' message sets a flag that the build polls between its yields.

import { loadPyodide } from './pyodide/pyodide.mjs';

let pyodide = null;
let bridge = null;
let interrupt = null; // Int32Array over the shared buffer: [0] = Pyodide interrupt (2 = SIGINT), [1] = cancel flag
let cancelled = false;
let queue = Promise.resolve(); // calls run one at a time, in order

const post = (msg, transfer) => self.postMessage(msg, transfer || []);

function shouldCancel() {
  return cancelled || (interrupt !== null && Atomics.load(interrupt, 1) === 1);
}

function resetCancel() {
  cancelled = false;
  if (interrupt !== null) {
    Atomics.store(interrupt, 0, 0);
    Atomics.store(interrupt, 1, 0);
  }
}

const prefetched = new Map(); // url -> Promise<text>: the bundled vocabulary is fetched while Pyodide starts

async function init(msg) {
  const t0 = performance.now();
  const marks = {};
  try {
    for (const url of msg.prefetch || []) {
      const p = fetch(new URL(url, self.location.href)).then((r) => (r.ok ? r.text() : null)).catch(() => null);
      prefetched.set(url, p);
    }
    post({ type: 'status', text: 'Loading the Python runtime…', phase: 0 });
    const indexURL = new URL('./pyodide/', import.meta.url).href;
    pyodide = await loadPyodide({ indexURL });
    marks.pyodide = performance.now() - t0;
    if (msg.cancelBuffer) {
      interrupt = new Int32Array(msg.cancelBuffer);
      pyodide.setInterruptBuffer(interrupt);
    }
    post({ type: 'status', text: 'Loading tokenguide…', phase: 1 });
    const errors = [];
    await pyodide.loadPackage(['tokenguide'], {
      messageCallback: () => {},
      errorCallback: (m) => errors.push(String(m)),
    });
    if (errors.length) throw new Error(`could not load the tokenguide package: ${errors.join('; ')}`);
    marks.packages = performance.now() - t0;
    post({ type: 'status', text: 'Importing tokenguide…', phase: 2 });
    bridge = pyodide.pyimport('tokenguide._web_bridge');
    marks.imported = performance.now() - t0;
    post({ type: 'ready', seconds: (performance.now() - t0) / 1000, interruptible: interrupt !== null, marks });
  } catch (err) {
    post({ type: 'fatal', message: String(err && err.message ? err.message : err) });
  }
}

function toJs(proxy) {
  if (proxy === undefined || proxy === null || typeof proxy !== 'object' || typeof proxy.toJs !== 'function') return proxy;
  try {
    return proxy.toJs({ dict_converter: Object.fromEntries, create_pyproxies: false });
  } finally {
    proxy.destroy();
  }
}

// Call a bridge function through web_bridge.call, which turns Python exceptions into
// {kind, message, pos?, pattern?} objects; those are thrown here as errors with .info.
async function callBridge(id, name, args) {
  const progress = (stage, done, total) => post({ type: 'progress', id, stage, done, total });
  // null becomes undefined (Python None; Pyodide maps JS null to a distinct jsnull)
  const fullArgs = args.map((a) => (a === '$progress' ? progress : a === '$cancel' ? shouldCancel : a === null ? undefined : a));
  const reply = toJs(await bridge.call(name, ...fullArgs));
  if (!reply.ok) throw Object.assign(new Error(reply.error.message), { info: reply.error });
  return reply.result;
}

/** Thrown between the steps of a task when the page asked to cancel (before Python even started). */
function cancelledError(what) {
  return Object.assign(new Error(what), { info: { kind: 'BuildCancelled', message: what } });
}

async function readVocab(msg) {
  const { source, eos, key } = msg;
  let text = null;
  const cached = await callBridge(msg.id, 'load_vocabulary', [null, source.name, eos, key]).catch(() => null);
  if (cached) return cached;
  if (source.url && prefetched.has(source.url)) {
    text = await prefetched.get(source.url);
    prefetched.delete(source.url);
  }
  if (text !== null) {
    // prefetched while Pyodide started
  } else if (source.url) {
    post({ type: 'progress', id: msg.id, stage: 'reading vocabulary', done: 0, total: 1 });
    const resp = await fetch(new URL(source.url, self.location.href));
    if (!resp.ok) throw Object.assign(new Error(`${source.name}: HTTP ${resp.status}`), { info: { kind: 'VocabularyError', message: `could not read ${source.name} (HTTP ${resp.status})` } });
    text = await resp.text();
  } else {
    post({ type: 'progress', id: msg.id, stage: 'reading vocabulary', done: 0, total: 1 });
    text = new Uint8Array(await source.file.arrayBuffer()); // bytes: Python names a picture or bad UTF-8 for what it is
  }
  let siblings = null;
  for (const file of source.siblings || []) {
    siblings = siblings || {};
    siblings[file.name] = await file.text();
  }
  if (shouldCancel()) throw cancelledError('reading the vocabulary was cancelled');
  post({ type: 'progress', id: msg.id, stage: 'preparing vocabulary', done: 0, total: 1 });
  return callBridge(msg.id, 'load_vocabulary', [text, source.name, eos, key, siblings]);
}

let gpt2Text = null; // the bundled GPT-2 vocabulary's text, for the playground's gpt2()

/** Run playground code: {type: 'run', code, vocabUrl}; output arrives as progress('output', text). */
async function runCode(msg) {
  if (gpt2Text === null && msg.vocabUrl) {
    const url = msg.vocabUrl;
    gpt2Text = prefetched.has(url) ? await prefetched.get(url) : null;
    if (gpt2Text === null) {
      const resp = await fetch(new URL(url, self.location.href));
      gpt2Text = resp.ok ? await resp.text() : null;
    }
  }
  return callBridge(msg.id, 'run_code', [msg.code, gpt2Text, '$progress', '$cancel']);
}

async function handle(msg) {
  const { id } = msg;
  resetCancel(); // a Cancel meant for an earlier task does not stop this one; one during it does, at any step
  try {
    let result;
    if (msg.type === 'vocab') result = await readVocab(msg);
    else if (msg.type === 'run') result = await runCode(msg);
    else result = await callBridge(id, msg.name, msg.args || []);
    const transfer = result && result.bytes instanceof Uint8Array ? [result.bytes.buffer] : [];
    post({ id, type: 'result', ok: true, result }, transfer);
  } catch (err) {
    const info = err && err.info ? err.info : { kind: 'Error', message: String(err && err.message ? err.message : err) };
    post({ id, type: 'result', ok: false, error: info });
  } finally {
    resetCancel();
  }
}

self.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === 'init') {
    queue = queue.then(() => init(msg));
  } else if (msg.type === 'cancel') {
    cancelled = true; // seen by shouldCancel between the build's yields
  } else {
    queue = queue.then(() => (bridge ? handle(msg) : post({ id: msg.id, type: 'result', ok: false, error: { kind: 'Error', message: 'Python is not loaded' } })));
  }
};
