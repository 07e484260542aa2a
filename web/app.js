// tokenguide web app: the builder page (web/index.html), wiring the parts in web/js/.
//
// Python runs in a dedicated module worker (worker.js); the page only drives it:
//   js/worker_client.js  requests to the worker, progress, cancel
//   js/tasks.js          one task at a time (busy flag)
//   js/vocabulary.js     the vocabulary choice (picked or dropped files, bundled GPT-2, the tokenizer menu, EOS)
//   js/builder.js        examples, JSON Schema, options, build with progress
//   js/handover.js       Download and Open in the player
//   js/live_guide.js     stepping through a RegexGuide / CFGGuide / JSON Schema Guide, with mask times
//   js/samples.js        random completions of the live guide, checked by independent parsers
//   js/token_grid.js     the virtualized token grid
//   js/share.js          the inputs in the URL's hash (a link reopens the same build)
//   js/ui.js             elements and message helpers

import { ui, setState, setStatus, showError } from './js/ui.js';
import { WorkerClient } from './js/worker_client.js';
import { tasks } from './js/tasks.js';
import { VocabularyChoice, BUNDLED, MENU } from './js/vocabulary.js';
import { Builder } from './js/builder.js';
import { bindHandover } from './js/handover.js';
import { LiveGuide } from './js/live_guide.js';
import { Samples } from './js/samples.js';
import { restoreState, bindState } from './js/share.js';

const client = new WorkerClient(new URL('./worker.js', import.meta.url), self.tokenguideEarlyWorker || null); // started by index.html
const vocabulary = new VocabularyChoice(client);
const builder = new Builder(client, vocabulary);
const guide = new LiveGuide(client, vocabulary);
const samples = new Samples(client, guide);

function updateButtons() {
  const { ready, busy } = tasks;
  ui.build.disabled = !ready || busy;
  ui.cancel.disabled = !busy;
  ui.guideStart.disabled = !ready || busy;
  ui.guideCancel.disabled = !busy;
  ui.guideFromIndex.disabled = busy;
  ui.vocabDefault.disabled = busy;
  for (const b of [ui.guideBack, ui.guideReset, ui.samplesButton, ui.schemaToGuide]) b.disabled = busy;
}
tasks.onChange(updateButtons);
let wasBusy = false;
tasks.onChange(() => { if (tasks.busy !== wasBusy) { wasBusy = tasks.busy; client.beginTask(); } }); // a Cancel ends with its task

// Start-up: a bar and the phases the worker announced (runtime, then the start-up snapshot or
// Python start and import, then the vocabulary), with the time each phase ended kept in
// <body data-startup-marks> ({phase id: ms since navigation start}, for tests and benchmarks).
const startupMarks = {};
let startupPhases = [['runtime', 'Python runtime'], ['vocabulary', 'GPT-2 vocabulary']];
function showPhases(phases) {
  if (JSON.stringify(phases) === JSON.stringify(startupPhases)) return;
  startupPhases = phases;
  for (const id of Object.keys(startupMarks)) delete startupMarks[id]; // a new plan (a start without the snapshot) starts over
  const list = document.getElementById('startup-phases');
  list.replaceChildren(...phases.map(([id, label], i) => {
    const li = document.createElement('li');
    li.dataset.phase = String(i);
    li.dataset.phaseId = id;
    li.textContent = label;
    return li;
  }));
  document.getElementById('startup-progress').max = phases.length;
}
/** `at` (wall-clock ms from the worker, when the phase began) as ms since this page's navigation
 *  start: a phase ends when the next one begins, whenever the page gets to hear of it. */
function startupPhase(phase, at) {
  const when = at !== undefined ? at - performance.timeOrigin : performance.now();
  const bar = document.getElementById('startup-progress');
  bar.value = phase;
  for (const li of document.querySelectorAll('#startup-phases li')) {
    const p = Number(li.dataset.phase);
    li.classList.toggle('done', p < phase);
    li.classList.toggle('now', p === phase);
    if (p < phase && !(li.dataset.phaseId in startupMarks)) startupMarks[li.dataset.phaseId] = Math.round(when);
  }
  ui.body.dataset.startupMarks = JSON.stringify(startupMarks);
  if (phase >= startupPhases.length) document.getElementById('startup').hidden = true;
}
client.on('status', (text, msg) => {
  setStatus(text);
  if (msg && msg.phases) showPhases(msg.phases);
  if (msg && msg.phase !== undefined) startupPhase(msg.phase, msg.at);
});
client.on('ready', (msg) => {
  ui.body.dataset.pythonReadyMs = performance.now().toFixed(0); // since navigation start (for benchmarks)
  ui.body.dataset.workerMarks = JSON.stringify(msg.marks || {});
  if (msg.workerStart) ui.body.dataset.workerStartMs = (msg.workerStart - performance.timeOrigin).toFixed(0); // init received
  ui.body.dataset.snapshot = msg.snapshot ? 'used' : 'not used';
  if (msg.snapshotNote) {
    const note = document.getElementById('startup-note');
    note.textContent = `Started without the start-up snapshot (${msg.snapshotNote}): the normal start is slower, everything else works.`;
    note.hidden = false;
  }
  if (msg.phases) showPhases(msg.phases);
  setStatus(`Python ready in ${msg.seconds.toFixed(1)} s; preparing the vocabulary…`);
  tasks.setReady(true);
  startupPhase(startupPhases.length - 1, msg.at);
  vocabulary.prime(msg.vocab); // the bundled vocabulary, prepared in the start-up snapshot
  vocabulary.loadNow(); // first: the page is ready once the vocabulary is
  if (ui.guideGrammarSelect.value) guide.loadGrammar(ui.guideGrammarSelect.value).catch(() => {});
});
client.on('fatal', (message) => {
  registerServiceWorker();
  tasks.setReady(false);
  showError({ kind: 'Fatal', message: `The Python runtime could not start: ${message}` });
  setState('error');
  setStatus('Not available');
});

vocabulary.bind();
builder.bind();
bindHandover();
guide.bind();
samples.bind();
// a schema the builder cannot make an index of: offer the live guide, where the library picks the path
builder.onSchemaTrouble = (why) => {
  ui.schemaGuideWhy.textContent = `${why} A JSON Schema without a finite index (recursive, free-form, or too large to write) can still be stepped through:`;
  ui.schemaGuideOffer.hidden = false;
};
ui.schemaToGuide.addEventListener('click', () => { ui.schemaGuideOffer.hidden = true; guide.startSchema(ui.schema.value); });
// choosing a JSON Schema (builder or live guide) loads the schema compiler in the worker meanwhile
let warmed = false;
for (const radio of [document.getElementById('source-schema'), document.getElementById('guide-kind-schema')]) {
  radio.addEventListener('change', () => {
    if (warmed || !tasks.ready || !radio.checked) return;
    warmed = true;
    client.call('warm_json_schema', []).catch(() => { warmed = false; });
  });
}
const shared = restoreState();
guide.showKind();
if (shared.hadState && shared.vocab in MENU) {
  vocabulary.source = MENU[shared.vocab]; // read once Python is ready (the EOS of the link kept)
  vocabulary.showInMenu(vocabulary.source);
} else if (shared.hadState && shared.vocab !== 'gpt2') {
  ui.vocabInfo.textContent = `This link was made with the vocabulary ${shared.vocab}: pick that file (the bundled GPT-2 is used until then).`;
  ui.vocabInfo.dataset.wanted = shared.vocab;
}
if (shared.hadState && shared.eos) vocabulary.autoEos = null;   // an EOS chosen in the link is the user's choice
bindState(vocabulary)();
vocabulary.onReady = () => { startupPhase(startupPhases.length); registerServiceWorker(); };
updateButtons();
client.init([BUNDLED.url], { snapshot: !new URLSearchParams(location.search).has('nosnapshot') });

// The service worker (offline use) is registered once the start-up is over, so that its precache
// (the runtime, the snapshot, ...) does not compete with the start-up for the network and the CPU.
function registerServiceWorker() {
  if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol) && !new URLSearchParams(location.search).has('nosw')) {
    navigator.serviceWorker.register('sw.js').catch(() => { /* offline use is optional */ });
  }
}
