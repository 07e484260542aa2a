// tokenguide web app: the Pyodide worker (a dedicated module Web Worker).
//
// Runs Python off the page's thread so the page never freezes. Protocol (page -> worker):
//   {type: 'init', cancelBuffer?: SharedArrayBuffer, prefetch?: [url], snapshot?: false}
//                                                             start Pyodide (from the start-up snapshot unless
//                                                             snapshot is false), load tokenguide (fetch urls meanwhile)
//   {id, type: 'call', name, args}                            call tokenguide._web_bridge.<name>(...args)
//   {id, type: 'vocab', source: {url | file, siblings?, siblingUrls?}, eos, key}  read a vocabulary (URL or File) and
//                                                             prepare it (siblingUrls: config files beside a URL, for EOS)
//   {id, type: 'run', code, vocabUrl}                         run playground code (output as progress 'output')
//   {type: 'cancel', upTo}                                    stop the requests with ids up to upTo (running or queued)
//   {type: 'ack', id}                                         the page has taken in one 'chunk' of request id
// Worker -> page: {type: 'status', text, phase, phases: [[id, label]]},
//   {type: 'ready', seconds, marks, phases, snapshot, snapshotNote, vocab, at, workerStart} or {type: 'fatal', message},
//   (vocab: {key, eos: null, info} for the bundled vocabulary the snapshot holds prepared, else null)
//   (at, workerStart: wall-clock ms, performance.timeOrigin + performance.now(), when it was sent / init began)
//   {type: 'progress', id, stage, done, total}, {id, type: 'result', ok, result | error},
//   {type: 'chunk', id, bytes}: a piece of a file's raw payload ('$emit' argument; the page gzips it
//   natively and acks each one: at most CHUNKS_AHEAD are unacknowledged, Python waits meanwhile).
//
// Cancel: with cross-origin isolation the page shares a SharedArrayBuffer; the worker makes it
// Pyodide's interrupt buffer (a KeyboardInterrupt, raised only inside a bridge call's own code:
// tokenguide/_web_cancel.py) and the builds also poll it.
// Without it, the 'cancel' message sets a flag that the build polls between its yields. A Cancel
// names the last request it stops (ids only grow): one meant for an earlier request never stops a
// later one, and a request still waiting in the queue when the Cancel came is answered cancelled.

import { loadPyodide } from './pyodide/pyodide.mjs';
import { writeSiteImage } from './js/site_image.js';
import { SnapshotFiller } from './js/snapshot_file.js';

const evaluatedAt = performance.now(); // this module and its imports fetched and run (ms since the worker was created)
let pyodide = null;
let bridge = null;
let interrupt = null; // Int32Array over the shared buffer: [0] = Pyodide interrupt (2 = SIGINT), [1] = last id cancelled
let cancelledUpTo = 0; // the same, from the 'cancel' messages (the only way without the shared buffer)
let current = 0; // the id of the request being handled
let queue = Promise.resolve(); // calls run one at a time, in order

const post = (msg, transfer) => self.postMessage(msg, transfer || []);
/** Now, as a time on the wall clock (ms): the page turns it into its own time line. */
const now = () => performance.timeOrigin + performance.now();

/** Polled by the build's checkpoints. When it says yes, the checkpoint raises BuildCancelled
 *  itself, so the pending interrupt (set before the flag, see worker_client.js) is disarmed:
 *  otherwise a KeyboardInterrupt would land a moment later inside the error report. */
function shouldCancel() {
  if (interrupt !== null && Atomics.load(interrupt, 1) >= current) {
    Atomics.store(interrupt, 0, 0);
    return true;
  }
  return cancelledUpTo >= current;
}

/** Before and after each request: an interrupt armed for an earlier one is dropped. Called before
 *  the id check (the page stores the id first, then arms): a Cancel for this request that comes
 *  meanwhile is seen by the check or lands as an interrupt afterwards, never lost. */
function resetInterrupt() {
  if (interrupt !== null) Atomics.store(interrupt, 0, 0);
}

const prefetched = new Map(); // url -> Promise<text>: the bundled vocabulary is fetched while Pyodide starts

// Start-up files (made by build.py): the wheels' files as one image written into site-packages
// before Python starts, and the memory snapshot of a Python that already imported tokenguide and
// prepared the bundled vocabulary (tools/make_snapshot.mjs), described by its manifest.
const PYODIDE_DIR = new URL('./pyodide/', import.meta.url).href;
const SITE_IMAGE = 'site-packages.bin';
const SNAPSHOT_MANIFEST = 'startup-snapshot.json';
const ENV = { PYTHONHASHSEED: '0' }; // the snapshot's hash seed (kept in its memory); the same without it

// Begun as soon as this module runs, before the 'init' message is read: every start needs them
// (Pyodide's JavaScript is parsed meanwhile; it fetches and compiles pyodide.asm.wasm itself).
const early = {
  asm: import(PYODIDE_DIR + 'pyodide.asm.mjs'),
  image: fetchBytes(SITE_IMAGE),
  manifest: fetch(PYODIDE_DIR + SNAPSHOT_MANIFEST).then((r) => (r.ok ? r.json() : null)).catch(() => null),
};
for (const p of Object.values(early)) p.catch(() => {}); // each is awaited (and its error reported) where used

/** A file of dist/pyodide/ as bytes. */
async function fetchBytes(name) {
  const resp = await fetch(PYODIDE_DIR + name);
  if (!resp.ok) throw new Error(`${name}: HTTP ${resp.status}`);
  return new Uint8Array(await resp.arrayBuffer());
}

/** Stream the snapshot's file into `into` (a zero-filled Uint8Array of the snapshot's size), each
 *  part at its place (the file leaves out the zero runs its manifest lists: js/snapshot_file.js).
 *  Rejects with a sentence saying what is wrong when the file is missing or not the right size. */
async function fetchInto(name, into, zeroRuns) {
  const filler = new SnapshotFiller(into, zeroRuns);
  const resp = await fetch(PYODIDE_DIR + name);
  if (!resp.ok) throw new Error(`${name}: HTTP ${resp.status}`);
  const reader = resp.body.getReader();
  for (let { done, value } = await reader.read(); !done; { done, value } = await reader.read()) {
    try {
      filler.push(value);
    } catch (err) {
      reader.cancel().catch(() => {});
      throw err;
    }
  }
  filler.finish();
}

async function sha256(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The snapshot, as Pyodide's _loadSnapshot wants it at once: a buffer of the manifest's size that
 *  is filled while the runtime compiles (`filled` settles when it is; it rejects with a sentence
 *  saying why the snapshot cannot be used, the site-packages image it was made with checked too). */
function loadSnapshot(manifest, marks, t0) {
  const bytes = new Uint8Array(manifest.snapshot.size);
  const filled = Promise.all([
    fetchInto(manifest.snapshot.file, bytes, manifest.snapshot.zero_runs).then(() => { marks.snapshotFetched = performance.now() - t0; }),
    early.image.then(async (image) => {
      if ((await sha256(image)) !== manifest.site_image.sha256) throw new Error('it was made with other tokenguide files than this bundle serves');
    }),
  ]);
  filled.catch(() => {});
  return { bytes, filled };
}

/** Pyodide's module factory. With a snapshot, the module's start waits (a run dependency) until
 *  the snapshot's buffer is filled, then grows the memory to its size: Pyodide compiles the wasm
 *  meanwhile (given the snapshot's bytes, it would wait for them before it even began). A snapshot
 *  that cannot be used has its magic number cleared, so that Pyodide's restore refuses it and the
 *  start falls back (`failure.why` says why). */
function moduleFactory(snapshot, failure, marks, t0) {
  return async (settings) => {
    const { default: create } = await early.asm;
    if (snapshot) {
      settings.preRun.push((Module) => {
        Module.addRunDependency('tokenguide-snapshot');
        snapshot.filled.then(() => {
          const { bytes } = snapshot;
          const heap = bytes.length - new DataView(bytes.buffer, bytes.byteOffset, 8).getUint32(4, true);
          // Pyodide 314 restores a snapshot into the memory the module starts with (its
          // INITIAL_MEMORY setting is not read by this build): grow the memory to the snapshot's size.
          if (Module.HEAP8.length < heap) Module.growMemory(heap);
          if (Module.HEAP8.length < heap) throw new Error(`could not grow the memory to ${heap} bytes`);
        }).catch((err) => {
          failure.why = String(err && err.message ? err.message : err);
          snapshot.bytes.fill(0, 0, 4);
        }).finally(() => Module.removeRunDependency('tokenguide-snapshot'));
      });
    }
    const module = await create(settings);
    marks.moduleReady = performance.now() - t0; // instantiated, the snapshot in: Pyodide restores it next
    return module;
  };
}

/** Start Pyodide from the memory snapshot when the bundle has a usable one, else normally.
 *  Posts the phases it will go through, then each phase as it starts; calls prefetch() when the
 *  bundled vocabulary will have to be read. */
async function startPython(t0, marks, withSnapshot, prefetch) {
  let manifest = null;
  let note = null;
  let snapshot = null;
  if (withSnapshot) {
    manifest = await early.manifest;
    if (manifest && manifest.format === 1) {
      snapshot = loadSnapshot(manifest, marks, t0);
    } else {
      note = manifest ? `its manifest has an unknown format (${JSON.stringify(manifest.format)})` : 'the bundle has none';
    }
  }
  if (!snapshot) prefetch(); // a snapshot holds the bundled vocabulary already prepared: no need to read it
  const phases = snapshot
    ? [['runtime', 'Python runtime'], ['snapshot', 'tokenguide (start-up snapshot)'], ['vocabulary', 'GPT-2 vocabulary']]
    : [['runtime', 'Python runtime'], ['python', 'Python start'], ['import', 'import tokenguide'], ['vocabulary', 'GPT-2 vocabulary']];
  post({ type: 'status', text: 'Loading the Python runtime…', phase: 0, phases, at: now() });
  let imageError = null; // a site-packages image that cannot be written: fatal, said after loadPyodide
  const failure = { why: null };
  const options = {
    indexURL: PYODIDE_DIR,
    env: { ...ENV },
    createPyodideModule: moduleFactory(snapshot, failure, marks, t0),
    fsInit: async (FS, { sitePackages }) => {
      // called once the WebAssembly module is compiled and instantiated, before Python runs
      marks.runtime = performance.now() - t0;
      post({ type: 'status', text: snapshot ? 'Restoring the start-up snapshot…' : 'Starting Python…', phase: 1, phases, at: now() });
      try {
        writeSiteImage(FS, sitePackages, await early.image);
      } catch (err) {
        imageError = err;
      }
    },
  };
  if (snapshot) options._loadSnapshot = snapshot.bytes;
  try {
    const py = await loadPyodide(options);
    if (imageError) throw Object.assign(new Error(`could not install tokenguide: ${imageError.message}`), { fatal: true });
    marks[snapshot ? 'snapshot' : 'python'] = performance.now() - t0;
    return { py, phases, manifest: snapshot ? manifest : null, note };
  } catch (err) {
    if (!snapshot || err.fatal) throw err;
    // a snapshot that cannot be used: say why, and start normally (nothing of the failed start is kept)
    const why = failure.why || String(err && err.message ? err.message : err).split('\n')[0];
    const again = await startPython(t0, marks, false, prefetch);
    return { ...again, note: why };
  }
}

async function init(msg) {
  const t0 = performance.now();
  const marks = { created: -t0, evaluated: evaluatedAt - t0 }; // before 'init' was received: negative
  try {
    const prefetch = () => {
      for (const url of msg.prefetch || []) {
        const p = fetch(new URL(url, self.location.href)).then((r) => (r.ok ? r.text() : null)).catch(() => null);
        prefetched.set(url, p);
      }
    };
    const { py, phases, manifest, note } = await startPython(t0, marks, msg.snapshot !== false, prefetch);
    const fromSnapshot = manifest !== null;
    pyodide = py;
    if (msg.cancelBuffer) {
      interrupt = new Int32Array(msg.cancelBuffer);
      pyodide.setInterruptBuffer(interrupt);
    }
    if (fromSnapshot) {
      // the snapshot's random generator state is the same for everyone: draw a fresh seed
      pyodide.runPython("import sys\nif 'random' in sys.modules: sys.modules['random'].seed()");
    } else {
      post({ type: 'status', text: 'Importing tokenguide…', phase: 2, phases, at: now() });
    }
    bridge = pyodide.pyimport('tokenguide._web_bridge');
    if (interrupt !== null) bridge.guard_interrupts(interrupt); // a Cancel raises only inside a bridge call's own code
    marks.imported = performance.now() - t0;
    // the bundled vocabulary the snapshot holds prepared, as its manifest describes it (what
    // load_vocabulary answers for it, build.py): the page needs no request before it can build
    const vocab = fromSnapshot && manifest.vocabulary && manifest.vocabulary.info
      ? { key: manifest.vocabulary.key, eos: null, info: manifest.vocabulary.info } : null;
    post({ type: 'ready', seconds: (performance.now() - t0) / 1000, interruptible: interrupt !== null, marks, phases, at: now(),
           workerStart: performance.timeOrigin + t0,
           snapshot: fromSnapshot, snapshotNote: note, vocab });
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
const CHUNKS_AHEAD = 4; // payload chunks (about 1 MB each) sent to the page and not yet taken in
const acks = { id: 0, waiting: 0, wake: null }; // the request streaming chunks, and its back pressure

/** `$emit` of request `id`: post a Python bytes chunk to the page (moved, not copied); a promise to
 *  await (Python awaits it) while too many chunks are still unacknowledged. */
function emitter(id) {
  acks.id = id;
  acks.waiting = 0;
  acks.wake = null;
  return (chunk) => {
    const bytes = chunk && typeof chunk.toJs === 'function' ? chunk.toJs() : new Uint8Array(chunk);
    post({ type: 'chunk', id, bytes }, [bytes.buffer]);
    acks.waiting += 1;
    if (acks.waiting <= CHUNKS_AHEAD) return undefined;
    return new Promise((resolve) => { acks.wake = resolve; });
  };
}

function ack(msg) {
  if (msg.id !== acks.id) return;
  acks.waiting -= 1;
  if (acks.wake && acks.waiting <= CHUNKS_AHEAD) { const wake = acks.wake; acks.wake = null; wake(); }
}

async function callBridge(id, name, args) {
  const progress = (stage, done, total) => post({ type: 'progress', id, stage, done, total });
  // null becomes undefined (Python None; Pyodide maps JS null to a distinct jsnull)
  const fullArgs = args.map((a) => (a === '$progress' ? progress : a === '$cancel' ? shouldCancel : a === '$emit' ? emitter(id)
    : a === null ? undefined : a));
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
    text = await fetchText(msg.id, source.url, source.name);
  } else {
    post({ type: 'progress', id: msg.id, stage: 'reading vocabulary', done: 0, total: 1 });
    text = new Uint8Array(await source.file.arrayBuffer()); // bytes: Python names a picture or bad UTF-8 for what it is
  }
  let siblings = null;
  for (const file of source.siblings || []) {
    siblings = siblings || {};
    siblings[file.name] = await file.text();
  }
  for (const url of source.siblingUrls || []) {
    siblings = siblings || {};
    siblings[url.split('/').pop()] = await fetchText(msg.id, url, url.split('/').pop());
  }
  if (shouldCancel()) throw cancelledError('reading the vocabulary was cancelled');
  post({ type: 'progress', id: msg.id, stage: 'preparing vocabulary', done: 0, total: 1 });
  return callBridge(msg.id, 'load_vocabulary', [text, source.name, eos, key, siblings]);
}

/** A file of the app (a bundled tokenizer, read on demand) as text, with the bytes read so far as progress. */
async function fetchText(id, url, name) {
  post({ type: 'progress', id, stage: `reading ${name}`, done: 0, total: 1 });
  const resp = await fetch(new URL(url, self.location.href));
  if (!resp.ok) throw Object.assign(new Error(`${name}: HTTP ${resp.status}`), { info: { kind: 'VocabularyError', message: `could not read ${name} (HTTP ${resp.status})` } });
  const total = Number(resp.headers.get('content-length')) || 0;
  if (!resp.body || !total) return resp.text();
  const reader = resp.body.getReader();
  const parts = [];
  let done = 0;
  for (;;) {
    const { done: end, value } = await reader.read();
    if (end) break;
    parts.push(value);
    done += value.length;
    post({ type: 'progress', id, stage: `reading ${name}`, done, total });
    if (shouldCancel()) { reader.cancel().catch(() => {}); throw cancelledError('reading the vocabulary was cancelled'); }
  }
  return new TextDecoder().decode(await new Blob(parts).arrayBuffer());
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
  current = id;
  resetInterrupt(); // a Cancel meant for an earlier task does not stop this one; one for it does, at any step
  try {
    let result;
    if (shouldCancel()) throw cancelledError('cancelled before it started');
    if (msg.type === 'vocab') result = await readVocab(msg);
    else if (msg.type === 'run') result = await runCode(msg);
    else result = await callBridge(id, msg.name, msg.args || []);
    if (acks.id === id && acks.wake) acks.wake(); // never leave a waiter behind
    const transfer = result && result.bytes instanceof Uint8Array ? [result.bytes.buffer] : [];
    if (result && result.table) { // a built index's key ranges (build_index write='ranges'): moved, not copied
      for (const v of Object.values(result.table)) if (v instanceof Uint8Array && !transfer.includes(v.buffer)) transfer.push(v.buffer);
    }
    post({ id, type: 'result', ok: true, result }, transfer);
  } catch (err) {
    const info = err && err.info ? err.info : { kind: 'Error', message: String(err && err.message ? err.message : err) };
    post({ id, type: 'result', ok: false, error: info });
  } finally {
    resetInterrupt();
  }
}

self.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === 'init') {
    queue = queue.then(() => init(msg));
  } else if (msg.type === 'ack') {
    ack(msg);
  } else if (msg.type === 'cancel') {
    cancelledUpTo = Math.max(cancelledUpTo, msg.upTo ?? current); // seen by shouldCancel between the build's yields
    if (acks.wake && acks.id <= cancelledUpTo) { const wake = acks.wake; acks.wake = null; wake(); } // the page takes no more chunks
  } else {
    queue = queue.then(() => (bridge ? handle(msg) : post({ id: msg.id, type: 'result', ok: false, error: { kind: 'Error', message: 'Python is not loaded' } })));
  }
};
