"""Instructions a guide gives the generation loop, and packed int32 token bitmasks.

`Write` and `Generate` have the names, fields and meaning of outlines' `outlines/fsm/guide.py`;
token lists are plain lists or `array('I')`, so no torch or numpy is needed.

A bitmask has ceil(vocab_size / 32) int32 words; bit `t % 32` of word `t // 32` is set iff
token `t` is allowed (outlines-core's `write_mask_into` layout). Masks are packed once into
little-endian bytes (`pack_tokens`), kept per state in a byte-bounded `MaskCache`, and copied
into the caller's memory in one C-level copy (`write_mask`): a bytearray, `array('i')`, a
numpy array, a CPU torch tensor (through its `data_ptr`), or a raw address.
"""

from __future__ import annotations

import sys
import weakref
from array import array
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Optional, Sequence, Union

from ..arguments import describe
from ..errors import ArgumentError, MaskBufferError

TokenList = Union[list, array, Sequence[int]]

#: Default memory bound of a packed-mask cache (64 MB).
DEFAULT_MASK_CACHE_BYTES = 64 * 1024 * 1024


def check_token_list(where: str, tokens: Any) -> None:
    """ArgumentError unless `tokens` is a list/tuple/range/array of non-negative int ids.

    Cheap enough for every instruction: arrays are typed, other containers get one min().
    """
    if isinstance(tokens, array):
        if tokens.typecode in "bBhHiIlLqQ" and (tokens.typecode.isupper() or not tokens or min(tokens) >= 0):
            return
    elif isinstance(tokens, (list, tuple, range)):
        try:
            if not tokens or (min(tokens) >= 0 and not isinstance(min(tokens), float)):
                return
        except TypeError:
            pass
    raise ArgumentError(f"{where}: tokens must be a list or array of token ids >= 0, got {describe(tokens)}")


@dataclass(frozen=True)
class Write:
    """The model must emit exactly these tokens, in order."""

    tokens: TokenList

    def __post_init__(self) -> None:
        check_token_list("Write", self.tokens)


@dataclass(frozen=True)
class Generate:
    """Sample the next token among these ids; `None` means every token is allowed."""

    tokens: Optional[TokenList]

    def __post_init__(self) -> None:
        if self.tokens is not None:
            check_token_list("Generate", self.tokens)


Instruction = Union[Write, Generate]


def bitmask_words(vocab_size: int) -> int:
    """Number of int32 words of a bitmask covering `vocab_size` tokens: ceil(vocab_size / 32)."""
    return (vocab_size + 31) // 32


def int32_view(buffer: Any, words: int) -> memoryview:
    """A writable memoryview of `buffer` as native int32, checked to hold at least `words` words.

    Accepts array('i'), bytearray, numpy int32 arrays, or any C-contiguous writable buffer of
    32-bit integers or raw bytes. Raises MaskBufferError (a ValueError and a TypeError) otherwise.
    """
    return _byte_view(buffer, words).cast("i")


def _byte_view(buffer: Any, words: int) -> memoryview:
    """The whole of `buffer` as writable bytes (checked like int32_view), at least `words` * 4 long."""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise MaskBufferError(
            f"fill_bitmask: buffer must support the buffer protocol (array('i'), a numpy int32 array, "
            f"a bytearray) or be a CPU torch int32 tensor, got {type(buffer).__name__}"
        ) from None
    if view.readonly:
        raise MaskBufferError("fill_bitmask: buffer is read-only; pass a writable one (bytearray, array('i'))")
    if not view.c_contiguous:
        raise MaskBufferError("fill_bitmask: buffer must be C-contiguous (no strided views)")
    fmt = view.format.lstrip("<=@")
    int32 = view.itemsize == 4 and fmt in ("i", "I", "l", "L")
    raw_bytes = view.itemsize == 1 and fmt in ("B", "b", "c")
    if not (int32 or raw_bytes):
        raise MaskBufferError(
            f"fill_bitmask: buffer must hold 32-bit signed integers, got format {view.format!r} "
            f"with {view.itemsize}-byte items"
        )
    if view.nbytes < words * 4:
        raise MaskBufferError(
            f"fill_bitmask: buffer has {view.nbytes} bytes, needs {words * 4} ({words} int32 words for the vocabulary)"
        )
    return view.cast("B")


def pack_tokens(tokens: Optional[Iterable[int]], vocab_size: int) -> bytes:
    """The bitmask of `tokens` as bytes: ceil(vocab_size / 32) little-endian int32 words.

    Bit `t % 32` of word `t // 32` is set iff `t` is in `tokens` (`None`: every id below
    vocab_size). One digit per id is set in a bytearray of ASCII "0"s, which is then read as a
    base-2 integer and written out little-endian: one Python-level step per allowed id, the
    rest at C speed (about 5 ms for a 128k vocabulary with every token allowed).
    """
    words = bitmask_words(vocab_size)
    if tokens is None:
        return ((1 << vocab_size) - 1).to_bytes(words * 4, "little")
    if isinstance(tokens, range) and tokens.step == 1:
        if len(tokens) and not (0 <= tokens.start and tokens.stop <= vocab_size):
            raise ArgumentError(f"fill_bitmask: token ids {tokens} go outside the vocabulary (0..{vocab_size - 1})")
        value = ((1 << len(tokens)) - 1) << tokens.start if len(tokens) else 0
        return value.to_bytes(words * 4, "little")
    if not isinstance(tokens, (list, tuple, array)):
        tokens = list(tokens)
    if not (isinstance(tokens, array) and tokens.typecode in "BHILQ"):
        try:  # one C-level pass that also refuses negative and non-integer ids
            tokens = array("I", tokens)
        except (OverflowError, TypeError):
            _out_of_range(tokens, vocab_size)
    if not tokens:
        return bytes(words * 4)
    digits = bytearray(b"0") * (words * 32)
    try:
        for t in tokens:
            digits[t] = 49  # "1"
    except IndexError:
        _out_of_range(tokens, vocab_size)
    digits.reverse()
    value = int(digits, 2)
    if value >> vocab_size:  # ids between vocab_size and the end of the last word
        _out_of_range(tokens, vocab_size)
    return value.to_bytes(words * 4, "little")


def _out_of_range(tokens: Any, vocab_size: int) -> None:
    bad = next((t for t in tokens if not (isinstance(t, int) and 0 <= t < vocab_size)), None)
    raise ArgumentError(f"fill_bitmask: token id {bad!r} is outside the vocabulary (0..{vocab_size - 1})")


def mask_has(mask: Any, token_id: int) -> bool:
    """Whether bit `token_id` is set in a packed mask (bytes as pack_tokens makes them)."""
    byte = token_id >> 3
    return 0 <= byte < len(mask) and (mask[byte] >> (token_id & 7)) & 1 == 1


def as_mask_bytes(mask: Any) -> bytes:
    """A source's packed mask (bytes, bytearray, memoryview, array of 32-bit words) as little-endian bytes."""
    if isinstance(mask, bytes):
        return mask
    if isinstance(mask, array) and mask.itemsize == 4 and sys.byteorder != "little":  # pragma: no cover
        swapped = array(mask.typecode, mask)
        swapped.byteswap()
        return swapped.tobytes()
    return memoryview(mask).cast("B").tobytes()


def _little_endian(mask: bytes) -> bytes:
    """`mask` as native int32 words (a no-op on little-endian hosts)."""
    if sys.byteorder == "little":
        return mask
    swapped = array("i", mask)  # pragma: no cover - big-endian hosts
    swapped.byteswap()  # pragma: no cover
    return swapped.tobytes()  # pragma: no cover


def write_packed(mask: bytes, buffer: Any) -> None:
    """Copy a packed mask into the first words of a writable int32 buffer in one slice assignment.

    Words past the mask are left untouched (see `write_mask` for the whole-buffer form).
    """
    view = _byte_view(buffer, len(mask) // 4)
    view[: len(mask)] = _little_endian(mask)


def write_mask(mask: bytes, target: Any, numel: Optional[int] = None, element_size: Optional[int] = None) -> None:
    """Write a packed mask into `target` and zero the rest of it, as outlines-core's write_mask_into.

    `target` is a writable buffer (bytearray, array('i'), numpy int32 array), a contiguous CPU
    int32 torch tensor (duck-typed: data_ptr, numel, element_size), or a raw address given with
    `numel` (int32 elements available) and `element_size` (must be 4). The whole target is
    written: the mask's words, then zeros.
    """
    words = len(mask) // 4
    if isinstance(target, int) and not isinstance(target, bool):
        _check_raw(target, numel, element_size, words)
        _copy_to_address(_little_endian(mask), target, numel * 4)
        return
    if numel is not None or element_size is not None:
        raise MaskBufferError(
            "write_mask_into: numel and element_size go with a raw data_ptr (an int), not with a buffer object"
        )
    address = tensor_address(target, words)
    if address is not None:
        _copy_to_address(_little_endian(mask), address[0], address[1])
        return
    view = _byte_view(target, words)
    view[: len(mask)] = _little_endian(mask)
    if view.nbytes > len(mask):
        view[len(mask) :] = bytes(view.nbytes - len(mask))


def _check_raw(address: int, numel: Any, element_size: Any, words: int) -> None:
    """Reject what outlines-core's write_mask_into rejects, with a message saying what to pass."""
    if element_size != 4:
        raise MaskBufferError(f"write_mask_into: element_size must be 4 (int32), got {element_size!r}")
    if isinstance(numel, bool) or not isinstance(numel, int) or numel < words:
        raise MaskBufferError(
            f"write_mask_into: numel must be an int >= {words} (ceil(vocab_size / 32) int32 words), got {numel!r}"
        )
    if address <= 0:
        raise MaskBufferError(f"write_mask_into: data_ptr must be a positive address, got {address}")
    if address % 4:
        raise MaskBufferError(f"write_mask_into: data_ptr {address:#x} is not aligned to 4 bytes (int32)")


def _copy_to_address(mask: bytes, address: int, nbytes: int) -> None:
    """memmove the mask to raw memory and zero the rest of `nbytes` (ctypes, imported only here)."""
    import ctypes

    ctypes.memmove(address, mask, len(mask))
    if nbytes > len(mask):
        ctypes.memset(address + len(mask), 0, nbytes - len(mask))


def tensor_address(data: Any, words: int) -> Optional[tuple[int, int]]:
    """(address, byte size) of a contiguous CPU int32 torch tensor (no buffer protocol), else None.

    Duck-typed (data_ptr, element_size, is_contiguous, numel): torch is never imported.
    """
    if not (hasattr(data, "data_ptr") and hasattr(data, "element_size") and hasattr(data, "is_contiguous")):
        return None
    try:
        memoryview(data)
        return None  # a buffer-protocol object (numpy has no data_ptr, but be safe)
    except TypeError:
        pass
    device = getattr(getattr(data, "device", None), "type", "cpu")
    if device != "cpu":
        raise MaskBufferError(
            f"write_mask_into: the tensor must be on the CPU, got device {device!r}; "
            "fill a CPU int32 tensor and move it with .to(device)"
        )
    if str(getattr(data, "dtype", "")) != "torch.int32" or data.element_size() != 4:
        raise MaskBufferError(f"write_mask_into: the tensor must have dtype torch.int32, got {data.dtype}")
    if not data.is_contiguous():
        raise MaskBufferError("write_mask_into: the tensor must be contiguous (call .contiguous() first)")
    if data.numel() < words:
        raise MaskBufferError(
            f"write_mask_into: the tensor has {data.numel()} elements, needs {words} (ceil(vocab_size / 32))"
        )
    return int(data.data_ptr()), int(data.numel()) * 4


def fill_bitmask_from_tokens(tokens: Optional[Iterable[int]], vocab_size: int, buffer: Any) -> None:
    """Write the allowed-token bitmask into `buffer`: bit `t % 32` of word `t // 32` is set iff `t` is allowed.

    `tokens=None` sets the bit of every id below `vocab_size`. Words past the mask are left untouched;
    bits of ids at or beyond `vocab_size` are never set (ids out of range are an error).
    """
    write_packed(pack_tokens(tokens, vocab_size), buffer)


def tokens_from_bitmask(buffer: Any, vocab_size: int) -> list[int]:
    """The sorted token ids whose bit is set in an int32 bitmask (inverse of fill_bitmask, for tests/debugging)."""
    words = bitmask_words(vocab_size)
    data = _byte_view(buffer, words).tobytes()[: words * 4]
    value = int.from_bytes(_little_endian(data), "little") & ((1 << vocab_size) - 1)
    return list(set_bits(value))


def set_bits(value: int) -> Iterator[int]:
    """The positions of the set bits of `value` (a token bit set as an int), ascending."""
    while value:
        low = value & -value
        yield low.bit_length() - 1
        value ^= low


class MaskCache:
    """Packed masks keyed by state, least recently used dropped first, bounded in bytes.

    A mask for a state seen before is then one buffer copy. Unhashable keys are never cached.
    """

    def __init__(self, max_bytes: int = DEFAULT_MASK_CACHE_BYTES):
        if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes < 0:
            raise ValueError(f"MaskCache: max_bytes must be an int >= 0, got {max_bytes!r}")
        self.max_bytes = max_bytes
        self.bytes = 0
        self._items: OrderedDict[Any, bytes] = OrderedDict()

    def get(self, key: Any) -> Optional[bytes]:
        """The cached mask of `key`, or None."""
        try:
            mask = self._items.get(key)
        except TypeError:
            return None
        if mask is not None:
            self._items.move_to_end(key)
        return mask

    def put(self, key: Any, mask: bytes) -> None:
        """Remember `mask` for `key`, evicting the oldest masks past `max_bytes`."""
        if len(mask) > self.max_bytes:
            return
        try:
            old = self._items.pop(key, None)
        except TypeError:
            return
        if old is not None:
            self.bytes -= len(old)
        self._items[key] = mask
        self.bytes += len(mask)
        while self.bytes > self.max_bytes:
            _, dropped = self._items.popitem(last=False)
            self.bytes -= len(dropped)

    def clear(self) -> None:
        """Forget every mask."""
        self._items.clear()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"MaskCache({len(self)} masks, {self.bytes} of {self.max_bytes} bytes)"


_SHARED_CACHES: dict[int, MaskCache] = {}


def shared_mask_cache(owner: Any) -> MaskCache:
    """The MaskCache of `owner` (an Index, say), shared by every guide over it and dropped with it.

    Keyed by identity (an Index is not hashable), released by a weakref finalizer.
    """
    key = id(owner)
    cache = _SHARED_CACHES.get(key)
    if cache is None:
        cache = _SHARED_CACHES[key] = MaskCache(DEFAULT_MASK_CACHE_BYTES)
        weakref.finalize(owner, _SHARED_CACHES.pop, key, None)
    return cache
