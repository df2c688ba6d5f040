"""Algorithm 1 of the AlignCheck paper: soft TP from predicate similarity, FP, FN, then P, R, F1.

With F_s the source's facts, F_t the target's, and SO_s / SO_t their sets of (subject, object)
pairs:

    for f_s in F_s:   (s_s, o_s) not in SO_t  ->  FN += 1
                      else                    ->  TP += sim(p_s, p_t) over the target facts with that pair
    for f_t in F_t:   (s_t, o_t) not in SO_s  ->  FP += 1
    P = TP / (TP + FP),  R = TP / (TP + FN),  F1 = 2PR / (P + R)

``sim`` is BERTScore F1 between the two predicate phrases (given by the caller; the metrics
use MiniLM's token vectors), in (-1, 1]; identical phrases count 1.0 without calling it.

Cases the paper leaves open, decided here:

- **F_s and F_t are sets**: duplicate (s, p, o) triples of one text count once.
- **several predicates for one pair**: with ``pairing="best"`` (the default, used by the
  metrics) each source fact adds the similarity of its *most similar* target predicate for that
  pair, so a source fact contributes at most 1 and a pair repeated in the target is not counted
  twice. ``pairing="sum"`` is the paper's loop read literally (every matching target fact adds
  its similarity; TP can then exceed the number of source facts).
- **TP <= 0**: with no shared pair at all, TP = 0 and P = R = F1 = 0 (both texts have facts and
  none align: a real zero). When pairs are shared but their similarities sum to <= 0, TP is
  clipped at 0, P = R = F1 = 0 and ``tp_clipped`` is set (without clipping a negative TP over
  FP = 0 would give P = 1).
- **empty sets**: a source or target with no facts cannot be scored (P or R would be 0/0):
  the result carries no values and the reason ``no_source_facts`` or ``no_answer_facts``;
  never 0 or NaN.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from rageval.aligncheck.triples import Fact

PAIRINGS = ("best", "sum")


@dataclass(frozen=True)
class Alignment:
    """The outcome of Algorithm 1 for one (source, target) pair of fact sets."""

    tp: float = 0.0
    fp: int = 0
    fn: int = 0
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    reason: str | None = None
    tp_clipped: bool = False
    tp_pairs: list[dict[str, Any]] = field(default_factory=list)
    fp_facts: list[dict[str, str]] = field(default_factory=list)
    fn_facts: list[dict[str, str]] = field(default_factory=list)

    def details(self) -> dict[str, Any]:
        """JSON-ready: counts, and the facts behind each TP, FP (possible fabrication) and FN (dropped)."""
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tp_clipped": self.tp_clipped,
                "precision": self.precision, "recall": self.recall, "f1": self.f1,
                "tp_pairs": self.tp_pairs, "fp_facts": self.fp_facts, "fn_facts": self.fn_facts}


def align(source: Sequence[Fact], target: Sequence[Fact], similarity: Callable[[str, str], float], *,
          pairing: str = "best") -> Alignment:
    """Algorithm 1 over two fact lists (see the module docstring for the open cases).

    >>> f = lambda s, p, o: Fact(s, p, o)
    >>> a = align([f("jobs", "founded", "apple"), f("jobs", "founded in", "1976")],
    ...           [f("jobs", "founded", "apple"), f("jobs", "founded in", "1977")], lambda p, q: 0.5)
    >>> (a.tp, a.fp, a.fn, a.precision, a.recall, a.f1)
    (1.0, 1, 1, 0.5, 0.5, 0.5)
    """
    if pairing not in PAIRINGS:
        raise ValueError(f"pairing={pairing!r}; use one of {PAIRINGS}")
    f_s, f_t = list(dict.fromkeys(source)), list(dict.fromkeys(target))
    if not f_s:
        return Alignment(reason="no_source_facts", fp_facts=[f.as_dict() for f in f_t])
    if not f_t:
        return Alignment(reason="no_answer_facts", fn_facts=[f.as_dict() for f in f_s])
    by_pair: dict[tuple[str, str], list[Fact]] = {}
    for f in f_t:
        by_pair.setdefault(f.pair, []).append(f)
    so_s = {f.pair for f in f_s}

    def sim(p: str, q: str) -> float:
        return 1.0 if p == q else float(similarity(p, q))

    tp, fn, tp_pairs, fn_facts = 0.0, 0, [], []
    for fs in f_s:
        matches = by_pair.get(fs.pair)
        if not matches:
            fn += 1
            fn_facts.append(fs.as_dict())
            continue
        scored = [(sim(fs.predicate, ft.predicate), ft) for ft in matches]
        chosen = [max(scored, key=lambda x: x[0])] if pairing == "best" else scored
        for value, ft in chosen:
            tp += value
            tp_pairs.append({"source": fs.as_dict(), "target": ft.as_dict(), "predicate_similarity": value})
    fp_facts = [ft.as_dict() for ft in f_t if ft.pair not in so_s]
    fp = len(fp_facts)
    if tp <= 0:  # no shared pair (a plain 0), or shared pairs whose predicates disagree (clipped)
        return Alignment(0.0, fp, fn, 0.0, 0.0, 0.0, None, bool(tp_pairs), tp_pairs, fp_facts, fn_facts)
    p, r = tp / (tp + fp), tp / (tp + fn)
    return Alignment(tp, fp, fn, p, r, 2 * p * r / (p + r), None, False, tp_pairs, fp_facts, fn_facts)
