// The start-up snapshot's file layout: the snapshot's bytes without its long runs of zeros (about
// a quarter of Pyodide's memory, in a few runs), which the manifest lists as [offset, length]
// pairs (build.py `pack_snapshot`). Used by the worker to fill the snapshot's buffer while it
// downloads; tested under Node (tests/test_startup_snapshot.py).

/** The parts of a snapshot of `size` bytes that its file holds, in order: [[offset, length], ...].
 *  Throws a clear Error when the zero runs are not in order inside the snapshot. */
export function snapshotSegments(size, zeroRuns) {
  const segments = [];
  let pos = 0;
  for (const run of zeroRuns || []) {
    const [start, length] = Array.isArray(run) ? run : [NaN, NaN];
    if (!Number.isInteger(start) || !Number.isInteger(length) || start < pos || length <= 0 || start + length > size) {
      throw new Error(`its manifest lists a bad zero run ${JSON.stringify(run)} (runs must be in order, inside its ${size} bytes)`);
    }
    if (start > pos) segments.push([pos, start - pos]);
    pos = start + length;
  }
  if (pos < size) segments.push([pos, size - pos]);
  return segments;
}

/** Writes the file's bytes, chunk by chunk as they arrive, into `into` (a zero-filled buffer of the
 *  snapshot's size) at their places; `finish()` checks that the file had exactly the bytes it should. */
export class SnapshotFiller {
  constructor(into, zeroRuns) {
    this.into = into;
    this.segments = snapshotSegments(into.length, zeroRuns);
    this.expected = this.segments.reduce((sum, [, length]) => sum + length, 0);
    this.seg = 0;
    this.written = 0; // file bytes taken so far
    this.left = this.segments.length ? this.segments[0][1] : 0;
  }

  /** Take the next chunk of the file (a Uint8Array). */
  push(chunk) {
    if (this.written + chunk.length > this.expected) throw new Error(`it has more bytes than its manifest says (${this.expected})`);
    let off = 0;
    while (off < chunk.length) {
      while (this.left === 0) this.left = this.segments[++this.seg][1];
      const [start, length] = this.segments[this.seg];
      const n = Math.min(this.left, chunk.length - off);
      this.into.set(chunk.subarray(off, off + n), start + length - this.left);
      this.left -= n;
      off += n;
    }
    this.written += chunk.length;
  }

  /** After the last chunk: throws when the file was shorter than the manifest says. */
  finish() {
    if (this.written !== this.expected) throw new Error(`it has ${this.written} bytes, its manifest says ${this.expected}`);
  }
}
