// The page's side of the Pyodide worker (worker.js): requests with ids, progress, cancel.

/** One dedicated module worker running tokenguide under Pyodide; calls are answered in order. */
export class WorkerClient {
  /** `early`: a worker the page started and sent 'init' to already ({worker, messages, errors,
   *  cancelView}, see web/index.html); its messages so far are handled at init(). */
  constructor(url, early = null) {
    this.early = early;
    this.worker = early ? early.worker : new Worker(url, { type: 'module' });
    this.cancelView = null;
    if (early) {
      this.cancelView = early.cancelView;
    } else if (self.crossOriginIsolated && typeof SharedArrayBuffer === 'function') {
      this.cancelView = new Int32Array(new SharedArrayBuffer(8));
    }
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, onProgress}
    this.handlers = { status: () => {}, ready: () => {}, fatal: () => {} };
    if (!early) this.listen();
  }

  listen() {
    this.worker.onmessage = (event) => this.dispatch(event.data);
    this.worker.onerror = (event) => this.handlers.fatal(`the worker failed: ${event.message || 'unknown error'}`);
  }

  /** on('status' | 'ready' | 'fatal', fn): the worker's messages that answer no request. */
  on(type, fn) { this.handlers[type] = fn; }

  dispatch(msg) {
    if (msg.type in this.handlers && msg.id === undefined) { this.handlers[msg.type](msg.type === 'status' ? msg.text : msg.type === 'fatal' ? msg.message : msg, msg); return; }
    const entry = this.pending.get(msg.id);
    if (!entry) return;
    if (msg.type === 'progress') { entry.onProgress?.(msg.stage, msg.done, msg.total); return; }
    this.pending.delete(msg.id);
    if (msg.ok) entry.resolve(msg.result);
    else entry.reject(Object.assign(new Error(msg.error.message), { info: msg.error }));
  }

  /** Start Pyodide in the worker; `prefetch` URLs are fetched meanwhile (unless the start-up
   *  snapshot holds them prepared); `snapshot: false` starts without the snapshot. */
  init(prefetch, { snapshot = true } = {}) {
    if (this.early) { // started by the page already: take over, then handle what it said meanwhile
      const { messages, errors } = this.early;
      this.early = null;
      this.listen();
      for (const msg of messages) this.dispatch(msg);
      for (const message of errors) this.handlers.fatal(`the worker failed: ${message}`);
      return;
    }
    this.worker.postMessage({ type: 'init', cancelBuffer: this.cancelView ? this.cancelView.buffer : null, prefetch, snapshot });
  }

  /** Send a message expecting one answer; progress messages go to onProgress(stage, done, total). */
  request(msg, onProgress) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ ...msg, id });
    });
  }

  /** Call tokenguide._web_bridge.<name>(...args); '$progress' and '$cancel' become the worker's hooks. */
  call(name, args, onProgress) { return this.request({ type: 'call', name, args }, onProgress); }

  /** Stop the running task: interrupt Python when the page is cross-origin isolated, else set a flag it polls. */
  cancel() {
    if (this.cancelView) {
      // The interrupt first, then the flag: a checkpoint that sees the flag can disarm the
      // interrupt (worker.js shouldCancel), so one Cancel never raises twice in Python.
      Atomics.store(this.cancelView, 0, 2); // Pyodide interrupt buffer: SIGINT -> KeyboardInterrupt
      Atomics.store(this.cancelView, 1, 1); // polled by the build's checkpoints
    }
    this.worker.postMessage({ type: 'cancel' });
  }
}
