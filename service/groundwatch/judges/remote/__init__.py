"""Backends that call a model served elsewhere: an OpenAI-compatible chat model
(:mod:`.openai`), a cross-encoder NLI model (:mod:`.nli`) and a Text Embeddings Inference
server (:mod:`.tei`), with what they share (:mod:`._evidence`, :mod:`._http`)."""
