// The browser's own gzip (CompressionStream) for a file whose raw payload comes from the worker.
//
// The deflate stream is the browser's: Chromium's zlib at its default level gives the same stream
// as zlib level 6, so once the header is tokenguide's fixed one (mtime 0, OS 255; Chromium writes
// OS 3) the file equals the canonical one there. Another browser's deflate may differ: the file is
// then equally valid, not byte-identical (the page says so; "canonical bytes" is the exact choice).

/** True when this browser has CompressionStream('gzip'). */
export function nativeGzipAvailable() {
  try {
    return typeof CompressionStream === 'function' && !!new CompressionStream('gzip');
  } catch {
    return false;
  }
}

/** tokenguide's gzip header after the method and flags bytes: mtime 0, extra flags 0, OS 255. */
const HEADER_TAIL = [0, 0, 0, 0, 0, 0xff];

/** One gzip member compressed by the browser, fed chunk by chunk. */
export class NativeGzip {
  constructor() {
    const stream = new CompressionStream('gzip');
    this.writer = stream.writable.getWriter();
    this.output = new Response(stream.readable).arrayBuffer();
    this.output.catch(() => {}); // awaited in finish(); an abort rejects it
    this.taken = 0; // payload bytes handed to the compressor
  }

  /** Compress one chunk; resolves once the compressor has taken it (the worker's back pressure). */
  push(chunk) {
    this.taken += chunk.length;
    return this.writer.write(chunk);
  }

  /** The complete file, its header made tokenguide's fixed one when the browser wrote a plain one. */
  async finish() {
    await this.writer.close();
    const bytes = new Uint8Array(await this.output);
    if (bytes.length >= 10 && bytes[0] === 0x1f && bytes[1] === 0x8b && bytes[3] === 0) bytes.set(HEADER_TAIL, 4);
    return bytes;
  }

  abort() {
    this.writer.abort().catch(() => {});
  }
}
