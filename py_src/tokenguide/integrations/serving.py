"""Grammar objects in the shapes serving engines call: vLLM's structured-output backend and SGLang's.

`Backend(tokenizer, vocab_size=None)` takes a transformers tokenizer and the model's vocabulary
size (which may exceed the tokenizer's: padded embeddings). `compile_grammar(kind, spec)` for
"json", "json_object", "regex", "grammar" (Lark) and "choice" returns a `Grammar` with vLLM's
`StructuredOutputGrammar` methods (`accept_tokens`, `validate_tokens`, `rollback`,
`fill_bitmask`, `is_terminated`, `reset`, `find_jump_string`) and SGLang's `BaseGrammarObject`
ones (`accept_token`, `fill_vocab_mask`, `apply_vocab_mask`, `copy`, `try_jump_forward`...).
`sglang_backend` is a factory for SGLang's `register_grammar_backend`. Neither engine is imported:
the shapes are duck-typed. Bitmasks are (batch, ceil(vocab_size / 32)) int32 torch tensors.

Stop tokens: the tokenizer's EOS plus `eos_token_ids`; any of them is allowed where the text is
complete, and accepting one terminates the grammar (vLLM's `is_terminated`).
"""

from __future__ import annotations

import ast
import json
from concurrent.futures import Future
from typing import Any, Iterable, Optional

from ..errors import ArgumentError, GuideError, InvalidTokenError
from ..guides.fast_forward import FastForward, hf_encoder
from ..guides.instructions import bitmask_words
from ..guides.stateful import Guide
from ..vocabulary import Tokenizer, as_tokenizer

__all__ = ["Backend", "Grammar", "SGLangBackend", "apply_token_bitmask_inplace", "sglang_backend"]

KINDS = ("json", "json_object", "regex", "grammar", "choice")


def _kind(kind: Any) -> str:
    """'json', 'regex'... from a str or an enum member such as vLLM's StructuredOutputOptions.JSON."""
    name = getattr(kind, "name", kind)
    if not isinstance(name, str) or name.lower() not in KINDS + ("ebnf",):
        raise ArgumentError(f"Backend.compile_grammar: kind must be one of {', '.join(KINDS)}, got {kind!r:.60}")
    name = name.lower()
    return "grammar" if name == "ebnf" else name


def _choices(spec: Any) -> list[str]:
    if isinstance(spec, str):
        try:
            spec = json.loads(spec)
        except ValueError:
            spec = ast.literal_eval(spec)  # vLLM writes a Python list's repr
    if isinstance(spec, (str, bytes)) or not hasattr(spec, "__iter__"):
        raise ArgumentError(f"Backend.compile_grammar: choice spec must be a list of strings, got {spec!r:.60}")
    choices = [str(c) for c in spec]
    if not choices:
        raise ArgumentError("Backend.compile_grammar: choice spec must hold at least one string")
    return choices


def apply_token_bitmask_inplace(logits: Any, bitmask: Any) -> None:
    """Set to -inf the logits (batch, vocab) whose bit is 0 in `bitmask` (batch, words), in place (torch)."""
    import torch

    bitmask = bitmask.to(logits.device)
    shifts = torch.arange(32, dtype=torch.int32, device=logits.device)
    allowed = ((bitmask.unsqueeze(-1) >> shifts) & 1).view(bitmask.shape[0], -1).bool()
    vocab = logits.shape[-1]
    if allowed.shape[1] < vocab:  # ids past the mask are refused
        allowed = torch.nn.functional.pad(allowed, (0, vocab - allowed.shape[1]))
    logits.masked_fill_(~allowed[:, :vocab].view(logits.shape), float("-inf"))


class Backend:
    """Compile constraints into `Grammar`s for one tokenizer and model vocabulary size (vLLM's shape)."""

    def __init__(self, tokenizer: Any, vocab_size: Optional[int] = None, *, eos_token_ids: Optional[Iterable[int]] = None,
                 max_rollback: int = 64, whitespace_pattern: Optional[str] = None):
        adapted = as_tokenizer(tokenizer, where="Backend", argument="tokenizer")
        self.tokenizer = Tokenizer(adapted.core_vocabulary) if hasattr(adapted, "core_vocabulary") else adapted
        self.vocabulary = self.tokenizer.core_vocabulary
        own = self.vocabulary.vocab_size
        if vocab_size is None:
            vocab_size = own
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < own:
            raise ArgumentError(f"Backend: vocab_size must be an int >= the tokenizer's {own}, got {vocab_size!r}")
        self.vocab_size = vocab_size
        stops = {self.vocabulary.eos_token_id, *(int(t) for t in (eos_token_ids or ()))}
        if any(t < 0 or t >= vocab_size for t in stops):
            raise ArgumentError(f"Backend: eos_token_ids must be ids below vocab_size {vocab_size}, got {sorted(stops)}")
        self.eos_token_ids = frozenset(stops)
        self.max_rollback = max_rollback
        self.whitespace_pattern = whitespace_pattern
        encode = hf_encoder(tokenizer) if hasattr(tokenizer, "encode") and hasattr(tokenizer, "get_vocab") else None
        self.fast_forward = FastForward(self.vocabulary, encode) if encode is not None else None
        self._templates: dict[tuple[str, str], Guide] = {}

    def _guide(self, kind: str, spec: Any) -> Guide:
        if kind == "json":
            return Guide.from_json_schema(spec, self.tokenizer, max_rollback=self.max_rollback,
                                          whitespace_pattern=self.whitespace_pattern)
        if kind == "json_object":
            return Guide.from_json_schema({"type": "object"}, self.tokenizer, max_rollback=self.max_rollback,
                                          whitespace_pattern=self.whitespace_pattern)
        if kind == "regex":
            return Guide.from_regex(spec, self.tokenizer, max_rollback=self.max_rollback)
        if kind == "grammar":
            return Guide.from_grammar(spec, self.tokenizer, max_rollback=self.max_rollback)
        import re

        regex = "(" + "|".join(re.escape(c) for c in _choices(spec)) + ")"
        return Guide.from_regex(regex, self.tokenizer, max_rollback=self.max_rollback)

    def compile_grammar(self, kind: Any, spec: Any, stop_token_ids: Optional[Iterable[int]] = None) -> "Grammar":
        """A fresh Grammar for `spec`: a JSON Schema (text or dict), a regex, a Lark grammar, or a list of choices."""
        kind = _kind(kind)
        key = (kind, spec if isinstance(spec, str) else json.dumps(spec, sort_keys=True, default=str))
        template = self._templates.get(key)
        if template is None:
            template = self._templates[key] = self._guide(kind, spec)
        stops = self.eos_token_ids if stop_token_ids is None else frozenset(int(t) for t in stop_token_ids)
        guide = template.copy()
        guide.reset()
        return Grammar(guide, self.vocab_size, stops, self.fast_forward)

    def allocate_token_bitmask(self, max_num_seqs: int) -> Any:
        """A (max_num_seqs, ceil(vocab_size / 32)) int32 torch tensor, all bits set (nothing masked)."""
        import torch

        return torch.full((max_num_seqs, bitmask_words(self.vocab_size)), -1, dtype=torch.int32)

    def destroy(self) -> None:
        """Drop the compiled constraints."""
        self._templates.clear()


class Grammar:
    """One request's constraint state: vLLM's StructuredOutputGrammar and SGLang's BaseGrammarObject methods."""

    def __init__(self, guide: Guide, vocab_size: int, stop_token_ids: frozenset, fast_forward: Optional[FastForward] = None):
        self.guide = guide
        self.vocab_size = vocab_size
        self.stop_token_ids = stop_token_ids
        self.fast_forward = fast_forward
        self.num_processed_tokens = 0
        self._terminated = False
        self._output: list[int] = []  # the accepted ordinary tokens (the context of fast-forward encodings)
        self.finished = False  # SGLang sets this when the request ends
        self.grammar_stats = None
        self.current_token = None

    # -- vLLM --------------------------------------------------------------------------------
    def _can_take(self, guide: Guide, token: int) -> bool:
        if token in self.stop_token_ids:
            return guide.is_finished()
        return 0 <= token < guide.vocab_size and guide.accepts_tokens([token])

    def accept_tokens(self, request_id: Any, tokens: Iterable[int]) -> bool:
        """Advance by `tokens`; False (and nothing advanced) if one is refused. Tokens after a stop token are ignored."""
        if self._terminated:
            return True
        taken = 0
        for token in tokens:
            token = int(token)
            if not self._can_take(self.guide, token):
                if taken:
                    self.rollback(taken)
                return False
            taken += 1
            self.num_processed_tokens += 1
            if token in self.stop_token_ids:
                self._terminated = True
                break
            self.guide.advance(token, return_tokens=False)
            self._output.append(token)
        return True

    def validate_tokens(self, tokens: Iterable[int]) -> list[int]:
        """The longest prefix of `tokens` this grammar accepts (up to and including a stop token); nothing advances."""
        if self._terminated:
            return []
        guide = self.guide.copy()
        accepted: list[int] = []
        for token in tokens:
            token = int(token)
            if not self._can_take(guide, token):
                break
            accepted.append(token)
            if token in self.stop_token_ids:
                break
            guide.advance(token, return_tokens=False)
        return accepted

    def rollback(self, num_tokens: int) -> None:
        """Undo the last `num_tokens` accepted tokens (a stop token counts as one)."""
        if isinstance(num_tokens, bool) or not isinstance(num_tokens, int) or num_tokens < 0:
            raise ArgumentError(f"Grammar.rollback: num_tokens must be an int >= 0, got {num_tokens!r}")
        if num_tokens > self.num_processed_tokens:
            raise GuideError(f"Grammar.rollback: cannot roll back {num_tokens} tokens, only {self.num_processed_tokens} were accepted")
        left = num_tokens
        if left and self._terminated:
            self._terminated = False
            left -= 1
        self.guide.rollback_state(left)
        del self._output[len(self._output) - left :]
        self.num_processed_tokens -= num_tokens

    def fill_bitmask(self, bitmask: Any, index: int) -> None:
        """Write the allowed tokens into row `index` of a (batch, ceil(vocab_size / 32)) int32 bitmask."""
        row = bitmask[index]
        if self._terminated:
            row.zero_() if hasattr(row, "zero_") else row.fill(0)
        else:
            self.guide.write_mask_into(row)
            if not self.guide.is_finished():
                return
        for token in self.stop_token_ids:
            word, bit = divmod(token, 32)
            value = int(row[word]) | (1 << bit)
            row[word] = value - (1 << 32) if value >= 1 << 31 else value

    def is_terminated(self) -> bool:
        """A stop token was accepted."""
        return self._terminated

    def reset(self) -> None:
        """Back to the start of the constraint."""
        self.guide.reset()
        self.num_processed_tokens = 0
        self._terminated = False
        self._output.clear()

    def find_jump_string(self) -> Optional[str]:
        """The text the constraint forces next (vLLM's name), or None; see `forced_text`."""
        return self.forced_text() or None

    # -- fast-forward ------------------------------------------------------------------------
    def forced_bytes(self) -> bytes:
        """The bytes every continuation of the constraint starts with (b"" where EOS or a choice may come)."""
        if self._terminated or self.fast_forward is None:
            return b""
        return self.fast_forward.forced_bytes(self.guide)

    def forced_text(self) -> str:
        """`forced_bytes` as text, up to its last complete UTF-8 character."""
        return self.forced_bytes().decode("utf-8", "ignore")

    def forced_tokens(self) -> list[int]:
        """Tokens that may be appended without a model call: the tokenizer's own encoding of the forced bytes,
        cut before any token a longer one could extend across the forced boundary (see guides.fast_forward)."""
        if self._terminated or self.fast_forward is None:
            return []
        return self.fast_forward.forced_tokens(self.guide, self._output)

    def find_jump_forward_string(self) -> str:
        """xgrammar's name: the forced text ("" if none)."""
        return self.forced_text()

    # -- SGLang ------------------------------------------------------------------------------
    def accept_token(self, token: int) -> None:
        """Advance by one token; InvalidTokenError if the grammar refuses it."""
        if not self.accept_tokens(None, [token]):
            raise InvalidTokenError(f"Grammar.accept_token: token {token} is not allowed here")

    def is_valid(self, token: int) -> bool:
        """Whether `token` may come next (nothing advances)."""
        return bool(self.validate_tokens([token]))

    def allocate_vocab_mask(self, vocab_size: int, batch_size: int, device: Any) -> Any:
        """A (batch_size, ceil(vocab_size / 32)) int32 torch bitmask on the CPU, all bits set."""
        import torch

        return torch.full((batch_size, bitmask_words(vocab_size)), -1, dtype=torch.int32)

    def fill_vocab_mask(self, vocab_mask: Any, idx: int) -> None:
        """SGLang's name for `fill_bitmask`."""
        self.fill_bitmask(vocab_mask, idx)

    @staticmethod
    def move_vocab_mask(vocab_mask: Any, device: Any) -> Any:
        """The bitmask on `device`."""
        return vocab_mask.to(device, non_blocking=True)

    @staticmethod
    def apply_vocab_mask(logits: Any, vocab_mask: Any) -> None:
        """Mask `logits` in place with a filled bitmask."""
        apply_token_bitmask_inplace(logits, vocab_mask)

    def copy(self) -> "Grammar":
        """A fresh Grammar for the same constraint, at its start."""
        guide = self.guide.copy()
        guide.reset()
        return Grammar(guide, self.vocab_size, self.stop_token_ids, self.fast_forward)

    def maybe_init_reasoning(self, reasoning: bool) -> None:
        """SGLang hook: reasoning sections are not handled here."""

    def cache_memory_bytes(self) -> int:
        """SGLang's cache accounting (compiled guides are shared; 0)."""
        return 0

    def try_jump_forward(self, tokenizer: Any) -> Optional[tuple[list[int], str]]:
        """SGLang: (forced tokens, forced text), or None when nothing is forced."""
        tokens = self.forced_tokens()
        if not tokens:
            return None
        text = b"".join(self.guide_token_bytes(t) for t in tokens).decode("utf-8", "replace")
        return tokens, text

    def guide_token_bytes(self, token: int) -> bytes:
        """The bytes of one token of this grammar's vocabulary."""
        return self.fast_forward.vocabulary.id_to_bytes(token) or b"" if self.fast_forward else b""

    def jump_forward_str_state(self, helper: tuple[list[int], str]) -> tuple[str, int]:
        """SGLang: the jump-forward text of `try_jump_forward`'s helper, and -1 (no state number)."""
        return helper[1], -1

    def jump_and_retokenize(self, old_output_ids: list[int], new_output_ids: list[int], next_state: int) -> None:
        """SGLang: the output was retokenized; roll back to the common prefix and accept the new tail."""
        common = 0
        for old, new in zip(old_output_ids, new_output_ids):
            if old != new:
                break
            common += 1
        self.rollback(len(old_output_ids) - common)
        if not self.accept_tokens(None, new_output_ids[common:]):
            raise InvalidTokenError("Grammar.jump_and_retokenize: the retokenized output is not allowed by the grammar")


def _invalid(message: str) -> Any:
    """SGLang's marker for a grammar that failed to compile (its InvalidGrammarObject where installed)."""
    try:
        from sglang.srt.constrained import base_grammar_backend as base  # type: ignore[import-not-found]
    except ImportError:
        raise GuideError(message) from None
    invalid = getattr(base, "InvalidGrammarObject", None)
    return invalid(message) if invalid is not None else getattr(base, "INVALID_GRAMMAR_OBJ", None)


class SGLangBackend:
    """SGLang's BaseGrammarBackend shape over a `Backend`: dispatch_json / regex / ebnf, a compile cache."""

    def __init__(self, tokenizer: Any, vocab_size: Optional[int] = None, eos_token_ids: Optional[Iterable[int]] = None,
                 whitespace_pattern: Optional[str] = None):
        self.backend = Backend(tokenizer, vocab_size, eos_token_ids=eos_token_ids, whitespace_pattern=whitespace_pattern)
        self.cache: dict[tuple[str, str], Grammar] = {}

    def _compile(self, kind: str, spec: str) -> Any:
        try:
            return self.backend.compile_grammar(kind, spec)
        except (GuideError, ValueError, TypeError) as exc:  # tokenguide's errors are ValueErrors or TypeErrors
            return _invalid(f"tokenguide: cannot compile the {kind} constraint: {exc}")

    def dispatch_json(self, key_string: str) -> Any:
        """A Grammar for a JSON Schema (SGLang's "$$ANY$$": any JSON object)."""
        if key_string == "$$ANY$$":
            return self._compile("json_object", "")
        return self._compile("json", key_string)

    def dispatch_regex(self, key_string: str) -> Any:
        """A Grammar for a regex."""
        return self._compile("regex", key_string)

    def dispatch_ebnf(self, key_string: str) -> Any:
        """A Grammar for a grammar, read as Lark (GBNF's `::=` rules are not read)."""
        return self._compile("grammar", key_string)

    def dispatch_structural_tag(self, key_string: str) -> Any:
        """Not supported: structural tags."""
        return _invalid("tokenguide: structural tags are not supported")

    def dispatch_fallback(self, key_type: str, key_string: str) -> Any:
        """Unknown key types are refused."""
        return _invalid(f"tokenguide: unsupported constraint type {key_type!r}")

    def _init_value_dispatch(self, key: tuple[str, str], require_reasoning: bool = False) -> Any:
        key_type, key_string = key
        method = {"json": self.dispatch_json, "regex": self.dispatch_regex, "ebnf": self.dispatch_ebnf,
                  "structural_tag": self.dispatch_structural_tag}.get(key_type)
        return method(key_string) if method is not None else self.dispatch_fallback(key_type, key_string)

    def get_cached_or_future_value(self, key: tuple[str, str], require_reasoning: bool = False) -> tuple[Any, bool]:
        """(a fresh Grammar, True) from the cache, else (a completed Future of one, False)."""
        value = self.cache.get(key)
        if value is not None:
            return value.copy(), True
        future: Future = Future()
        try:
            grammar = self._init_value_dispatch(key, require_reasoning)
        except Exception as exc:  # noqa: BLE001 - handed to the engine through the future
            future.set_exception(exc)
            return future, False
        if isinstance(grammar, Grammar):
            self.cache[key] = grammar
            grammar = grammar.copy()
        future.set_result(grammar)
        return future, False

    def set_cache(self, key: tuple[str, str], value: Any) -> None:
        """Remember a compiled Grammar under `key`."""
        self.cache[key] = value

    def reset(self) -> None:
        """Empty the cache."""
        self.cache.clear()


def sglang_backend(server_args: Any = None, tokenizer: Any = None, vocab_size: Optional[int] = None,
                   eos_token_ids: Optional[Iterable[int]] = None, **kwargs: Any) -> SGLangBackend:
    """Factory for SGLang's `register_grammar_backend("tokenguide", sglang_backend)` (positional or keyword call)."""
    if tokenizer is None:
        raise ArgumentError("sglang_backend: tokenizer is required")
    whitespace = kwargs.get("constrained_json_whitespace_pattern",
                            getattr(server_args, "constrained_json_whitespace_pattern", None))
    return SGLangBackend(tokenizer, vocab_size, eos_token_ids, whitespace_pattern=whitespace)
