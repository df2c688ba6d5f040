"""AlignCheck metrics: fact-level precision, recall and F1 of the answer against a source.

The source is the reference answer (``aligncheck_source="reference"``, the default; with several
references the one giving the highest F1 is used) or the retrieved contexts joined in rank order
(``"contexts"``). Objects are named entities (``aligncheck_objects="entities"``, the paper's
definition) or also common nouns (``"nouns"``). Facts come from spaCy (:mod:`rageval.aligncheck`); the entity types that may
be subjects are chosen by ``aligncheck_types`` (``"all"``, a number n of top TF-IDF types over the
texts scored together, or explicit types such as ``"PERSON,ORG"``); predicates are compared by
BERTScore F1 over MiniLM's token vectors (:func:`rageval.metrics.semantic.greedy_match`, no idf).

Unscored reasons: ``no_source_facts`` / ``no_answer_facts`` (a side with no fact of a kept type),
``no_spacy_pipeline_for_language:<code>`` (the run's language, or the language
:func:`~rageval.aligncheck.entities.guess_language` finds in the answer or source, is not English).
``details["aligncheck"]`` holds the TP pairs with their predicate similarity and the FP facts
(added by the answer: possible fabrication) and FN facts (dropped).
"""
from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from rageval.aligncheck import entities, triples
from rageval.aligncheck.granularity import kept_types, parse_granularity
from rageval.aligncheck.score import Alignment, align
from rageval.errors import ConfigError
from rageval.metrics.base import Resources, Sample, Score, register
from rageval.metrics.lexical import references_of
from rageval.metrics.semantic import checked_embedder, embedder_name, greedy_match
from rageval.metrics.tokenize import check_language

SOURCES = ("reference", "contexts")
VERSION = "v1"


def source_texts(sample: Sample, source: str) -> list[str]:
    """The texts facts are checked against: each reference, or the contexts joined as one text."""
    if source == "contexts":
        return ["\n\n".join(c for c in sample.contexts if c.strip())]
    return list(references_of(sample))


class PredicateSimilarity:
    """BERTScore F1 between two predicate phrases, token vectors embedded once per phrase."""

    def __init__(self, embedder: Any, phrases: Sequence[str]):
        unique = list(dict.fromkeys(phrases))
        self._tokens = dict(zip(unique, embedder.embed_tokens(unique))) if unique else {}

    def __call__(self, p: str, q: str) -> float:
        a, b = self._tokens[p], self._tokens[q]
        if len(a.ids) == 0 or len(b.ids) == 0:
            return 0.0
        return greedy_match(a.vectors, b.vectors, np.ones(len(a.ids)), np.ones(len(b.ids)))[2]


_LAST: dict[str, Any] = {}  # the last analysis, so F1, precision and recall of one batch parse once
_LAST_LOCK = threading.Lock()


def analyse(samples: Sequence[Sample], resources: Resources, *, source: str, types: str, language: str,
            embedder_spec: str, metric: str, objects: str = "entities") -> list[tuple[Alignment | None, str | None, dict[str, Any]]]:
    """Per sample: (best Alignment or None, unscored reason or None, details), shared by the three metrics.

    The most recent result is kept (one entry) and reused when the same texts are analysed with
    the same options and the same embedder object, as ``evaluate`` does for the three metrics.
    """
    key = (tuple((s.answer or "", tuple(source_texts(s, source))) for s in samples), source, types, language,
           resources.language, embedder_spec, objects)
    with _LAST_LOCK:
        hit = _LAST.get("key") == key and _LAST.get("resources") is resources
        if hit:
            return _LAST["value"]
    value = _analyse(samples, resources, source=source, types=types, language=language,
                     embedder_spec=embedder_spec, metric=metric, objects=objects)
    with _LAST_LOCK:
        _LAST.update(key=key, resources=resources, value=value)
    return value


def _analyse(samples: Sequence[Sample], resources: Resources, *, source: str, types: str, language: str,
             embedder_spec: str, metric: str, objects: str) -> list[tuple[Alignment | None, str | None, dict[str, Any]]]:
    granularity = parse_granularity(types)
    lang_reason = entities.unsupported_reason(language) or entities.unsupported_reason(resources.language)
    jobs = [(s.answer or "", source_texts(s, source)) for s in samples]
    if lang_reason:
        return [(None, lang_reason, {}) for _ in samples]
    langs = {t: entities.guess_language(t) for answer, srcs in jobs for t in [answer, *srcs]}
    english = [t for t, lang in langs.items() if lang == "en"]
    readings = triples.read_texts(english)
    kept = None
    if granularity.types or granularity.top_n is not None:
        kept = kept_types([Counter(readings[t].type_bag) for t in english], granularity)
    # every (source, target) fact list first, so predicates are embedded in one batch
    planned = []
    for answer, srcs in jobs:
        bad = next((langs[t] for t in [answer, *srcs] if langs[t] != "en"), None)
        if bad is not None:
            planned.append(entities.unsupported_reason(bad))
            continue
        pairs = []
        for text in srcs:
            src, tgt = readings[text], readings[answer]
            aliases = triples.Aliases([*src.person_names, *tgt.person_names])
            pairs.append((triples.facts(src.candidates, kept, aliases, objects=objects),
                          triples.facts(tgt.candidates, kept, aliases, objects=objects)))
        planned.append(pairs)
    phrases = [f.predicate for p in planned if not isinstance(p, str) for fs, ft in p for f in [*fs, *ft]]
    similarity = PredicateSimilarity(checked_embedder(embedder_spec, resources, metric), phrases) if phrases else None
    out = []
    for p in planned:
        if isinstance(p, str):
            out.append((None, p, {}))
            continue
        results = [align(fs, ft, similarity) for fs, ft in p]
        scored = [(i, a) for i, a in enumerate(results) if a.reason is None]
        base = {"kept_types": list(kept) if kept is not None else "all", "source": source}
        if not scored:
            first = next((a for a in results if a.reason == "no_answer_facts"), results[0])
            out.append((None, first.reason, {**base, "aligncheck": first.details()}))
            continue
        best_i, best = max(scored, key=lambda x: (x[1].f1, -x[0]))
        extra = {"best_reference": best_i} if source == "reference" else {}
        out.append((best, None, {**base, **extra, "aligncheck": best.details()}))
    return out


@dataclass(frozen=True)
class _AlignCheck:
    aligncheck_source: str = "reference"
    aligncheck_types: str = "all"
    aligncheck_objects: str = "entities"
    embedder: str = "local"
    language: str = "en"

    range = (0.0, 1.0)
    higher_is_better = True
    kind = "semantic"
    languages = ("en",)  # the only spaCy pipeline installable offline from PyPI
    needs_llm = False
    part = "f1"

    def __post_init__(self) -> None:
        if self.aligncheck_source not in SOURCES:
            raise ConfigError(f"aligncheck_source={self.aligncheck_source!r}; use one of {', '.join(SOURCES)}")
        parse_granularity(self.aligncheck_types)
        if self.aligncheck_objects not in triples.OBJECTS:
            raise ConfigError(f"aligncheck_objects={self.aligncheck_objects!r}; use one of {', '.join(triples.OBJECTS)}")
        object.__setattr__(self, "language", check_language(self.language))

    @property
    def name(self) -> str:
        return f"aligncheck_{self.part}"

    @property
    def needs(self) -> frozenset[str]:
        return frozenset({"answer", self.aligncheck_source})

    def signature(self) -> str:
        types = parse_granularity(self.aligncheck_types).label
        return (f"{self.name}|source:{self.aligncheck_source}|types:{types}|obj:{self.aligncheck_objects}"
                f"|ner:{entities.pipeline_version()}"
                f"|pred:bertscore-f1:{embedder_name(self.embedder)}|pairing:best|lang:{self.language}|{VERSION}")

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        scores = []
        for alignment, reason, details in analyse(
                samples, resources, source=self.aligncheck_source, types=self.aligncheck_types,
                language=self.language, embedder_spec=self.embedder, metric=self.name,
                objects=self.aligncheck_objects):
            if alignment is None:
                scores.append(Score.unscored(reason or "unscored", dict(details) or None))
            else:
                scores.append(Score.ok(getattr(alignment, self.part), dict(details)))
        return scores


_DOC = """AlignCheck {part}: Algorithm 1 of the AlignCheck paper over (subject, predicate, object) facts.

    Facts of the source (reference or joined contexts) F_s and of the answer F_t are entity-to-entity
    triples whose subject has a kept type. A source pair (s, o) missing from the answer is a FN, an
    answer pair missing from the source is a FP, a shared pair adds the BERTScore F1 of the two
    predicates to TP (the best-matching answer predicate per source fact).

    Formula: {formula}

    >>> {cls}().signature().split("|")[:3]
    ['aligncheck_{short}', 'source:reference', 'types:all']
    """


@register("aligncheck_f1")
@dataclass(frozen=True)
class AlignCheckF1(_AlignCheck):
    __doc__ = _DOC.format(part="F1", formula="F1 = 2PR / (P + R), P = TP / (TP + FP), R = TP / (TP + FN)",
                          cls="AlignCheckF1", short="f1")
    part = "f1"


@register("aligncheck_precision")
@dataclass(frozen=True)
class AlignCheckPrecision(_AlignCheck):
    __doc__ = _DOC.format(part="precision", formula="P = TP / (TP + FP)", cls="AlignCheckPrecision",
                          short="precision")
    part = "precision"


@register("aligncheck_recall")
@dataclass(frozen=True)
class AlignCheckRecall(_AlignCheck):
    __doc__ = _DOC.format(part="recall", formula="R = TP / (TP + FN)", cls="AlignCheckRecall", short="recall")
    part = "recall"


ALIGNCHECK_METRICS = ("aligncheck_f1", "aligncheck_precision", "aligncheck_recall")


def fact_tables(details: dict[str, Any] | None) -> dict[str, list[dict[str, Any]]]:
    """Flat rows for display: ``{"matched": [...], "added": [...] (FP), "dropped": [...] (FN)}``."""
    facts = (details or {}).get("aligncheck") or {}

    def row(f: dict[str, Any]) -> dict[str, Any]:
        return {"subject": f.get("subject"), "predicate": f.get("predicate"), "object": f.get("object"),
                "sentence": f.get("sentence")}

    matched = [{"subject": p["source"]["subject"], "object": p["source"]["object"],
                "source predicate": p["source"]["predicate"], "answer predicate": p["target"]["predicate"],
                "predicate similarity": p["predicate_similarity"]} for p in facts.get("tp_pairs", [])]
    return {"matched": matched, "added": [row(f) for f in facts.get("fp_facts", [])],
            "dropped": [row(f) for f in facts.get("fn_facts", [])]}
