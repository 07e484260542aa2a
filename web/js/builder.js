// The builder: regex (typed, from the examples or generated from a JSON Schema), options, and
// the index build in the worker with progress, Cancel and the result's figures.

import { ui, $, fmt, secs, setState, setStatus, showError, clearError, showRegexError, errorInfo } from './ui.js';
import { tasks } from './tasks.js';
import { NativeGzip, nativeGzipAvailable } from './native_gzip.js';
import { FastGzip } from './fast_gzip.js';
import { RangePayload } from './range_payload.js';

/** Transitions from which the page says an index is large (the bridge's LARGE_INDEX_TRANSITIONS). */
const LARGE_INDEX = 2_000_000;
const WRITE_NOTES = {
  auto: 'Canonical bytes (the browser\'s gzip: in Chromium byte for byte the file `python -m tokenguide build` writes), except for a large index (2 million transitions or more): the fast file (fflate\'s deflate at level 1 in the page), which loads to the same index and is about 14% larger. The result says which.',
  fast: 'Payload written in the page from the index\'s key ranges, gzip by fflate\'s deflate at level 1 (bundled, JavaScript): the fastest, about 14% larger than the canonical file. It loads to the same index; its bytes are not the command line\'s.',
  native: 'Payload written in the page, gzip by the browser (CompressionStream). In Chromium its deflate is zlib level 6: byte for byte the file `python -m tokenguide build` writes. Another browser\'s may differ: equally valid, not byte-identical.',
  canonical: 'Payload and zlib level 6 in the worker (WebAssembly, several times slower): byte for byte the file `python -m tokenguide build` writes, in every browser.',
  unavailable: 'This browser has no CompressionStream: choose the fast file or the canonical bytes (zlib level 6 in the worker).',
};
const WRITE_LABELS = {
  fast: 'fast (fflate deflate level 1, not the command line\'s bytes)',
  native: 'browser gzip (CompressionStream)',
  canonical: 'canonical (zlib level 6, as the command line)',
};
/** Page-side payload chunk size, and the longest the page works between two yields to its event loop. */
const PAGE_CHUNK = 1 << 20;
const PAGE_SLICE_MS = 30;

/** Resolves on the next turn of the event loop (a message: no timer clamping). */
function nextTurn() {
  return new Promise((resolve) => { const ch = new MessageChannel(); ch.port1.onmessage = () => resolve(); ch.port2.postMessage(0); });
}

export const EXAMPLES = {
  email: String.raw`[a-z0-9!#$%&'*+/=?^_\`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_\`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?`,
  date: String.raw`(19|20)\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])`,
  ip: String.raw`((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`,
  json_object: String.raw`\{[ ]?"name"[ ]?:[ ]?"([^"\\\x00-\x1F\x7F-\x9F]|\\["\\/bfnrt])*"[ ]?,[ ]?"age"[ ]?:[ ]?(0|[1-9][0-9]*)[ ]?\}`,
  json_string: String.raw`"([^"\\\x00-\x1F\x7F-\x9F]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"`,
};
const EXAMPLE_LABELS = { email: 'email', date: 'date (YYYY-MM-DD)', ip: 'IPv4 address', json_object: 'JSON object', json_string: 'JSON string' };

/** Elapsed-time display of a running task. */
class Timer {
  start(label) {
    const t0 = performance.now();
    ui.elapsed.textContent = '';
    this.handle = setInterval(() => { ui.elapsed.textContent = `${label} ${((performance.now() - t0) / 1000).toFixed(1)} s`; }, 100);
    return t0;
  }
  stop(t0, label) {
    clearInterval(this.handle);
    this.handle = null;
    ui.elapsed.textContent = `${label} ${((performance.now() - t0) / 1000).toFixed(2)} s`;
  }
}

/** The last build's result {bytes, name, regex, ascii, vocabName, source, ...figures}, or null. */
export const lastBuild = { result: null };

export class Builder {
  constructor(client, vocabulary) {
    this.client = client;
    this.vocabulary = vocabulary;
    this.timer = new Timer();
    this.lastProgress = 0;
    this.schemaRegex = null;      // the regex last generated from the JSON Schema
    this.onSchemaTrouble = null;  // (why) => ...: the schema has no index the builder can make
    this.toGuide = false; // "Use the live guide instead" was clicked during this build
    this.writing = null;  // {cancelled, gzip, stop, stopped} while a build runs (the page writes its file for 'fast' and 'native')
    this.writeMode = $('write-mode');
    this.writeNote = $('write-note');
    this.largeNote = $('large-note');
  }

  /** 'auto' (decided once built: see pageWrite), 'fast' (the page's payload, fflate level 1), 'native'
   *  (the page's payload, the browser's gzip) or 'canonical' (payload and zlib level 6 in the worker). */
  chosenWrite() {
    const mode = this.writeMode.value;
    return mode === 'native' && !nativeGzipAvailable() ? 'canonical' : mode;
  }

  /** How the page writes a built index of `transitions` in mode `write` ('auto', 'fast' or 'native'). */
  pageWrite(write, transitions) {
    if (write !== 'auto') return write;
    return transitions >= LARGE_INDEX || !nativeGzipAvailable() ? 'fast' : 'native';
  }

  showWriteNote() {
    const mode = this.writeMode.value;
    this.writeNote.textContent = mode === 'native' && !nativeGzipAvailable() ? WRITE_NOTES.unavailable : WRITE_NOTES[mode];
  }

  /** Write the file in the page from the worker's key ranges (build_index write='ranges'). */
  async writeInPage(res, write, writing) {
    const payload = new RangePayload(res.table);
    delete res.table;
    const gzip = write === 'native' ? new NativeGzip() : new FastGzip();
    writing.gzip = gzip;
    let slice = performance.now();
    for (const { bytes, done } of payload.chunks(PAGE_CHUNK)) {
      if (writing.cancelled) break;
      await Promise.race([gzip.push(bytes), writing.stopped]); // a Cancel does not wait for the compressor
      this.onProgress('writing', done, payload.total);
      if (performance.now() - slice > PAGE_SLICE_MS) { await nextTurn(); slice = performance.now(); }
    }
    if (writing.cancelled) throw Object.assign(new Error('writing the file was cancelled'), { info: { kind: 'BuildCancelled', message: 'writing the file was cancelled' } });
    ui.progressLabel.textContent = 'compressing the last chunks';
    return gzip.finish();
  }

  /** Cancel the running task: the worker's part, and the page's writing when it is the page's turn. */
  cancelTask() {
    if (!tasks.busy) return;
    if (this.writing) { this.writing.cancelled = true; this.writing.stop(); }
    this.client.cancel();
  }

  /** Built, not yet written: say when the index is large, and offer the live guide instead. */
  showSize(transitions, payloadBytes) {
    ui.body.dataset.payloadBytes = String(payloadBytes);
    if (transitions < LARGE_INDEX) return;
    const mb = (payloadBytes / 1e6).toFixed(1);
    $('large-text').textContent = `Large index: ${fmt(transitions)} transitions, ${mb} MB before compression. ` +
      'Writing its file takes seconds and the file is large; the live guide steps through the same index without any file.';
    this.largeNote.hidden = false;
  }

  onProgress(stage, done, total) {
    const now = performance.now();
    if (now - this.lastProgress < 40 && (stage === 'states' || stage === 'writing') && done < total && stage === ui.progress.dataset.stage) return;
    this.lastProgress = now;
    if (stage === 'states' || stage === 'writing') {
      ui.progress.max = Math.max(total, 1);
      ui.progress.value = done;
      ui.progressLabel.textContent = stage === 'states' ? `states ${fmt(done)} / ${fmt(total)}` :
        `writing the file: ${fmt(done)} / ${fmt(total)} transitions`;
      ui.progress.dataset.stage = stage;
    } else {
      ui.progress.removeAttribute('value'); // indeterminate while the vocabulary / automaton is prepared
      ui.progressLabel.textContent = stage === 'automaton' ? 'compiling the regex' : stage === 'vocabulary' ? 'vocabulary ready' : stage;
    }
  }

  safeName() {
    const n = ui.name.value.trim().replace(/\.outlines$/i, '').replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_');
    return n || 'index';
  }

  /** The Max states box as a number: empty means the default (100,000); anything but a whole number >= 1 is an error. */
  maxStates() {
    const text = ui.maxStates.value.trim();
    if (text === '') return 100000;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) return null;
    return n;
  }

  async build() {
    if (!tasks.ready || tasks.busy) return;
    clearError();
    const maxStates = this.maxStates();
    ui.maxStates.classList.toggle('invalid', maxStates === null);
    if (maxStates === null) {
      showError({ kind: 'ValueError', message: `Max states is ${JSON.stringify(ui.maxStates.value)}: type a whole number of 1 or more (or leave it empty for 100,000).` });
      setState('error');
      setStatus('Nothing was built');
      ui.maxStates.focus();
      return;
    }
    ui.result.hidden = true;
    this.largeNote.hidden = true;
    this.toGuide = false;
    delete ui.body.dataset.payloadBytes;
    lastBuild.result = null;
    setState('building');
    setStatus('Building…');
    ui.progress.max = 1;
    ui.progress.removeAttribute('value');
    delete ui.progress.dataset.stage;
    ui.progressLabel.textContent = 'vocabulary';
    const t0 = this.timer.start('elapsed');
    const regex = ui.regex.value;
    let write = this.chosenWrite();
    await tasks.run(async () => {
      const inPage = write !== 'canonical';
      const writing = this.writing = { cancelled: false, gzip: null, stop: null };
      writing.stopped = new Promise((resolve) => { writing.stop = resolve; });
      let writeStart = null;
      try {
        const vocab = await this.vocabulary.ensure((stage) => { ui.progressLabel.textContent = stage; });
        const onProgress = (stage, done, total) => {
          if (stage === 'built') { writeStart = performance.now(); this.showSize(done, total); return; }
          this.onProgress(stage, done, total);
        };
        const args = [regex, vocab.fingerprint, ui.ascii.checked, maxStates, '$progress', '$cancel', inPage ? 'ranges' : 'canonical', null];
        const res = await this.client.call('build_index', args, onProgress);
        if (inPage) {
          write = this.pageWrite(write, res.num_transitions);
          res.bytes = await this.writeInPage(res, write, writing);
          res.file_size = res.bytes.length;
          res.serialize_seconds = (performance.now() - writeStart) / 1000;
        }
        res.write = write;
        this.timer.stop(t0, 'done in');
        ui.progress.max = 1;
        ui.progress.value = 1;
        ui.progressLabel.textContent = 'done';
        const source = this.vocabulary.source;
        lastBuild.result = { ...res, name: `${this.safeName()}.outlines`, regex, ascii: ui.ascii.checked, vocabName: source.name, source };
        this.showStats(lastBuild.result);
        setState('done');
        setStatus('Index built');
      } catch (err) {
        if (writing.gzip) writing.gzip.abort();
        this.timer.stop(t0, 'stopped after');
        ui.progress.max = 1;
        ui.progress.value = 0;
        const info = errorInfo(err);
        const cancelled = info.kind === 'BuildCancelled';
        const phase = ui.progress.dataset.stage === 'writing' || writeStart !== null ? ' while the file was written' : '';
        if (cancelled && this.toGuide) {
          ui.progressLabel.textContent = 'file not written: live guide instead';
          setState('ready');
          setStatus('Stepping through the index in the live guide');
          return;
        }
        ui.progressLabel.textContent = cancelled ? `cancelled${phase}` : 'failed';
        if (cancelled) info.message = `Build cancelled${phase}. Nothing was changed: edit the inputs or build again.`;
        showError(info, { cancelled });
        if (info.pos !== undefined || info.kind === 'RegexError' || info.kind === 'StateLimitError') showRegexError(info);
        if (!cancelled && this.schemaRegex === regex) this.onSchemaTrouble?.('This schema\'s regex has no index that can be built here.');
        setState('error');
        setStatus(cancelled ? 'Cancelled' : 'The build failed');
      } finally {
        this.writing = null;
      }
    });
    if (this.toGuide) {
      this.toGuide = false;
      ui.guideFromIndex.click(); // the index just built (kept in the worker) in the live guide
    }
  }

  /** "Use the live guide instead": stop writing the file (if it is being written), then step through the index. */
  guideInstead() {
    this.largeNote.hidden = true;
    if (tasks.busy) {
      this.toGuide = true;
      this.cancelTask();
    } else {
      ui.guideFromIndex.click();
    }
  }

  showStats(r) {
    ui.stats.replaceChildren();
    const rows = [
      ['states', fmt(r.num_states)], ['transitions', fmt(r.num_transitions)], ['final states', fmt(r.num_final_states)],
      ['initial state', String(r.initial_state)], ['vocab size', fmt(r.vocab_size)], ['EOS id', String(r.eos_token_id)],
      ['build time', secs(r.build_seconds)], ['file written in', secs(r.serialize_seconds)],
      ['file', `${r.name}, ${fmt(r.file_size)} bytes`], ['file bytes', WRITE_LABELS[r.write] || r.write],
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

  async regexFromSchema() {
    if (!tasks.ready || tasks.busy) return;
    clearError();
    ui.schemaNote.textContent = '';
    try {
      const out = await this.client.call('regex_from_schema', [ui.schema.value]);
      ui.regex.value = out.regex;
      ui.examples.value = '';   // the regex is the schema's now, no longer the example's
      if (ui.name.value === 'index' || ui.name.value in EXAMPLES) ui.name.value = 'schema';
      ui.schemaNote.textContent = `Regex generated (${fmt(out.regex.length)} characters)` + (out.warnings.length ? `. ${out.warnings.join(' ')}` : '');
      this.schemaRegex = out.regex;
    } catch (err) {
      showError(errorInfo(err));
      ui.schemaNote.textContent = 'The schema could not be turned into a regex.';
      this.onSchemaTrouble?.('The schema could not be turned into a regex.');
    }
  }

  /** Fill the Examples menu, set the first example, wire the inputs and buttons. */
  bind() {
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
    ui.schemaButton.addEventListener('click', () => this.regexFromSchema());
    ui.maxStates.addEventListener('input', () => ui.maxStates.classList.remove('invalid'));
    ui.build.addEventListener('click', () => this.build());
    this.writeMode.addEventListener('change', () => this.showWriteNote());
    if (!nativeGzipAvailable()) this.writeMode.querySelector('option[value=native]').disabled = true;
    this.showWriteNote();
    $('large-guide').addEventListener('click', () => this.guideInstead());
    ui.regex.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); this.build(); } });
    ui.cancel.addEventListener('click', () => this.cancelTask());
    ui.regex.addEventListener('input', () => {
      ui.regex.classList.remove('invalid');
      // an edited example is no longer that example: drop its name unless the user chose one
      const key = ui.examples.value;
      if (key && ui.regex.value !== EXAMPLES[key]) {
        ui.examples.value = '';
        if (ui.name.value === key) ui.name.value = 'index';
      }
    });
    ui.regex.value = EXAMPLES.email;
    ui.examples.value = 'email';
    ui.name.value = 'email';
  }
}
