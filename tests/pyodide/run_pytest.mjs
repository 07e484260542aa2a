// Run pytest (or a Python script) inside Pyodide under Node.js, fully offline.
//
// Usage:
//   node tests/pyodide/run_pytest.mjs <repo-root> <wheel-dir> [pytest args...]
//   node tests/pyodide/run_pytest.mjs <repo-root> <wheel-dir> --exec script.py [script args...]
//   node tests/pyodide/run_pytest.mjs <repo-root> <wheel-dir> [pytest args...] --exec a.py [args...] --exec b.py ...
//
// Several parts in one process (pytest, if any pytest args come first, then each --exec script
// in order; a script's own arguments cannot be "--exec"): booting Pyodide and loading the wheels
// is most of a short run's time, so the tests share one boot. Before each part a line
// "[pyodide] part <i>: <what>" goes to stdout and to stderr, after it "[pyodide] part <i> exit
// <code> in <seconds> s" to stderr; the process exits with the first nonzero part's code (0 if
// none). A single part behaves as before: no part lines, its own exit code.
//
// Why: the core library must run unchanged under Pyodide (Python 3.14, wasm32).
// Running the real pytest suite inside Pyodide proves that, without a browser.
//
// What it does: loads Pyodide from <repo-root>/web/node_modules/pyodide, installs
// the local wheels of pytest and its dependencies plus lark and hypothesis
// from <wheel-dir> (no network), mounts the host directory
// <repo-root> at the same path inside Pyodide's file system, puts
// <repo-root>/py_src first on sys.path, changes into <repo-root> and runs
// pytest.main(args + ["-p", "no:cacheprovider"]) (or runs the script with
// runpy, sys.argv = [script, *script args]; a script's folder and the folder of every absolute
// path among its arguments are mounted too, at the same paths, unless they are "/" or one of its
// direct children). The process exits with pytest's
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
  "sortedcontainers", "attrs", "hypothesis", "lark",
];

function usage(message) {
  if (message) console.error(`run_pytest.mjs: ${message}`);
  console.error(
    "usage: node tests/pyodide/run_pytest.mjs <repo-root> <wheel-dir> [pytest args...]\n" +
    "       node tests/pyodide/run_pytest.mjs <repo-root> <wheel-dir> --exec script.py [args...]\n" +
    "       node tests/pyodide/run_pytest.mjs <repo-root> <wheel-dir> [pytest args...] --exec a.py [args...] ...");
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

  // Parts: {script: "" for pytest or an absolute path, args}; pytest runs unless rest starts with --exec.
  const parts = [];
  let at = rest.indexOf("--exec");
  if (at !== 0) parts.push({ script: "", args: at < 0 ? rest : rest.slice(0, at) });
  while (at >= 0) {
    const next = rest.indexOf("--exec", at + 1);
    const segment = next < 0 ? rest.slice(at + 1) : rest.slice(at + 1, next);
    if (!segment.length) usage("--exec needs a script path");
    parts.push({ script: path.resolve(segment[0]), args: segment.slice(1) });
    at = next;
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
  const mounted = new Set([repo]);
  // A checkout sharing another's web/node_modules through a link (a git worktree, as build.py
  // allows): the link's target lies outside the mounted repository, so it is mounted too, at its
  // own real path (tests name files under node_modules by their real paths).
  const nodeModules = path.join(repo, "web", "node_modules");
  if (fs.existsSync(nodeModules) && fs.lstatSync(nodeModules).isSymbolicLink()) {
    const real = fs.realpathSync(nodeModules);
    if (!real.startsWith(repo + path.sep)) {
      pyodide.FS.mkdirTree(real);
      pyodide.mountNodeFS(real, real);
      mounted.add(real);
    }
  }
  // A script outside the repository, and any absolute path among a script's arguments (a file it
  // reads, or one it writes into an existing folder): its folder is mounted at the same path.
  const inside = (p) => [...mounted].some((m) => p === m || p.startsWith(m + path.sep));
  for (const { script, args } of parts) {
    const dirs = script ? [path.dirname(script)] : [];
    for (const arg of script ? args : []) {
      const value = arg.startsWith("--") && arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : arg;
      if (!path.isAbsolute(value)) continue;
      const dir = path.resolve(fs.existsSync(value) && fs.statSync(value).isDirectory() ? value : path.dirname(value));
      if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) continue;
      if (path.dirname(path.dirname(dir)) === path.dirname(dir)) {  // "/" or "/tmp": Pyodide's own folders
        console.error(`run_pytest.mjs: not mounting ${dir} (for ${arg}): put the file one folder deeper`);
        continue;
      }
      dirs.push(dir);
    }
    for (const dir of dirs) {
      if (inside(dir)) continue;
      pyodide.FS.mkdirTree(dir);
      pyodide.mountNodeFS(dir, dir);
      mounted.add(dir);
    }
  }
  console.error(`[pyodide] ready in ${((Date.now() - t0) / 1000).toFixed(1)} s ` +
    `(Pyodide ${pyodide.version}, JSPI ${jspiAvailable() ? "on" : "off"})`);

  pyodide.globals.set("_tg_repo", repo);
  // Pyodide's own modules imported first: with tests/ on sys.path (pytest puts it there), a later
  // "import js" would find the tests/js/ folder as a namespace package instead.
  await pyodide.runPythonAsync(`
import os, sys
import js, pyodide_js
os.chdir(_tg_repo)
sys.path.insert(0, os.path.join(_tg_repo, "py_src"))
_tg_path = list(sys.path)
`);
  let exitCode = 0;
  for (const [i, part] of parts.entries()) {
    if (parts.length > 1) {
      const what = part.script ? `--exec ${part.script} ${part.args.join(" ")}`.trim() : `pytest ${part.args.join(" ")}`;
      process.stdout.write(`\n[pyodide] part ${i}: ${what}\n`);
      process.stderr.write(`\n[pyodide] part ${i}: ${what}\n`);
    }
    const started = Date.now();
    const code = await runPart(pyodide, part);
    if (parts.length > 1) {
      process.stderr.write(`\n[pyodide] part ${i} exit ${code} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    }
    if (exitCode === 0) exitCode = code;
  }
  // Exit now rather than when Node's event loop drains: timers Python left behind (asyncio.wait's
  // timeout handle, cancelled in Python but still pending in JavaScript) would keep the process
  // alive for up to their full delay (a minute for cancel_races.py's guard). Flush output first.
  await flush(process.stdout);
  await flush(process.stderr);
  process.exit(exitCode);
}

/** Run one part (pytest.main, or a script with runpy) in the booted interpreter; its exit code. */
async function runPart(pyodide, { script, args }) {
  pyodide.globals.set("_tg_args", pyodide.toPy(args));
  pyodide.globals.set("_tg_script", script);
  const code = await pyodide.runPythonAsync(`
import os, sys, runpy, traceback
sys.path[:] = _tg_path  # each part starts from the same import path (pytest adds to it)
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
  return Number(code);
}

/** Resolve once everything written to `stream` so far has been handed to the OS. */
function flush(stream) {
  return new Promise((resolve) => stream.write("", resolve));
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : String(err));
  process.exit(1);
});
