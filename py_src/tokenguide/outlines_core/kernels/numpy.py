"""outlines-core's ``kernels.numpy``: allocate a token bitmask, fill it from a Guide, apply it to
logits (vectorised numpy; outlines-core's own needs numba, this one does not)."""

from __future__ import annotations

from typing import Any

try:
    import numpy as np
except ImportError as e:
    raise ImportError(
        "To use the kernels in `outlines_core.kernels.numpy`, `numpy` must be installed. "
        "You can install it with `pip install numpy`"
    ) from e

__all__ = ["allocate_token_bitmask", "apply_token_bitmask_inplace", "fill_next_token_bitmask"]


def allocate_token_bitmask(vocab_size: int) -> np.ndarray:
    """A (1, ceil(vocab_size / 32)) int32 bitmask with every bit set."""
    return np.full((1, (vocab_size + 31) // 32), -1, dtype=np.int32)


def _apply_token_bitmask_inplace_kernel(logits: np.ndarray, mask: np.ndarray) -> None:
    """Set to -inf every logit whose bit is 0 in `mask` (and every logit past the mask)."""
    cutoff = 32 * mask.shape[1]
    if logits.shape[1] > cutoff:
        logits[:, cutoff:] = -np.inf
    width = min(logits.shape[1], cutoff)
    bits = (mask.astype(np.uint32)[:, :, None] >> np.arange(32, dtype=np.uint32)) & 1
    allowed = bits.reshape(mask.shape[0], -1)[:, :width].astype(bool)
    view = logits[:, :width]
    view[~allowed] = -np.inf


def apply_token_bitmask_inplace(logits: np.ndarray, mask: np.ndarray) -> None:
    """Set the logits of tokens the bitmask forbids to -inf, in place (1-D inputs are taken as one row)."""
    logits = logits if logits.ndim != 1 else np.expand_dims(logits, axis=0)
    mask = mask if mask.ndim != 1 else np.expand_dims(mask, axis=0)
    if mask.dtype != np.int32:
        raise ValueError(f"Invalid mask dtype: Expected `np.int32`, but got `{mask.dtype}`.")
    elif mask.ndim != 2:
        raise ValueError(f"Invalid mask dimensions: Expected a 2D array, but got {mask.ndim}D.")
    elif logits.ndim != 2:
        raise ValueError(f"Invalid logits dimensions: Expected a 2D array, but got {logits.ndim}D.")
    elif mask.shape[0] != logits.shape[0]:
        raise ValueError(
            f"Invalid batch size: Expected `mask.shape[0]` ({mask.shape[0]}) to match `logits.shape[0]` ({logits.shape[0]})."
        )
    _apply_token_bitmask_inplace_kernel(logits, mask)


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
