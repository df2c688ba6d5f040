"""Sentence vectors of contexts: one entry point for ingest, the metrics and the claim verifier.

A context (a chunk, or a passage of your own answers) is read in *sentences*: the spans of
:func:`rageval.text.sentences.split_sentences` followed by the table rows of
:func:`~rageval.text.sentences.table_rows` (spelled out with their headers). The claim verifier
(:mod:`rageval.claims.features`) reads exactly these spans, and so does anything that retrieves
candidate sentences for a claim.

A context's own vector for ``context_relevance`` is read from these sentence vectors
(:func:`context_vectors`), so a never-seen context is embedded once, sentence by sentence, and
the claim verifier finds its sentences in the cache.

Every text is embedded once, anywhere: vectors go through the run's embedder, which is a
:class:`rageval.embed.CachedEmbedder` keyed by ``(model, sha256(text))`` and backed by the
project's ``embedding_cache`` table. Ingest calls :func:`embed_chunks` with every new chunk, which
embeds the chunk whole (for retrieval) AND each of its sentences, in one
call, so a run over an ingested corpus finds every context vector and every context-sentence
vector in the cache and embeds only questions, answers, references and claims.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from rageval.text.sentences import split_sentences, table_rows

#: contexts up to this many characters have their spans kept (:func:`sentence_spans`)
SPANS_KEPT_UP_TO = 20_000


def sentence_spans(context: str) -> list[Any]:
    """The sentence spans of one context (``.start``, ``.end``, ``.text``), then its table rows.

    A context's spans are read once per process and kept (the last 4,096 contexts of at most
    ``SPANS_KEPT_UP_TO`` characters; the spans are frozen): a run reads each context several
    times (the vectors sent to the workers, ``context_relevance``, the claim verifier), and
    contexts repeat across answers."""
    if len(context) > SPANS_KEPT_UP_TO:
        return [*split_sentences(context), *table_rows(context)]
    return list(_kept_spans(context))


@functools.lru_cache(maxsize=4096)
def _kept_spans(context: str) -> tuple[Any, ...]:
    return (*split_sentences(context), *table_rows(context))


def sentence_texts(contexts: Sequence[str]) -> list[str]:
    """The distinct sentence texts of ``contexts``, in first-seen order."""
    return list(dict.fromkeys(sp.text for ctx in contexts for sp in sentence_spans(ctx)))


def sentence_vectors(embedder: Any, texts: Sequence[str]) -> np.ndarray:
    """Unit float32 vectors ``(len(texts), dim)`` of ``texts`` through ``embedder`` (its cache first).

    The one call for sentence vectors (claims, context sentences, candidate retrieval): a
    repeated text is embedded once per call, and never again while the embedder's cache has it.
    """
    unique = list(dict.fromkeys(texts))
    if not unique:
        return np.zeros((0, int(embedder.dim)), dtype=np.float32)
    rows = np.asarray(embedder.embed(unique), dtype=np.float32)
    if len(unique) == len(texts):
        return rows
    at = {t: i for i, t in enumerate(unique)}
    return rows[[at[t] for t in texts]]


def context_vectors(embedder: Any, contexts: Sequence[str]) -> np.ndarray:
    """One unit vector per context, read from its sentence vectors (one embedding call).

    ``e_ctx = m / max(||m||, 1e-12)``, ``m = (1/S) sum_s e_s`` over the context's ``S`` sentence
    spans (:func:`sentence_spans`, the ones the claim verifier reads and ingest caches), ``e_s``
    their unit vectors; a context without spans (blank) is embedded whole. On WiCE's development
    split this vector ranked evidence chunks as well as the chunk embedded whole
    (validation/validate_context_relevance.py, docs/validation.md).
    """
    groups = [[sp.text for sp in sentence_spans(ctx)] or [ctx] for ctx in contexts]
    flat = sentence_vectors(embedder, [t for group in groups for t in group])
    out = np.zeros((len(contexts), flat.shape[1]), dtype=np.float32)
    at = 0
    for i, group in enumerate(groups):
        m = flat[at:at + len(group)].astype(np.float64).mean(axis=0)
        out[i] = m / max(float(np.linalg.norm(m)), 1e-12)
        at += len(group)
    return out


def embed_chunks(embedder: Any, texts: Sequence[str], *, embed: Callable[[list[str]], Any] | None = None) -> np.ndarray:
    """Vectors of the chunk ``texts`` (whole), after putting the vectors of every sentence of
    every chunk into ``embedder``'s cache in the same call; returns the whole-chunk rows only.

    ``embed`` (default ``embedder.embed``) makes that one call: ingest passes one that spreads
    the texts over the worker processes (:func:`rageval.embed.processes.embed_parallel`).
    """
    whole = set(texts)
    sentences = [t for t in sentence_texts(texts) if t not in whole]
    unique = list(dict.fromkeys([*texts, *sentences]))
    if not unique:
        return np.zeros((0, int(embedder.dim)), dtype=np.float32)
    rows = np.asarray((embed or embedder.embed)(unique), dtype=np.float32)
    at = {t: i for i, t in enumerate(unique)}
    return rows[[at[t] for t in texts]]
