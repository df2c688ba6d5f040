"""AlignCheck metrics: fact-level precision, recall and F1 of the answer against a source.

The source is the reference answer (``aligncheck_source="reference"``, the default; with several
references the one giving the highest F1 is used) or the retrieved contexts joined in rank order
(``"contexts"``). Facts come from spaCy (:mod:`rageval.aligncheck`); objects are named entities
(``aligncheck_objects="entities"``, the paper's definition) or also common nouns (``"nouns"``);
the entity types that may be subjects are chosen by ``aligncheck_types`` (``"all"``, a number n
of top TF-IDF types over the texts scored together, or explicit types such as ``"PERSON,ORG"``);
predicates are compared by BERTScore F1 over MiniLM's token vectors
(:func:`rageval.metrics.semantic.greedy_match`, no idf).

With ``judge="openai:MODEL"`` the judge LLM extracts the triples instead of spaCy
(:mod:`rageval.aligncheck.judge`; any language); a failed or unparseable reply makes the
sample failed / unscored with the judge's reason.

Unscored reasons: ``no_source_facts`` / ``no_answer_facts`` (a side with no fact of a kept
type), ``no_spacy_pipeline_for_language:<code>`` (spaCy path: the run's language, or the
language :func:`~rageval.text.lang.guess_language` finds in the answer or source, is
not English). ``details["aligncheck"]`` holds the TP pairs with their predicate similarity and
the FP facts (added by the answer: possible fabrication) and FN facts (dropped).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from rageval.aligncheck import entities, triples
from rageval.aligncheck.granularity import kept_types, parse_granularity
from rageval.aligncheck.score import align
from rageval.errors import ConfigError
from rageval.types import OFFLINE_JUDGE, Resources, Sample, Score, Spec
from rageval.judge.ask import server_part
from rageval.prompts import prompt_hash
from rageval.metrics.lexical import references_of
from rageval.metrics.semantic import checked_embedder, embedder_name, greedy_match
from rageval.text.tokenize import check_language
from rageval.text.lang import guess_language

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


def analyse(samples: Sequence[Sample], resources: Resources, *, source: str, types: str, language: str,
            embedder_spec: str, metric: str, objects: str = "entities", judge: Spec = OFFLINE_JUDGE) -> list[tuple]:
    """Per sample: (best Alignment or None, status, reason or None, details), shared by the three metrics.

    Computed once per ``evaluate`` call for the same texts and options (``resources.memo``), so
    F1, precision and recall of one batch parse once.
    """
    key = ("aligncheck", tuple((s.answer or "", tuple(source_texts(s, source))) for s in samples), source, types,
           language, resources.language, embedder_spec, objects, judge)
    return resources.memo.one(key, lambda: _analyse(samples, resources, source=source, types=types, language=language,
                                                    embedder_spec=embedder_spec, metric=metric, objects=objects,
                                                    judge=judge))


def _readings(texts: list[str], resources: Resources, *, judge: Spec, language: str,
              metric: str) -> dict[str, Any]:
    """``{text: Reading}``, or per text the reason (str) or judge Failure that stops its samples."""
    if not judge.online:
        reason = entities.unsupported_reason(language) or entities.unsupported_reason(resources.language)
        if reason:
            return {t: reason for t in texts}
        langs = {t: guess_language(t) for t in texts}
        english = [t for t in texts if langs[t] == "en"]
        return {**{t: entities.unsupported_reason(lang) for t, lang in langs.items() if lang != "en"},
                **triples.read_texts(english, resources.memo)}
    from rageval.aligncheck import judge as aligncheck_judge
    from rageval.judge.ask import judge_client

    out: dict[str, Any] = {}
    for text, got in aligncheck_judge.extract(judge_client(metric, judge, resources), texts).items():
        if isinstance(got, aligncheck_judge.Failure):
            out[text] = got
            continue
        bag = Counter(c.subject_type for c in got) + Counter(c.object_type for c in got if c.object_type)
        persons = triples.person_names(got)
        out[text] = triples.Reading(tuple(got), dict(bag), tuple(persons))
    return out


def _analyse(samples: Sequence[Sample], resources: Resources, *, source: str, types: str, language: str,
             embedder_spec: str, metric: str, objects: str, judge: Spec) -> list[tuple]:
    granularity = parse_granularity(types)
    jobs = [(s.answer or "", source_texts(s, source)) for s in samples]
    texts = list(dict.fromkeys(t for answer, srcs in jobs for t in [answer, *srcs]))
    readings = _readings(texts, resources, judge=judge, language=language, metric=metric)
    read = [t for t in texts if isinstance(readings[t], triples.Reading)]
    kept = None
    if granularity.types or granularity.top_n is not None:
        kept = kept_types([Counter(readings[t].type_bag) for t in read], granularity)
    # every (source, target) fact list first, so predicates are embedded in one batch
    planned: list[Any] = []
    for answer, srcs in jobs:
        stop = next((readings[t] for t in [answer, *srcs] if not isinstance(readings[t], triples.Reading)), None)
        if stop is not None:
            planned.append(("unscored", stop, {}) if isinstance(stop, str)
                           else (stop.status, stop.reason, {"raw": stop.raw}))
            continue
        pairs = []
        for text in srcs:
            src, tgt = readings[text], readings[answer]
            aliases = triples.Aliases([*src.person_names, *tgt.person_names])
            pairs.append((triples.facts(src.candidates, kept, aliases, objects=objects),
                          triples.facts(tgt.candidates, kept, aliases, objects=objects)))
        planned.append(pairs)
    phrases = [f.predicate for p in planned if isinstance(p, list) for fs, ft in p for f in [*fs, *ft]]
    similarity = PredicateSimilarity(checked_embedder(embedder_spec, resources, metric), phrases) if phrases else None
    out = []
    base = {"kept_types": list(kept) if kept is not None else "all", "source": source,
            "extractor": str(judge) if judge.online else "spacy"}
    for p in planned:
        if isinstance(p, tuple):
            out.append((None, p[0], p[1], {**base, **p[2]}))
            continue
        results = [align(fs, ft, similarity) for fs, ft in p]
        scored = [(i, a) for i, a in enumerate(results) if a.reason is None]
        if not scored:
            first = next((a for a in results if a.reason == "no_answer_facts"), results[0])
            out.append((None, "unscored", first.reason, {**base, "aligncheck": first.details()}))
            continue
        best_i, best = max(scored, key=lambda x: (x[1].f1, -x[0]))
        extra = {"best_reference": best_i} if source == "reference" else {}
        out.append((best, "ok", None, {**base, **extra, "aligncheck": best.details()}))
    return out


@dataclass(frozen=True)
class _AlignCheck:
    aligncheck_source: str = "reference"
    aligncheck_types: str = "all"
    aligncheck_objects: str = "entities"
    judge: Spec = OFFLINE_JUDGE  # heuristic: spaCy extracts the facts; openai:MODEL: the judge does (JSON triples)
    embedder: str = "local"
    language: str = "en"

    range = (0.0, 1.0)
    higher_is_better = True
    kind = "semantic"
    languages = ("en",)  # the only spaCy pipeline installable offline from PyPI (the judge reads any)
    part = "f1"

    @property
    def needs_llm(self) -> bool:
        return self.judge.online

    def __post_init__(self) -> None:
        if self.aligncheck_source not in SOURCES:
            raise ConfigError(f"aligncheck_source={self.aligncheck_source!r}; use one of {', '.join(SOURCES)}")
        parse_granularity(self.aligncheck_types)
        if self.aligncheck_objects not in triples.OBJECTS:
            raise ConfigError(
                f"aligncheck_objects={self.aligncheck_objects!r}; use one of {', '.join(triples.OBJECTS)}"
            )
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
                f"|{self._extractor()}"
                f"|pred:bertscore-f1:{embedder_name(self.embedder)}|pairing:best|lang:{self.language}|{VERSION}")

    def _extractor(self) -> str:
        if not self.judge.online:
            return f"ner:{entities.pipeline_version()}"
        from rageval.aligncheck.judge import PROMPT

        return f"judge:{self.judge}|prompt:{prompt_hash(PROMPT)}|{server_part(self.judge).rstrip('|')}".rstrip("|")

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        scores = []
        for alignment, status, reason, details in analyse(
                samples, resources, source=self.aligncheck_source, types=self.aligncheck_types,
                language=self.language, embedder_spec=self.embedder, metric=self.name,
                objects=self.aligncheck_objects, judge=self.judge):
            if status == "failed":
                scores.append(Score.failed(reason or "failed", dict(details)))
            elif alignment is None:
                scores.append(Score.unscored(reason or "unscored", dict(details)))
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


@dataclass(frozen=True)
class AlignCheckF1(_AlignCheck):
    __doc__ = _DOC.format(part="F1", formula="F1 = 2PR / (P + R), P = TP / (TP + FP), R = TP / (TP + FN)",
                          cls="AlignCheckF1", short="f1")
    part = "f1"


@dataclass(frozen=True)
class AlignCheckPrecision(_AlignCheck):
    __doc__ = _DOC.format(part="precision", formula="P = TP / (TP + FP)", cls="AlignCheckPrecision",
                          short="precision")
    part = "precision"


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
