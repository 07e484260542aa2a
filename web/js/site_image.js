// The site-packages image: the bundled wheels' files (tokenguide, lark) in one file,
// written by build.py (`site_image`), unpacked here into Pyodide's file system before Python starts.
//
// Layout (all integers little-endian):
//   8 bytes  magic "TGSITE1\n"
//   u32      length N of the index
//   N bytes  index, UTF-8 JSON: {"files": [[path relative to site-packages, size], ...]}
//   the files' bytes, one after the other, in the index's order.
//
// Shared by the worker (a normal start and a start from the memory snapshot) and by
// tools/make_snapshot.mjs (under Node, when build.py makes the snapshot): both must lay out
// exactly the same files, since a snapshot remembers the file system only through Python's caches.

const MAGIC = 'TGSITE1\n';

/** Parse an image (Uint8Array): [{path, data}] with data a view into it; throws a clear Error if it is not one. */
export function parseSiteImage(bytes) {
  if (!(bytes instanceof Uint8Array) || bytes.length < 12) throw new Error('the site-packages image is truncated');
  const magic = new TextDecoder().decode(bytes.subarray(0, 8));
  if (magic !== MAGIC) throw new Error('the site-packages image has a wrong magic number (not built by this build.py?)');
  const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
  if (12 + n > bytes.length) throw new Error('the site-packages image index is truncated');
  const index = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + n)));
  const files = [];
  let at = 12 + n;
  for (const [path, size] of index.files) {
    if (typeof path !== 'string' || path.startsWith('/') || path.split('/').includes('..') || !Number.isInteger(size) || size < 0) {
      throw new Error(`the site-packages image names a bad file entry: ${JSON.stringify([path, size])}`);
    }
    if (at + size > bytes.length) throw new Error(`the site-packages image is truncated in ${path}`);
    files.push({ path, data: bytes.subarray(at, at + size) });
    at += size;
  }
  if (at !== bytes.length) throw new Error('the site-packages image has bytes after its last file');
  return files;
}

/** Write an image's files under sitePackages in an Emscripten FS (Pyodide's `fsInit` hook). */
export function writeSiteImage(FS, sitePackages, bytes) {
  const made = new Set();
  for (const { path, data } of parseSiteImage(bytes)) {
    const full = `${sitePackages}/${path}`;
    const dir = full.slice(0, full.lastIndexOf('/'));
    if (!made.has(dir)) { FS.mkdirTree(dir); made.add(dir); }
    FS.writeFile(full, data, { canOwn: false });
  }
}
