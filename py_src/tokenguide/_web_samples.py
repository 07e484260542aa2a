"""The web app's samples: random completions of the live guide, each checked by an independent parser.

A sample walks the live guide from its current state, choosing each token among the allowed ones
(uniformly, or length-biased: an allowed end taken half of the time, else every allowed first byte
equally likely and the shorter tokens more likely, so that strings and numbers end soon)
until EOS or the token budget. Its text is then checked by a parser that is not the guide's own
machinery: re.fullmatch for a regex, Lark's own LALR parser for a grammar, json.loads for a schema.
"""

from __future__ import annotations

import asyncio
import functools
import json
import operator
import random
import re
from typing import Any, Callable

from .errors import BuildCancelled, TokenguideError

__all__ = ["MODES", "draw_samples", "check_text"]

MODES = ("uniform", "length")
_MAX_BUDGET = 4096
_MAX_COUNT = 100


@functools.lru_cache(maxsize=4)
def _lark_parser(grammar: str) -> Any:
    """Lark's own LALR parser of the grammar (with tokenguide's bundled grammars importable)."""
    import lark

    from .grammars import GRAMMAR_PATH

    return lark.Lark(grammar, parser="lalr", import_paths=[GRAMMAR_PATH])


def check_text(kind: str, source: str, text: str | None, ascii: bool = False) -> dict[str, Any]:
    """Is `text` in the constraint's language, by an independent parser? {parser, ok, message}."""
    parser = {"regex": "re.fullmatch", "cfg": "Lark (LALR)", "schema": "json.loads"}[kind]
    if text is None:
        return {"parser": parser, "ok": False, "message": "the tokens' bytes are not valid UTF-8"}
    try:
        if kind == "regex":
            ok = re.fullmatch(source, text, re.ASCII if ascii else 0) is not None
            return {"parser": parser, "ok": ok, "message": "matches the regex" if ok else "does not match the regex"}
        if kind == "cfg":
            from lark.exceptions import LarkError

            try:
                _lark_parser(source).parse(text)
            except LarkError as exc:
                return {"parser": parser, "ok": False, "message": str(exc).strip().splitlines()[0]}
            return {"parser": parser, "ok": True, "message": "parsed by Lark"}
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            return {"parser": parser, "ok": False, "message": f"not JSON: {exc}"}
        return {"parser": parser, "ok": True, "message": "well-formed JSON"}
    except Exception as exc:  # noqa: BLE001 - a checker that cannot run says so, it does not fail the sample
        return {"parser": parser, "ok": None, "message": f"could not check: {type(exc).__name__}: {exc}"}


def _choose(rng: random.Random, allowed: list[int], mode: str, eos: int, first: bytes, length_of: Callable[[int], int]) -> int:
    """One token of `allowed`: uniform, or length-biased (an allowed end with p = 1/2, else each
    allowed first byte equally likely, then the shorter tokens starting with it more likely: 1 / bytes^2)."""
    if mode == "uniform" or len(allowed) == 1:
        return rng.choice(allowed)
    has_eos = eos in allowed
    if has_eos and rng.random() < 0.5:
        return eos
    firsts = set(operator.itemgetter(*allowed)(first)) if len(allowed) > 1 else {first[allowed[0]]}
    byte = rng.choice(sorted(firsts))
    starting = [t for t in allowed if first[t] == byte and t != eos]
    if not starting:
        return eos if has_eos else rng.choice(allowed)
    for _ in range(256):
        token = rng.choice(starting)
        if rng.random() * length_of(token) ** 2 < 1:
            return token
    return min(starting, key=length_of)


async def draw_samples(
    session: Any,
    count: int,
    mode: str,
    budget: int,
    seed: Any = None,
    progress: Callable[[str, int, int], Any] | None = None,
    should_cancel: Callable[[], bool] | None = None,
) -> list[dict[str, Any]]:
    """`count` completions of the live guide `session` from its current state, at most `budget`
    tokens each; every one with its tokens [id, display text], its text and its independent check."""
    if mode not in MODES:
        raise TokenguideError(f"unknown sampling mode {mode!r}: expected one of {', '.join(MODES)}")
    if not 1 <= count <= _MAX_COUNT or not 1 <= budget <= _MAX_BUDGET:
        raise TokenguideError(f"draw 1 to {_MAX_COUNT} samples of 1 to {_MAX_BUDGET} tokens each")
    rng = random.Random(seed)
    vocabulary = session.vocabulary
    eos = vocabulary.eos_token_id

    def length_of(token: int) -> int:
        return max(1, len(vocabulary.id_to_bytes(token) or b""))

    first = session.first_bytes
    if first is None and mode != "uniform":  # each token's first byte (0 for EOS and empty tokens), once per guide
        first = session.first_bytes = bytes((vocabulary.id_to_bytes(t) or b"\0")[0] for t in range(vocabulary.vocab_size))

    samples = []
    for i in range(count):
        if session.done():
            raise TokenguideError("the generation has ended (EOS was emitted): go back or reset to draw samples")
        state, drawn, stop = session.state, [], "budget"
        while len(drawn) < budget:
            if should_cancel is not None and should_cancel():
                raise BuildCancelled("drawing the samples was cancelled")
            allowed = session.allowed_in(state)
            if not allowed:
                stop = "dead end"
                break
            token = _choose(rng, allowed, mode, eos, first, length_of)
            drawn.append(token)
            if token == eos:
                stop = "eos"
                break
            state = session.guide.get_next_state(state, token)
            if progress is not None:
                progress(f"sample {i + 1} of {count}: tokens", len(drawn), budget)
            await asyncio.sleep(0)
        data = b"".join(vocabulary.id_to_bytes(t) or b"" for t in [*session.tokens, *drawn] if t != eos)
        try:
            text: str | None = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        check = check_text(session.kind, session.source, text, session.ascii) if stop == "eos" else \
            {"parser": None, "ok": None, "message": f"not checked: {'the budget of ' + str(budget) + ' tokens ran out' if stop == 'budget' else 'no token was allowed'} before the end"}
        samples.append({
            "prefix": [[t, session.token_text(t)] for t in session.tokens],
            "tokens": [[t, session.token_text(t)] for t in drawn],
            "text": text if text is not None else data.decode("utf-8", "replace"),
            "stop": stop,
            "check": check,
        })
    return samples
