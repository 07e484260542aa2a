// The live guide: step through a RegexGuide (the regex of the builder), a CFGGuide (a Lark
// grammar) or a JSON Schema's Guide (Guide.from_json_schema: the library chooses the path) running
// in the worker, with the allowed tokens of each state in a TokenGrid, the time of each mask, and
// the tokens the constraint forced marked.

import { ui, $, secs, fmt, showError, clearError, showRegexError, errorInfo } from './ui.js';
import { tasks } from './tasks.js';
import { TokenGrid } from './token_grid.js';

/** A mask's time for the page: ms with 3 significant digits under 10 ms. */
export function ms(value) {
  if (value === null || value === undefined) return '–';
  return value < 10 ? `${value.toPrecision(3)} ms` : `${fmt(Math.round(value))} ms`;
}

export class LiveGuide {
  constructor(client, vocabulary) {
    this.client = client;
    this.vocabulary = vocabulary;
    this.grammarCache = {};
    this.grid = new TokenGrid(ui.guideTokens, ui.guideCount);
  }

  async loadGrammar(name) {
    if (!name) return;
    if (!(name in this.grammarCache)) this.grammarCache[name] = await this.client.call('grammar_text', [name]);
    ui.guideGrammar.value = this.grammarCache[name];
  }

  progress(stage, done, total) {
    ui.guideProgress.max = Math.max(total, 1);
    ui.guideProgress.value = done;
    ui.guideStatus.textContent = `${stage} ${fmt(done)} / ${fmt(total)}`;
  }

  /** Run one worker step of the live guide with progress, cancel and error display. */
  async task(label, fn, { starting = false, stopped = 'Stopped. Step again to compute the allowed tokens.' } = {}) {
    if (!tasks.ready || tasks.busy) return null;
    clearError();
    ui.guideError.hidden = true;
    ui.guideStatus.textContent = label;
    ui.guideProgress.removeAttribute('value');
    const t0 = performance.now();
    return tasks.run(async () => {
      try {
        const out = await fn();
        ui.guideProgress.max = 1;
        ui.guideProgress.value = 1;
        ui.guideStatus.textContent = `${label.replace(/…$/, '')}: ${secs((performance.now() - t0) / 1000)}`;
        ui.guideStatus.dataset.ms = (performance.now() - t0).toFixed(1); // the whole task, worker round trips included
        return out;
      } catch (err) {
        const info = errorInfo(err);
        const cancelled = info.kind === 'BuildCancelled';
        ui.guideProgress.value = 0;
        ui.guideStatus.textContent = cancelled ? 'stopped' : 'failed';
        if (cancelled) info.message = stopped;
        showError(info, { cancelled });
        if (info.kind === 'RegexError' && $('guide-kind-regex').checked) showRegexError(info);
        // the message belongs here too, where the user looks; a failed start leaves no stale view behind
        ui.guideError.textContent = cancelled ? info.message : `${label.replace(/…$/, '')} failed: ${info.message}`;
        ui.guideError.classList.toggle('cancelled', cancelled);
        ui.guideError.hidden = false;
        if (starting && !cancelled) ui.guideView.hidden = true;
        return null;
      }
    });
  }

  async refresh() {
    const view = await this.client.call('guide_view', ['', -1, '$progress', '$cancel'], (s, d, t) => this.progress(s, d, t));
    this.render(view);
    this.grid.setTokens(view.ids, view.texts, view.eos_token_id, !!view.done);
    return view;
  }

  /** The guide kind chosen by the radio buttons: 'regex', 'cfg' or 'schema'. */
  kind() { return $('guide-kind-schema').checked ? 'schema' : $('guide-kind-cfg').checked ? 'cfg' : 'regex'; }

  render(v) {
    ui.guideExplain.replaceChildren();   // explanations belong to the state they were asked in
    ui.guideExplainMatches.replaceChildren();
    $('guide-desc').textContent = v.description;
    ui.guideState.textContent = v.state;
    ui.guideFinal.hidden = !v.final;
    ui.guideView.dataset.done = v.done ? 'true' : 'false';
    ui.guideText.textContent = v.text;
    ui.guidePath.replaceChildren(...v.path.map(([id, text, forced]) => {
      const li = document.createElement('li');
      li.textContent = `${id}  ${JSON.stringify(text)}`;
      if (forced) { li.classList.add('forced'); li.title = 'forced: the only token allowed there'; li.dataset.forced = 'true'; }
      return li;
    }));
    const c = v.cost || {};
    ui.guideForced.hidden = !c.forced;
    ui.maskTime.textContent = c.masks ? `mask: ${ms(c.mask_ms)} this state · last computed ${ms(c.last_mask_ms)} · mean ${ms(c.mean_mask_ms)} over ${fmt(c.masks)} mask${c.masks === 1 ? '' : 's'}` : '';
    ui.maskTime.dataset.lastMs = c.masks ? String(c.last_mask_ms) : '';
    ui.maskTime.dataset.meanMs = c.masks ? String(c.mean_mask_ms) : '';
    ui.maskTime.dataset.masks = String(c.masks || 0);
    const info = v.schema;
    ui.guideSchemaInfo.hidden = !info;
    if (info) {
      ui.guideSchemaInfo.dataset.path = info.path;
      ui.guideSchemaInfo.dataset.compileMs = String(info.compile_ms);
      ui.guideSchemaInfo.textContent = `Path: ${info.path}. Why: ${info.reason}. ${info.what[0].toUpperCase()}${info.what.slice(1)}; compiled in ${ms(info.compile_ms)}.` +
        (info.notes.length ? ` Note: ${info.notes.join('; ')}.` : '');
    }
    ui.guidePath.scrollTop = ui.guidePath.scrollHeight;
  }

  start(kind) {
    const label = { cfg: 'building the grammar guide…', schema: 'compiling the schema…', regex: 'building the regex guide…' }[kind];
    return this.task(label, async () => {
      const vocab = await this.vocabulary.ensure();
      const sourceText = kind === 'cfg' ? ui.guideGrammar.value : kind === 'schema' ? ui.guideSchema.value : ui.regex.value;
      await this.client.call('guide_start', [kind, sourceText, vocab.fingerprint, ui.ascii.checked, '$progress', '$cancel'], (s, d, t) => this.progress(s, d, t));
      ui.guideView.hidden = false;
      ui.guideView.dataset.kind = kind;
      return this.refresh();
    }, { starting: true });
  }

  step(id) {
    return this.task('computing the allowed tokens…', async () => { await this.client.call('guide_step', [id]); return this.refresh(); });
  }

  /** Explain the token typed in the Explain box (an id, an exact text, or text to search all tokens for). */
  async explain() {
    if (!tasks.ready || tasks.busy) return;
    const query = ui.guideExplainInput.value.trim();
    ui.guideExplain.replaceChildren();
    ui.guideExplainMatches.replaceChildren();
    if (!query) return;
    try {
      const matches = await this.client.call('guide_search', [query, 50]);
      for (const [id, text, allowed] of matches) {
        const li = document.createElement('li');
        const b = document.createElement('button');
        b.type = 'button';
        b.dataset.tokenId = String(id);
        b.dataset.allowed = String(allowed);
        b.setAttribute('data-testid', 'guide-explain-match');
        const t = document.createElement('span'); t.textContent = `${id}  ${text}`;
        const v = document.createElement('span'); v.className = allowed ? 'yes' : 'no'; v.textContent = allowed ? 'allowed' : 'not allowed';
        b.append(t, v);
        b.addEventListener('click', () => this.explainId(id));
        li.append(b);
        ui.guideExplainMatches.append(li);
      }
      const exact = matches.find((m) => m[1] === query);   // the token spelled exactly so, else the first match
      if (matches.length) await this.explainId(/^\d+$/.test(query) ? Number(query) : (exact || matches[0])[0]);
      else ui.guideExplain.textContent = `No token has the id or text ${JSON.stringify(query)}.`;
    } catch (err) {
      ui.guideExplain.textContent = errorInfo(err).message;
    }
  }

  async explainId(id) {
    const box = ui.guideExplain;
    let r;
    try { r = await this.client.call('guide_explain', [id]); } catch (err) { box.textContent = errorInfo(err).message; return; }
    box.replaceChildren();
    box.dataset.token = String(r.token);
    box.dataset.allowed = String(r.allowed);
    const line = (text, cls) => { const p = document.createElement('p'); if (cls) p.className = cls; p.textContent = text; box.append(p); return p; };
    line(`Token ${r.token} ${JSON.stringify(r.text)}: ${r.allowed ? 'allowed' : 'not allowed'}.`, `verdict ${r.allowed ? 'yes' : 'no'}`);
    if (r.eos) {
      line(r.allowed ? 'EOS is allowed: the text so far is complete.' : 'EOS is not allowed: the text so far is not complete yet.');
      return;
    }
    if (r.reach !== undefined) {
      box.dataset.reach = String(r.reach);
      const what = r.kind === 'regex' ? "the regex's language" : r.kind === 'cfg' ? "the grammar's language" : `the schema's language (${r.path} path)`;
      if (r.allowed) line(`All ${r.bytes} of its bytes continue the text within ${what}.`);
      else if (r.reach >= r.bytes) line('Its bytes are all acceptable here, but no allowed token path ends where it ends.');
      else {
        const b = r.dies_at;
        line(`Its bytes get ${r.reach} of ${r.bytes} in: byte ${r.reach + 1} (0x${b.toString(16).padStart(2, '0')}${b > 0x20 && b < 0x7f ? ` '${String.fromCharCode(b)}'` : ''}) is where it dies.`);
        line(r.accepts.length ? `There the ${r.kind === 'regex' ? 'automaton' : 'guide'} accepts: ${r.accepts_text}` : `There the ${r.kind === 'regex' ? 'automaton' : 'guide'} accepts nothing more.`);
      }
      if (r.kind === 'regex' || r.expected === undefined) return;
    }
    line(`The parser expects one of: ${r.expected.join(', ') || '(nothing: the text is complete)'}.`);
    const f = r.failure;
    if (f) {
      box.dataset.failurePos = String(f.pos);
      const what = f.lexeme !== undefined ? `the lexeme ${JSON.stringify(f.lexeme)} (${f.terminal})` : `the character ${JSON.stringify(f.char)}`;
      line(`With this token, ${what} at position ${f.pos} fails: ${f.what}` + (f.expected.length ? `; expected ${f.expected.join(', ')}.` : '.'));
    } else if (!r.allowed && r.reach === undefined) {
      line('The text with this token lexes and parses so far, but it ends inside a lexeme that cannot be completed.');
    }
  }

  showKind() {
    const kind = this.kind();
    for (const el of document.querySelectorAll('.cfg-only')) el.hidden = kind !== 'cfg';
    for (const el of document.querySelectorAll('.schema-only')) el.hidden = kind !== 'schema';
  }

  /** Step through `schemaText` (from the builder): the schema kind chosen, the text copied, the guide started. */
  startSchema(schemaText) {
    $('guide-kind-schema').checked = true;
    ui.guideSchema.value = schemaText;
    this.showKind();
    $('guide-section').scrollIntoView({ behavior: 'smooth' });
    return this.start('schema');
  }

  bind() {
    ui.guideGrammarSelect.addEventListener('change', () => { if (tasks.ready) this.loadGrammar(ui.guideGrammarSelect.value).catch(() => {}); });
    ui.guideGrammar.addEventListener('input', () => { ui.guideGrammarSelect.value = ''; });
    for (const radio of document.querySelectorAll('input[name=guide-kind]')) radio.addEventListener('change', () => this.showKind());
    ui.guideStart.addEventListener('click', () => this.start(this.kind()));
    ui.guideSchemaFile.addEventListener('change', async () => {
      const file = ui.guideSchemaFile.files[0];
      if (file) ui.guideSchema.value = await file.text();
    });
    ui.guideSchemaCopy.addEventListener('click', () => { ui.guideSchema.value = ui.schema.value; });
    ui.guideFromIndex.addEventListener('click', () => {
      $('guide-kind-regex').checked = true;
      this.showKind();
      $('guide-section').scrollIntoView({ behavior: 'smooth' });
      this.start('regex');
    });
    ui.guideCancel.addEventListener('click', () => { if (tasks.busy) this.client.cancel(); });
    ui.guideBack.addEventListener('click', () => this.task('going back…', async () => { await this.client.call('guide_back', []); return this.refresh(); }));
    ui.guideReset.addEventListener('click', () => this.task('resetting…', async () => { await this.client.call('guide_reset', []); return this.refresh(); }));
    ui.guideFilter.addEventListener('input', () => this.grid.filter(ui.guideFilter.value.trim()));
    ui.guideExplainButton.addEventListener('click', () => this.explain());
    ui.guideExplainInput.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); this.explain(); } });
    ui.guideTokens.addEventListener('click', (e) => {
      const card = e.target.closest('[data-token-id]');
      if (!card || tasks.busy) return;
      this.step(Number(card.dataset.tokenId));
    });
    // Enter in the filter takes the token whose id was typed, or the only token left.
    ui.guideFilter.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' || tasks.busy) return;
      e.preventDefault();
      const value = ui.guideFilter.value.trim();
      const ids = this.grid.matchedIds();
      const exact = /^\d+$/.test(value) ? ids.find((id) => String(id) === value) : undefined;
      const id = exact !== undefined ? exact : ids.length === 1 ? ids[0] : undefined;
      if (id === undefined) return;
      ui.guideFilter.value = '';
      this.grid.filter('');
      this.step(id);
    });
  }
}
