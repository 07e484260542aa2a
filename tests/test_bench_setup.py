"""`python3 build.py bench` argument handling, and bench_masks running tokenguide alone."""

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
