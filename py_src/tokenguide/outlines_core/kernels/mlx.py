"""outlines-core's ``kernels.mlx``: allocate a (numpy) token bitmask, fill it from a Guide, and
`apply_token_bitmask` to mlx logits (a new array: mlx arrays are immutable; plain mlx operations
where outlines-core runs a Metal kernel, so it also works on mlx's CPU backend)."""

from __future__ import annotations

from typing import Any

try:
    import mlx.core as mx
    import numpy as np
except ImportError as e:
    missing_dep = "numpy" if "numpy" in str(e) else "mlx"
    raise ImportError(
        f"To use the kernels in `outlines_core.kernels.mlx`, {missing_dep} must be installed. "
        f"You can install it with `pip install {missing_dep}`"
    ) from e

__all__ = ["allocate_token_bitmask", "apply_token_bitmask", "fill_next_token_bitmask"]


def allocate_token_bitmask(vocab_size: int) -> np.ndarray:
    """A (1, ceil(vocab_size / 32)) int32 numpy bitmask with every bit set."""
    return np.full((1, (vocab_size + 31) // 32), -1, dtype=np.int32)


def _apply_token_bitmask_kernel(data: Any, mask: Any) -> Any:
    """`data` with -inf wherever the bit of `mask` is 0 (and past the mask)."""
    width = data.shape[1]
    words = mask.shape[1]
    bits = mx.right_shift(mx.expand_dims(mask.astype(mx.uint32), -1), mx.arange(32, dtype=mx.uint32)) & 1
    bits = bits.reshape(mask.shape[0], words * 32)
    if words * 32 < width:
        bits = mx.concatenate([bits, mx.zeros((mask.shape[0], width - words * 32), dtype=bits.dtype)], axis=1)
    allowed = bits[:, :width].astype(mx.bool_)
    return mx.where(allowed, data, mx.array(-float("inf"), dtype=data.dtype))


def apply_token_bitmask(logits: Any, mask_np: np.ndarray) -> Any:
    """The logits with the tokens the bitmask forbids set to -inf (1-D inputs are taken as one row)."""
    mask = mx.array(mask_np)
    logits = logits if len(logits.shape) != 1 else mx.expand_dims(logits, axis=0)
    mask = mask if len(mask.shape) != 1 else mx.expand_dims(mask, axis=0)
    if mask.dtype != mx.int32:
        raise ValueError(f"Invalid mask dtype: Expected `np.int32`, but got `{mask.dtype}`.")
    elif len(mask.shape) != 2:
        raise ValueError(f"Invalid mask dimensions: Expected a 2D array, but got {mask.ndim}D.")
    elif len(logits.shape) != 2:
        raise ValueError(f"Invalid logits dimensions: Expected a 2D array, but got {logits.ndim}D.")
    elif mask.shape[0] != logits.shape[0]:
        raise ValueError(
            f"Invalid batch size: Expected `mask.shape[0]` ({mask.shape[0]}) to match `logits.shape[0]` ({logits.shape[0]})."
        )
    return _apply_token_bitmask_kernel(logits, mask)


def fill_next_token_bitmask(guide: Any, mask: np.ndarray) -> None:
    """Write the guide's allowed-token bitmask into `mask`, a C-contiguous (1, words) int32 array."""
    if mask.dtype != np.int32:
        raise ValueError(f"Invalid mask dtype: Expected `np.int32`, but got `{mask.dtype}`.")
    elif mask.ndim != 2:
        raise ValueError(f"Invalid mask dimensions: Expected a 2D array, but got {mask.ndim}D.")
    elif mask.shape[0] != 1:
        raise ValueError(
            f"Invalid batch size: Batch mask writes are not supported. Expected shape[0] == 1, but got shape {mask.shape}."
        )
    elif not mask.flags["C_CONTIGUOUS"]:
        raise ValueError("Mask array must be contiguous in memory. Use `np.ascontiguousarray(mask)`.")
    return guide.write_mask_into(mask.ctypes.data, mask.size, mask.itemsize)
