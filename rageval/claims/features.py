"""Features of one (claim, contexts) pair for the learned claim verifier.

Every context is split into sentences (and table rows, spelled out with their headers). A word's
*key* is its light stem cut to 6 letters (so English and Italian inflections meet); stop words of
both languages, negations and numbers are not keys. For a claim with keys K and a sentence with
keys S, ``coverage = |K & S| / |K|``. The ``CANDIDATES`` sentences of highest coverage are
embedded with the claim (MiniLM, cosine ``sim``); the *best* sentence maximises
``coverage + sim``, the *closest* maximises ``sim``. Checks are made on both and the larger
value kept. Numbers are read after :func:`rageval.claims.lang.normalise_numbers`.

The vector (names in :data:`NAMES`, in order):

- alignment: coverage of the best sentence, of the best adjacent pair, of all contexts; the best
  and second best cosine; cosine of the best sentence; share of the claim's word bigrams in the
  best sentence; log length ratio; log1p of the number of keys, and of keys missing from the
  best sentence and from all contexts;
- numbers, years, months, names: whether the claim has them, the share found in the best
  sentence and in all contexts, and a *rival* flag (a claim value missing while the sentence
  gives another one; for names: a claim name missing while the sentence names someone else);
  ``unit``: the same value with a different unit;
- polarity: negation parity differs from the sentence, and from its best clause; an antonym of
  the English table (:func:`rageval.metrics.claim_text.antonym_clash`) or the Italian one; a
  quantifier or temporal-order word replaced by another of its group;
- the Italian flag;
- the rule-based verifier (:class:`rageval.metrics.claim_verify.HeuristicVerifier`): its label
  (one-hot), its mismatch kind (one-hot), its conflict flag, coverage and similarity. They are
  computed (the rule verifier also quotes evidence and names mismatches in reasons), but the
  shipped model gives them zero weight: on the dev split the model without them was as good
  (the ablation in docs/validation.md), so training selected it.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from rageval.claims import lang as L
from rageval.metrics.claim_text import (
    antonym_clash,
    months,
    name_tokens,
    quantities,
    split_sentences,
    stem,
    table_rows,
    words,
    years,
)
from rageval.metrics.claim_verify import HeuristicVerifier, Verdict
from rageval.metrics.claim_verify import _features as rule_features

CANDIDATES = 6
MISMATCH_KINDS = ("numbers", "units", "dates", "negation", "antonyms", "entities")
NAMES = (
    "cov_best", "cov_pair", "cov_ctx", "sim_max", "sim_second", "sim_best", "bigram_best", "len_ratio",
    "n_keys", "missing_best", "missing_ctx",
    "has_num", "num_best", "num_ctx", "num_rival", "unit_rival",
    "has_year", "year_best", "year_ctx", "year_rival", "month_rival",
    "has_name", "name_best", "name_ctx", "name_rival",
    "neg_diff", "neg_clause_diff", "antonym", "quantifier", "temporal",
    "italian",
    "h_supported", "h_contradicted", "h_not_mentioned",
    *(f"h_{k}" for k in MISMATCH_KINDS), "h_conflict", "h_coverage", "h_similarity",
)
HEURISTIC_FEATURES = tuple(n for n in NAMES if n.startswith("h_"))
_STOP_IT = L.IT_STOPWORDS


@dataclass
class Sentence:
    ctx: int
    start: int
    end: int
    text: str
    keys: frozenset[str]


@dataclass
class PairFeatures:
    """One claim's feature vector, the sentences it was read from and the rule verdict."""

    vector: np.ndarray
    best: Sentence | None
    closest: Sentence | None
    heuristic: Verdict


def key_set(text: str) -> frozenset[str]:
    """The claim-matching keys of ``text`` (light stem cut to 6 letters; no stop words)."""
    from rageval.metrics.claim_text import NEGATIONS, STOPWORDS

    out = set()
    for w in words(text):
        if w in STOPWORDS or w in _STOP_IT or w in NEGATIONS or w in L.NEGATIONS["it"] or len(w) < 2:
            continue
        if w[0].isdigit():
            continue
        out.add(stem(w)[:6])
    return frozenset(out)


def sentences(contexts: Sequence[str]) -> list[Sentence]:
    out = []
    for ci, ctx in enumerate(contexts):
        for sp in split_sentences(ctx):
            out.append(Sentence(ci, sp.start, sp.end, sp.text, key_set(sp.text)))
        for row in table_rows(ctx):
            out.append(Sentence(ci, row.start, row.end, row.text, key_set(row.text)))
    return out


def _share(needles: set, hay: set) -> float:
    return sum(n in hay for n in needles) / len(needles) if needles else 1.0


def _bigrams(text: str) -> set[tuple[str, str]]:
    toks = [stem(w)[:6] for w in words(text)]
    return set(zip(toks, toks[1:]))


def _clause_neg(claim: str, claim_keys: frozenset, sent: str) -> int:
    parts = [p for p in re.split(r"[;,.!?]\s|\s(?:but|while|whereas|although|and|ma|mentre|e)\s", sent)
             if p.strip()] or [sent]
    best = max(parts, key=lambda p: len(claim_keys & key_set(p)))
    return int(L.negation_parity(claim, "en") != L.negation_parity(best, "en"))


def _checks(claim: str, ckeys: frozenset, sent: Sentence, lang: str) -> dict[str, float]:
    c_text, s_text = L.normalise_numbers(claim, lang), L.normalise_numbers(sent.text, lang)
    cq, sq = quantities(c_text), quantities(s_text)
    cv, sv = {v for v, _ in cq}, {v for v, _ in sq}
    num_rival = unit_rival = 0
    for v, u in cq:
        if any(v == w and (u == k or not u or not k) for w, k in sq):
            continue
        if any(v == w for w, _ in sq):
            unit_rival = 1
        elif any(u == k or not u or not k for _, k in sq):
            num_rival = 1
    cy, sy = years(c_text), years(s_text)
    cm, sm = months(c_text), months(s_text)
    cn = name_tokens(claim)
    s_words = set(words(sent.text))
    c_words = set(words(claim))
    sn = name_tokens(sent.text)
    return {
        "num_best": _share(cv, sv), "num_rival": num_rival, "unit_rival": unit_rival,
        "year_best": _share(cy, sy), "year_rival": int(bool(cy - sy) and bool(sy - cy)),
        "month_rival": int(bool(cm - sm) and bool(sm - cm)),
        "name_best": _share(cn, s_words), "name_rival": int(bool(cn - s_words) and bool(sn - c_words)),
        "neg_diff": int(L.negation_parity(claim, lang) != L.negation_parity(sent.text, lang)),
        "neg_clause_diff": _clause_neg(claim, ckeys, sent.text),
        "antonym": int(antonym_clash(claim, sent.text) is not None or L.it_antonym_clash(claim, sent.text) == 1),
        "quantifier": L.group_clash(claim, sent.text, L.QUANTIFIERS),
        "temporal": L.group_clash(claim, sent.text, L.TEMPORAL),
    }


class FeatureExtractor:
    """Feature vectors for claims against contexts; ``embedder`` has ``.embed(texts)`` returning
    L2-normalised rows (or is None: every cosine is then 0)."""

    def __init__(self, embedder: Any = None, heuristic: HeuristicVerifier | None = None):
        self.embedder = embedder
        self.heuristic = heuristic or HeuristicVerifier(embedder)

    def many(self, jobs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[PairFeatures]]:
        """``[(claims, contexts), ...]`` -> per job, one :class:`PairFeatures` per claim.

        All sentences this needs and the rule verifier needs are embedded in one call (the rule
        verifier's vector cache is shared), before the rule verifier runs."""
        rules_v = self.heuristic
        prepared = []
        texts: list[str] = []
        for claims, contexts in jobs:
            sents = sentences(contexts)
            units = rules_v._sentences(tuple(contexts))
            joined = "\n".join(contexts)
            ctx_keys = frozenset().union(*[s.keys for s in sents]) if sents else frozenset()
            items = []
            for claim in claims:
                ckeys = key_set(claim)
                scored = sorted(range(len(sents)), key=lambda i: (-_share(ckeys, sents[i].keys) if ckeys else 0,
                                                                  len(sents[i].text)))
                cands = [sents[i] for i in scored[:CANDIDATES]]
                texts.append(claim)
                texts.extend(s.text for s in cands)
                texts.extend(p for k in rules_v._candidates(rule_features(claim), units) for p in k.sent.parts)
                items.append((claim, ckeys, cands))
            prepared.append((items, sents, joined, ctx_keys))
        rules_v._embed(texts)
        sims = [[[self._cos(claim, s.text) for s in cands] for claim, _, cands in items] for items, *_ in prepared]
        rules = rules_v.verify_many(jobs)
        out = []
        for (items, sents, joined, ctx_keys), verdicts, job_sims in zip(prepared, rules, sims):
            out.append([self._one(claim, ckeys, cands, sim, sents, joined, ctx_keys, h)
                        for (claim, ckeys, cands), h, sim in zip(items, verdicts, job_sims)])
        return out

    def _cos(self, a: str, b: str) -> float:
        if self.embedder is None:
            return 0.0
        vec = self.heuristic._vectors
        return float(np.dot(vec[a], vec[b]))

    def _one(self, claim: str, ckeys: frozenset, cands: list[Sentence], sims: list[float], sents: list[Sentence],
             joined: str, ctx_keys: frozenset, h: Verdict) -> PairFeatures:
        f = dict.fromkeys(NAMES, 0.0)
        lang = L.language(claim + " " + joined[:2000])
        f["italian"] = float(lang == "it")
        best = closest = None
        if cands:
            covs = [_share(ckeys, s.keys) if ckeys else 0.0 for s in cands]
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
            checks = [_checks(claim, ckeys, s, lang) for s in {id(best): best, id(closest): closest}.values()]
            for k in checks[0]:
                if k.endswith("_best"):
                    f[k] = max(c[k] for c in checks)
                else:
                    f[k] = float(max(c[k] for c in checks))
        f["cov_ctx"] = _share(ckeys, ctx_keys) if ckeys else 0.0
        f["n_keys"] = math.log1p(len(ckeys))
        f["missing_ctx"] = math.log1p(len(ckeys - ctx_keys))
        c_norm, x_norm = L.normalise_numbers(claim, lang), L.normalise_numbers(joined, lang)
        cv, xv = {v for v, _ in quantities(c_norm)}, {v for v, _ in quantities(x_norm)}
        cy, cn = years(c_norm), name_tokens(claim)
        f.update(has_num=float(bool(cv)), num_ctx=_share(cv, xv), has_year=float(bool(cy)),
                 year_ctx=_share(cy, years(x_norm)), has_name=float(bool(cn)),
                 name_ctx=_share(cn, set(words(joined))))
        if not cands:
            f.update(num_best=0.0, year_best=0.0, name_best=0.0)
        f[{"SUPPORTED": "h_supported", "CONTRADICTED": "h_contradicted"}.get(h.label, "h_not_mentioned")] = 1.0
        if h.mismatch in MISMATCH_KINDS:
            f[f"h_{h.mismatch}"] = 1.0
        f.update(h_conflict=float(h.conflict), h_coverage=h.coverage, h_similarity=max(h.similarity, 0.0))
        vec = np.array([f[n] for n in NAMES], dtype=np.float64)
        return PairFeatures(vec, best, closest, h)
