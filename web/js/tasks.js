// One task at a time in the worker: the busy flag, and who is told when it changes.

const listeners = [];
const idle = [];
let busy = false;
let ready = false;

export const tasks = {
  get busy() { return busy; },
  get ready() { return ready; },
  setReady(value) { ready = value; changed(); },
  /** Call fn() on every change of busy / ready (to enable and disable buttons). */
  onChange(fn) { listeners.push(fn); },
  /** Call fn() once the current task (if any) ends. */
  whenIdle(fn) { idle.push(fn); },
  /** Run an async task exclusively; returns its result. Callers check `busy` first. */
  async run(fn) {
    busy = true;
    changed();
    try {
      return await fn();
    } finally {
      busy = false;
      changed();
      for (const f of idle.splice(0)) f();
    }
  },
};

function changed() { for (const f of listeners) f(); }
