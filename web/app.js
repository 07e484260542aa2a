// tokenguide web app: the builder page (web/index.html).
//
// Python runs in a dedicated module worker (worker.js); this file only drives the page.
// Token text is always written with textContent, never as HTML.

const $ = (id) => document.getElementById(id);

const EXAMPLES = {
  email: String.raw`[a-z0-9!#$%&'*+/=?^_\`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_\`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?`,
  date: String.raw`(19|20)\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])`,
  ip: String.raw`((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`,
  json_object: String.raw`\{[ ]?"name"[ ]?:[ ]?"([^"\\\x00-\x1F\x7F-\x9F]|\\["\\/bfnrt])*"[ ]?,[ ]?"age"[ ]?:[ ]?(0|[1-9][0-9]*)[ ]?\}`,
  json_string: String.raw`"([^"\\\x00-\x1F\x7F-\x9F]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"`,
};
const EXAMPLE_LABELS = { email: 'email', date: 'date (YYYY-MM-DD)', ip: 'IPv4 address', json_object: 'JSON object', json_string: 'JSON string' };
const BUNDLED = { url: 'vocab/gpt2-vocab.json', name: 'gpt2-vocab.json', label: 'GPT-2 (bundled)', key: 'bundled:gpt2' };

const ui = {
  body: document.body,
  status: $('status'), error: $('error'),
  vocabFile: $('vocab-file'), vocabDefault: $('vocab-default'), vocabInfo: $('vocab-info'),
  eos: $('eos-input'), eosNote: $('eos-note'),
  examples: $('examples'), regex: $('regex-input'), ascii: $('ascii-option'), maxStates: $('max-states'), name: $('name-input'),
  regexError: $('regex-error'), regexErrorMsg: $('regex-error-msg'), regexErrorWhere: $('regex-error-where'),
  schemaBox: $('schema-box'), schema: $('schema-input'), schemaFile: $('schema-file'), schemaButton: $('schema-button'), schemaNote: $('schema-note'),
  build: $('build-button'), cancel: $('cancel-button'), progress: $('progress'), progressLabel: $('progress-label'), elapsed: $('elapsed'),
  result: $('result'), stats: $('stats'), download: $('download-button'), openPlayer: $('open-player'), guideFromIndex: $('guide-from-index'),
  guideStart: $('guide-start'), guideCancel: $('guide-cancel'), guideProgress: $('guide-progress'), guideStatus: $('guide-status'),
  guideGrammarSelect: $('guide-grammar-select'), guideGrammar: $('guide-grammar'), guideView: $('guide-view'),
  guideState: $('guide-state'), guideFinal: $('guide-final'), guideText: $('guide-text'), guidePath: $('guide-path'),
  guideFilter: $('guide-filter'), guideCount: $('guide-count'), guideTokens: $('guide-tokens'),
  guideBack: $('guide-back'), guideReset: $('guide-reset'),
};

// ------------------------------------------------------------------------------------------ state
const app = {
  ready: false,
  busy: false,              // a build or guide computation is running in the worker
  source: BUNDLED,          // {url, name, label, key} or {file, name, label, key}
  vocab: null,              // description of the loaded vocabulary (from the worker)
  vocabFor: null,           // the source key + EOS choice `vocab` was loaded for
  autoEos: null,            // the EOS text the page filled in itself (treated as "guess")
  pendingVocab: false,      // a vocabulary was chosen while the worker was busy
  result: null,             // last build result {bytes, name, ...}
};

// ------------------------------------------------------------------------------------------ worker
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
let cancelView = null;
if (self.crossOriginIsolated && typeof SharedArrayBuffer === 'function') {
  cancelView = new Int32Array(new SharedArrayBuffer(8));
}
let nextId = 1;
const pending = new Map(); // id -> {resolve, reject, onProgress}

worker.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === 'status') { setStatus(msg.text); return; }
  if (msg.type === 'ready') { onWorkerReady(msg); return; }
  if (msg.type === 'fatal') { onFatal(msg.message); return; }
  const entry = pending.get(msg.id);
  if (!entry) return;
  if (msg.type === 'progress') { entry.onProgress?.(msg.stage, msg.done, msg.total); return; }
  pending.delete(msg.id);
  if (msg.ok) entry.resolve(msg.result);
  else entry.reject(Object.assign(new Error(msg.error.message), { info: msg.error }));
};
worker.onerror = (event) => onFatal(`the worker failed: ${event.message || 'unknown error'}`);

function request(msg, onProgress) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    worker.postMessage({ ...msg, id });
  });
}
const call = (name, args, onProgress) => request({ type: 'call', name, args }, onProgress);

function cancelWorker() {
  if (cancelView) {
    Atomics.store(cancelView, 1, 1); // polled by the build's checkpoints
    Atomics.store(cancelView, 0, 2); // Pyodide interrupt buffer: SIGINT -> KeyboardInterrupt
  }
  worker.postMessage({ type: 'cancel' });
}

worker.postMessage({ type: 'init', cancelBuffer: cancelView ? cancelView.buffer : null, prefetch: [BUNDLED.url] });

// ------------------------------------------------------------------------------------------ helpers
function setState(state) { ui.body.dataset.state = state; }
function setStatus(text) { ui.status.textContent = text; }
function fmt(n) { return Number(n).toLocaleString('en-US'); }
function secs(s) { return s < 1 ? `${(s * 1000).toFixed(0)} ms` : `${s.toFixed(2)} s`; }

function showError(info, { cancelled = false } = {}) {
  const lines = [info.message];
  if (info.hint) lines.push(`Hint: ${info.hint}`);
  if (info.traceback) lines.push(info.traceback);
  ui.error.textContent = lines.join('\n');
  ui.error.classList.toggle('cancelled', cancelled);
  ui.error.dataset.kind = info.kind || 'Error';
  ui.error.hidden = false;
}
function clearError() {
  ui.error.hidden = true;
  ui.error.textContent = '';
  delete ui.error.dataset.kind;
  ui.regexError.hidden = true;
  ui.regex.classList.remove('invalid');
}

function showRegexError(info) {
  ui.regexErrorMsg.textContent = info.pos != null ? `${info.message} (at position ${info.pos})` : info.message;
  ui.regexErrorWhere.textContent = '';
  if (info.pos != null && typeof info.pattern === 'string') {
    // Show the line of the pattern holding the position, and a caret under it.
    const pattern = info.pattern;
    const start = pattern.lastIndexOf('\n', info.pos - 1) + 1;
    let end = pattern.indexOf('\n', info.pos);
    if (end < 0) end = pattern.length;
    const caret = document.createElement('span');
    caret.className = 'caret';
    caret.textContent = ' '.repeat(info.pos - start) + '^';
    ui.regexErrorWhere.append(document.createTextNode(pattern.slice(start, end) + '\n'), caret);
    if (pattern === ui.regex.value) {
      ui.regex.setSelectionRange(info.pos, Math.min(info.pos + 1, pattern.length));
    }
  }
  ui.regexError.hidden = false;
  ui.regex.classList.add('invalid');
}

function eosChoice() {
  const value = ui.eos.value.trim();
  return value === '' || value === app.autoEos ? null : value;
}
function vocabKey() { return `${app.source.key}\u0000${eosChoice() ?? ''}`; }

function updateButtons() {
  ui.build.disabled = !app.ready || app.busy;
  ui.cancel.disabled = !app.busy;
  ui.guideStart.disabled = !app.ready || app.busy;
  ui.guideCancel.disabled = !app.busy;
  ui.guideFromIndex.disabled = app.busy;
  ui.vocabDefault.disabled = app.busy;
  for (const b of [ui.guideBack, ui.guideReset]) b.disabled = app.busy;
}

// ------------------------------------------------------------------------------------------ vocabulary
async function ensureVocab(onProgress) {
  const key = vocabKey();
  if (app.vocab && app.vocabFor === key) return app.vocab;
  const source = app.source;
  const msg = { type: 'vocab', eos: eosChoice(), key: source.key,
                source: source.file ? { file: source.file, siblings: source.siblings || [], name: source.name } : { url: source.url, name: source.name } };
  ui.vocabInfo.textContent = `${source.label}: reading…`;
  try {
    const info = await request(msg, onProgress);
    if (source !== app.source) return ensureVocab(onProgress); // another file was picked meanwhile
    app.vocab = info;
    app.vocabFor = key;
    showVocab(info);
    return info;
  } catch (err) {
    if (source === app.source) {
      app.vocab = null;
      app.vocabFor = null;
      ui.vocabInfo.textContent = `${source.label}: not usable (see the message above)`;
    }
    throw err;
  }
}

function showVocab(info) {
  const how = info.decoding ? `, ${info.decoding} tokens` : '';
  ui.vocabInfo.textContent = `${app.source.label}: ${fmt(info.num_tokens)} ordinary tokens, vocab size ${fmt(info.vocab_size)}${how}` +
    (info.reused ? ' (already prepared)' : `, read and prepared in ${secs(info.seconds)}`);
  const eosText = info.eos_token ?? String(info.eos_token_id);
  if (eosChoice() === null) {
    ui.eos.value = eosText;
    app.autoEos = eosText;
  }
  ui.eosNote.textContent = `id ${info.eos_token_id}` + (info.eos_note ? ` — ${info.eos_note}` : '');
  ui.eos.dataset.eosId = String(info.eos_token_id);
}

// A vocabulary chosen while the worker is busy is read when the task ends.
function afterTask() {
  if (app.pendingVocab && !app.busy) {
    app.pendingVocab = false;
    if (app.vocabFor !== vocabKey()) loadVocabNow();
  }
}

async function loadVocabNow() {
  if (!app.ready) return;
  if (app.busy) {
    app.pendingVocab = true;
    ui.vocabInfo.textContent = `${app.source.label}: read when the current task ends…`;
    return;
  }
  clearError();
  setState('loading');
  app.busy = true;
  updateButtons();
  try {
    await ensureVocab((stage) => setStatus(`${stage}…`));
    if (!ui.body.dataset.readyMs) ui.body.dataset.readyMs = performance.now().toFixed(0);
    setState('ready');
    setStatus('Ready');
  } catch (err) {
    showError(err.info || { message: String(err.message || err) });
    setState('error');
    setStatus('The vocabulary could not be used');
  } finally {
    app.busy = false;
    updateButtons();
    afterTask();
  }
}

const SIBLING_FILES = ['generation_config.json', 'tokenizer_config.json', 'special_tokens_map.json'];

// Files picked or dropped together: the vocabulary (tokenizer.json / vocab.json, else the first
// other file) plus the config files that name EOS, read as if they were beside it on disk.
function useFiles(fileList) {
  const files = [...(fileList || [])];
  if (!files.length) return;
  const siblings = files.filter((f) => SIBLING_FILES.includes(f.name));
  const rest = files.filter((f) => !SIBLING_FILES.includes(f.name));
  const main = rest.find((f) => f.name === 'tokenizer.json') || rest.find((f) => f.name === 'vocab.json') || rest[0];
  if (!main) {
    showError({ kind: 'VocabularyError', message: `${files.map((f) => f.name).join(', ')}: pick the vocab.json or tokenizer.json too (config files only name the EOS token)` });
    setState('error');
    return;
  }
  useFile(main, siblings);
}

function useFile(file, siblings = []) {
  if (!file) return;
  const sib = siblings.map((f) => `${f.name}:${f.size}:${f.lastModified}`).join('|');
  app.source = { file, siblings, name: file.name, label: siblings.length ? `${file.name} (+ ${siblings.map((f) => f.name).join(', ')})` : file.name,
                 key: `file:${file.name}:${file.size}:${file.lastModified}|${sib}` };
  app.vocab = null;
  app.vocabFor = null;
  ui.eos.value = '';
  app.autoEos = null;
  ui.eosNote.textContent = '';
  loadVocabNow();
}

ui.vocabFile.addEventListener('change', () => useFiles(ui.vocabFile.files));
ui.vocabDefault.addEventListener('click', () => {
  ui.vocabFile.value = '';
  app.source = BUNDLED;
  app.vocab = null;
  ui.eos.value = '';
  app.autoEos = null;
  loadVocabNow();
});
ui.eos.addEventListener('change', () => {
  if (ui.eos.value.trim() === '') app.autoEos = null;
  loadVocabNow();
});

// Drag and drop a vocabulary file anywhere on the page.
let dragDepth = 0;
document.addEventListener('dragenter', (e) => { if (e.dataTransfer?.types?.includes('Files')) { dragDepth++; ui.body.classList.add('dragging'); } });
document.addEventListener('dragleave', () => { dragDepth = Math.max(0, dragDepth - 1); if (!dragDepth) ui.body.classList.remove('dragging'); });
document.addEventListener('dragover', (e) => { if (e.dataTransfer?.types?.includes('Files')) e.preventDefault(); });
document.addEventListener('drop', (e) => {
  dragDepth = 0;
  ui.body.classList.remove('dragging');
  const file = e.dataTransfer?.files?.[0];
  if (!file) return;
  e.preventDefault();
  if (e.target === ui.schema || ui.schemaBox.contains(e.target)) { file.text().then((t) => { ui.schema.value = t; }); return; }
  useFiles(e.dataTransfer.files);
});

// ------------------------------------------------------------------------------------------ regex & schema
for (const [key, label] of Object.entries(EXAMPLE_LABELS)) {
  const opt = document.createElement('option');
  opt.value = key;
  opt.textContent = label;
  ui.examples.append(opt);
}
ui.examples.addEventListener('change', () => {
  const key = ui.examples.value;
  if (!key) return;
  ui.regex.value = EXAMPLES[key];
  ui.name.value = key;
  clearError();
});

for (const radio of document.querySelectorAll('input[name=source]')) {
  radio.addEventListener('change', () => { ui.schemaBox.hidden = !$('source-schema').checked; });
}
ui.schemaFile.addEventListener('change', async () => {
  const file = ui.schemaFile.files[0];
  if (file) ui.schema.value = await file.text();
});
ui.schemaButton.addEventListener('click', async () => {
  if (!app.ready || app.busy) return;
  clearError();
  ui.schemaNote.textContent = '';
  try {
    const out = await call('regex_from_schema', [ui.schema.value]);
    ui.regex.value = out.regex;
    if (ui.name.value === 'index' || ui.name.value in EXAMPLES) ui.name.value = 'schema';
    ui.schemaNote.textContent = `Regex generated (${fmt(out.regex.length)} characters)` + (out.warnings.length ? `. ${out.warnings.join(' ')}` : '');
  } catch (err) {
    showError(err.info || { message: String(err) });
    ui.schemaNote.textContent = 'The schema could not be turned into a regex.';
  }
});

// ------------------------------------------------------------------------------------------ build
let timer = null;
function startTimer(label) {
  const t0 = performance.now();
  ui.elapsed.textContent = '';
  timer = setInterval(() => { ui.elapsed.textContent = `${label} ${((performance.now() - t0) / 1000).toFixed(1)} s`; }, 100);
  return t0;
}
function stopTimer(t0, label) {
  clearInterval(timer);
  timer = null;
  ui.elapsed.textContent = `${label} ${((performance.now() - t0) / 1000).toFixed(2)} s`;
}

let lastProgress = 0;
function onBuildProgress(stage, done, total) {
  const now = performance.now();
  if (now - lastProgress < 40 && stage === 'states' && done < total) return;
  lastProgress = now;
  if (stage === 'states') {
    ui.progress.max = Math.max(total, 1);
    ui.progress.value = done;
    ui.progressLabel.textContent = `states ${fmt(done)} / ${fmt(total)}`;
  } else {
    ui.progress.removeAttribute('value'); // indeterminate while the vocabulary / automaton is prepared
    ui.progressLabel.textContent = stage === 'automaton' ? 'compiling the regex' : stage === 'vocabulary' ? 'vocabulary ready' : stage;
  }
}

function safeName() {
  const n = ui.name.value.trim().replace(/\.outlines$/i, '').replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_');
  return n || 'index';
}

async function build() {
  if (!app.ready || app.busy) return;
  clearError();
  ui.result.hidden = true;
  app.result = null;
  app.busy = true;
  updateButtons();
  setState('building');
  setStatus('Building…');
  ui.progress.max = 1;
  ui.progress.removeAttribute('value');
  ui.progressLabel.textContent = 'vocabulary';
  const t0 = startTimer('elapsed');
  const regex = ui.regex.value;
  try {
    const vocab = await ensureVocab((stage) => { ui.progressLabel.textContent = stage; });
    const maxStates = Math.max(1, parseInt(ui.maxStates.value, 10) || 100000);
    const res = await call('build_index', [regex, vocab.fingerprint, ui.ascii.checked, maxStates, '$progress', '$cancel'], onBuildProgress);
    stopTimer(t0, 'done in');
    ui.progress.max = 1;
    ui.progress.value = 1;
    ui.progressLabel.textContent = 'done';
    app.result = { ...res, name: `${safeName()}.outlines`, regex, ascii: ui.ascii.checked, vocabName: app.source.name, source: app.source };
    showStats(app.result);
    setState('done');
    setStatus('Index built');
  } catch (err) {
    stopTimer(t0, 'stopped after');
    ui.progress.max = 1;
    ui.progress.value = 0;
    const info = err.info || { kind: 'Error', message: String(err.message || err) };
    const cancelled = info.kind === 'BuildCancelled';
    ui.progressLabel.textContent = cancelled ? 'cancelled' : 'failed';
    if (cancelled) info.message = 'Build cancelled. Nothing was changed: edit the inputs or build again.';
    showError(info, { cancelled });
    if (info.pos !== undefined || info.kind === 'RegexError' || info.kind === 'StateLimitError') showRegexError(info);
    setState('error');
    setStatus(cancelled ? 'Cancelled' : 'The build failed');
  } finally {
    app.busy = false;
    updateButtons();
    afterTask();
  }
}

function showStats(r) {
  ui.stats.replaceChildren();
  const rows = [
    ['states', fmt(r.num_states)], ['transitions', fmt(r.num_transitions)], ['final states', fmt(r.num_final_states)],
    ['initial state', String(r.initial_state)], ['vocab size', fmt(r.vocab_size)], ['EOS id', String(r.eos_token_id)],
    ['build time', secs(r.build_seconds)], ['file written in', secs(r.serialize_seconds)],
    ['file', `${r.name}, ${fmt(r.file_size)} bytes`],
  ];
  for (const [k, v] of rows) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = v;
    dd.dataset.stat = k.replace(/ /g, '-');
    ui.stats.append(dt, dd);
  }
  ui.download.textContent = `Download ${r.name}`;
  ui.result.hidden = false;
}

ui.build.addEventListener('click', build);
ui.regex.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); build(); } });
ui.cancel.addEventListener('click', () => { if (app.busy) cancelWorker(); });
ui.regex.addEventListener('input', () => {
  ui.regex.classList.remove('invalid');
  // an edited example is no longer that example: drop its name unless the user chose one
  const key = ui.examples.value;
  if (key && ui.regex.value !== EXAMPLES[key]) {
    ui.examples.value = '';
    if (ui.name.value === key) ui.name.value = 'index';
  }
});

ui.download.addEventListener('click', () => {
  const r = app.result;
  if (!r) return;
  const url = URL.createObjectURL(new Blob([r.bytes], { type: 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = r.name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
});

async function vocabTextOf(source) {
  if (source.file) return source.file.text();
  const resp = await fetch(source.url);
  return resp.ok ? resp.text() : null;
}

// Open the player in a new tab and hand the index over with postMessage (no second download).
ui.openPlayer.addEventListener('click', () => {
  const r = app.result;
  if (!r) return;
  const win = window.open('player.html', '_blank');
  if (!win) { showError({ message: 'The browser blocked the new tab: allow pop-ups for this page, or use Download.' }); return; }
  const vocabText = vocabTextOf(r.source).catch(() => null);
  const onMessage = async (event) => {
    if (event.source !== win || !event.data || event.data.type !== 'tokenguide-player-ready') return;
    window.removeEventListener('message', onMessage);
    const vocab = await vocabText;
    const bytes = r.bytes.slice(); // a copy: the page keeps its own for Download
    win.postMessage({ type: 'tokenguide-index', bytes: bytes.buffer, vocab, vocabName: r.vocabName, name: r.name }, location.origin, [bytes.buffer]);
  };
  window.addEventListener('message', onMessage);
});

// ------------------------------------------------------------------------------------------ live guide
const grammarCache = {};
async function loadGrammar(name) {
  if (!name) return;
  if (!(name in grammarCache)) grammarCache[name] = await call('grammar_text', [name]);
  ui.guideGrammar.value = grammarCache[name];
}
ui.guideGrammarSelect.addEventListener('change', () => { if (app.ready) loadGrammar(ui.guideGrammarSelect.value).catch(() => {}); });
ui.guideGrammar.addEventListener('input', () => { ui.guideGrammarSelect.value = ''; });
function showGuideKind() {
  const cfg = $('guide-kind-cfg').checked;
  for (const el of document.querySelectorAll('.cfg-only')) el.hidden = !cfg;
}
for (const radio of document.querySelectorAll('input[name=guide-kind]')) radio.addEventListener('change', showGuideKind);

let guideTimer = null;
function guideProgress(stage, done, total) {
  ui.guideProgress.max = Math.max(total, 1);
  ui.guideProgress.value = done;
  ui.guideStatus.textContent = `${stage} ${fmt(done)} / ${fmt(total)}`;
}

// Run one worker step of the live guide with progress, cancel and error display.
async function guideTask(label, fn) {
  if (!app.ready || app.busy) return null;
  clearError();
  app.busy = true;
  updateButtons();
  ui.guideStatus.textContent = label;
  ui.guideProgress.removeAttribute('value');
  const t0 = performance.now();
  try {
    const out = await fn();
    ui.guideProgress.max = 1;
    ui.guideProgress.value = 1;
    ui.guideStatus.textContent = `${label.replace(/…$/, '')}: ${secs((performance.now() - t0) / 1000)}`;
    return out;
  } catch (err) {
    const info = err.info || { kind: 'Error', message: String(err.message || err) };
    const cancelled = info.kind === 'BuildCancelled';
    ui.guideProgress.value = 0;
    ui.guideStatus.textContent = cancelled ? 'stopped' : 'failed';
    if (cancelled) info.message = 'Stopped. Step again to compute the allowed tokens.';
    showError(info, { cancelled });
    if (info.kind === 'RegexError' && ui.body.querySelector('#guide-kind-regex').checked) showRegexError(info);
    return null;
  } finally {
    app.busy = false;
    updateButtons();
    afterTask();
  }
}

// The allowed tokens of the current state, all of them, shown in a virtualized grid: only the
// cards in view exist in the page, so states with 50,000 allowed tokens stay smooth. Filtering
// happens here, without asking the worker.
const grid = {
  ids: new Uint32Array(0), texts: [], eos: -1,
  matched: [],               // indexes into ids/texts of the tokens that pass the filter
  cardW: 150, rowH: 46, cols: 1,
  spacer: document.createElement('div'),
  layer: document.createElement('div'),
};
grid.spacer.className = 'vspacer';
grid.layer.className = 'vlayer';
ui.guideTokens.append(grid.spacer, grid.layer);

async function refreshGuide() {
  const view = await call('guide_view', ['', -1, '$progress', '$cancel'], guideProgress);
  const bytes = view.ids instanceof Uint8Array ? view.ids : new Uint8Array(0);
  grid.ids = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  grid.texts = view.num_allowed ? view.texts.split('\u0000') : [];
  grid.eos = view.eos_token_id;
  renderGuide(view);
  applyFilter();
  ui.guideTokens.scrollTop = 0;
  return view;
}

function applyFilter() {
  const needle = ui.guideFilter.value.trim();
  const matched = [];
  for (let i = 0; i < grid.ids.length; i++) {
    if (!needle || grid.texts[i].includes(needle) || String(grid.ids[i]) === needle) matched.push(i);
  }
  grid.matched = matched;
  ui.guideTokens.matchedIds = matched.map((i) => grid.ids[i]); // for tests and the console
  const total = grid.ids.length;
  ui.guideCount.dataset.allowed = String(total);
  ui.guideCount.dataset.matched = String(matched.length);
  ui.guideCount.textContent = ui.guideView.dataset.done === 'true' ? 'generation ended (EOS)' :
    `${fmt(total)} allowed` + (needle ? `, ${fmt(matched.length)} match the filter` : '');
  layoutGrid();
}

function layoutGrid() {
  const width = ui.guideTokens.clientWidth || 600;
  grid.cols = Math.max(1, Math.floor(width / grid.cardW));
  const rows = Math.ceil(grid.matched.length / grid.cols);
  grid.spacer.style.height = `${rows * grid.rowH}px`;
  drawGrid();
}

function drawGrid() {
  const box = ui.guideTokens;
  const first = Math.max(0, Math.floor(box.scrollTop / grid.rowH) - 2);
  const last = Math.ceil((box.scrollTop + (box.clientHeight || 420)) / grid.rowH) + 2;
  const colW = (box.clientWidth || 600) / grid.cols;
  const cards = [];
  for (let row = first; row <= last; row++) {
    for (let col = 0; col < grid.cols; col++) {
      const k = row * grid.cols + col;
      if (k >= grid.matched.length) break;
      const i = grid.matched[k];
      const id = grid.ids[i];
      const isEos = id === grid.eos;
      const b = document.createElement('button');
      b.type = 'button';
      b.className = isEos ? 'token eos' : 'token';
      b.setAttribute('data-testid', 'guide-token');
      b.dataset.tokenId = String(id);
      b.style.top = `${row * grid.rowH}px`;
      b.style.left = `${col * colW}px`;
      b.style.width = `${colW - 6}px`;
      const idSpan = document.createElement('span');
      idSpan.className = 'id';
      idSpan.textContent = isEos ? `${id} · EOS` : String(id);
      const txt = document.createElement('span');
      txt.className = 'txt';
      txt.textContent = grid.texts[i];
      b.title = `token ${id}: ${grid.texts[i]}`;
      b.append(idSpan, txt);
      cards.push(b);
    }
  }
  grid.layer.replaceChildren(...cards);
}

let drawPending = false;
ui.guideTokens.addEventListener('scroll', () => {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => { drawPending = false; drawGrid(); });
});
new ResizeObserver(() => layoutGrid()).observe(ui.guideTokens);

async function startGuide(kind) {
  const out = await guideTask(kind === 'cfg' ? 'building the grammar guide…' : 'building the regex guide…', async () => {
    const vocab = await ensureVocab();
    const sourceText = kind === 'cfg' ? ui.guideGrammar.value : ui.regex.value;
    await call('guide_start', [kind, sourceText, vocab.fingerprint, ui.ascii.checked, '$progress', '$cancel'], guideProgress);
    ui.guideView.hidden = false;
    ui.guideView.dataset.kind = kind;
    return refreshGuide();
  });
  return out;
}

ui.guideStart.addEventListener('click', () => startGuide($('guide-kind-cfg').checked ? 'cfg' : 'regex'));
ui.guideFromIndex.addEventListener('click', () => {
  $('guide-kind-regex').checked = true;
  showGuideKind();
  $('guide-section').scrollIntoView({ behavior: 'smooth' });
  startGuide('regex');
});
ui.guideCancel.addEventListener('click', () => { if (app.busy) cancelWorker(); });
ui.guideBack.addEventListener('click', () => guideTask('going back…', async () => { await call('guide_back', []); return refreshGuide(); }));
ui.guideReset.addEventListener('click', () => guideTask('resetting…', async () => { await call('guide_reset', []); return refreshGuide(); }));
ui.guideFilter.addEventListener('input', () => applyFilter());

function guideStep(id) {
  return guideTask('computing the allowed tokens…', async () => { await call('guide_step', [id]); return refreshGuide(); });
}
ui.guideTokens.addEventListener('click', (e) => {
  const card = e.target.closest('[data-token-id]');
  if (!card || app.busy) return;
  guideStep(Number(card.dataset.tokenId));
});
// Enter in the filter takes the token whose id was typed, or the only token left.
ui.guideFilter.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter' || app.busy) return;
  e.preventDefault();
  const value = ui.guideFilter.value.trim();
  const ids = ui.guideTokens.matchedIds || [];
  const exact = /^\d+$/.test(value) ? ids.find((id) => String(id) === value) : undefined;
  const id = exact !== undefined ? exact : ids.length === 1 ? ids[0] : undefined;
  if (id === undefined) return;
  ui.guideFilter.value = '';
  guideStep(id);
});

function renderGuide(v) {
  $('guide-desc').textContent = v.description;
  ui.guideState.textContent = v.state;
  ui.guideFinal.hidden = !v.final;
  ui.guideView.dataset.done = v.done ? 'true' : 'false';
  ui.guideText.textContent = v.text;
  ui.guidePath.replaceChildren(...v.path.map(([id, text]) => {
    const li = document.createElement('li');
    li.textContent = `${id}  ${JSON.stringify(text)}`;
    return li;
  }));
  ui.guidePath.scrollTop = ui.guidePath.scrollHeight;
}

// ------------------------------------------------------------------------------------------ start-up
function onWorkerReady(msg) {
  app.ready = true;
  ui.body.dataset.pythonReadyMs = performance.now().toFixed(0); // since navigation start (for benchmarks)
  ui.body.dataset.workerMarks = JSON.stringify(msg.marks || {});
  setStatus(`Python ready in ${msg.seconds.toFixed(1)} s; preparing the vocabulary…`);
  loadGrammar(ui.guideGrammarSelect.value).catch(() => {});
  loadVocabNow();
}

function onFatal(message) {
  app.ready = false;
  showError({ kind: 'Fatal', message: `The Python runtime could not start: ${message}` });
  setState('error');
  setStatus('Not available');
  updateButtons();
}

ui.regex.value = EXAMPLES.email;
ui.examples.value = 'email';
ui.name.value = 'email';
updateButtons();

if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol) && !new URLSearchParams(location.search).has('nosw')) {
  navigator.serviceWorker.register('sw.js').catch(() => { /* offline use is optional */ });
}
