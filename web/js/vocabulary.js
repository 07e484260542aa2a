// The vocabulary choice of the builder page: files picked / dropped (the first choice), the bundled
// GPT-2 file (prepared in the start-up snapshot), or one of the bundled tokenizers of the menu (read
// from dist/vocab/ on demand), read and prepared in the worker once per (file, EOS choice).

import { ui, fmt, secs, setState, setStatus, showError, clearError, errorInfo } from './ui.js';
import { tasks } from './tasks.js';

export const BUNDLED = { url: 'vocab/gpt2-vocab.json', name: 'gpt2-vocab.json', label: 'GPT-2 (bundled)', key: 'bundled:gpt2', menu: 'gpt2' };

/** The vocabulary menu: GPT-2, and the tokenizers build.py copies to dist/vocab/<id>/ (tokenizer.json
 *  and the tokenizer_config.json that names EOS), read only when chosen. */
export const MENU = { gpt2: BUNDLED };
for (const [id, label] of [['llama2', 'Llama 2'], ['llama3', 'Llama 3'], ['qwen3', 'Qwen3'], ['gemma3', 'Gemma 3'],
  ['mistral_nemo', 'Mistral Nemo'], ['yi', 'Yi']]) {
  MENU[id] = { url: `vocab/${id}/tokenizer.json`, siblingUrls: [`vocab/${id}/tokenizer_config.json`], name: 'tokenizer.json',
               label: `${label} (bundled)`, key: `bundled:${id}`, menu: id };
}
const SIBLING_FILES = ['generation_config.json', 'tokenizer_config.json', 'special_tokens_map.json'];

/** The vocabulary in use: where it comes from and what the worker said about it. */
export class VocabularyChoice {
  constructor(client) {
    this.client = client;
    this.source = BUNDLED;     // {url, name, label, key} or {file, siblings, name, label, key}
    this.info = null;          // description of the loaded vocabulary (from the worker)
    this.infoFor = null;       // the source key + EOS choice `info` was loaded for
    this.autoEos = null;       // the EOS text the page filled in itself (treated as "guess")
    this.pending = false;      // a vocabulary was chosen while the worker was busy
    this.onChange = null;      // called when another vocabulary is chosen (the URL state follows)
  }

  eosChoice() {
    const value = ui.eos.value.trim();
    return value === '' || value === this.autoEos ? null : value;
  }

  key() { return `${this.source.key}\u0000${this.eosChoice() ?? ''}`; }

  /** The prepared vocabulary for the current choice (read in the worker if needed). */
  async ensure(onProgress) {
    const key = this.key();
    if (this.info && this.infoFor === key) return this.info;
    const source = this.source;
    const msg = { type: 'vocab', eos: this.eosChoice(), key: source.key,
                  source: source.file ? { file: source.file, siblings: source.siblings || [], name: source.name }
                    : { url: source.url, name: source.name, siblingUrls: source.siblingUrls || [] } };
    ui.vocabInfo.textContent = `${source.label}: reading…`;
    try {
      const info = await this.client.request(msg, onProgress);
      if (source !== this.source) return this.ensure(onProgress); // another file was picked meanwhile
      this.info = info;
      this.infoFor = key;
      this.show(info);
      return info;
    } catch (err) {
      if (source === this.source) {
        const info = errorInfo(err);
        this.info = null;
        this.infoFor = null;
        ui.vocabInfo.textContent = info.kind === 'BuildCancelled' ? `${source.label}: not read (cancelled)` : `${source.label}: not usable (see the message above)`;
        // never leave an EOS note ("guessed ...") beside a value the file rejected
        const eos = this.eosChoice();
        ui.eosNote.textContent = eos !== null && /eos/i.test(info.message) ? `${JSON.stringify(eos)} is not usable: see the message above` : '';
        delete ui.eos.dataset.eosId;
      }
      throw err;
    }
  }

  show(info) {
    const how = info.decoding ? `, ${info.decoding} tokens` : '';
    ui.vocabInfo.textContent = `${this.source.label}: ${fmt(info.num_tokens)} ordinary tokens, vocab size ${fmt(info.vocab_size)}${how}` +
      (info.snapshot ? ', prepared when the app was built (start-up snapshot)' : info.reused ? ' (already prepared)' : `, read and prepared in ${secs(info.seconds)}`) +
      (ui.vocabInfo.dataset.wanted && !this.source.file ? `. This link was made with ${ui.vocabInfo.dataset.wanted}: pick that file to build the same index.` : '');
    const eosText = info.eos_token ?? String(info.eos_token_id);
    if (this.eosChoice() === null) {
      ui.eos.value = eosText;
      this.autoEos = eosText;
    }
    ui.eosNote.textContent = `id ${info.eos_token_id}` + (info.eos_note ? ` — ${info.eos_note}` : '');
    ui.eos.dataset.eosId = String(info.eos_token_id);
  }

  /** Take the worker's description of a vocabulary it holds prepared already ({key, eos, info},
   *  the bundled one from the start-up snapshot, in its ready message) when it is the current
   *  choice: the first loadNow then needs no request. */
  prime(vocab) {
    if (!vocab || vocab.key !== this.source.key || (vocab.eos ?? null) !== this.eosChoice()) return;
    this.info = vocab.info;
    this.infoFor = this.key();
    this.show(vocab.info);
  }

  /** Read the chosen vocabulary now, or when the running task ends. */
  async loadNow() {
    if (!tasks.ready) return;
    if (tasks.busy) {
      if (!this.pending) {
        this.pending = true;
        tasks.whenIdle(() => { this.pending = false; if (this.infoFor !== this.key()) this.loadNow(); });
      }
      ui.vocabInfo.textContent = `${this.source.label}: read when the current task ends…`;
      return;
    }
    clearError();
    setState('loading');
    await tasks.run(async () => {
      try {
        await this.ensure((stage) => setStatus(`${stage}…`));
        if (!ui.body.dataset.readyMs) {
          ui.body.dataset.readyMs = performance.now().toFixed(0);
          this.onReady?.();
        }
        setState('ready');
        setStatus('Ready');
      } catch (err) {
        const info = errorInfo(err);
        const cancelled = info.kind === 'BuildCancelled';
        if (cancelled) info.message = `Reading ${this.source.label} was cancelled. Choose the file again to use it.`;
        showError(info, { cancelled });
        setState('error');
        setStatus(cancelled ? 'Cancelled' : 'The vocabulary could not be used');
      }
    });
  }

  /** Files picked or dropped together: the vocabulary (tokenizer.json / vocab.json, else the first
   *  other file) plus the config files that name EOS, read as if they were beside it on disk. */
  useFiles(fileList) {
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
    const sib = siblings.map((f) => `${f.name}:${f.size}:${f.lastModified}`).join('|');
    this.choose({ file: main, siblings, name: main.name, label: siblings.length ? `${main.name} (+ ${siblings.map((f) => f.name).join(', ')})` : main.name,
                  key: `file:${main.name}:${main.size}:${main.lastModified}|${sib}` });
  }

  useBundled() { this.choose(BUNDLED); }

  /** Show the choice in the menu: a bundled tokenizer, or "your file" for a file picked or dropped. */
  showInMenu(source) {
    const mine = ui.vocabMenu.querySelector('option[value=file]');
    mine.disabled = !source.file;
    mine.textContent = source.file ? `your file: ${source.name}` : 'your file';
    ui.vocabMenu.value = source.file ? 'file' : source.menu;
  }

  choose(source) {
    this.source = source;
    this.showInMenu(source);
    this.onChange?.();
    this.info = null;
    this.infoFor = null;
    ui.eos.value = '';
    this.autoEos = null;
    ui.eosNote.textContent = '';
    this.loadNow();
  }

  /** The text of the vocabulary file (for the player handover); null when it cannot be read. */
  static async textOf(source) {
    if (source.file) return source.file.text();
    const resp = await fetch(source.url);
    return resp.ok ? resp.text() : null;
  }

  /** Wire the file picker, the bundled button, the EOS box and drag and drop. */
  bind() {
    ui.vocabFile.addEventListener('change', () => this.useFiles(ui.vocabFile.files));
    ui.vocabDefault.addEventListener('click', () => { ui.vocabFile.value = ''; this.useBundled(); });
    ui.vocabMenu.addEventListener('change', () => {
      const source = MENU[ui.vocabMenu.value];
      if (!source || source === this.source) return;
      ui.vocabFile.value = '';
      this.choose(source);
    });
    ui.eos.addEventListener('change', () => {
      if (ui.eos.value.trim() === '') this.autoEos = null;
      this.loadNow();
    });
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
      this.useFiles(e.dataTransfer.files);
    });
  }
}
