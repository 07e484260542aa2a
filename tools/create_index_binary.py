#!/usr/bin/env python3
"""Build a token index from a regex and a vocabulary, and save it as an `.outlines` file.

A starting point for newcomers: the whole workflow in a few lines of the library's API.

    python tools/create_index_binary.py "[0-9]{3}-[0-9]{4}" path/to/vocab.json phone.outlines

The vocabulary can be a HuggingFace vocab.json or tokenizer.json. The file written is the
binary format v1 described in INDEX_BINARY_FORMAT.md; open it with tools/index_player.html,
`python -m tokenguide inspect phone.outlines`, or `Index.load("phone.outlines")`.
"""

import argparse
import sys
from pathlib import Path

# Let the script run from a source checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py_src"))

from tokenguide.index import Index  # noqa: E402
from tokenguide.vocabulary import Vocabulary  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("regex", help='the regular expression, e.g. "[0-9]{3}-[0-9]{4}"')
    parser.add_argument("vocab", help="vocab.json or tokenizer.json")
    parser.add_argument("output", help="the .outlines file to write")
    args = parser.parse_args()

    # 1. Read the vocabulary: every token id and the bytes it stands for, plus the EOS id.
    vocabulary = Vocabulary.from_file(args.vocab)
    print(f"vocabulary: {vocabulary.vocab_size} token ids, EOS = {vocabulary.eos_token_id}")

    # 2. Build the index: for every state of the regex automaton, which tokens may come next.
    index = Index(args.regex, vocabulary)
    print(f"index: {index.num_states} states, {index.num_transitions} transitions")
    print(f"initial state {index.initial_state}, final states {sorted(index.final_states)}")

    # 3. Save it (gzip-compressed binary format v1) and check that it loads back identically.
    index.save(args.output)
    assert Index.load(args.output) == index
    print(f"wrote {args.output} ({Path(args.output).stat().st_size} bytes)")


if __name__ == "__main__":
    main()
