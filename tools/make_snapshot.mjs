// Make the web app's Pyodide memory snapshot under Node (run by build.py; offline, deterministic).
//
// Usage: node tools/make_snapshot.mjs <pyodide dir> <site image> <vocab.json> <vocab name> <vocab key> <out> <info out>
//
// Starts Pyodide with its experimental snapshot option (`_makeSnapshot`), writes the bundled
// wheels' files into site-packages from the site-packages image (web/js/site_image.js, the code
// the worker uses too), imports tokenguide._web_bridge, reads and prepares the bundled vocabulary
// under the worker's key (so the page's first request for it is answered from memory), and writes
// Pyodide's memory snapshot (a copy of the WebAssembly memory plus the JavaScript references
// Python holds, by their paths from globalThis) to <out>, and to <info out> the worker's description
// of the prepared vocabulary as the snapshot's Python gives it (JSON; build.py puts it in the
// manifest, so the page shows it without a call into Python).
//
// Determinism: the same inputs give the same bytes. Python's hash seed is fixed (PYTHONHASHSEED=0)
// and, during this run only, the clocks and the random source that Emscripten reads are replaced
// by counters, so no time stamp or random byte lands in the memory. The worker re-seeds Python's
// `random` from the browser's random source after restoring (web/worker.js).

import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const [pyodideDir, imagePath, vocabPath, vocabName, vocabKey, outPath, infoPath] = process.argv.slice(2);
if (!infoPath) {
  console.error("usage: node tools/make_snapshot.mjs <pyodide dir> <site image> <vocab.json> <vocab name> <vocab key> <out> <info out>");
  process.exit(2);
}

// Deterministic clocks and random bytes for this process (Emscripten's clock_gettime reads
// Date.now / performance.now, its getentropy node:crypto.randomFillSync).
const realNow = performance.now.bind(performance);
let tick = 0;
Date.now = () => 1767225600000 + (tick += 1); // 2026-01-01T00:00:00Z, one millisecond per reading
performance.now = () => (tick += 1);
const nodeCrypto = createRequire(import.meta.url)("node:crypto");
let state = 0x9e3779b9;
nodeCrypto.randomFillSync = (view) => {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  for (let i = 0; i < bytes.length; i++) { // xorshift32: not random at all, on purpose
    state ^= state << 13; state >>>= 0; state ^= state >>> 17; state ^= state << 5; state >>>= 0;
    bytes[i] = state & 0xff;
  }
  return view;
};

const started = realNow();
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const { writeSiteImage } = await import(new URL("../web/js/site_image.js", import.meta.url).href);
const image = new Uint8Array(fs.readFileSync(imagePath));

const pyodide = await loadPyodide({
  indexURL: pyodideDir.endsWith("/") ? pyodideDir : pyodideDir + "/",
  _makeSnapshot: true,
  env: { PYTHONHASHSEED: "0" },
  stdout: (line) => console.log(`[python] ${line}`),
  stderr: (line) => console.error(`[python] ${line}`),
  fsInit: async (FS, { sitePackages }) => writeSiteImage(FS, sitePackages, image),
});
const booted = realNow();
pyodide.globals.set("VOCAB_TEXT", fs.readFileSync(vocabPath, "utf8"));
const info = pyodide.runPython(`
import json
import tokenguide._web_bridge as _bridge
_info = _bridge.load_vocabulary(VOCAB_TEXT, ${JSON.stringify(vocabName)}, None, ${JSON.stringify(vocabKey)})
_bridge.mark_snapshot(_info["fingerprint"])
# what the worker's first request for it answers (reused, 0 s, from the snapshot)
_text = json.dumps(_bridge.load_vocabulary(None, ${JSON.stringify(vocabName)}, None, ${JSON.stringify(vocabKey)}), sort_keys=True)
del VOCAB_TEXT, _info, _bridge, json
import gc
gc.collect()
_text
`);
pyodide.runPython("del _text");
const prepared = realNow();
// Pyodide lists the packages it finds installed in loadedPackages, a JavaScript object the snapshot
// expects to be empty (the worker's start lists them again from the same files).
for (const name of Object.keys(pyodide.loadedPackages)) delete pyodide.loadedPackages[name];
const snapshot = pyodide.makeMemorySnapshot();
fs.writeFileSync(outPath, snapshot);
fs.writeFileSync(infoPath, info + "\n");
console.log(`snapshot: ${snapshot.length} bytes; Pyodide ${((booted - started) / 1000).toFixed(1)} s, ` +
  `tokenguide + vocabulary ${((prepared - booted) / 1000).toFixed(1)} s, written ${((realNow() - prepared) / 1000).toFixed(1)} s`);
