"""The offline claim verifier: a transparent heuristic, labelled ``judge:heuristic`` wherever
its verdicts appear.

For one claim against the retrieved contexts:

1. **Candidates.** Every context is split into sentences; the evidence *units* are single
   sentences and pairs of adjacent sentences of one context (so "It was founded in 1901" can
   use its antecedent). *Coverage* = share of the claim's content-word stems found in a unit
   (exact stem, or a shared prefix of at least 5 letters and 75% of the shorter stem). The
   ``candidates`` units with the highest coverage (single sentences first on ties) are kept;
   *similarity* = the cosine of the claim's embedding and its unit's sentence embedding (the
   larger of the two for a pair; only sentences are embedded, so they are reused across units
   and claims), or 0 without an embedder.
2. **Mismatch checks** on each candidate unit that is *on topic* (at least ``min(2, n)`` claim
   stems match and coverage >= 0.6, or >= 0.4 with similarity >= 0.7): ``numbers`` (a claim
   value absent from the unit while the unit gives another value of a compatible unit),
   ``units`` (same value, different unit), ``dates`` (a year or month absent while the unit
   gives another), ``negation`` (the claim and the unit's best-matching clause, which must
   cover >= 0.6 of the claim's stems, differ in the parity of negation cues), ``antonyms`` (a
   small table of opposites and negating prefixes, :func:`claim_text.antonym_clash`, with the
   rest of the claim covered >= 0.6 by the unit), ``entities`` (a capitalised name of the
   claim absent from the unit while the unit names another, and at least half of the claim's
   other content words present: the rest of the statement matches).
3. **Support** = no mismatch, every number and year of the claim in the unit and every name in
   the same context, and coverage >= 0.8 (or >= 0.5 with similarity >= 0.8). A pair supports
   only when neither of its sentences supports the claim alone (then that sentence is quoted)
   and neither states the opposite on its own (a negation or an antonym).
4. **Verdict.** SUPPORTED when some candidate supports the claim and no *other* context
   contradicts it; CONTRADICTED when an on-topic candidate mismatches and nothing supports it,
   or when one context supports it and another contradicts it (``conflict``); else
   NOT_MENTIONED, quoting the closest sentence.

The claim's numbers, years and names found in no context at all are kept as ``novel`` (used by
the over-specification diagnosis).
"""
from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from rageval.metrics.claim_text import (
    antonym_clash,
    content_stems,
    months,
    name_heads,
    name_tokens,
    negation_count,
    quantities,
    split_sentences,
    table_rows,
    stem,
    words,
    years,
)

SUPPORTED, CONTRADICTED, NOT_MENTIONED = "SUPPORTED", "CONTRADICTED", "NOT_MENTIONED"
LABELS = (SUPPORTED, CONTRADICTED, NOT_MENTIONED)
SUPPORT_COVERAGE = 0.8
PARAPHRASE_COVERAGE, PARAPHRASE_SIMILARITY = 0.5, 0.8
TOPIC_COVERAGE, TOPIC_COVERAGE_SIMILAR, TOPIC_SIMILARITY = 0.6, 0.4, 0.7
VECTOR_CACHE = 20000  # sentence vectors kept between calls (about 30 MB at 384 dimensions)


@dataclass(frozen=True)
class Verdict:
    """One claim's verdict with its evidence: the quoted sentence, which context it came from
    (0-based index into the contexts) and its character span inside that context string."""

    label: str
    evidence: str | None = None
    context_index: int | None = None
    span: tuple[int, int] | None = None
    reason: str = ""
    mismatch: str | None = None
    coverage: float = 0.0
    similarity: float = 0.0
    conflict: bool = False
    novel: tuple[str, ...] = ()
    confidence: float | None = None  # the learned verifier's probability of ``label``
    probabilities: dict | None = None  # the learned verifier's probability of each label
    evidence_role: str | None = None  # "support", "refutes" or "closest passage"

    @property
    def strength(self) -> float:
        """A graded support score in [0, 1]: the learned verifier's probability of SUPPORTED when
        it has one; else 0 when contradicted and the mean of coverage and (non-negative)
        similarity of the best evidence; used for AUROC, not for the label."""
        if self.probabilities:
            return float(self.probabilities.get(SUPPORTED, 0.0))
        if self.label == CONTRADICTED:
            return 0.0
        return 0.5 * self.coverage + 0.5 * max(self.similarity, 0.0)


@dataclass
class _Sent:
    """An evidence unit: one sentence, or two adjacent sentences of one context."""

    ctx: int
    start: int
    end: int
    text: str
    pair: bool
    pool: set[str]
    prefixes: dict[str, list[str]]
    parts: tuple[str, ...]  # the sentence texts (one, or two for a pair) that get embedded


@dataclass
class _Claim:
    text: str
    stems: list[str]
    qty: set[tuple[float, str]]
    yrs: set[str]
    mons: set[str]
    names: set[str]
    heads: dict[str, str]
    neg: int


@dataclass
class _Cand:
    sent: _Sent
    coverage: float
    similarity: float = 0.0
    supports: bool = False
    mismatches: list[tuple[str, str]] = field(default_factory=list)

    @property
    def rank(self) -> float:
        return self.coverage + self.similarity


class HeuristicVerifier:
    """Labels claims against contexts by the rules in the module docstring.

    ``embedder`` is anything with ``.embed(texts) -> (n, dim)`` L2-normalised rows, or None
    (lexical rules only). Sentence splits and embeddings are cached on the instance.
    """

    def __init__(self, embedder: Any = None, *, candidates: int = 8):
        self.embedder = embedder
        self.candidates = candidates
        self._vectors: dict[str, np.ndarray] = {}
        self._contexts: OrderedDict[tuple[str, ...], list[_Sent]] = OrderedDict()

    # -- public ---------------------------------------------------------------------------
    def verify(self, claims: Sequence[str], contexts: Sequence[str]) -> list[Verdict]:
        """Verdicts for ``claims`` against ``contexts`` (each claim on its own)."""
        return self.verify_many([(claims, contexts)])[0]

    def verify_many(self, jobs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[Verdict]]:
        """``[(claims, contexts), ...]`` -> verdict lists; one embedding call for all jobs."""
        prepared = []
        for claims, contexts in jobs:
            sents = self._sentences(tuple(contexts))
            joined = "\n".join(contexts)
            per_ctx = [{stem(w) for w in words(c)} for c in contexts]
            items = []
            for text in claims:
                claim = _features(text)
                cands = self._candidates(claim, sents)
                items.append((claim, cands))
            prepared.append((items, joined, per_ctx))
        self._embed([c.text for items, _, _ in prepared for c, _ in items]
                    + [p for items, _, _ in prepared for _, ks in items for k in ks for p in k.sent.parts])
        out = []
        for items, joined, per_ctx in prepared:
            out.append([self._decide(claim, cands, joined, per_ctx) for claim, cands in items])
        for old in list(self._vectors)[: max(0, len(self._vectors) - VECTOR_CACHE)]:
            del self._vectors[old]  # oldest first: dicts keep insertion order
        return out

    # -- steps ----------------------------------------------------------------------------
    def _sentences(self, contexts: tuple[str, ...]) -> list[_Sent]:
        if contexts in self._contexts:
            self._contexts.move_to_end(contexts)
            return self._contexts[contexts]
        sents: list[_Sent] = []
        for ci, ctx in enumerate(contexts):
            spans = split_sentences(ctx)
            for i, span in enumerate(spans):
                sents.append(_unit(ci, ctx, span.start, span.end, (span.text,)))
                if i:
                    sents.append(_unit(ci, ctx, spans[i - 1].start, span.end, (spans[i - 1].text, span.text)))
            for row in table_rows(ctx):  # a table row is read with its header: "City: Oslo; Cap: 190 EUR."
                sents.append(_unit(ci, ctx, row.start, row.end, (row.text,), body=row.text))
        self._contexts[contexts] = sents
        if len(self._contexts) > 512:
            self._contexts.popitem(last=False)
        return sents

    def _candidates(self, claim: _Claim, sents: list[_Sent]) -> list[_Cand]:
        scored = [(_coverage(claim.stems, s), s.pair, i) for i, s in enumerate(sents)]
        scored.sort(key=lambda t: (-t[0], t[1], t[2]))
        return [_Cand(sents[i], cov) for cov, _, i in scored[: self.candidates]]

    def _embed(self, texts: list[str]) -> None:
        if self.embedder is None:
            return
        todo = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        for lo in range(0, len(todo), 256):
            batch = todo[lo:lo + 256]
            vecs = np.asarray(self.embedder.embed(batch), dtype=np.float32)
            for t, v in zip(batch, vecs):
                self._vectors[t] = v

    def _cos(self, claim: str, unit: _Sent) -> float:
        if self.embedder is None:
            return 0.0
        return max(float(np.dot(self._vectors[claim], self._vectors[p])) for p in unit.parts)

    def _decide(self, claim: _Claim, cands: list[_Cand], joined: str, per_ctx: list) -> Verdict:
        novel = _novel(claim, joined)
        if not claim.stems and not claim.qty and not claim.yrs:
            return Verdict(NOT_MENTIONED, reason="the claim has no content words to check", novel=novel)
        named = model_numbers(claim.text, joined)
        for cand in cands:
            cand.similarity = self._cos(claim.text, cand.sent)
            cand.mismatches = _mismatches(claim, cand, named)
            unit_values = {v for v, _ in quantities(cand.sent.text)}
            specifics = (all(v in unit_values or (not k and _num(v) in named) for v, k in claim.qty)
                         and claim.yrs <= years(cand.sent.text)
                         and {stem(n) for n in claim.names} <= per_ctx[cand.sent.ctx])
            enough = cand.coverage >= SUPPORT_COVERAGE or (
                cand.coverage >= PARAPHRASE_COVERAGE and cand.similarity >= PARAPHRASE_SIMILARITY)
            cand.supports = not cand.mismatches and specifics and enough
        for cand in cands:
            if cand.supports and cand.sent.pair:
                # a pair supports only when it needs both sentences and neither one on its own
                # states the opposite (a negation or an antonym; a value missing from one
                # sentence may well be in the other)
                inside = [c for c in cands if not c.sent.pair and c.sent.ctx == cand.sent.ctx
                          and cand.sent.start <= c.sent.start and c.sent.end <= cand.sent.end]
                polar = any(k in ("negation", "antonyms") for c in inside for k, _ in c.mismatches)
                if polar or any(c.supports for c in inside):
                    cand.supports = False
        supports = sorted((c for c in cands if c.supports), key=lambda c: -c.rank)
        contras = sorted((c for c in cands if c.mismatches), key=lambda c: -c.rank)
        if supports:
            backed = {c.sent.ctx for c in supports}
            # a refutation elsewhere makes a conflict only when it is as much on the claim's
            # topic as the support is: it covers as many of the claim's words other than names
            # (a swapped name is what it refutes, so names do not count on either side)
            names = frozenset(stem(n) for n in claim.names)
            topic = _coverage(claim.stems, supports[0].sent, names)
            foreign = [c for c in contras if c.sent.ctx not in backed and _coverage(claim.stems, c.sent, names) >= topic]
            if not foreign:
                best = supports[0]
                return _verdict(SUPPORTED, best, f"stated in the context ({_pct(best.coverage)} of the "
                                "claim's content words, no mismatch)", novel=novel)
            best = foreign[0]
            kind, why = best.mismatches[0]
            return _verdict(CONTRADICTED, best, f"{why}; another context (#{supports[0].sent.ctx + 1}) "
                            "supports the claim", mismatch=kind, conflict=True, novel=novel)
        if contras:
            best = contras[0]
            kind, why = best.mismatches[0]
            return _verdict(CONTRADICTED, best, why, mismatch=kind, novel=novel)
        if not cands:
            return Verdict(NOT_MENTIONED, reason="no context sentences", novel=novel)
        best = max(cands, key=lambda c: c.rank)
        if novel:
            why = "adds " + ", ".join(novel) + " which the context does not contain"
        else:
            why = f"not found in the context; the closest sentence covers {_pct(best.coverage)} of its content words"
        return _verdict(NOT_MENTIONED, best, why, novel=novel)


# --- helpers ------------------------------------------------------------------------------

def _features(text: str) -> _Claim:
    # a claim made only of numbers ("1989.") is matched on its digit tokens instead
    stems = list(dict.fromkeys(content_stems(text))) or [w for w in words(text) if w[0].isdigit()]
    return _Claim(
        text=text,
        stems=stems,
        qty=quantities(text),
        yrs=years(text),
        mons=months(text),
        names=name_tokens(text),
        heads=name_heads(text),
        neg=negation_count(_without_parentheses(text)) % 2,
    )


def _without_parentheses(text: str) -> str:
    """``text`` with parenthesised asides removed (a parenthesis qualifies, it does not negate)."""
    return re.sub(r"\([^)]*(?:\)|$)", " ", text)


_MODEL_NUMBER = re.compile(r"\b([A-Z][\w-]*)\s+(\d+(?:\.\d+)?)\b")


def model_numbers(claim: str, context: str) -> set[str]:
    """Bare numbers of ``claim`` that are part of a name the context also uses ("Trailhead 2")."""
    low = context.lower()
    return {m.group(2) for m in _MODEL_NUMBER.finditer(claim) if f"{m.group(1)} {m.group(2)}".lower() in low}


def _matches(stem: str, pool: set[str], prefixes: dict[str, list[str]]) -> bool:
    if stem in pool:
        return True
    if len(stem) < 5:
        return False
    for other in prefixes.get(stem[:5], ()):
        n = 5
        while n < min(len(stem), len(other)) and stem[n] == other[n]:
            n += 1
        if n >= 0.75 * min(len(stem), len(other)):
            return True
    return False


def _coverage(stems: Sequence[str], sent: _Sent, ignore: frozenset[str] = frozenset()) -> float:
    rest = [s for s in stems if s not in ignore]
    if not rest:
        return 0.0
    return sum(_matches(s, sent.pool, sent.prefixes) for s in rest) / len(rest)


def _on_topic(claim: _Claim, cand: _Cand, ignore: set[str]) -> bool:
    rest = [s for s in claim.stems if s not in ignore]
    if not rest:
        return False
    hits = sum(_matches(s, cand.sent.pool, cand.sent.prefixes) for s in rest)
    frac = hits / len(rest)
    return hits >= min(2, len(rest)) and (
        frac >= TOPIC_COVERAGE or (frac >= TOPIC_COVERAGE_SIMILAR and cand.similarity >= TOPIC_SIMILARITY))


def _mismatches(claim: _Claim, cand: _Cand, names_with_numbers: set[str] = frozenset()) -> list[tuple[str, str]]:
    unit = cand.sent.text
    if not _on_topic(claim, cand, set()):
        return []
    found = _polarity_and_names(claim, cand)
    if claim.qty:
        u_qty = quantities(unit)
        # numbers with a unit first; a bare number that is part of a name the context also uses
        # (a model name such as "Trailhead 2") is not a quantity to check against this sentence
        for value, kind in sorted(claim.qty, key=lambda q: (not q[1], q[0])):
            if any(v == value and (u == kind or not u or not kind) for v, u in u_qty):
                continue
            if not kind and _num(value) in names_with_numbers:
                continue
            same = [u for v, u in u_qty if v == value]
            rivals = sorted(v for v, u in u_qty if u == kind or not u or not kind)
            if same:
                found.append(("units", f"the claim gives {_num(value)} {kind} where the evidence gives "
                              f"{_num(value)} {same[0]}"))
            elif rivals:
                found.append(("numbers", f"the claim says {_num(value)} where the evidence says "
                              + " / ".join(_num(v) for v in rivals[:3])))
            break
    missing_years, other_years = claim.yrs - years(unit), years(unit) - claim.yrs
    missing_months, other_months = claim.mons - months(unit), months(unit) - claim.mons
    if missing_years and other_years:
        found.append(("dates", f"the claim says {', '.join(sorted(missing_years))} where the evidence "
                      f"says {', '.join(sorted(other_years))}"))
    elif missing_months and other_months:
        found.append(("dates", f"the claim says {', '.join(sorted(missing_months)).title()} where the "
                      f"evidence says {', '.join(sorted(other_months)).title()}"))
    clause, clause_cov = _best_clause(claim, unit)
    # a parenthesis qualifies, it does not negate: "2.1 kg (without stakes: 1.85 kg)"
    if clause_cov >= TOPIC_COVERAGE and negation_count(_without_parentheses(clause)) % 2 != claim.neg:
        side = "negates" if claim.neg else "does not negate"
        found.append(("negation", f"the claim {side} what the evidence states: \"{clause.strip()}\""))
    return found


def _polarity_and_names(claim: _Claim, cand: _Cand) -> list[tuple[str, str]]:
    """Antonym and swapped-name checks on an on-topic unit (each with its extra gate)."""
    unit = cand.sent.text
    found: list[tuple[str, str]] = []
    clash = antonym_clash(claim.text, unit)
    if clash and _share(claim.stems, unit, {clash[0]}) >= TOPIC_COVERAGE:
        found.append(("antonyms", f"the claim says '{clash[0]}' where the evidence says '{clash[1]}'"))
    unit_stems = {stem(w) for w in words(unit)}
    missing = sorted(name for head, name in claim.heads.items() if stem(head) not in unit_stems)
    if missing:
        claim_stems = {stem(w) for w in words(claim.text)}
        extra = sorted(name for head, name in name_heads(unit).items() if stem(head) not in claim_stems)
        name_stems = {stem(t) for t in claim.names}
        predicate = [s for s in claim.stems if s not in name_stems]
        if extra and predicate and _share(predicate, unit, set()) >= 0.5:
            found.append(("entities", f"the claim names {', '.join(missing).title()} where the "
                          f"evidence names {', '.join(extra).title()}"))
    return found


def _share(stems: Sequence[str], text: str, ignore: set[str]) -> float:
    """Share of ``stems`` (minus ``ignore``) found in ``text``."""
    rest = [s for s in stems if s not in ignore]
    if not rest:
        return 0.0
    pool = set(content_stems(text))
    prefixes: dict[str, list[str]] = {}
    for p in pool:
        prefixes.setdefault(p[:5], []).append(p)
    return sum(_matches(s, pool, prefixes) for s in rest) / len(rest)


def _best_clause(claim: _Claim, unit: str) -> tuple[str, float]:
    """The clause of ``unit`` that shares most of the claim's stems, and that share."""
    parts = [p for p in re.split(r"[;,.!?]\s|\s(?:but|while|whereas|although|though|and|so|because)\s", unit)
             if p.strip()] or [unit]
    scored = [(_share(claim.stems, p, set()), -i, p) for i, p in enumerate(parts)]
    share, _, best = max(scored)
    return best, share


def _novel(claim: _Claim, joined: str) -> tuple[str, ...]:
    ctx_values = {v for v, _ in quantities(joined)}
    ctx_words = set(words(joined))
    out = [_num(v) + (f" {u}" if u else "") for v, u in sorted(claim.qty) if v not in ctx_values]
    out += sorted(y for y in claim.yrs if y not in ctx_words)
    out += sorted(n.title() for n in claim.names if n not in ctx_words)
    return tuple(out)


def _verdict(label: str, cand: _Cand, reason: str, *, mismatch: str | None = None,
             conflict: bool = False, novel: tuple[str, ...] = ()) -> Verdict:
    s = cand.sent
    return Verdict(label, evidence=s.text, context_index=s.ctx, span=(s.start, s.end), reason=reason,
                   mismatch=mismatch, coverage=round(cand.coverage, 4),
                   similarity=round(cand.similarity, 4), conflict=conflict, novel=novel)


def _pct(x: float) -> str:
    return f"{round(100 * x)}%"


def _num(v: float) -> str:
    return f"{v:g}" if abs(v) < 1e6 else f"{v:,.0f}"


def _unit(ctx: int, text: str, start: int, end: int, parts: tuple[str, ...], *, body: str | None = None) -> _Sent:
    body = text[start:end] if body is None else body
    pool = set(content_stems(body)) | {w for w in words(body) if w[0].isdigit()}
    prefixes: dict[str, list[str]] = {}
    for s in pool:
        if len(s) >= 5:
            prefixes.setdefault(s[:5], []).append(s)
    return _Sent(ctx, start, end, body, len(parts) > 1, pool, prefixes, parts)
