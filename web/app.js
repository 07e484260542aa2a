// tokenguide web app: the builder page (web/index.html), wiring the parts in web/js/.
//
// Python runs in a dedicated module worker (worker.js); the page only drives it:
//   js/worker_client.js  requests to the worker, progress, cancel
//   js/tasks.js          one task at a time (busy flag)
//   js/vocabulary.js     the vocabulary choice (bundled GPT-2, picked or dropped files, EOS)
//   js/builder.js        examples, JSON Schema, options, build with progress
//   js/handover.js       Download and Open in the player
//   js/live_guide.js     stepping through a RegexGuide / CFGGuide
//   js/token_grid.js     the virtualized token grid
//   js/ui.js             elements and message helpers

import { ui, setState, setStatus, showError } from './js/ui.js';
import { WorkerClient } from './js/worker_client.js';
import { tasks } from './js/tasks.js';
import { VocabularyChoice, BUNDLED } from './js/vocabulary.js';
import { Builder } from './js/builder.js';
import { bindHandover } from './js/handover.js';
import { LiveGuide } from './js/live_guide.js';

const client = new WorkerClient(new URL('./worker.js', import.meta.url));
const vocabulary = new VocabularyChoice(client);
const builder = new Builder(client, vocabulary);
const guide = new LiveGuide(client, vocabulary);

function updateButtons() {
  const { ready, busy } = tasks;
  ui.build.disabled = !ready || busy;
  ui.cancel.disabled = !busy;
  ui.guideStart.disabled = !ready || busy;
  ui.guideCancel.disabled = !busy;
  ui.guideFromIndex.disabled = busy;
  ui.vocabDefault.disabled = busy;
  for (const b of [ui.guideBack, ui.guideReset]) b.disabled = busy;
}
tasks.onChange(updateButtons);

client.on('status', setStatus);
client.on('ready', (msg) => {
  ui.body.dataset.pythonReadyMs = performance.now().toFixed(0); // since navigation start (for benchmarks)
  ui.body.dataset.workerMarks = JSON.stringify(msg.marks || {});
  setStatus(`Python ready in ${msg.seconds.toFixed(1)} s; preparing the vocabulary…`);
  tasks.setReady(true);
  guide.loadGrammar(ui.guideGrammarSelect.value).catch(() => {});
  vocabulary.loadNow();
});
client.on('fatal', (message) => {
  tasks.setReady(false);
  showError({ kind: 'Fatal', message: `The Python runtime could not start: ${message}` });
  setState('error');
  setStatus('Not available');
});

vocabulary.bind();
builder.bind();
bindHandover();
guide.bind();
updateButtons();
client.init([BUNDLED.url]);

if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol) && !new URLSearchParams(location.search).has('nosw')) {
  navigator.serviceWorker.register('sw.js').catch(() => { /* offline use is optional */ });
}
