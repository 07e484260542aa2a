// Run pytest (or a Python script) inside Pyodide under Node.js, fully offline.
//
// Usage:
//   node tests/pyodide/run_pytest.mjs <repo-root> <wheel-dir> [pytest args...]
//   node tests/pyodide/run_pytest.mjs <repo-root> <wheel-dir> --exec script.py [script args...]
//
// Why: the core library must run unchanged under Pyodide (Python 3.14, wasm32).
// Running the real pytest suite inside Pyodide proves that, without a browser.
//
// What it does: loads Pyodide from <repo-root>/web/node_modules/pyodide, installs
// the local wheels of pytest and its dependencies plus interegular, lark and
// hypothesis from <wheel-dir> (no network), mounts the host directory
// <repo-root> at the same path inside Pyodide's file system, puts
// <repo-root>/py_src first on sys.path, changes into <repo-root> and runs
// pytest.main(args + ["-p", "no:cacheprovider"]) (or runs the script with
// runpy, sys.argv = [script, *script args]). The process exits with pytest's
// exit code (or the script's SystemExit code; 1 on an uncaught exception).
// Files written under <repo-root> inside Pyodide land on the host disk.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

// Pyodide needs JavaScript Promise Integration (WebAssembly stack switching) for
// asyncio.run / loop.run_until_complete. Browsers have it; Node 20 and 22 only behind a
// V8 flag, which must be given at startup: re-run this script once with the flag.
function jspiAvailable() {
  return typeof WebAssembly.Suspending === "function" || typeof WebAssembly.Suspender === "function";
}
if (!jspiAvailable() && !process.env.TOKENGUIDE_JSPI_RESPAWNED) {
  const v8Options = spawnSync(process.execPath, ["--v8-options"], { encoding: "utf8" }).stdout || "";
  const flag = ["--experimental-wasm-jspi", "--experimental-wasm-stack-switching"]
    .find((f) => v8Options.includes(f));
  if (flag) {
    const child = spawnSync(process.execPath, [...process.execArgv, flag, ...process.argv.slice(1)], {
      stdio: "inherit",
      env: { ...process.env, TOKENGUIDE_JSPI_RESPAWNED: "1" },
    });
    process.exit(child.status ?? 1);
  }
}

// Distribution name prefixes (as in wheel file names) loaded into Pyodide.
const WHEELS = [
  "iniconfig", "packaging", "pluggy", "pygments", "pytest",
  "sortedcontainers", "attrs", "hypothesis", "interegular", "lark",
];

function usage(message) {
  if (message) console.error(`run_pytest.mjs: ${message}`);
  console.error(
    "usage: node tests/pyodide/run_pytest.mjs <repo-root> <wheel-dir> [pytest args...]\n" +
    "       node tests/pyodide/run_pytest.mjs <repo-root> <wheel-dir> --exec script.py [args...]");
  process.exit(2);
}

/** Pick the newest-looking wheel file for a distribution name in wheelDir. */
function findWheel(wheelDir, dist) {
  const norm = (s) => s.toLowerCase().replace(/[-_.]+/g, "_");
  const hits = fs.readdirSync(wheelDir)
    .filter((f) => f.endsWith(".whl") && norm(f.split("-")[0]) === norm(dist))
    .sort();
  if (hits.length === 0) return null;
  return path.join(wheelDir, hits[hits.length - 1]);
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv.length < 2) usage("missing <repo-root> or <wheel-dir>");
  const repo = path.resolve(argv[0]);
  const wheelDir = path.resolve(argv[1]);
  const rest = argv.slice(2);
  if (!fs.existsSync(path.join(repo, "py_src"))) usage(`${repo} has no py_src/ folder`);
  if (!fs.existsSync(wheelDir)) usage(`wheel folder ${wheelDir} does not exist (run: python3 build.py test)`);

  let execScript = null;
  let args = rest;
  if (rest[0] === "--exec") {
    if (rest.length < 2) usage("--exec needs a script path");
    execScript = path.resolve(rest[1]);
    args = rest.slice(2);
  }

  const wheels = [];
  const missing = [];
  for (const dist of WHEELS) {
    const w = findWheel(wheelDir, dist);
    if (w) wheels.push(w); else missing.push(dist);
  }
  if (missing.length) usage(`no wheel in ${wheelDir} for: ${missing.join(", ")} (run: python3 build.py test)`);

  const pyodideDir = path.join(repo, "web", "node_modules", "pyodide");
  const pyodideEntry = path.join(pyodideDir, "pyodide.mjs");
  if (!fs.existsSync(pyodideEntry)) usage(`${pyodideEntry} is missing (run: npm ci in web/)`);
  const { loadPyodide } = await import(pathToFileURL(pyodideEntry).href);

  const t0 = Date.now();
  const pyodide = await loadPyodide({
    indexURL: pyodideDir + path.sep,
  });
  // Raw byte streams, so pytest's progress dots and partial lines come through as written.
  // (Buffer copies: Pyodide may reuse its buffer after write returns.)
  pyodide.setStdout({ write: (buf) => { process.stdout.write(Buffer.from(buf)); return buf.length; } });
  pyodide.setStderr({ write: (buf) => { process.stderr.write(Buffer.from(buf)); return buf.length; } });
  const errors = [];
  await pyodide.loadPackage(wheels, {
    messageCallback: () => {},
    errorCallback: (msg) => errors.push(msg),
  });
  if (errors.length) {
    console.error("run_pytest.mjs: loading wheels failed:\n" + errors.join("\n"));
    process.exit(3);
  }

  // Mount the host repository at the same absolute path inside Pyodide.
  pyodide.FS.mkdirTree(repo);
  pyodide.mountNodeFS(repo, repo);
  if (execScript && !execScript.startsWith(repo + path.sep)) {
    const dir = path.dirname(execScript);
    pyodide.FS.mkdirTree(dir);
    pyodide.mountNodeFS(dir, dir);
  }
  console.error(`[pyodide] ready in ${((Date.now() - t0) / 1000).toFixed(1)} s ` +
    `(Pyodide ${pyodide.version}, JSPI ${jspiAvailable() ? "on" : "off"})`);

  pyodide.globals.set("_tg_repo", repo);
  pyodide.globals.set("_tg_args", pyodide.toPy(args));
  pyodide.globals.set("_tg_script", execScript || "");
  const code = await pyodide.runPythonAsync(`
import os, sys, runpy, traceback
os.chdir(_tg_repo)
sys.path.insert(0, os.path.join(_tg_repo, "py_src"))
_tg_code = 0
if not _tg_script:
    import pytest
    _tg_code = int(pytest.main(list(_tg_args) + ["-p", "no:cacheprovider"]))
else:
    sys.argv = [_tg_script] + list(_tg_args)
    sys.path.insert(0, os.path.dirname(_tg_script))
    try:
        runpy.run_path(_tg_script, run_name="__main__")
    except SystemExit as exc:
        if exc.code is None:
            _tg_code = 0
        elif isinstance(exc.code, int):
            _tg_code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            _tg_code = 1
    except BaseException:
        traceback.print_exc()
        _tg_code = 1
sys.stdout.flush()
sys.stderr.flush()
_tg_code
`);
  // Exit now rather than when Node's event loop drains: timers Python left behind (asyncio.wait's
  // timeout handle, cancelled in Python but still pending in JavaScript) would keep the process
  // alive for up to their full delay (a minute for cancel_races.py's guard). Flush output first.
  await flush(process.stdout);
  await flush(process.stderr);
  process.exit(Number(code));
}

/** Resolve once everything written to `stream` so far has been handed to the OS. */
function flush(stream) {
  return new Promise((resolve) => stream.write("", resolve));
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : String(err));
  process.exit(1);
});
