"""Run inside Pyodide by tests/test_pyodide_identity.py (run_pytest.mjs --exec, a part of the
session's one Pyodide run): the sha256 of each regex's index file on a vocabulary, as one JSON
line. (Pyodide draws its own string hash seed at each boot, so it is not the CPython side's.)
argv: vocabulary path, JSON list of regexes."""

import hashlib
import json
import sys

from tokenguide.index import Index
from tokenguide.vocabulary import Vocabulary

vocabulary = Vocabulary.from_file(sys.argv[1])
regexes = json.loads(sys.argv[2])
digests = [hashlib.sha256(Index(regex, vocabulary).to_bytes()).hexdigest() for regex in regexes]
print(json.dumps(digests))
