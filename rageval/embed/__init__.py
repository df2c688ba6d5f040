"""Embedders: the ``Embedder`` protocol (:mod:`~rageval.embed.protocol`), the offline MiniLM
forward pass in NumPy (:mod:`~rageval.embed.minilm`), an OpenAI-compatible embedder
(:mod:`~rageval.embed.remote`), and the cache with the factory (:mod:`~rageval.embed.cache`).
"""
