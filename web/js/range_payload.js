// An index's uncompressed v1 payload written in the page from its key ranges (the worker's
// `range_table`): the same bytes as tokenguide.index.format.iter_payload, at JavaScript speed.
//
// Each state's ranges (first key, end key, next state) cover the trie's flat token ids
// flat[start[lo]] .. flat[start[hi] - 1]; the state's block lists them by ascending token id, with
// the eos self-loop of a final state. A state that allows much of the vocabulary is painted into
// one array over all token ids and read back in order; a sparse one is sorted.

/** Little-endian u32 values of a byte array from the worker (copied when not 4-byte aligned). */
function u32(bytes) {
  const b = bytes.byteOffset % 4 ? bytes.slice() : bytes;
  return new Uint32Array(b.buffer, b.byteOffset, b.byteLength >>> 2);
}

if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) throw new Error('range_payload.js needs a little-endian platform');

/** The payload of one built index, produced in chunks. */
export class RangePayload {
  /** `table`: {vocab_size, eos_token_id, initial_state, finals, states, offsets, los, his, nexts, flat_ids, id_start} */
  constructor(table) {
    this.vocabSize = table.vocab_size;
    this.eos = table.eos_token_id;
    this.initial = table.initial_state;
    this.finals = u32(table.finals);
    this.states = u32(table.states);
    this.offsets = u32(table.offsets);
    this.los = u32(table.los);
    this.his = u32(table.his);
    this.nexts = u32(table.nexts);
    this.flat = u32(table.flat_ids);
    this.start = u32(table.id_start);
    this.isFinal = new Set(this.finals);
    const counts = new Float64Array(this.states.length);
    let total = 0;
    let listed = 0;
    for (let i = 0; i < this.states.length; i++) {
      let c = this.isFinal.has(this.states[i]) ? 1 : 0;
      for (let j = this.offsets[i]; j < this.offsets[i + 1]; j++) c += this.start[this.his[j]] - this.start[this.los[j]];
      counts[i] = c;
      total += c;
      if (c) listed += 1;
    }
    this.counts = counts;
    /** Transitions, eos self-loops included. */
    this.total = total;
    /** Payload bytes. */
    this.size = 4 * (4 + this.finals.length) + 1 + 4 + 8 * listed + 8 * total;
    this.listed = listed;
  }

  head() {
    const n = this.finals.length;
    const bytes = new Uint8Array(4 * (4 + n) + 5);
    const view = new DataView(bytes.buffer);
    [this.vocabSize, this.eos, this.initial, n, ...this.finals].forEach((v, k) => view.setUint32(4 * k, v, true));
    bytes[4 * (4 + n)] = 1; // index_type
    view.setUint32(4 * (4 + n) + 1, this.listed, true);
    return bytes;
  }

  /** State i's block: state id, count, then (token id, next state) pairs by ascending token id. */
  block(i, on, next) {
    const state = this.states[i];
    const count = this.counts[i];
    const { flat, start, los, his, nexts } = this;
    const out = new Uint32Array(2 + 2 * count);
    out[0] = state;
    out[1] = count;
    const sparse = count * 16 < this.vocabSize;
    const picked = sparse ? new Uint32Array(count) : null;
    let n = 0;
    for (let j = this.offsets[i]; j < this.offsets[i + 1]; j++) {
      const to = nexts[j];
      for (let p = start[los[j]], end = start[his[j]]; p < end; p++) {
        const t = flat[p];
        on[t] = 1;
        next[t] = to;
        if (sparse) picked[n++] = t;
      }
    }
    if (this.isFinal.has(state)) {
      on[this.eos] = 1;
      next[this.eos] = state;
      if (sparse) picked[n++] = this.eos;
    }
    let k = 2;
    if (sparse) {
      picked.sort();
      for (let m = 0; m < n; m++) {
        const t = picked[m];
        if (!on[t]) continue; // listed twice
        out[k++] = t;
        out[k++] = next[t];
        on[t] = 0;
      }
    } else {
      for (let t = 0; t < on.length; t++) {
        if (!on[t]) continue;
        out[k++] = t;
        out[k++] = next[t];
        on[t] = 0;
      }
    }
    if (k !== out.length) throw new Error(`state ${state}: ${(k - 2) / 2} distinct token ids, ${count} counted`);
    return new Uint8Array(out.buffer);
  }

  /** The payload in chunks of about `chunkBytes`: {bytes, done} (done = transitions written so far). */
  *chunks(chunkBytes = 1 << 20) {
    const on = new Uint8Array(this.vocabSize);
    const next = new Uint32Array(this.vocabSize);
    let parts = [this.head()];
    let size = parts[0].length;
    let done = 0;
    for (let i = 0; i < this.states.length; i++) {
      if (!this.counts[i]) continue; // states without transitions are not written
      const block = this.block(i, on, next);
      parts.push(block);
      size += block.length;
      done += this.counts[i];
      if (size >= chunkBytes) {
        yield { bytes: concat(parts, size), done };
        parts = [];
        size = 0;
      }
    }
    if (parts.length) yield { bytes: concat(parts, size), done };
  }
}

function concat(parts, size) {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}
