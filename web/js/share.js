// Shareable builder state: the inputs (mode, regex, schema, grammar, vocabulary by name, options)
// live in the URL's hash, so a link reopens the same build. Written as the inputs change,
// read once at start-up (before the examples fill the regex).

import { ui, $ } from './ui.js';

const KEYS = ['mode', 'regex', 'schema', 'ascii', 'max', 'name', 'vocab', 'eos', 'guide', 'grammar', 'grammarText', 'guideSchema'];

/** The inputs as URL parameters (only what differs from a fresh page). */
export function currentState(vocabulary) {
  const p = new URLSearchParams();
  if ($('source-schema').checked) p.set('mode', 'schema');
  p.set('regex', ui.regex.value);
  if ($('source-schema').checked && ui.schema.value) p.set('schema', ui.schema.value);
  if (ui.ascii.checked) p.set('ascii', '1');
  if (ui.maxStates.value.trim() && ui.maxStates.value.trim() !== '100000') p.set('max', ui.maxStates.value.trim());
  if (ui.name.value.trim() && ui.name.value.trim() !== 'index') p.set('name', ui.name.value.trim());
  p.set('vocab', vocabulary.source.file ? vocabulary.source.name : vocabulary.source.menu || 'gpt2');
  const eos = vocabulary.eosChoice();
  if (eos !== null) p.set('eos', eos);
  if ($('guide-kind-regex').checked) p.set('guide', 'regex');
  if ($('guide-kind-schema').checked) p.set('guide', 'schema');
  if ($('guide-kind-schema').checked && ui.guideSchema.value) p.set('guideSchema', ui.guideSchema.value);
  if (ui.guideGrammarSelect.value) p.set('grammar', ui.guideGrammarSelect.value);
  else if (ui.guideGrammar.value) p.set('grammarText', ui.guideGrammar.value);
  return p;
}

/** Fill the inputs from the URL's hash; returns {vocab, eos, hadState} so the caller can say what it cannot restore. */
export function restoreState() {
  const p = new URLSearchParams(location.hash.slice(1));
  if (!KEYS.some((k) => p.has(k))) return { hadState: false };
  if (p.get('mode') === 'schema') { $('source-schema').checked = true; ui.schemaBox.hidden = false; }
  if (p.has('schema')) ui.schema.value = p.get('schema');
  if (p.has('regex')) { ui.regex.value = p.get('regex'); ui.examples.value = ''; }
  ui.ascii.checked = p.get('ascii') === '1';
  if (p.has('max')) ui.maxStates.value = p.get('max');
  ui.name.value = p.get('name') || 'index';
  if (p.has('eos')) ui.eos.value = p.get('eos');
  if (p.get('guide') === 'regex') $('guide-kind-regex').checked = true;
  if (p.get('guide') === 'schema') $('guide-kind-schema').checked = true;
  if (p.has('guideSchema')) ui.guideSchema.value = p.get('guideSchema');
  if (p.has('grammar')) ui.guideGrammarSelect.value = p.get('grammar');
  else if (p.has('grammarText')) { ui.guideGrammarSelect.value = ''; ui.guideGrammar.value = p.get('grammarText'); }
  return { hadState: true, vocab: p.get('vocab') || 'gpt2', eos: p.get('eos') };
}

/** Keep the URL's hash up to date with the inputs (debounced; replaceState, so no history entries). */
export function bindState(vocabulary) {
  let pending = null;
  const write = () => {
    pending = null;
    const hash = '#' + currentState(vocabulary).toString();
    if (location.hash !== hash) history.replaceState(null, '', location.pathname + location.search + hash);
  };
  const soon = () => { if (pending === null) pending = setTimeout(write, 150); };
  for (const el of [ui.regex, ui.schema, ui.ascii, ui.maxStates, ui.name, ui.eos, ui.guideGrammar, ui.guideGrammarSelect, ui.examples, ui.guideSchema,
    ...document.querySelectorAll('input[name=source], input[name=guide-kind]')]) {
    el.addEventListener('input', soon);
    el.addEventListener('change', soon);
  }
  vocabulary.onChange = soon;
  return write;
}
