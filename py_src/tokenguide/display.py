"""How a token is shown to people: one function for the CLI and the web app.

Bytes that are valid UTF-8 appear as text; control characters get Python escapes and bytes
that are not (complete) UTF-8 appear as `\\xNN`, so every token has a distinct, printable form.
EOS and special tokens (which have no bytes) appear by their name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .vocabulary import Vocabulary

__all__ = ["show_bytes", "token_display"]


def show_bytes(data: bytes, *, quoted: bool = True) -> str:
    """`data` as readable text; with `quoted`, inside double quotes with `"` escaped."""
    out = ['"'] if quoted else []
    for ch in data.decode("utf-8", "surrogateescape"):
        cp = ord(ch)
        if 0xDC80 <= cp <= 0xDCFF:
            out.append(f"\\x{cp - 0xDC00:02x}")
        elif ch == "\\" or (quoted and ch == '"'):
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    if quoted:
        out.append('"')
    return "".join(out)


def token_display(vocabulary: "Vocabulary", token_id: int, *, quoted: bool = True) -> str:
    """Display text of a token id: its bytes (see `show_bytes`), or its name for EOS and special tokens."""
    data = vocabulary.id_to_bytes(token_id)
    if data is not None:
        return show_bytes(data, quoted=quoted)
    name = vocabulary.id_to_token(token_id)
    if token_id == vocabulary.eos_token_id:
        return f"{name or '<eos>'} (eos)"
    return f"{name} (special)" if name is not None else "(unknown id)"
