// Runs the index player's readers (tools/index_player.html, the block between the
// "BEGIN tokenguide readers" and "END tokenguide readers" markers) under Node, on the files named in
// a JSON job list read from stdin, and prints one JSON verdict per file (a JSON list on stdout):
//
//   [{"kind": "index", "path": "a.outlines", "max_size"?: N}, {"kind": "vocab", "path": "vocab.json", "skip": [6]}]
//   -> [{"path", "ok": true, "summary": {...}} | {"path", "ok": false, "field", "offset", "message"}]
//
// Index summary: vocab_size, eos_token_id, initial_state, final_states, num_states (listed with
// transitions), num_transitions and sha256 of every (state, token, next) in state and token order.
// Vocabulary summary: vocab_size, decoding, special ids, and sha256 over (id, length, bytes) of every
// ordinary non-empty token whose id is not in `skip` (tokenguide drops the EOS id from its tokens).
// tests/test_js_readers.py computes the same from Python's readers and compares.

import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const PLAYER = fileURLToPath(new URL('../../tools/index_player.html', import.meta.url));
const html = readFileSync(PLAYER, 'utf8');
const begin = html.indexOf('// ==== BEGIN tokenguide readers ====');
const end = html.indexOf('// ==== END tokenguide readers ====');
if (begin < 0 || end < begin) throw new Error(`${PLAYER}: reader markers not found`);
const readers = new Function(`${html.slice(begin, end)}\nreturn { readIndexFile, parseVocabulary, FormatError, VocabError };`)();

const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v >>> 0); return b; };

function indexVerdict(path, maxSize) {
  const data = new Uint8Array(readFileSync(path));
  let idx;
  try {
    idx = maxSize === undefined ? readers.readIndexFile(data) : readers.readIndexFile(data, maxSize);
  } catch (e) {
    if (!(e instanceof readers.FormatError)) throw e;
    return { path, ok: false, field: e.field, offset: e.offset, message: e.message };
  }
  const h = createHash('sha256');
  const order = Array.from(idx.stateIds).map((s, i) => [s, i]).sort((a, b) => a[0] - b[0]);
  for (const [s, i] of order) {
    for (let t = idx.offsets[i]; t < idx.offsets[i + 1]; t++) h.update(Buffer.concat([u32(s), u32(idx.tokens[t]), u32(idx.nexts[t])]));
  }
  return { path, ok: true, summary: {
    vocab_size: idx.vocabSize, eos_token_id: idx.eos, initial_state: idx.initial,
    final_states: Array.from(idx.finals).sort((a, b) => a - b), num_states: idx.stateIds.length,
    num_transitions: idx.numTransitions, transitions_sha256: h.digest('hex') } };
}

function vocabVerdict(path, skip) {
  const data = new Uint8Array(readFileSync(path));
  let v;
  try {
    v = readers.parseVocabulary(data, path.split('/').pop());
  } catch (e) {
    if (!(e instanceof readers.VocabError)) throw e;
    return { path, ok: false, message: e.message };
  }
  const skipped = new Set(skip || []);
  const h = createHash('sha256');
  let count = 0;
  for (let id = 0; id < v.size; id++) {
    const b = v.bytes[id];
    if (!b || !b.length || skipped.has(id)) continue;
    h.update(Buffer.concat([u32(id), u32(b.length), Buffer.from(b)]));
    count++;
  }
  const special = [];
  for (let id = 0; id < v.size; id++) if (v.special[id] !== null && !skipped.has(id)) special.push(id);
  return { path, ok: true, summary: { vocab_size: v.size, decoding: v.kind, num_tokens: count, special_ids: special, tokens_sha256: h.digest('hex') } };
}

const jobs = JSON.parse(readFileSync(0, 'utf8'));
const out = jobs.map((job) => (job.kind === 'index' ? indexVerdict(job.path, job.max_size) : vocabVerdict(job.path, job.skip)));
process.stdout.write(JSON.stringify(out));
