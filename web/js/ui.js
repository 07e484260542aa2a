// The page's elements and the small helpers every part of the builder page uses to show things.
//
// Token text and messages are always written with textContent, never as HTML.

export const $ = (id) => document.getElementById(id);

/** Every control of web/index.html, by role. */
export const ui = {
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
  guideBack: $('guide-back'), guideReset: $('guide-reset'), guideError: $('guide-error'),
  guideExplainInput: $('guide-explain-input'), guideExplainButton: $('guide-explain-button'),
  guideExplainMatches: $('guide-explain-matches'), guideExplain: $('guide-explain'),
  vocabMenu: $('vocab-menu'), guideSchema: $('guide-schema-input'), guideSchemaFile: $('guide-schema-file'), guideSchemaCopy: $('guide-schema-copy'),
  guideSchemaInfo: $('guide-schema-info'), guideForced: $('guide-forced'), maskTime: $('mask-time'),
  schemaGuideOffer: $('schema-guide-offer'), schemaGuideWhy: $('schema-guide-why'), schemaToGuide: $('schema-to-guide'),
  samplesCount: $('samples-count'), samplesMode: $('samples-mode'), samplesBudget: $('samples-budget'),
  samplesButton: $('samples-button'), samplesList: $('samples-list'),
};

/** <body data-state>: loading | ready | building | done | error (tests and CSS key on it). */
export function setState(state) { ui.body.dataset.state = state; }
export function setStatus(text) { ui.status.textContent = text; }
export function fmt(n) { return Number(n).toLocaleString('en-US'); }
export function secs(s) { return s < 1 ? `${(s * 1000).toFixed(0)} ms` : `${s.toFixed(2)} s`; }

/** The error info of a failed worker call ({kind, message, hint?, ...}), whatever was thrown. */
export function errorInfo(err) {
  return err && err.info ? err.info : { kind: 'Error', message: String(err && err.message ? err.message : err) };
}

/** Show an error (or a cancellation notice) in the banner under the header. */
export function showError(info, { cancelled = false } = {}) {
  const lines = [info.message];
  if (info.hint) lines.push(`Hint: ${info.hint}`);
  if (info.traceback) lines.push(info.traceback);
  ui.error.textContent = lines.join('\n');
  ui.error.classList.toggle('cancelled', cancelled);
  ui.error.dataset.kind = info.kind || 'Error';
  ui.error.hidden = false;
}

export function clearError() {
  ui.error.hidden = true;
  ui.error.textContent = '';
  delete ui.error.dataset.kind;
  ui.regexError.hidden = true;
  ui.regex.classList.remove('invalid');
  ui.schemaGuideOffer.hidden = true;
}

/** A regex error under the regex box: the message, and the line of the pattern with a caret. */
export function showRegexError(info) {
  ui.regexErrorMsg.textContent = info.pos != null ? `${info.message} (at position ${info.pos})` : info.message;
  ui.regexErrorWhere.textContent = '';
  if (info.pos != null && typeof info.pattern === 'string') {
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
