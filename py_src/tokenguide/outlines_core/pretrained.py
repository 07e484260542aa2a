"""`Vocabulary.from_pretrained`: a Hugging Face model's tokens, read as outlines-core 0.2.14 reads them.

Files come from the Hugging Face cache (``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else
``~/.cache/huggingface/hub``: ``models--org--name/refs/<revision>`` names a snapshot folder), and
when missing there from the Hub (through `huggingface_hub` when installed, which fills the cache
as transformers does; else a plain HTTPS download into the same cache layout). ``HF_HUB_OFFLINE=1``
forbids the download; the token is the argument, else ``$HF_TOKEN``, else ``$HF_HOME/token``.

The tokens follow outlines-core: EOS from ``generation_config.json``'s integer ``eos_token_id``,
else ``tokenizer_config.json``'s ``eos_token`` (text or ``{"content": ...}``); non-special added
tokens by their text; every token of the model's vocab (EOS excepted) through outlines-core's
token processor: GPT-2's byte table for a ByteLevel decoder, ``<0xNN>`` bytes and the ``Replace``
decoder's space character for a ByteFallback sequence; other decoders are refused.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from typing import Any

from ..vocabulary.byte_level import CHAR_TO_BYTE

__all__ = ["hub_file", "pretrained_tokens"]

_VALID_CHARS = ("-", "_", ".", "/")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_ISSUES = "please open an issue with the full error message: https://github.com/dottxt-ai/outlines-core/issues"


def _check_name(kind: str, value: str) -> None:
    """tokenizers' rule for model names and revisions: alphanumeric or - _ . /."""
    if not all(c.isalnum() or c in _VALID_CHARS for c in value):
        allowed = ", ".join(f"'{c}'" for c in _VALID_CHARS)
        raise ValueError(f'{kind} "{value}" contains invalid characters, expected only alphanumeric or {allowed}')


def _cache_root() -> str:
    """The hub cache folder, as huggingface_hub and transformers find it."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.environ["HF_HUB_CACHE"]
    home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "huggingface")
    return os.path.join(home, "hub")


def _cached(model: str, revision: str, filename: str) -> str | None:
    """The cached file's path, "" when the cache records that the file does not exist, else None."""
    repo = os.path.join(_cache_root(), "models--" + model.replace("/", "--"))
    commit = revision if _COMMIT.fullmatch(revision) else None
    try:
        with open(os.path.join(repo, "refs", revision), encoding="utf-8") as f:
            commit = f.read().strip()
    except OSError:
        pass
    if commit is None:
        return None
    path = os.path.join(repo, "snapshots", commit, filename)
    if os.path.isfile(path):
        return path
    if os.path.exists(os.path.join(repo, ".no_exist", commit, filename)):
        return ""
    return None


def _token(token: str | None) -> str | None:
    if token:
        return token
    if os.environ.get("HF_TOKEN"):
        return os.environ["HF_TOKEN"]
    home = os.environ.get("HF_HOME") or os.path.join(os.path.expanduser("~"), ".cache", "huggingface")
    try:
        with open(os.path.join(home, "token"), encoding="utf-8") as f:
            return f.read().strip() or None
    except OSError:
        return None


def _download(model: str, revision: str, filename: str, token: str | None) -> str | None:
    """Fetch one file of the model into the cache; its path, or None when the repo lacks it."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        raise ValueError(f"{model}/{filename} is not in the Hugging Face cache and HF_HUB_OFFLINE is set")
    try:
        import huggingface_hub
    except ImportError:
        huggingface_hub = None
    if huggingface_hub is not None:
        try:
            return huggingface_hub.hf_hub_download(model, filename, revision=revision, token=token)
        except huggingface_hub.errors.EntryNotFoundError:
            return None
        except Exception as exc:  # noqa: BLE001 - network, auth and repo errors, reported as outlines-core does
            raise ValueError(f"request error: {model}/{filename} at {revision}: {exc}") from None
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")
    url = f"{endpoint}/{model}/resolve/{revision}/{filename}"
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            data = response.read()
            commit = response.headers.get("X-Repo-Commit") or revision
    except urllib.error.HTTPError as exc:
        if exc.code == 404 and exc.headers.get("X-Error-Code") == "EntryNotFound":
            return None
        raise ValueError(f"request error: {url}: {exc}") from None
    except OSError as exc:
        raise ValueError(f"request error: {url}: {exc}") from None
    repo = os.path.join(_cache_root(), "models--" + model.replace("/", "--"))
    os.makedirs(os.path.join(repo, "snapshots", commit), exist_ok=True)
    os.makedirs(os.path.join(repo, "refs"), exist_ok=True)
    if commit != revision:
        with open(os.path.join(repo, "refs", revision), "w", encoding="utf-8") as f:
            f.write(commit)
    path = os.path.join(repo, "snapshots", commit, filename)
    with open(path, "wb") as f:
        f.write(data)
    return path


def hub_file(model: str, filename: str, revision: str | None = None, token: str | None = None) -> str | None:
    """Local path of one file of a Hugging Face model (cache first, then the Hub); None if the repo lacks it."""
    revision = "main" if revision is None else revision
    found = _cached(model, revision, filename)
    if found is not None:
        return found or None
    return _download(model, revision, filename, _token(token))


def _json_file(model: str, filename: str, revision: str | None, token: str | None) -> Any:
    """A config file's JSON, or None when it is missing, unreadable or not JSON (outlines-core skips those)."""
    try:
        path = hub_file(model, filename, revision, token)
        if path is None:
            return None
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _locate_eos(model: str, doc: dict, revision: str | None, token: str | None) -> int | None:
    """outlines-core's EOS locations, in order: generation_config.json's integer eos_token_id, then
    tokenizer_config.json's eos_token as text or as {"content": text}, looked up in the tokenizer."""
    config = _json_file(model, "generation_config.json", revision, token)
    if isinstance(config, dict):
        value = config.get("eos_token_id")
        if type(value) is int and 0 <= value <= 0xFFFFFFFF:
            return value
    config = _json_file(model, "tokenizer_config.json", revision, token)
    if isinstance(config, dict):
        value = config.get("eos_token")
        if isinstance(value, dict):
            value = value.get("content")
        if isinstance(value, str):
            for added in doc.get("added_tokens") or []:
                if isinstance(added, dict) and added.get("content") == value:
                    return added.get("id")
            return (doc.get("model") or {}).get("vocab", {}).get(value)
    return None


def _processor(decoder: Any) -> tuple[str, str] | None:
    """outlines-core's TokenProcessor level: ("byte", "") for ByteLevel, ("fallback", space char)
    for a Sequence holding ByteFallback; None for other decoders."""
    if not isinstance(decoder, dict):
        return None
    if decoder.get("type") == "ByteLevel":
        return ("byte", "")
    if decoder.get("type") != "Sequence":
        return None
    fallback, space = False, " "
    for step in decoder.get("decoders") or []:
        if not isinstance(step, dict):
            continue
        if step.get("type") == "ByteFallback":
            fallback = True
        elif step.get("type") == "Replace":
            pattern = step.get("pattern")
            if not (isinstance(pattern, dict) and set(pattern) == {"String"}):
                return None  # outlines-core cannot unpack a Regex pattern: the processor fails
            if step.get("content") == " " and len(pattern["String"]) == 1:
                space = pattern["String"]
    return ("fallback", space) if fallback else None


def _process(level: tuple[str, str], token: str) -> bytes:
    if level[0] == "byte":
        try:
            return bytes(CHAR_TO_BYTE[c] for c in token)
        except KeyError:
            raise ValueError("Token processing failed for byte level processor") from None
    if len(token.encode("utf-8")) == 6 and token.startswith("<0x") and token.endswith(">"):
        try:
            return bytes([int(token[3:5], 16)])
        except ValueError:
            raise ValueError("Token processing failed for byte fallback level processor") from None
    return token.replace(level[1], " ").encode("utf-8")


def pretrained_tokens(model: Any, revision: Any = None, token: Any = None) -> tuple[int, list[tuple[bytes, int]]]:
    """(EOS id, [(token bytes, id)]) of a Hugging Face model, as outlines-core's from_pretrained reads them."""
    for name, value, optional in (("model", model, False), ("revision", revision, True), ("token", token, True)):
        if not (isinstance(value, str) or (optional and value is None)):
            raise TypeError(f"argument '{name}': '{type(value).__name__}' object cannot be cast as 'str'")
    _check_name("Model", model)
    _check_name("Revision", "main" if revision is None else revision)
    path = hub_file(model, "tokenizer.json", revision, token)
    if path is None:
        raise ValueError(f"request error: {model} has no tokenizer.json at revision {revision or 'main'}")
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("model"), dict) or not isinstance(doc["model"].get("vocab"), dict):
        raise ValueError(f"Unsupported tokenizer for {model}: Token processor, {_ISSUES}")
    eos = _locate_eos(model, doc, revision, token)
    if eos is None:
        raise ValueError(f"Unsupported tokenizer for {model}: EOS token id, {_ISSUES}")
    pairs: list[tuple[bytes, int]] = []
    for added in sorted((a for a in doc.get("added_tokens") or [] if isinstance(a, dict)), key=lambda a: a.get("id", 0)):
        if not added.get("special") and added.get("id") != eos:
            pairs.append((str(added.get("content", "")).encode("utf-8"), int(added["id"])))
    level = _processor(doc.get("decoder"))
    if level is None:
        raise ValueError(f"Unsupported tokenizer for {model}: Token processor, {_ISSUES}")
    for text, token_id in sorted(doc["model"]["vocab"].items(), key=lambda kv: kv[1]):
        if token_id != eos:
            pairs.append((_process(level, text), token_id))
    return eos, pairs
