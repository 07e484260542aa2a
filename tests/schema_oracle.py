"""jsonschema as the oracle of a compiled schema's language, for the JSON Schema test suites."""

from __future__ import annotations

import json
from typing import Any, Callable


def assert_agrees(compiled: Any, validator: Any, docs: list, reorder: Callable[[Any], Any] | None = None) -> None:
    """Every document (as compact JSON, its keys put in order by `reorder` when given: the output
    format's, benchmarks/json_key_order.py) is accepted exactly when `validator` (a jsonschema
    validator of the schema's draft) finds it valid, and both verdicts occur."""
    verdicts = set()
    for doc in docs:
        want = validator.is_valid(doc)
        verdicts.add(want)
        text = json.dumps(doc if reorder is None else reorder(doc), separators=(",", ":"))
        assert compiled.accepts(text) == want, doc
    assert verdicts == {True, False}
