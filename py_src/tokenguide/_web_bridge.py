"""The Python side of the web app's worker (web/worker.js): vocabularies, builds, live guides.

The worker runs Pyodide and calls these functions through `call`, which never raises: it
returns {"ok": True, "result": ...} or {"ok": False, "error": {kind, message, pos...}}. Results
are plain dicts, lists, str and bytes so the worker can convert them to JavaScript values.
Nothing here is browser-specific: it runs the same in CPython (the end-to-end tests in
tests/e2e compare what the page shows with the library run in CPython).

State kept between calls (one worker = one user):
- vocabularies by fingerprint, plus the worker's source keys (file name, size, date, EOS) that
  map to them, so the same file is read and prepared once and reused for every regex;
- the last index built (for a RegexGuide in the live guide) and one live guide session
  (a RegexGuide, a CFGGuide, or a JSON Schema's Guide: _web_schema_guide), with the time of
  each mask it computed.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import time
from array import array
from typing import Any, Callable

from .errors import BuildCancelled, RegexError, StateLimitError, TokenguideError, VocabularyError
from .display import token_display
from .index import Index, prepare_vocabulary
from .index.format import iter_payload
from .index.layout import le_bytes
from .vocabulary import Tokenizer, Vocabulary, decode_utf8_prefix
from ._web_playground import run_code
from ._web_cancel import guard_interrupts, interruptible
from ._web_samples import draw_samples
from ._web_explain import byte_classes, explain_engine_token, explain_regex_token, explain_token_walk
from ._web_schema_guide import SchemaSteps, describe_compiled

__all__ = [
    "load_vocabulary",
    "build_index",
    "payload_size",
    "range_table",
    "LARGE_INDEX_TRANSITIONS",
    "regex_from_schema",
    "warm_json_schema",
    "grammar_text",
    "guide_start",
    "guide_view",
    "guide_step",
    "guide_back",
    "guide_reset",
    "guide_explain",
    "guide_search",
    "guide_samples",
    "explain_regex_token",
    "run_code",
    "error_info",
    "check_vocabulary_file",
    "mark_snapshot",
    "for_the_page",
    "token_display",
    "call",
    "guard_interrupts",
]

_KEEP_VOCABULARIES = 4  # prepared vocabularies kept in the worker (each takes tens of MB for a 50k vocabulary)
_vocabularies: dict[str, Vocabulary] = {}  # fingerprint -> Vocabulary (most recent last)
_source_keys: dict[str, str] = {}  # worker's key for a file + EOS choice -> fingerprint
_last_index: dict[str, Any] = {}  # {"index": Index, "regex": str, "ascii": bool, "fingerprint": str}
_session: "_GuideSession | None" = None
_from_snapshot: set[str] = set()  # fingerprints of vocabularies prepared when the app was built (memory snapshot)


# --------------------------------------------------------------------------------------------
# Errors and display helpers
# --------------------------------------------------------------------------------------------


_CANCELLED = {
    "load_vocabulary": "reading the vocabulary was cancelled: the previous vocabulary (if any) is still in use",
    "build_index": "the build was cancelled",
    "guide_start": "starting the guide was stopped",
    "guide_view": "computing the allowed tokens was stopped",
    "guide_samples": "drawing the samples was cancelled",
}
"""What a Cancel / Stop (KeyboardInterrupt from Pyodide's interrupt buffer) stopped, by bridge function."""

_CLI_EOS_ADVICE = ("pass eos= / --eos to choose another", "pass eos= (Python) or --eos (command line) with the EOS token id or text")
_WEB_EOS_ADVICE = ("type another token text or id in the EOS box to choose another", "type the EOS token's text or id in the EOS box")


def for_the_page(text: str) -> str:
    """The library's advice for Python and command-line users ("pass eos= / --eos") worded for the page."""
    for cli, web in zip(_CLI_EOS_ADVICE, _WEB_EOS_ADVICE):
        text = text.replace(cli, web)
    return text


def error_info(exc: BaseException, function: str | None = None) -> dict[str, Any]:
    """A JSON-able description of an exception for the page: kind, message, regex position.

    `function` (the bridge function that failed) words a cancellation for what was stopped.
    """
    kind = type(exc).__name__
    if isinstance(exc, KeyboardInterrupt):
        kind, message = "BuildCancelled", _CANCELLED.get(function or "", "the build was cancelled")
    else:
        message = for_the_page(str(exc) or kind)
    info: dict[str, Any] = {"kind": kind, "message": message}
    if isinstance(exc, RegexError):
        info["message"] = exc.msg if getattr(exc, "msg", None) else message
        info["pos"] = exc.pos
        info["pattern"] = exc.pattern
        info["full"] = message
    if isinstance(exc, StateLimitError):
        info["hint"] = "simplify the regex (bounded repetitions like {1,500} multiply states) or raise the state limit"
    elif isinstance(exc, VocabularyError):
        info["hint"] = (
            "check the EOS token in the EOS box" if "eos" in message.lower() else
            "pick the model's Hugging Face vocab.json or tokenizer.json"
        )
    elif not isinstance(exc, (TokenguideError, KeyboardInterrupt, ValueError)):
        import traceback

        info["traceback"] = "".join(traceback.format_exception(exc))[-3000:]
    return info


def _parse_eos(eos: Any) -> int | str | None:
    """EOS as typed in the page: '' or None -> guess, digits -> id, anything else -> token text."""
    if eos is None:
        return None
    if isinstance(eos, float) and not eos.is_integer():
        raise VocabularyError(f"EOS box: {eos!r} is not a token id; give a whole number or the token's text")
    if isinstance(eos, (int, float)) and not isinstance(eos, bool):
        return int(eos)
    text = str(eos).strip()
    if not text:
        return None
    return text  # the Vocabulary reads ASCII digits as an id (with a digit limit), anything else ('²') as text


# --------------------------------------------------------------------------------------------
# Vocabularies
# --------------------------------------------------------------------------------------------


def _remember(vocabulary: Vocabulary) -> str:
    fingerprint = vocabulary.fingerprint()
    _vocabularies.pop(fingerprint, None)
    _vocabularies[fingerprint] = vocabulary
    while len(_vocabularies) > _KEEP_VOCABULARIES:
        oldest = next(iter(_vocabularies))
        del _vocabularies[oldest]
        for key in [k for k, f in _source_keys.items() if f == oldest]:
            del _source_keys[key]
    return fingerprint


def _vocabulary(fingerprint: str) -> Vocabulary:
    found = _vocabularies.get(fingerprint)
    if found is None:
        raise VocabularyError("the vocabulary is no longer loaded in the worker: choose it again")
    return found


def _vocab_info(vocabulary: Vocabulary, fingerprint: str, seconds: float, reused: bool) -> dict[str, Any]:
    return {
        "fingerprint": fingerprint,
        "vocab_size": vocabulary.vocab_size,
        "num_tokens": sum(len(ids) for ids in vocabulary.tokens.values()),
        "eos_token_id": vocabulary.eos_token_id,
        "eos_token": vocabulary.eos_token,
        "eos_note": for_the_page(vocabulary.eos_note) if vocabulary.eos_note else vocabulary.eos_note,
        "decoding": vocabulary.decoding,
        "source": vocabulary.source,
        "seconds": seconds,
        "reused": reused,
        "snapshot": fingerprint in _from_snapshot,
    }


def mark_snapshot(fingerprint: str) -> None:
    """Record that a prepared vocabulary is part of the web app's memory snapshot (made by build.py:
    tools/make_snapshot.mjs), so the page can say it was prepared when the app was built."""
    _vocabulary(fingerprint)
    _from_snapshot.add(fingerprint)


_MAGIC = {b"\x89PNG": "a PNG image", b"\xff\xd8\xff": "a JPEG image", b"GIF8": "a GIF image", b"%PDF": "a PDF document",
          b"PK\x03\x04": "a zip archive", b"\x1f\x8b": "gzip data (an .outlines index? open it in the player)",
          b"\x7fELF": "a program"}


def check_vocabulary_file(text: str | bytes, filename: str) -> None:
    """Name what a file picked as a vocabulary is when it is plainly not JSON (empty, a picture,
    plain text), instead of a JSON parser's "Expecting value at line 1 column 1"."""
    raw = text if isinstance(text, (bytes, bytearray, memoryview)) else None
    if raw is not None:
        raw = bytes(raw[:16])
        if len(text) == 0:
            raise VocabularyError(f"{filename} is empty (0 bytes): pick the model's vocab.json or tokenizer.json")
        for magic, what in _MAGIC.items():
            if raw.startswith(magic):
                raise VocabularyError(f"{filename} is {what}, not a vocabulary: pick the model's vocab.json or tokenizer.json")
        try:
            head = bytes(text[:4096]).decode("utf-8-sig", errors="strict")
        except UnicodeDecodeError as exc:
            if exc.start < 4090:
                raise VocabularyError(
                    f"{filename} is not a text file (byte 0x{raw[min(exc.start, len(raw) - 1)]:02x} at offset {exc.start} is not UTF-8): "
                    "pick the model's vocab.json or tokenizer.json"
                ) from None
            head = bytes(text[: exc.start]).decode("utf-8-sig")
    else:
        head = text[:4096].lstrip("\ufeff")
    stripped = head.lstrip()
    if not stripped and len(text) <= 4096:
        raise VocabularyError(f"{filename} holds only white space: pick the model's vocab.json or tokenizer.json")
    if stripped and stripped[0] not in "{[":
        shown = stripped[:40].splitlines()[0] if stripped[:40].splitlines() else stripped[:40]
        raise VocabularyError(
            f"{filename} is not JSON (it starts with {shown!r}); a vocabulary is a JSON file: "
            "the model's vocab.json or tokenizer.json"
        )


def load_vocabulary(
    text: str | bytes | None, filename: str, eos: Any = None, key: str | None = None, siblings: Any = None
) -> dict[str, Any]:
    """Read (or reuse) a vocab.json / tokenizer.json and prepare it for index builds.

    `key` identifies the file for the worker (name, size, modification date); with the EOS choice
    it finds an already prepared vocabulary without reading the text again (text may then be None).
    `siblings` maps tokenizer_config.json / generation_config.json / special_tokens_map.json to
    their text when the user picked them too (they name EOS, as beside a file on disk).
    Returns the vocabulary's description (sizes, EOS and how it was chosen, fingerprint).
    """
    if siblings is not None and hasattr(siblings, "to_py"):  # a JavaScript object from the worker
        siblings = siblings.to_py()
    if text is not None and hasattr(text, "to_bytes"):  # a JavaScript Uint8Array: the file's bytes
        text = text.to_bytes()
    eos_value = _parse_eos(eos)
    source_key = None if key is None else f"{key}\0{eos_value!r}"
    if source_key is not None and source_key in _source_keys and _source_keys[source_key] in _vocabularies:
        fingerprint = _source_keys[source_key]
        vocabulary = _vocabularies.pop(fingerprint)
        _vocabularies[fingerprint] = vocabulary
        return _vocab_info(vocabulary, fingerprint, 0.0, True)
    if text is None:
        raise VocabularyError(f"{filename}: the file's content is needed (it is not loaded in the worker)")
    check_vocabulary_file(text, filename)
    start = time.perf_counter()
    vocabulary = Vocabulary.from_json_text(text, filename=filename, eos=eos_value, siblings=siblings or None)
    prepare_vocabulary(vocabulary)  # the token trie, shared by every build with this vocabulary
    fingerprint = _remember(vocabulary)
    if source_key is not None:
        _source_keys[source_key] = fingerprint
    return _vocab_info(vocabulary, fingerprint, time.perf_counter() - start, False)


# --------------------------------------------------------------------------------------------
# Index builds
# --------------------------------------------------------------------------------------------


#: Transitions from which the page says an index is large (its file takes seconds to write and
#: tens of MB; the live guide answers the same masks without a file).
LARGE_INDEX_TRANSITIONS = 2_000_000


def range_table(index: Index) -> dict[str, Any]:
    """`index` as key ranges for the page to write its payload from (web/js/range_payload.js): little-endian
    u32 bytes of the final states, every state ascending, each state's first range (offsets, one more
    than states), the ranges (first key, end key, next state) and the trie's flat token ids and key starts."""
    found = index.key_ranges()
    if found is None:
        raise ValueError("range_table: the index was loaded, not built (it has no key ranges)")
    flat_ids, id_start, ranges = found
    states = sorted(ranges)
    offsets = array("I", [0])
    los, his, nexts = array("I"), array("I"), array("I")
    for state in states:
        lo, hi, nx = ranges[state]
        los.extend(lo)
        his.extend(hi)
        nexts.extend(nx)
        offsets.append(len(los))
    fields = {"finals": array("I", sorted(index.final_states)), "states": array("I", states), "offsets": offsets,
              "los": los, "his": his, "nexts": nexts, "flat_ids": flat_ids, "id_start": id_start}
    table: dict[str, Any] = {name: le_bytes(values) for name, values in fields.items()}
    table.update(vocab_size=index.vocab_size, eos_token_id=index.eos_token_id, initial_state=index.initial_state)
    return table


def payload_size(index: Index) -> int:
    """The exact size in bytes of `index`'s uncompressed v1 payload (known before writing it)."""
    counts = [index.transition_count(s) for s in index.states()]
    listed = sum(1 for c in counts if c)
    return 4 * (4 + len(index.final_states)) + 1 + 4 + 8 * listed + 8 * sum(counts)


async def build_index(
    regex: str,
    fingerprint: str,
    ascii: bool = False,
    max_states: int = 100_000,
    progress: Callable[[str, int, int], Any] | None = None,
    should_cancel: Callable[[], Any] | None = None,
    write: str = "canonical",
    emit: Callable[[bytes], Any] | None = None,
) -> dict[str, Any]:
    """Build the index of `regex` for a loaded vocabulary, then write its file; return its statistics.

    Yields to the event loop while it works (Index.build_async), so the worker can receive a
    cancel message; `should_cancel()` is asked at every checkpoint. Once built, before the file is
    written, `progress("built", transitions, payload bytes)` tells the page how large it will be.
    `write="canonical"`: the result's "bytes" are exactly what `python -m tokenguide build` writes
    for the same regex, vocabulary and options (zlib level 6 here). `write="payload"`: the
    uncompressed v1 payload goes to `emit(chunk)` in chunks of about a megabyte (awaited when it
    returns an awaitable, the page's back pressure), for the page to gzip natively; "bytes" is None.
    `write="ranges"`: "table" is `range_table(index)`, from which the page writes the payload itself.
    """
    if not isinstance(regex, str) or regex == "":
        raise RegexError("the regex is empty: type a regular expression or pick an example", regex or "", None)
    if write not in ("canonical", "payload", "ranges") or (write == "payload" and emit is None):
        raise ValueError(f"build_index: write must be 'canonical', 'payload' (with emit) or 'ranges', got {write!r}")
    vocabulary = _vocabulary(fingerprint)
    cancel = (lambda: bool(should_cancel())) if should_cancel is not None else None
    start = time.perf_counter()
    try:
        index = await Index.build_async(
            regex, vocabulary, ascii=bool(ascii), max_states=int(max_states), progress=progress, should_cancel=cancel
        )
    except KeyboardInterrupt:
        raise BuildCancelled("the build was cancelled") from None
    built = time.perf_counter() - start
    _last_index.clear()  # the live guide can step through it even if writing is cancelled
    _last_index.update(index=index, regex=regex, ascii=bool(ascii), fingerprint=fingerprint)
    raw_size = payload_size(index)
    if progress is not None:
        progress("built", index.num_transitions, raw_size)
    await asyncio.sleep(0)  # the page shows the size (and a Cancel can come) before writing starts
    data = table = None
    try:
        if write == "ranges":
            table = range_table(index)
        elif write == "payload":
            for part in iter_payload(index, progress=progress, should_cancel=cancel):
                waiting = emit(part)
                if inspect.isawaitable(waiting):
                    await waiting
                await asyncio.sleep(0)  # lets the worker see a cancel message between chunks
        else:
            parts = []
            for part in index.iter_bytes(progress=progress, should_cancel=cancel):  # progress "writing", done, total
                parts.append(part)
                await asyncio.sleep(0)
            data = b"".join(parts)
    except KeyboardInterrupt:
        raise BuildCancelled("writing the file was cancelled") from None
    serialized = time.perf_counter() - start - built
    return {
        "bytes": data,
        "table": table,
        "payload_size": raw_size,
        "large": index.num_transitions >= LARGE_INDEX_TRANSITIONS,
        "num_states": index.num_states,
        "num_transitions": index.num_transitions,
        "num_final_states": len(index.final_states),
        "initial_state": index.initial_state,
        "vocab_size": index.vocab_size,
        "eos_token_id": index.eos_token_id,
        "build_seconds": built,
        "serialize_seconds": serialized,
        "total_seconds": time.perf_counter() - start,
        "file_size": len(data) if data is not None else None,
    }


def regex_from_schema(schema_text: str) -> dict[str, Any]:
    """The regex of a JSON Schema (tokenguide.json_schema), with any warning about ignored keywords."""
    import warnings

    from .json_schema import build_regex_from_schema

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        regex = build_regex_from_schema(schema_text)
    return {"regex": regex, "warnings": [str(w.message) for w in caught]}


def warm_json_schema() -> bool:
    """Import the JSON Schema compiler ahead of its first use (the page asks when a schema is chosen,
    so that the first Start does not also pay for the import)."""
    from . import json_schema  # noqa: F401 - imported for its side effect: loaded and compiled

    return True


def grammar_text(name: str) -> str:
    """The text of a bundled Lark grammar (tokenguide.grammars), for the live guide's editor."""
    from . import grammars

    return grammars.load(name)


# --------------------------------------------------------------------------------------------
# Live guide
# --------------------------------------------------------------------------------------------

_CHUNK = 2048  # candidate tokens tried between two yields of a CFG step


class _GuideSession:
    """One live guide: the guide, the path of token ids, and the states along it."""

    def __init__(self, kind: str, guide: Any, vocabulary: Vocabulary, description: str, source: str = "",
                 ascii: bool = False, schema: dict[str, Any] | None = None):
        self.kind = kind
        self.guide = guide
        self.vocabulary = vocabulary
        self.description = description
        self.source = source  # the regex, grammar or schema text (the samples' independent check)
        self.ascii = ascii
        self.schema_info = schema  # kind "schema": describe_compiled(...) and the compile time
        self.tokens: list[int] = []
        self.states: list[Any] = [guide.initial_state]
        self.allowed: dict[int, list[int]] = {}  # depth -> allowed ids (computed once per depth)
        self.display: dict[int, str] = {}  # token id -> display text (filters rescan it often)
        self.mask_seconds: dict[int, float] = {}  # depth -> time its allowed tokens took
        self.last_mask = 0.0
        self.total_mask = 0.0
        self.masks = 0  # masks computed (a depth computed again after Back counts again)
        self.first_bytes: bytes | None = None  # each token's first byte, for the length-biased samples (_web_samples)

    def token_text(self, token_id: int) -> str:
        found = self.display.get(token_id)
        if found is None:
            found = self.display[token_id] = token_display(self.vocabulary, token_id, quoted=False)
        return found

    @property
    def state(self) -> Any:
        return self.states[-1]

    def done(self) -> bool:
        return bool(self.tokens) and self.tokens[-1] == self.vocabulary.eos_token_id

    def text(self) -> str:
        if self.kind == "cfg" and isinstance(getattr(self.state, "text", None), str):
            return self.state.text
        data = b"".join(self.vocabulary.id_to_bytes(t) or b"" for t in self.tokens)
        return decode_utf8_prefix(data)

    def state_label(self) -> str:
        if self.done():
            return "end (EOS emitted)"
        if self.kind == "regex":
            return str(self.state)
        if self.kind == "schema":
            return self.guide.label(self.state, len(self.tokens))
        readings = getattr(self.state, "pairs", None)
        if readings is not None:  # an engine state: its readings of the text (row, lexer state)
            return f"step {len(self.tokens)}, {len(readings)} reading{'s' if len(readings) != 1 else ''}"
        parser_state = getattr(self.state, "parser_state", None)
        position = getattr(parser_state, "position", None)
        if position is None:
            return f"step {len(self.tokens)}"
        pending = getattr(self.state, "pending", "")
        return f"parser state {position}" + (f", pending {pending!r}" if pending else "")

    def is_final(self) -> bool:
        return (not self.done()) and bool(self.guide.is_final_state(self.state))

    def allowed_in(self, state: Any) -> list[int]:
        """The allowed token ids of any state of this guide, at once (the samples' walk)."""
        if self.kind == "regex":
            return list(self.guide.index.state_transitions(state)[0])
        if self.kind == "schema":
            return self.guide.allowed(state)
        return sorted(int(t) for t in self.guide.get_next_instruction(state).tokens)

    async def compute_allowed(self, progress, should_cancel) -> list[int]:
        depth = len(self.tokens)
        found = self.allowed.get(depth)
        if found is not None:
            return found
        start = time.perf_counter()
        if self.done():
            found = []
        elif self.kind != "cfg" or not _is_reference_cfg(self.guide):
            # an index row, or a guide with its own fast algorithm: one call (no progress; Cancel
            # works through Pyodide's interrupt buffer when the page is cross-origin isolated)
            found = self.allowed_in(self.state)
        else:
            # the reference CFGGuide tries every token: do it in chunks, yielding in between, so the
            # page sees progress and can stop a long step
            guide = self.guide
            candidates = guide.candidate_ids
            state = self.state
            found = []
            total = len(candidates)
            for lo in range(0, total, _CHUNK):
                if should_cancel is not None and should_cancel():
                    raise BuildCancelled("the step was cancelled")
                found.extend(guide.iter_valid_token_ids(state, candidates[lo : lo + _CHUNK]))
                if progress is not None:
                    progress("allowed tokens", min(total, lo + _CHUNK), total)
                await asyncio.sleep(0)
        self.allowed[depth] = found
        if not self.done():
            self.last_mask = self.mask_seconds[depth] = time.perf_counter() - start
            self.total_mask += self.last_mask
            self.masks += 1
        return found

    def forced(self, depth: int) -> bool:
        """Only one continuation was allowed at `depth` (the constraint forced the token)."""
        return len(self.allowed.get(depth) or ()) == 1

    def cost(self) -> dict[str, Any]:
        """The time of the current state's mask and the running mean over the masks computed."""
        depth = len(self.tokens)
        return {"mask_ms": self.mask_seconds[depth] * 1000 if depth in self.mask_seconds else None,
                "last_mask_ms": self.last_mask * 1000, "mean_mask_ms": self.total_mask * 1000 / self.masks if self.masks else None,
                "masks": self.masks, "forced": self.forced(depth) and not self.done()}


def _is_reference_cfg(guide: Any) -> bool:
    """True for a guide answering with the reference algorithm (one parser copy per token),
    which the live guide runs in chunks; guides with their own get_next_instruction are asked directly."""
    from .guides.cfg import ReferenceCFGGuide

    return isinstance(guide, ReferenceCFGGuide) and type(guide).get_next_instruction is ReferenceCFGGuide.get_next_instruction



def _require_session() -> _GuideSession:
    if _session is None:
        raise TokenguideError("no live guide: start one first")
    return _session


async def guide_start(
    kind: str,
    source: str,
    fingerprint: str,
    ascii: bool = False,
    progress: Callable[[str, int, int], Any] | None = None,
    should_cancel: Callable[[], Any] | None = None,
) -> dict[str, Any]:
    """Start a live guide: kind "regex" (source = regex), "cfg" (source = Lark grammar text) or
    "schema" (source = JSON Schema text: Guide.from_json_schema chooses the path).

    A regex guide reuses the last index built when it matches (same regex, options, vocabulary).
    """
    global _session
    vocabulary = _vocabulary(fingerprint)
    if kind == "regex":
        from .guides import RegexGuide

        last = _last_index
        if last.get("regex") == source and last.get("ascii") == bool(ascii) and last.get("fingerprint") == fingerprint:
            index = last["index"]
        else:
            if not source:
                raise RegexError("the regex is empty: type a regular expression or pick an example", "", None)
            try:
                index = await Index.build_async(
                    source, vocabulary, ascii=bool(ascii), progress=progress,
                    should_cancel=(lambda: bool(should_cancel())) if should_cancel else None,
                )
            except KeyboardInterrupt:
                raise BuildCancelled("the build was cancelled") from None
            _last_index.clear()
            _last_index.update(index=index, regex=source, ascii=bool(ascii), fingerprint=fingerprint)
        guide = RegexGuide(index)
        description = f"RegexGuide: {index.num_states:,} states, {index.num_transitions:,} transitions"
    elif kind == "cfg":
        if not source.strip():
            raise TokenguideError("the grammar is empty: type a Lark grammar or pick a bundled one")
        from .guides.grammar import CFGGuide

        guide = CFGGuide(source, Tokenizer(vocabulary))
        description = "CFGGuide (the grammar engine: the grammar's own language, any context-free grammar)"
    elif kind == "schema":
        if not source.strip():
            raise TokenguideError("the schema is empty: paste a JSON Schema or load a schema file")
        guide = SchemaSteps(source, vocabulary)
        schema_info = {**describe_compiled(guide.compiled), "compile_ms": guide.compile_seconds * 1000}
        description = f"Guide.from_json_schema ({schema_info['path']} path, chosen by the library: see below)"
        _session = _GuideSession(kind, guide, vocabulary, description, source, schema=schema_info)
        return {"description": description, "kind": kind, "schema": schema_info}
    else:
        raise ValueError(f"unknown guide kind {kind!r}: expected 'regex', 'cfg' or 'schema'")
    _session = _GuideSession(kind, guide, vocabulary, description, source, ascii=bool(ascii))
    return {"description": description, "kind": kind}


async def guide_view(
    filter_text: str = "",
    limit: int = 300,
    progress: Callable[[str, int, int], Any] | None = None,
    should_cancel: Callable[[], Any] | None = None,
) -> dict[str, Any]:
    """The current state of the live guide: generated text, path, and the allowed tokens matching
    `filter_text` (a token id, or text contained in the token's display text), at most `limit`.

    With a negative `limit`, every allowed token is returned packed for the page's virtualized
    list instead: "ids" (little-endian uint32 bytes) and "texts" (display texts joined by NUL,
    which display texts never contain since control characters are escaped).
    """
    session = _require_session()
    allowed = await session.compute_allowed(progress, should_cancel)
    vocabulary = session.vocabulary
    needle = (filter_text or "").strip()
    items = []
    matched = 0
    packed: dict[str, Any] = {}
    if limit < 0:
        ids = array("I", allowed)
        if sys.byteorder != "little":
            ids.byteswap()
        packed = {"ids": ids.tobytes(), "texts": "\0".join(session.token_text(t) for t in allowed)}
        matched = len(allowed)
    for token_id in allowed if not packed else ():
        text = session.token_text(token_id)
        if needle and not (needle == str(token_id) or needle in text):
            continue
        matched += 1
        if len(items) < limit:
            items.append([token_id, text, token_id == vocabulary.eos_token_id])
    return {
        "kind": session.kind,
        "description": session.description,
        "state": session.state_label(),
        "final": session.is_final(),
        "done": session.done(),
        "text": session.text(),
        "path": [[t, session.token_text(t), session.forced(i)] for i, t in enumerate(session.tokens)],
        "cost": session.cost(),
        "schema": session.schema_info,
        "num_allowed": len(allowed),
        "num_matched": matched,
        "items": items,
        "eos_token_id": vocabulary.eos_token_id,
        **packed,
    }


def guide_step(token_id: int) -> None:
    """Advance the live guide by one allowed token (an error names a token that is not allowed)."""
    session = _require_session()
    token_id = int(token_id)
    allowed = session.allowed.get(len(session.tokens))
    if session.done():
        raise TokenguideError("the generation has ended (EOS was emitted): go back or reset")
    if allowed is not None and token_id not in set(allowed):
        raise TokenguideError(
            f"token {token_id} [{session.token_text(token_id)}] is not allowed in this state"
        )
    session.states.append(session.guide.get_next_state(session.state, token_id))
    session.tokens.append(token_id)


def guide_explain(token: Any) -> dict[str, Any]:
    """Why the live guide does (not) allow a token now: `token` is an id or a token's exact text.

    Regex guides: how far the token's bytes get, the byte where they die, what the automaton
    accepts there. Grammar guides (the engine) the same, with the lexemes the parser expects and the
    character of the text where no reading goes on; LALR grammar guides (a schema's grammar path):
    the terminals the parser expects, and where lexing or parsing the text followed by the token
    fails (the failing lexeme or character).
    """
    session = _require_session()
    vocabulary = session.vocabulary
    if isinstance(token, str) and not token.strip().isdigit():
        ids = vocabulary.get(token)
        if ids is None and token in vocabulary.token_strings:
            ids = [vocabulary.token_strings[token]]
        if not ids:
            raise TokenguideError(f"no token has the text {token!r}; type its id or its exact text")
        token_id = ids[0]
    else:
        token_id = int(token)
    if not 0 <= token_id < vocabulary.vocab_size:
        raise TokenguideError(f"token {token_id} is not in the vocabulary (ids 0 to {vocabulary.vocab_size - 1})")
    allowed = session.allowed.get(len(session.tokens))
    is_allowed = allowed is not None and token_id in set(allowed)
    out: dict[str, Any] = {"token": token_id, "text": session.token_text(token_id), "allowed": is_allowed,
                           "kind": session.kind, "eos": token_id == vocabulary.eos_token_id}
    if token_id == vocabulary.eos_token_id or session.done():
        out["final"] = session.is_final()
        return out
    if session.kind == "regex":
        out.update(explain_regex_token(session.guide.index, vocabulary, session.state, token_id))
        return out
    if session.kind == "schema":
        walk = explain_token_walk(session.guide.allowed, session.guide.get_next_state, vocabulary, session.state, token_id)
        out.update(walk, accepts_text=byte_classes(walk["accepts"]), path=session.schema_info["path"])
        if session.guide.grammar is None:
            return out
    if session.kind == "cfg" and not hasattr(session.state, "parser_state"):
        out.update(explain_engine_token(session.guide, session.state, token_id, session.text()))
        return out
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    grammar = session.guide.grammar
    state = session.state.get_state() if session.kind == "schema" else session.state
    parser_state = getattr(state, "parser_state", None)
    out["expected"] = sorted(grammar.acceptable(parser_state)) if parser_state is not None else []
    before = session.text()
    candidate = before + (vocabulary.id_to_bytes(token_id) or b"").decode("utf-8", "replace")
    out["at"] = len(before)
    try:
        grammar.parser.parse_interactive(candidate).exhaust_lexer()
        out["failure"] = None
    except UnexpectedCharacters as exc:
        out["failure"] = {"pos": exc.pos_in_stream, "char": candidate[exc.pos_in_stream: exc.pos_in_stream + 1],
                          "expected": sorted(exc.allowed or ()), "what": "no terminal matches the text from here"}
    except UnexpectedToken as exc:
        out["failure"] = {"pos": exc.token.start_pos, "lexeme": str(exc.token), "terminal": exc.token.type,
                          "expected": sorted(exc.expected or ()), "what": "the parser does not accept this lexeme here"}
    except UnexpectedEOF:  # pragma: no cover - exhaust_lexer does not feed $END
        out["failure"] = None
    return out


def guide_search(text: str, limit: int = 50) -> list[list[Any]]:
    """Tokens of the whole vocabulary (allowed or not) whose id or display text holds `text`:
    [id, display text, allowed] for at most `limit` of them."""
    session = _require_session()
    needle = (text or "").strip()
    if not needle:
        return []
    allowed = set(session.allowed.get(len(session.tokens)) or ())
    found: list[list[Any]] = []
    first = [int(needle)] if needle.isdigit() and int(needle) < session.vocabulary.vocab_size else []
    first += [t for t in session.vocabulary.get(needle) or () if t not in first]  # the token spelled exactly so
    for token_id in first:
        found.append([token_id, session.token_text(token_id), token_id in allowed])
    for token_id in range(session.vocabulary.vocab_size):
        if len(found) >= limit:
            break
        if token_id not in first and needle in session.token_text(token_id):
            found.append([token_id, session.token_text(token_id), token_id in allowed])
    return found


async def guide_samples(
    count: int,
    mode: str = "uniform",
    budget: int = 64,
    seed: Any = None,
    progress: Callable[[str, int, int], Any] | None = None,
    should_cancel: Callable[[], Any] | None = None,
) -> list[dict[str, Any]]:
    """`count` random completions of the live guide from its current state (_web_samples.draw_samples),
    each checked by an independent parser."""
    session = _require_session()
    try:
        return await draw_samples(session, int(count), mode, int(budget), seed, progress,
                                  (lambda: bool(should_cancel())) if should_cancel else None)
    except KeyboardInterrupt:
        raise BuildCancelled("drawing the samples was cancelled") from None


def guide_back() -> None:
    """Undo the last token of the live guide (nothing at the start)."""
    session = _require_session()
    if session.tokens:
        session.allowed.pop(len(session.tokens), None)
        session.tokens.pop()
        session.states.pop()


def guide_reset() -> None:
    """Back to the guide's initial state (allowed tokens of the initial state are kept)."""
    session = _require_session()
    while session.tokens:
        guide_back()


# --------------------------------------------------------------------------------------------
# Entry point for the worker
# --------------------------------------------------------------------------------------------

_CALLABLE = {
    "load_vocabulary": load_vocabulary,
    "build_index": build_index,
    "regex_from_schema": regex_from_schema,
    "warm_json_schema": warm_json_schema,
    "grammar_text": grammar_text,
    "guide_start": guide_start,
    "guide_view": guide_view,
    "guide_step": guide_step,
    "guide_back": guide_back,
    "guide_reset": guide_reset,
    "guide_explain": guide_explain,
    "guide_search": guide_search,
    "guide_samples": guide_samples,
    "run_code": run_code,
}


async def call(name: str, *args: Any) -> dict[str, Any]:
    """Run one bridge function for the worker: {"ok": True, "result": ...} or
    {"ok": False, "error": error_info(...)} (errors never escape as exceptions, so the page always
    gets the kind, message and regex position). KeyboardInterrupt (the page's cancel) counts as
    a cancelled build; with `guard_interrupts` installed it is raised only inside `interruptible`."""
    fn = _CALLABLE.get(name)
    if fn is None:
        return {"ok": False, "error": {"kind": "Error", "message": f"unknown bridge function {name!r}"}}
    try:
        return {"ok": True, "result": await interruptible(fn, args)}
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - every failure is reported to the page
        return failure(exc, name)


def failure(exc: BaseException, name: str) -> dict[str, Any]:
    """The page's reply for a failed bridge call. A second Cancel (a KeyboardInterrupt while the
    first failure is described) must not escape into the event loop: it is reported as a cancel."""
    for _ in range(3):
        try:
            return {"ok": False, "error": error_info(exc, name)}
        except KeyboardInterrupt as again:
            exc = exc if isinstance(exc, BuildCancelled) else again
    return {"ok": False, "error": {"kind": "BuildCancelled", "message": _CANCELLED.get(name, "the build was cancelled")}}
