// The playground page (web/playground.html): Python code run in the app's Pyodide worker.
//
// The worker keeps the page responsive whatever the code does; Stop interrupts it (Pyodide's
// interrupt buffer, when the page is cross-origin isolated) or, failing that, replaces the worker.

import { WorkerClient } from './worker_client.js';

const $ = (id) => document.getElementById(id);
const body = document.body, status = $('status'), editor = $('editor'), output = $('output');
const runButton = $('run'), stopButton = $('stop'), examples = $('examples'), elapsed = $('elapsed');
const VOCAB = 'vocab/gpt2-vocab.json';

let client = null;
let ready = false;
let running = false;
let timer = null;

function start() {
  body.dataset.state = 'loading';
  ready = false;
  runButton.disabled = true;
  client = new WorkerClient(new URL('../worker.js', import.meta.url));
  client.on('status', (text) => { status.textContent = text; });
  client.on('ready', (msg) => {
    body.dataset.pythonReadyMs = performance.now().toFixed(0);
    status.textContent = `Ready (Python started in ${msg.seconds.toFixed(1)} s)`;
    ready = true;
    if (!running) { body.dataset.state = 'ready'; runButton.disabled = false; }
  });
  client.on('fatal', (message) => {
    status.textContent = `Python could not start: ${message}`;
    body.dataset.state = 'error';
  });
  client.init([VOCAB]);
}

function showExample() {
  editor.value = $(examples.value).textContent;
}

async function run() {
  if (running || runButton.disabled) return;
  running = true;
  runButton.disabled = true;
  stopButton.disabled = false;
  body.dataset.state = 'running';
  status.textContent = 'Running…';
  output.classList.remove('failed');
  output.textContent = '';
  const t0 = performance.now();
  timer = setInterval(() => { elapsed.textContent = `${((performance.now() - t0) / 1000).toFixed(1)} s`; }, 100);
  let failed = true, stopped = false;
  client.beginTask();
  try {
    const res = await client.request({ type: 'run', code: editor.value, vocabUrl: VOCAB }, (stage, text) => {
      if (stage === 'output') output.append(document.createTextNode(text)); // text, never markup
    });
    failed = res.failed;
    stopped = res.stopped;
  } catch (err) {
    output.append(document.createTextNode(`\n${err.info ? err.info.message : err.message}\n`));
    stopped = !!(err.info && err.info.kind === 'BuildCancelled');
  } finally {
    clearInterval(timer);
    elapsed.textContent = `${((performance.now() - t0) / 1000).toFixed(2)} s`;
  }
  output.classList.toggle('failed', failed);
  body.dataset.state = failed ? 'error' : 'done';
  status.textContent = stopped ? (ready ? 'Stopped' : 'Stopped; restarting Python…') : failed ? 'Failed (see the output)' : 'Done';
  running = false;
  stopButton.disabled = true;
  runButton.disabled = !ready;
}

/** Stop the running code: an interrupt when possible (KeyboardInterrupt in the user's code); when that
 *  is not possible, or the code has not ended 2 s later, a new worker (the old one is dropped). */
function stop() {
  if (!running) return;
  if (client.cancelView) {
    const stopped = client;
    client.cancel();
    setTimeout(() => { if (running && client === stopped) restart(); }, 2000);
    return;
  }
  restart();
}

function restart() {
  client.worker.terminate();
  for (const entry of client.pending.values()) entry.reject(Object.assign(new Error('Stopped.'), { info: { kind: 'BuildCancelled', message: 'Stopped (Python was restarted).' } }));
  client.pending.clear();
  start();
}

examples.addEventListener('change', showExample);
runButton.addEventListener('click', run);
stopButton.addEventListener('click', stop);
editor.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); } });
showExample();
start();
