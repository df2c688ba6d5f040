"""Features of one (claim, contexts) pair for the learned claim verifier.

Every context is split into sentences and table rows (spelled out with their headers,
:mod:`rageval.text.sentences`). A word's *key* is its light stem cut to 6 letters
(:func:`rageval.text.words.keys`: stop words of both languages, negations and numbers are not
keys). For a claim with keys K and a sentence with keys S, ``coverage = |K & S| / |K|``. The
``CANDIDATES`` sentences of highest coverage are embedded with the claim (MiniLM, cosine
``sim``); the *best* sentence maximises ``coverage + sim``, the *closest* maximises ``sim``.
The shares (``*_best``) are read on the best sentence; the difference checks on both, and a
difference found in either counts. Negation is counted outside parentheses. Quantities and dates are read by
:func:`rageval.text.numbers.quantities` (one parser for the project: "1,5 miliardi di euro" and
"EUR 1.5 billion" are the same quantity) and compared with
:func:`~rageval.text.numbers.same_quantity`.

The vector (names in :data:`NAMES`, in order):

- alignment: coverage of the best sentence, of the best adjacent pair, of all contexts; the best
  and second best cosine; cosine of the best sentence; share of the claim's word bigrams in the
  best sentence; log length ratio; log1p of the number of keys, and of keys missing from the
  best sentence and from all contexts;
- quantities, dates, names (a number that is part of a name, ``Trailhead 2``, counts as a name,
  :func:`labels`): whether the claim has them, the share found in the best sentence
  and in all contexts, and a *rival* flag (a claim value missing while the sentence gives another
  one of the same kind; dates: another date or year; months: another month name; names: a claim
  name missing while the sentence names someone else); ``unit_rival``: the claim's value with
  another unit;
- polarity: negation parity differs from the sentence, and from its best clause; an opposite
  word (:func:`rageval.claims.cues.antonym_clash`, English, or the Italian table); a quantifier or
  temporal-order word replaced by another of its group;
- the Italian flag (:func:`rageval.text.lang.guess_language`).

The rule-based verifier that came before this model is gone: with its verdict as extra features
the model was no better on the development split (the ablation in training/VALIDATION.md).
"""
from __future__ import annotations

import math
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from rageval.claims import cues
from rageval.embed.sentences import sentence_spans, sentence_vectors
from rageval.text.lang import guess_language
from rageval.text.numbers import Quantity, format_value, quantities, same_quantity
from rageval.text.words import IT_STOPWORDS, STOPWORDS, keys, stem, words

CANDIDATES = 6
VECTOR_CACHE = 20000  # sentence vectors kept between calls (about 30 MB at 384 dimensions)
NAMES = (
    "cov_best", "cov_pair", "cov_ctx", "sim_max", "sim_second", "sim_best", "bigram_best", "len_ratio",
    "n_keys", "missing_best", "missing_ctx",
    "has_num", "num_best", "num_ctx", "num_rival", "unit_rival",
    "has_date", "date_best", "date_ctx", "date_rival", "month_rival",
    "has_name", "name_best", "name_ctx", "name_rival",
    "neg_diff", "neg_clause_diff", "antonym", "quantifier", "temporal",
    "italian",
)
#: the checks that name a difference between a claim and a sentence (used for reasons)
CHECKS = ("num_rival", "unit_rival", "date_rival", "month_rival", "name_rival", "neg_clause_diff", "neg_diff",
          "antonym", "quantifier", "temporal")
_DATES = ("date", "year")


@dataclass
class Sentence:
    ctx: int
    start: int
    end: int
    text: str
    keys: frozenset[str]


@dataclass
class PairFeatures:
    """One claim's feature vector and the sentences it was read from; ``agreeing`` is a sentence
    of another context than ``best`` that states all of the claim's quantities and dates with
    coverage >= 0.8 (when ``best`` gives rival ones, the sources disagree)."""

    vector: np.ndarray
    best: Sentence | None
    closest: Sentence | None
    agreeing: Sentence | None = None
    ranked: tuple[Sentence, ...] = ()  # the candidates, highest coverage + cosine first
    windows: tuple[str, ...] = ()  # per ranked candidate: it with its neighbours in its context


def sentences(contexts: Sequence[str]) -> list[Sentence]:
    out = []
    for ci, ctx in enumerate(contexts):
        for sp in sentence_spans(ctx):  # the spans ingest embeds (rageval.embed.sentences)
            out.append(Sentence(ci, sp.start, sp.end, sp.text, keys(sp.text)))
    return out


def _share(needles: set, hay: set) -> float:
    return sum(n in hay for n in needles) / len(needles) if needles else 1.0


def _found(needles: Sequence[Quantity], hay: Sequence[Quantity]) -> float:
    return sum(any(same_quantity(q, h) for h in hay) for q in needles) / len(needles) if needles else 1.0


def _bigrams(text: str) -> set[tuple[str, str]]:
    toks = [stem(w)[:6] for w in words(text)]
    return set(zip(toks, toks[1:]))


_PARENTHESES = re.compile(r"\([^()]*\)")


def _outside_parentheses(text: str) -> str:
    """``text`` without its parenthesised asides: "weight: 2.1 kg (without stakes: 1.85 kg)" does not
    negate the weight."""
    return _PARENTHESES.sub(" ", text)


def _clause_neg(claim: str, claim_keys: frozenset, sent: str) -> int:
    parts = [p for p in re.split(r"[;,.!?]\s|\s(?:but|while|whereas|although|and|ma|mentre|e)\s", sent)
             if p.strip()] or [sent]
    best = max(parts, key=lambda p: len(claim_keys & keys(p)))
    return int(cues.negation_parity(claim) != cues.negation_parity(best))


_LABEL_BEFORE = re.compile(r"\b([A-Z][\w-]*)\s+$")


def labels(text: str, qs: Sequence[Quantity]) -> dict[int, str]:
    """Bare numbers that are part of a name (``Trailhead 2``, ``Model 3``, ``Room 12``): a number
    with no unit right after a capitalised word that is not a stop word. {start offset: "name n"}."""
    out = {}
    for q in qs:
        if q.kind != "number":
            continue
        m = _LABEL_BEFORE.search(text[:q.start])
        if m and m.group(1).lower() not in STOPWORDS and m.group(1).lower() not in IT_STOPWORDS:
            out[q.start] = f"{m.group(1).lower()} {text[q.start:q.end]}"
    return out


def _read(text: str, lang: str) -> tuple[list[Quantity], list[Quantity], set[str]]:
    """(quantities, dates and years, name labels) of ``text``; a number that is part of a name
    (:func:`labels`) is a label, not a quantity."""
    qs = quantities(text, lang)
    named = labels(text, qs)
    qs = [q for q in qs if q.start not in named]
    return [q for q in qs if q.kind not in _DATES], [q for q in qs if q.kind in _DATES], set(named.values())


def _number_rivals(cq: Sequence[Quantity], sq: Sequence[Quantity]) -> tuple[int, int]:
    """(num_rival, unit_rival): a claim quantity that no sentence quantity agrees with, while the
    sentence gives one of the same kind (or a bare number), or the same value in another unit."""
    num_rival = unit_rival = 0
    for q in cq:
        if any(same_quantity(q, s) for s in sq):
            continue
        if any(format_value(q.value) == format_value(s.value) for s in sq):
            unit_rival = 1
        elif any(s.kind == q.kind or "number" in (s.kind, q.kind) for s in sq):
            num_rival = 1
    return num_rival, unit_rival


def _checks(claim: str, ckeys: frozenset, cq: tuple, sent: Sentence, lang: str) -> dict[str, float]:
    c_num, c_date, c_labels = cq
    s_num, s_date, s_labels = _read(sent.text, lang)
    num_rival, unit_rival = _number_rivals(c_num, s_num)
    cm, sm = cues.month_names(claim), cues.month_names(sent.text)
    cn, sn = cues.name_tokens(claim) | c_labels, cues.name_tokens(sent.text) | s_labels
    s_words, c_words = set(words(sent.text)) | s_labels, set(words(claim)) | c_labels
    date_rival = int(any(not any(same_quantity(q, s) for s in s_date) for q in c_date)
                     and any(not any(same_quantity(s, q) for q in c_date) for s in s_date))
    return {
        "num_best": _found(c_num, s_num),
        "num_rival": num_rival,
        "unit_rival": unit_rival,
        "date_best": _found(c_date, s_date),
        "date_rival": date_rival,
        "month_rival": int(bool(cm - sm) and bool(sm - cm)),
        "name_best": _share(cn, s_words),
        "name_rival": int(bool(cn - s_words) and bool(sn - c_words)),
        "neg_diff": int(
            cues.negation_parity(_outside_parentheses(claim)) != cues.negation_parity(_outside_parentheses(sent.text))
        ),
        "neg_clause_diff": _clause_neg(_outside_parentheses(claim), ckeys, _outside_parentheses(sent.text)),
        "antonym": int(
            cues.antonym_clash(claim, sent.text) is not None or cues.it_antonym_clash(claim, sent.text) == 1
        ),
        "quantifier": cues.group_clash(claim, sent.text, cues.QUANTIFIERS),
        "temporal": cues.group_clash(claim, sent.text, cues.TEMPORAL),
    }


class FeatureExtractor:
    """Feature vectors for claims against contexts; ``embedder`` has ``.embed(texts)`` returning
    L2-normalised rows (or is None: every cosine is then 0). Sentence vectors are cached
    (``VECTOR_CACHE`` texts, least recently used dropped first)."""

    def __init__(self, embedder: Any = None):
        self.embedder = embedder
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def many(self, jobs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[PairFeatures]]:
        """``[(claims, contexts), ...]`` -> per job, one :class:`PairFeatures` per claim (all the
        claims and candidate sentences are embedded in one call)."""
        prepared = []
        texts: list[str] = []
        for claims, contexts in jobs:
            sents = sentences(contexts)
            joined = "\n".join(contexts)
            ctx_keys = frozenset().union(*[s.keys for s in sents]) if sents else frozenset()
            items = []
            for claim in claims:
                ckeys = keys(claim)
                scored = sorted(range(len(sents)), key=lambda i: (-_share(ckeys, sents[i].keys) if ckeys else 0,
                                                                  len(sents[i].text)))
                cands = [sents[i] for i in scored[:CANDIDATES]]
                texts.append(claim)
                texts.extend(s.text for s in cands)
                items.append((claim, ckeys, cands))
            prepared.append((items, sents, joined, ctx_keys))
        self._embed(texts)
        out = []
        for items, sents, joined, ctx_keys in prepared:
            reads: dict[str, tuple] = {}  # the contexts' quantities per language, read once per job
            position = {id(s): i for i, s in enumerate(sents)}
            rows = row_spans(sents)  # the job's table rows, found once for all its claims
            out.append([self._one(claim, ckeys, cands, [self._cos(claim, s.text) for s in cands], sents, joined,
                                  ctx_keys, reads, position, rows) for claim, ckeys, cands in items])
        return out

    def _embed(self, texts: list[str]) -> None:
        if self.embedder is None:
            return
        todo = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if todo:
            for t, v in zip(todo, sentence_vectors(self.embedder, todo)):
                self._vectors[t] = v
        for t in dict.fromkeys(texts):
            self._vectors.move_to_end(t)
        while len(self._vectors) > max(VECTOR_CACHE, len(texts)):
            self._vectors.popitem(last=False)

    def _cos(self, a: str, b: str) -> float:
        if self.embedder is None:
            return 0.0
        return float(np.dot(self._vectors[a], self._vectors[b]))

    def _one(self, claim: str, ckeys: frozenset, cands: list[Sentence], sims: list[float], sents: list[Sentence],
             joined: str, ctx_keys: frozenset, reads: dict[str, tuple],
             position: dict[int, int] | None = None, rows: set[tuple[int, int, int]] | None = None) -> PairFeatures:
        f = dict.fromkeys(NAMES, 0.0)
        lang = guess_language(claim + " " + joined[:2000])
        f["italian"] = float(lang == "it")
        cq = _read(claim, lang)
        best = closest = agreeing = None
        ranked: tuple[Sentence, ...] = ()
        if cands:
            covs = [_share(ckeys, s.keys) if ckeys else 0.0 for s in cands]
            ranked = tuple(cands[i] for i in sorted(range(len(cands)), key=lambda i: -(covs[i] + sims[i])))
            bi = max(range(len(cands)), key=lambda i: covs[i] + sims[i])
            ci = max(range(len(cands)), key=lambda i: sims[i])
            best, closest = cands[bi], cands[ci]
            ordered = sorted(sims, reverse=True)
            f.update(cov_best=max(covs), sim_max=ordered[0], sim_second=ordered[1] if len(ordered) > 1 else 0.0,
                     sim_best=sims[bi])
            pair_cov = 0.0
            for a, b in zip(sents, sents[1:]):
                if a.ctx == b.ctx and ckeys:
                    pair_cov = max(pair_cov, _share(ckeys, a.keys | b.keys))
            f["cov_pair"] = pair_cov
            cb = _bigrams(claim)
            f["bigram_best"] = _share(cb, _bigrams(best.text)) if cb else 0.0
            f["len_ratio"] = math.log((len(words(claim)) + 1) / (len(words(best.text)) + 1))
            f["missing_best"] = math.log1p(len(ckeys - best.keys))
            # shares come from the best sentence; a difference (rival value, polarity) found in the
            # best or the closest sentence counts
            checks = [_checks(claim, ckeys, cq, s, lang) for s in {id(best): best, id(closest): closest}.values()]
            for k in checks[0]:
                f[k] = float(checks[0][k] if k.endswith("_best") else max(c[k] for c in checks))
            if cq[0] or cq[1]:
                agreeing = _agreeing(claim, ckeys, cq, cands, best, lang)
        f["cov_ctx"] = _share(ckeys, ctx_keys) if ckeys else 0.0
        f["n_keys"] = math.log1p(len(ckeys))
        f["missing_ctx"] = math.log1p(len(ckeys - ctx_keys))
        if lang not in reads:
            reads[lang] = _read(joined, lang)
        x_num, x_date, x_labels = reads[lang]
        cn = cues.name_tokens(claim) | cq[2]
        f.update(has_num=float(bool(cq[0])), num_ctx=_found(cq[0], x_num), has_date=float(bool(cq[1])),
                 date_ctx=_found(cq[1], x_date), has_name=float(bool(cn)),
                 name_ctx=_share(cn, set(words(joined)) | x_labels))
        if not cands:
            f.update(num_best=0.0, date_best=0.0, name_best=0.0)
        vec = np.array([f[n] for n in NAMES], dtype=np.float64)
        windows = tuple(window(sents, position[id(c)], rows) if position else c.text for c in ranked)
        return PairFeatures(vec, best, closest, agreeing, ranked, windows)


def row_spans(sents: Sequence[Sentence]) -> set[tuple[int, int, int]]:
    """(context, start, end) of the table rows: the spans that two sentences share (a row and its
    spelled-out form)."""
    seen: set[tuple[int, int, int]] = set()
    rows: set[tuple[int, int, int]] = set()
    for s in sents:
        key = (s.ctx, s.start, s.end)
        (rows if key in seen else seen).add(key)
    return rows


def window(sents: Sequence[Sentence], i: int, rows: set[tuple[int, int, int]] | None = None) -> str:
    """Sentence ``i`` with the sentences before and after it in the same context (a premise for
    the cross-encoder: a pronoun often lives in the neighbour). A table row is read alone: it is
    spelled out with its header already (a row and its spelled-out form share one span), and a
    neighbouring row would lend it another row's values."""
    if rows is None:
        rows = row_spans(sents)

    def is_row(j: int) -> bool:
        return (sents[j].ctx, sents[j].start, sents[j].end) in rows

    if is_row(i):
        return sents[i].text
    parts = [sents[j].text for j in (i - 1, i, i + 1)
             if 0 <= j < len(sents) and sents[j].ctx == sents[i].ctx and (j == i or not is_row(j))]
    return " ".join(parts)


def _agreeing(claim: str, ckeys: frozenset, cq: tuple, cands: list[Sentence], best: Sentence,
              lang: str) -> Sentence | None:
    """A candidate of another context than ``best`` with coverage >= 0.8 that states every one of
    the claim's quantities and dates and has no rival value or negation difference."""
    for s in cands:
        if s.ctx == best.ctx or (ckeys and _share(ckeys, s.keys) < 0.8):
            continue
        c = _checks(claim, ckeys, cq, s, lang)
        if c["num_best"] == 1.0 and c["date_best"] == 1.0 and not (c["num_rival"] or c["date_rival"] or c["neg_diff"]):
            return s
    return None

