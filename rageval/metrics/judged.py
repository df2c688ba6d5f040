"""The two RAGAS answer metrics compared in seed paper 000: answer correctness and answer
relevance; LLM-judged with ``judge="openai:MODEL"``, transparent heuristics offline.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from rageval.claims.extract import extract_claims
from rageval.claims.offline import offline_verify
from rageval.claims.offline import version as verifier_version
from rageval.claims.verdict import DECIDED, SUPPORTED
from rageval.errors import ConfigError
from rageval.types import OFFLINE_JUDGE, Resources, Sample, Score, Spec
from rageval.judge.ask import ask, failed_score, judge_client, signature
from rageval.metrics.coverage import coverage_score
from rageval.text import version as text_version
from rageval.text.hedges import abstention_cues

if TYPE_CHECKING:  # the reply models load pydantic; they are needed only when a judge answers
    from rageval.prompts.schemas import Questions, StatementSort


def cosines(embedder: Any, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """Cosine of each (a, b) pair with one embedding call (vectors are L2-normalised)."""
    texts = list(dict.fromkeys(t for pair in pairs for t in pair))
    if not texts:
        return []
    vecs = np.asarray(embedder.embed(texts), dtype=np.float32)
    at = {t: i for i, t in enumerate(texts)}
    return [float(np.dot(vecs[at[a]], vecs[at[b]])) for a, b in pairs]


def offline_parts(judge: Spec, embedder: str) -> tuple[str, ...]:
    """Signature parts of a metric that reads claims: the embedder, and offline the claim
    verifier's version (which pins its weights and word lists) and the text rules' version
    (sentence boundaries of answers and contexts, word tokens: :func:`rageval.text.version`)."""
    if not judge.online:
        return f"emb:{embedder}", f"verifier:{verifier_version()}", text_version()
    return (f"emb:{embedder}",)


def embedder_name(embedder: Any) -> str:
    return getattr(embedder, "name", type(embedder).__name__)


def f1_of(tp: int, fp: int, fn: int) -> float:
    """RAGAS' statement F1: ``TP / (TP + 0.5 * (FP + FN))``."""
    return tp / (tp + 0.5 * (fp + fn))


def sorted_statements(reply: StatementSort) -> dict[str, list[str]]:
    return {"tp": reply.tp, "fp": reply.fp, "fn": reply.fn}


@dataclass(frozen=True)
class _Ragas:
    """What the two RAGAS-style metrics share: the judge, the offline path's sentence embedder
    (pinned in the signature) and their metadata."""

    judge: Spec = OFFLINE_JUDGE
    embedder: str = "local"
    range = (0.0, 1.0)
    higher_is_better = True
    kind = "judged"
    languages = ("en",)
    needs_llm = True


@dataclass(frozen=True)
class RagasAnswerCorrectness(_Ragas):
    """RAGAS answer correctness: statement F1 against the reference, blended with semantic
    similarity.

    Statements of the answer are TP when the reference states them, else FP; statements of the
    reference the answer lacks are FN. ``F1 = TP / (TP + 0.5 (FP + FN))``,
    ``sim = max(0, cos(e_answer, e_reference))`` with ``resources.embedder``, and
    ``score = (w_f * F1 + w_s * sim) / (w_f + w_s)`` with ``w_f = factuality_weight = 0.75``,
    ``w_s = similarity_weight = 0.25``; the best reference counts. With the judge one call per
    reference sorts the statements (``answer_correctness.txt``); offline the statements are
    :func:`extract_claims` of each text, checked by the offline check
    (:func:`rageval.claims.offline.offline_verify`) against the other text (the question and the
    reference, each a text of its own; the answer for FN):
    a SUPPORTED statement is TP (not FN), a CONTRADICTED or NOT_MENTIONED one FP (FN), and an
    UNVERIFIED one is left out (``undecided``); F1 is computed on the decided statements and
    ``coverage = decided / all`` is in the details. No statements at all -> unscored ``no_claims``;
    none decided -> unscored ``no_decided_claims``.

    >>> f1_of(tp=2, fp=1, fn=1)
    0.6666666666666666
    """

    factuality_weight: float = 0.75
    similarity_weight: float = 0.25
    name = "ragas_answer_correctness"
    needs = frozenset({"answer", "reference"})

    def __post_init__(self) -> None:
        w_f, w_s = self.factuality_weight, self.similarity_weight
        if w_f < 0 or w_s < 0 or w_f + w_s <= 0:
            raise ConfigError(f"{self.name}: weights {w_f}/{w_s} must be >= 0 and not both 0")

    def signature(self) -> str:
        return signature(self.name, self.judge, ("answer_correctness",),
                         f"w:{self.factuality_weight:g}/{self.similarity_weight:g}",
                         *offline_parts(self.judge, self.embedder))

    def llm_calls(self, shape: Any) -> int:
        """One judge call per non-empty reference."""
        return shape.references

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        llm = None if not self.judge.online else judge_client(self.name, self.judge, resources)
        pairs = [(i, j, ref) for i, s in enumerate(samples) for j, ref in enumerate(s.references) if ref.strip()]
        embedder = resources.embedder
        sims = cosines(embedder, [(samples[i].answer or "", ref) for i, _, ref in pairs])
        if llm is None:
            sorted_ = self._heuristic(samples, pairs, embedder)
        else:
            sorted_ = llm.map(lambda p: self._ask(llm, samples[p[0]], p[2]), pairs)
        best: dict[int, Score] = {}
        for (i, j, _), sim, got in zip(pairs, sims, sorted_):
            score = self._combine(got, sim, j, embedder)
            if i not in best or _better(score, best[i]):
                best[i] = score
        return [best.get(i, Score.unscored("no_reference")) for i in range(len(samples))]

    def _ask(self, llm: Any, sample: Sample, reference: str) -> Any:
        return ask(llm, "answer_correctness", sorted_statements, question=sample.question or "(not given)",
                   answer=sample.answer or "", reference=reference)

    def _heuristic(self, samples: Sequence[Sample], pairs: list, embedder: Any) -> list[dict]:
        jobs, shapes = [], []
        for i, _, ref in pairs:
            a_stmts, r_stmts = extract_claims(samples[i].answer or ""), extract_claims(ref)
            # the question and the reference are two texts: a statement is decided only when copied from one
            jobs += [(a_stmts, [t for t in (samples[i].question or "", ref) if t.strip()]),
                     (r_stmts, [samples[i].answer or ""])]
            shapes.append((a_stmts, r_stmts))
        verdicts = offline_verify(embedder, jobs)
        out = []
        for n, (a_stmts, r_stmts) in enumerate(shapes):
            a_v, r_v = verdicts[2 * n], verdicts[2 * n + 1]
            out.append({
                "tp": [t for t, v in zip(a_stmts, a_v) if v.label == SUPPORTED],
                "fp": [t for t, v in zip(a_stmts, a_v) if v.label in DECIDED and v.label != SUPPORTED],
                "fn": [t for t, v in zip(r_stmts, r_v) if v.label in DECIDED and v.label != SUPPORTED],
                "undecided": [t for t, v in zip(a_stmts + r_stmts, a_v + r_v) if v.label not in DECIDED],
            })
        return out

    def _combine(self, got: Any, sim: float, ref_index: int, embedder: Any) -> Score:
        method = {"judge": str(self.judge), "method": "heuristic" if not self.judge.online else "llm",
                  "embedder": embedder_name(embedder), "reference_index": ref_index}
        if not isinstance(got, dict):
            if got.status != "ok":
                return failed_score(got, method)
            got = got.value
        tp, fp, fn = (len(got[k]) for k in ("tp", "fp", "fn"))
        undecided = len(got.get("undecided", ()))
        details = {**got, **method, "similarity": round(sim, 6),
                   "weights": [self.factuality_weight, self.similarity_weight]}
        if tp + fp + fn + undecided == 0:
            return Score.unscored("no_claims", details)
        if tp + fp + fn == 0:
            return coverage_score(0, 0, undecided, details)
        f1 = f1_of(tp, fp, fn)
        value = (self.factuality_weight * f1 + self.similarity_weight * max(sim, 0.0)) / (
            self.factuality_weight + self.similarity_weight)
        if "undecided" not in got:  # the judge sorts every statement
            return Score.ok(min(max(value, 0.0), 1.0), {**details, "f1": f1})
        return coverage_score(0, tp + fp + fn, tp + fp + fn + undecided, {**details, "f1": f1},
                              value=min(max(value, 0.0), 1.0))


def _better(a: Score, b: Score) -> bool:
    if a.status == "ok" and b.status == "ok":
        return (a.value or 0.0) > (b.value or 0.0)
    return a.status == "ok" and b.status != "ok"


def first_questions(n: int):
    """A check of a validated ``Questions``: its first ``n`` generated questions."""

    def check(reply: Questions) -> list[dict]:
        return [{"question": q.question, "noncommittal": q.noncommittal} for q in reply.questions[:n]]

    return check


@dataclass(frozen=True)
class RagasAnswerRelevance(_Ragas):
    """RAGAS answer relevance: how well questions generated from the answer match the question.

    With the judge, ``n`` (default 3) questions are generated from the answer, each with a
    noncommittal flag (``answer_relevance_questions.txt``);
    ``score = (1/n) sum_i max(0, cos(e_question, e_generated_i))``, and 0 when every generation
    flags the answer as noncommittal. Offline (labelled "heuristic" in details):
    ``score = max(0, cos(e_question, e_answer))``, and 0 when the answer is noncommittal (it
    uses abstention language or has no claim).
    """

    n: int = 3
    name = "ragas_answer_relevance"
    needs = frozenset({"answer", "question"})

    def __post_init__(self) -> None:
        if not 1 <= self.n <= 10:
            raise ConfigError(f"{self.name}: n={self.n} must be between 1 and 10")

    def signature(self) -> str:
        """Offline, whether the answer has a claim comes from the one segmenter (:func:`rageval.text.version`)."""
        text = (text_version(),) if not self.judge.online else ()
        return signature(self.name, self.judge, ("answer_relevance_questions",), f"n:{self.n}", f"emb:{self.embedder}",
                         *text)

    def llm_calls(self, shape: Any) -> int:
        """One judge call (it writes all ``n`` questions)."""
        return 1

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        llm = None if not self.judge.online else judge_client(self.name, self.judge, resources)
        embedder = resources.embedder
        base = {"judge": str(self.judge), "embedder": embedder_name(embedder)}
        if llm is None:
            sims = cosines(embedder, [(s.question, s.answer or "") for s in samples])
            out = []
            for s, sim in zip(samples, sims):
                cues = abstention_cues(s.answer or "")
                noncommittal = bool(cues) or not extract_claims(s.answer or "")
                value = 0.0 if noncommittal else max(sim, 0.0)
                out.append(Score.ok(value, {**base, "method": "heuristic", "similarity": round(sim, 6),
                                            "noncommittal": noncommittal, "cues": cues}))
            return out
        replies = llm.map(lambda s: ask(llm, "answer_relevance_questions", first_questions(self.n), n=self.n,
                                        answer=s.answer or ""), list(samples))
        pairs = [(s.question, g["question"]) for s, r in zip(samples, replies) if r.status == "ok" for g in r.value]
        sims = iter(cosines(embedder, pairs))
        out = []
        for s, r in zip(samples, replies):
            if r.status != "ok":
                out.append(failed_score(r, {**base, "method": "llm"}))
                continue
            gens = [{**g, "similarity": round(next(sims), 6)} for g in r.value]
            all_noncommittal = all(g["noncommittal"] for g in gens)
            value = 0.0 if all_noncommittal else float(np.mean([max(g["similarity"], 0.0) for g in gens]))
            out.append(Score.ok(value, {**base, "method": "llm", "generated": gens,
                                        "noncommittal": all_noncommittal}))
        return out
