// The page's fast gzip: fflate's deflate at level 1 (js/vendor/fflate.js, MIT, pure JavaScript)
// for a file whose payload the page writes itself. Several times faster than zlib level 6 (the
// canonical level, which is also what the browser's CompressionStream does in Chromium) for a
// file about 14% larger: a valid .outlines file that loads to the same index, not the command
// line's bytes. The header is tokenguide's fixed one (mtime 0, OS 255).

import { Gzip } from './vendor/fflate.js';

/** fflate's deflate level and hash-table size (2^(mem+12) bytes) used here. */
export const FAST_LEVEL = 1;
const FAST_MEM = 3;
const HEADER_TAIL = [0, 0, 0, 0, 0, 0xff]; // mtime 0, extra flags 0, OS 255

/** One gzip member compressed in the page, fed chunk by chunk. */
export class FastGzip {
  constructor() {
    this.parts = [];
    this.size = 0;
    this.gzip = new Gzip({ level: FAST_LEVEL, mem: FAST_MEM, mtime: 0 }, (data) => { this.parts.push(data); this.size += data.length; });
  }

  /** Compress one chunk (synchronously; resolves at once). */
  push(chunk) {
    this.gzip.push(chunk, false);
    return Promise.resolve();
  }

  /** The complete file. */
  async finish() {
    this.gzip.push(new Uint8Array(0), true);
    const bytes = new Uint8Array(this.size);
    let at = 0;
    for (const p of this.parts) { bytes.set(p, at); at += p.length; }
    this.parts = [];
    bytes.set(HEADER_TAIL, 4);
    return bytes;
  }

  abort() {
    this.parts = [];
  }
}
