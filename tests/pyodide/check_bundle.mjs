// Check that a bundled dist/ folder works for Pyodide: load the runtime from
// dist/pyodide/ and install packages BY NAME through dist/pyodide/pyodide-lock.json
// (sha256 integrity checked against the served wheel files in dist/wheels/).
//
// Usage: node tests/pyodide/check_bundle.mjs <dist-dir> [package names...]
// Default packages: tokenguide micropip. Prints one JSON line
// {"python": ..., "packages": {import name: version}, "interegular": importable?,
//  "grammar": [...] (tokenguide's strict Lark parser at work, when tokenguide is loaded)}
// and exits 0 on success.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

async function main() {
  const dist = path.resolve(process.argv[2] || "dist");
  const names = process.argv.length > 3 ? process.argv.slice(3) : ["tokenguide", "micropip"];
  const indexDir = path.join(dist, "pyodide");
  const entry = path.join(indexDir, "pyodide.mjs");
  if (!fs.existsSync(entry)) {
    console.error(`check_bundle.mjs: ${entry} is missing (run: python3 build.py bundle)`);
    process.exit(2);
  }
  const { loadPyodide } = await import(pathToFileURL(entry).href);
  const pyodide = await loadPyodide({ indexURL: indexDir + path.sep });
  const errors = [];
  const messages = [];
  await pyodide.loadPackage(names, {
    checkIntegrity: true,
    messageCallback: (m) => messages.push(m),
    errorCallback: (m) => errors.push(m),
  });
  if (errors.length) {
    console.error("loadPackage failed:\n" + errors.join("\n") + "\n" + messages.join("\n"));
    process.exit(1);
  }
  // Every message should be about local files; a CDN fallback means the lock is wrong.
  const remote = messages.filter((m) => /https?:\/\//.test(m));
  if (remote.length) {
    console.error("loadPackage went to the network:\n" + remote.join("\n"));
    process.exit(1);
  }
  pyodide.globals.set("_names", pyodide.toPy(names));
  const out = pyodide.runPython(`
import importlib, importlib.util, json, sys
from importlib import metadata
pkgs = {}
for name in sorted(set(_names) | {"lark"}):
    importlib.import_module(name)
    pkgs[name] = metadata.version(name)
report = {"python": sys.version.split()[0], "platform": sys.platform, "packages": pkgs}
report["interegular"] = importlib.util.find_spec("interegular") is not None
if "tokenguide" in pkgs:  # its grammar path's strict Lark parser, with the bundle's packages only
    from tokenguide.guides.cfg.grammar import build_lark
    tree = build_lark('start: "a" B\\nB: /b+/\\n', strict=True).parse("abb")
    report["grammar"] = [t.value for t in tree.children]
json.dumps(report)
`);
  console.log(out);
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : String(err));
  process.exit(1);
});
