"""Integrations with generation frameworks. Each submodule imports its framework (torch,
transformers...) itself; importing this package imports none of them.

- `tokenguide.integrations.transformers`: logits processors for `model.generate()`.
- `tokenguide.integrations.outlines`: an outlines 1.x backend (`TokenguideBackend(model)`).
- `tokenguide.integrations.serving`: vLLM-shaped grammar objects (`Backend(tokenizer, vocab_size)`)
  and an SGLang grammar backend (`sglang_backend` for `register_grammar_backend`).
"""
