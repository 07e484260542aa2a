"""`python3 build.py bench` argument handling, and bench_masks / bench_walk running tokenguide alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(sys.platform == "emscripten", reason="subprocess is not available in Pyodide")


def test_bench_rejects_unknown_benchmark_before_any_setup():
    proc = subprocess.run([sys.executable, str(REPO / "build.py"), "bench", "nosuch"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "no benchmark 'nosuch'" in proc.stderr and "masks" in proc.stderr


def test_extra_arguments_only_for_test_and_bench():
    proc = subprocess.run([sys.executable, str(REPO / "build.py"), "bundle", "--", "-x"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "only for 'test' and 'bench'" in proc.stderr


def test_bench_masks_tokenguide_alone(gpt2_vocab_path, capsys):
    sys.path.insert(0, str(REPO))
    from benchmarks import bench_masks

    assert bench_masks.main(["--vocab", "gpt2", "--parts", "regex", "--engines", "tokenguide",
                             "--rounds", "1", "--steps", "3"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "|---" not in line]
    assert [r.split(" | ")[0][2:] for r in rows[1:]] == bench_masks.OUTLINES_CORE_REGEXES



def test_bench_walk_options_and_engines():
    from benchmark_modules import load

    bench_walk = load("bench_walk")
    assert set(bench_walk.ENGINES) >= {"tokenguide", "tokenguide-engine", "llguidance", "xgrammar"}
    with pytest.raises(SystemExit):
        bench_walk.main(["--engines", "tokenguide,nosuch", "--parts", "schemas"])
    files = bench_walk.select_files(3, 1, 10)
    every_third = sorted(bench_walk.DATA.glob("*.json"))[1::3]
    assert len(files) == min(10, len(every_third)) and set(files) <= set(every_third)


def test_bench_walk_walk_records_masks_and_rejections(gpt2_vocabulary):
    """One fresh walk: a mask before each token and one before EOS; a refused token is recorded."""
    from benchmark_modules import load

    bench_walk = load("bench_walk")
    engine = bench_walk.ENGINES["tokenguide"](gpt2_vocabulary, None)
    eos = gpt2_vocabulary.eos_token_id
    digits = [16, 17]  # GPT-2 "1", "2"
    done = bench_walk.walk(engine, "schema", '{"type": "integer"}', digits, eos)
    assert done["status"] == "ok" and done["note"] == "engine"  # guides from JSON Schema run on the engine
    assert len(done["masks"]) == 3 and len(done["advances"]) == 2 and done["first"] > 0
    quote = 1  # GPT-2 '"': not an integer
    refused = bench_walk.walk(engine, "schema", '{"type": "integer"}', [quote], eos)
    assert refused["status"] == "rejected" and "token 0 of 1" in refused["error"]
    assert bench_walk.walk(engine, "schema", '{"type": "nosuchtype"}', digits, eos)["status"] == "refused"
    unfinished = bench_walk.walk(engine, "schema", '{"type": "string"}', [quote], eos)  # an open string
    assert unfinished["status"] == "no EOS"


@pytest.mark.parametrize("name", ["tokenguide", "tokenguide-engine"])
def test_bench_walk_engines_walk_a_lark_grammar(name, gpt2_vocabulary):
    from benchmark_modules import load

    bench_walk = load("bench_walk")
    try:
        engine = bench_walk.ENGINES[name](gpt2_vocabulary, None)
    except bench_walk.Unavailable as exc:
        pytest.skip(str(exc))
    a = 64  # GPT-2 "a"
    done = bench_walk.walk(engine, "lark", 'start: "a"+', [a, a], gpt2_vocabulary.eos_token_id)
    assert done["status"] == "ok" and len(done["masks"]) == 3
    refused = bench_walk.walk(engine, "lark", 'start: "a"+', [a, 65], gpt2_vocabulary.eos_token_id)  # "b"
    assert refused["status"] == "rejected" and "token 1 of 2" in refused["error"]


def test_bench_walk_one_schema_tokenguide_alone(gpt2_vocab_path, capsys):
    from benchmark_modules import load

    bench_walk = load("bench_walk")
    if not bench_walk.DATA.exists():
        pytest.skip(f"{bench_walk.DATA} is missing (shared JSONSchemaBench data)")
    argv = ["--parts", "schemas,grammar", "--vocab", "gpt2", "--engines", "tokenguide,tokenguide-engine",
            "--limit", "1", "--documents", "1", "--in-process"]
    assert bench_walk.main(argv) == 0
    out = capsys.readouterr().out
    assert f"`python3 benchmarks/bench_walk.py {' '.join(argv)}`" in out
    rows = [line for line in out.splitlines() if line.startswith("| tokenguide | ")]
    assert rows and rows[0].split(" | ")[1] == "1"  # the first schema's instance walked
    assert "mean µs per mask" in out


def test_bench_walk_export_replays_in_tokenguide_alone(gpt2_vocabulary, tmp_path, capsys):
    """bench_walk's export (schemas, documents, token ids per vocabulary) walks with bench_walk_replay:
    a mask before each token and one before EOS, on each kind; ids that do not spell the text are refused."""
    import json

    from benchmark_modules import load

    bench_walk, replay = load("bench_walk"), load("bench_walk_replay")
    by_byte = {gpt2_vocabulary.id_to_bytes(i): i for i in range(gpt2_vocabulary.vocab_size)}
    encoder = lambda name: lambda text: [by_byte[bytes([b])] for b in text.encode()]  # noqa: E731
    value = {"name": "x" * 100, "n": [1, 2]}
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "n": {"type": "array"}}}
    cases = [{"file": "tiny.json", "schema": json.dumps(schema), "value": value, "text": bench_walk.compact(value)}]
    data = bench_walk.export(cases, ["gpt2"], 1, "cmd", encoder=encoder)
    assert data["vocabularies"]["gpt2"]["eos"] == gpt2_vocabulary.eos_token_id
    assert [d["label"] for d in data["grammar"]] == ["tiny.json compact", "tiny.json pretty"]
    data["grammar"][1]["tokens"]["gpt2"][0] += 1  # no longer spells the pretty document
    export, out = tmp_path / "export.json", tmp_path / "out.json"
    export.write_text(json.dumps(data), encoding="utf-8")
    assert replay.main([str(export), "--clock", "wall", "--json-out", str(out)]) == 0
    results = json.loads(out.read_text(encoding="utf-8"))["results"]
    assert set(results) == {"gpt2/engine", "gpt2/auto", "gpt2/grammar"}
    n = len(cases[0]["text"])
    for where in ("gpt2/engine", "gpt2/auto"):
        walked = results[where]["tiny.json"]
        assert walked["status"] == "ok" and len(walked["masks"]) == n + 1 and len(walked["advances"]) == n
    assert results["gpt2/grammar"]["tiny.json compact"]["status"] == "ok"
    assert results["gpt2/grammar"]["tiny.json pretty"]["status"] == "error"
    assert "gpt2/engine: 1 items, 1 ok" in capsys.readouterr().out
    assert replay.main(["--compare", f"{out},{out}", str(out)]) == 0
    assert "| mean µs per mask |" in capsys.readouterr().out
    assert replay.main([str(export), "--kinds", "engine", "--idle", "--json-out", str(out)]) == 0  # CPU clock
    idle = json.loads(out.read_text(encoding="utf-8"))["results"]["gpt2/engine"]["tiny.json"]
    assert idle["status"] == "ok" and len(idle["advances"]) == n
    assert "empty interval after a mask" in capsys.readouterr().out
    ops = load("bench_pyodide_ops")
    what, pieces = ops.engine_pieces(data, "gpt2", 0)
    assert "tiny.json" in what
    for _label, loop, _n in pieces + ops.int_and_interpreter_ops():
        loop(1)  # each operation runs on this state


def _build_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("tokenguide_build_script", REPO / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_test_command_spreads_over_cores_unless_the_caller_chose(monkeypatch):
    build = _build_module()
    monkeypatch.setattr(build.os, "cpu_count", lambda: 2)
    assert build.xdist_args([]) == ["-n", "2", "--dist", "loadgroup"]
    assert build.xdist_args(["-k", "regex", "-x"]) == ["-n", "2", "--dist", "loadgroup"]
    for chosen in (["-n", "0"], ["-n3"], ["--numprocesses=1"], ["-p", "no:xdist"]):
        assert build.xdist_args(chosen) == [], chosen
    monkeypatch.setattr(build.os, "cpu_count", lambda: 64)
    assert build.xdist_args([])[:2] == ["-n", "4"]
    monkeypatch.setattr(build.os, "cpu_count", lambda: 1)
    assert build.xdist_args([]) == []


def test_xdist_keeps_pyodide_parts_and_browser_files_together(request):
    """The suite's xdist scopes: every test with a Pyodide part in one scope (the shared run
    happens once), every browser test in one, any other test alone."""
    from suite_scopes import xdist_scope

    marked = {item.nodeid.split("::")[0] for item in request.session.items
              if item.get_closest_marker("pyodide_part")}
    for nodeid in ("tests/test_pyodide_suite.py::test_core_suite_passes_in_pyodide",
                   "tests/test_pyodide_identity.py::test_gpt2_indexes_identical_in_pyodide",
                   *(f"{path}::x" for path in marked)):
        assert xdist_scope(nodeid) == "pyodide", nodeid
    assert xdist_scope("tests/e2e/test_live_guide.py::test_a[chromium]") == "e2e"
    assert xdist_scope("tests/e2e/test_player.py::test_b[chromium]") == "e2e"
    assert xdist_scope("tests/test_regex.py::test_a[x]") == "tests/test_regex.py::test_a[x]"
