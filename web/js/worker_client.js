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
    this.taskCancelled = false; // a Cancel came during the page's current task (see beginTask)
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
    if (msg.type === 'chunk') { // a payload piece: acknowledged once taken in (the worker's back pressure)
      Promise.resolve(entry.onChunk?.(msg.bytes)).catch(() => {}).finally(() => this.worker.postMessage({ type: 'ack', id: msg.id }));
      return;
    }
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

  /** Send a message expecting one answer; progress messages go to onProgress(stage, done, total),
   *  payload chunks ('$emit') to onChunk(bytes), which may return a promise (acked when settled). */
  request(msg, onProgress, onChunk) {
    if (this.taskCancelled) { // the task's next step, after a Cancel that came between two of its requests
      return Promise.reject(Object.assign(new Error('cancelled'), { info: { kind: 'BuildCancelled', message: 'cancelled before it started' } }));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress, onChunk });
      this.worker.postMessage({ ...msg, id });
    });
  }

  /** Call tokenguide._web_bridge.<name>(...args); '$progress', '$cancel' and '$emit' become the worker's hooks. */
  call(name, args, onProgress, onChunk) { return this.request({ type: 'call', name, args }, onProgress, onChunk); }

  /** A page task starts or ends (several requests, one Cancel): a Cancel stops the rest of the
   *  task it came in, and nothing after it. */
  beginTask() { this.taskCancelled = false; }

  /** Stop the running task (every request sent so far, and the task's later ones): interrupt Python
   *  when the page is cross-origin isolated, else set a flag it polls. */
  cancel() {
    const upTo = this.nextId - 1;
    this.taskCancelled = true;
    if (this.cancelView) {
      // The id first, then the interrupt: the worker, starting a request, drops the interrupt and
      // then reads the id, so a Cancel for that request is never lost (worker.js resetInterrupt).
      // A checkpoint that sees the id disarms the interrupt; one that lands anyway is a cancel too.
      Atomics.store(this.cancelView, 1, upTo); // polled by the build's checkpoints
      Atomics.store(this.cancelView, 0, 2); // Pyodide interrupt buffer: SIGINT -> KeyboardInterrupt
    }
    this.worker.postMessage({ type: 'cancel', upTo });
  }
}
