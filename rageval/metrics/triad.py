"""The RAG triad of seed paper 000 (after TruLens): context relevance, groundedness and
answer relevance. The judge rates on an integer scale 0-3 (stated in the prompt files) and the
score is ``rating / 3``; offline each metric has a transparent heuristic, labelled
``"method": "heuristic"`` in its details.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from rageval.claims.analysis import chunk_id
from rageval.claims.extract import is_short_answer, question_claim, resolved_sentences, why_no_claims
from rageval.claims.judge import evidence_of
from rageval.claims.offline import offline_verify
from rageval.claims.verdict import DECIDED, SUPPORTED
from rageval.embed.sentences import context_vectors, sentence_vectors
from rageval.types import OFFLINE_JUDGE, Resources, Sample, Score, Spec
from rageval.judge.ask import (
    ask,
    failed_score,
    judge_client,
    numbered,
    rating_of,
    signature,
)
from rageval.metrics.coverage import coverage_score
from rageval.metrics.judged import cosines, embedder_name, offline_parts
from rageval.prompts.entries import numbered_entries, passage_index
from rageval.text.hedges import abstention_cues
from rageval.text import version as text_version
from rageval.text.words import content_stems

if TYPE_CHECKING:  # the reply models load pydantic; they are needed only when a judge answers
    from rageval.prompts.schemas import Ratings

TOP = 3
SENTENCES_PER_CALL = 8
MAX_SENTENCES = 40  # sentences the judge rates per answer (so the judge calls have a bound)
COS_LOW, COS_HIGH = 0.1, 0.6


def mapped_cosine(cos: float) -> float:
    """Cosine mapped linearly from [0.1, 0.6] to [0, 1] and clipped (MiniLM gives unrelated
    texts about 0-0.15 and a question and a passage that answers it about 0.4-0.7)."""
    return float(min(max((cos - COS_LOW) / (COS_HIGH - COS_LOW), 0.0), 1.0))


def term_share(question: str, text: str) -> float:
    """Share of the question's content-word stems that occur in ``text`` (0 when it has none)."""
    q = set(content_stems(question))
    return len(q & set(content_stems(text))) / len(q) if q else 0.0


@dataclass(frozen=True)
class _Triad:
    range = (0.0, 1.0)
    higher_is_better = True
    kind = "judged"
    languages = ("en",)
    needs_llm = True
    prompt = ""
    judge: Spec = OFFLINE_JUDGE
    embedder: str = "local"  # the sentence embedder of the offline path (pinned in the signature)

    def signature(self) -> str:
        """Offline the word rules of :func:`term_share` are pinned too (:func:`rageval.text.version`)."""
        text = (text_version(),) if not self.judge.online else ()
        return signature(self.name, self.judge, (self.prompt,), f"emb:{self.embedder}", *text)


@dataclass(frozen=True)
class ContextRelevance(_Triad):
    """Mean relevance of the retrieved chunks to the question.

    ``context_relevance = (1/k) sum_i r_i`` over the k retrieved chunks. Judge:
    ``r_i = rating_i / 3`` with rating 0-3 (``context_relevance.txt``), one call per chunk.
    Offline: ``r_i = 0.5 * clip((cos(e_q, e_chunk) - 0.1) / 0.5, 0, 1) + 0.5 * share of the
    question's content words found in the chunk``, where ``e_chunk`` is the normalised mean of
    the chunk's sentence vectors (:func:`rageval.embed.sentences.context_vectors`: the vectors
    the claim verifier reads, so a chunk is embedded once; an earlier version embedded the chunk
    whole, a different value under another signature).

    >>> round(mapped_cosine(0.35), 3)
    0.5
    """

    name = "context_relevance"
    needs = frozenset({"question", "contexts"})
    prompt = "context_relevance"

    def signature(self) -> str:
        """Offline also ``ctx:sentence-mean``, how the chunk's vector is made (see the class)."""
        extra = (text_version(), "ctx:sentence-mean") if not self.judge.online else ()
        return signature(self.name, self.judge, (self.prompt,), f"emb:{self.embedder}", *extra)

    def llm_calls(self, shape: Any) -> int:
        """One judge call per retrieved passage."""
        return shape.passages

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        llm = None if not self.judge.online else judge_client(self.name, self.judge, resources)
        items = [(i, j, ctx) for i, s in enumerate(samples) for j, ctx in enumerate(s.contexts)]
        if llm is None:
            embedder = resources.embedder
            questions = sentence_vectors(embedder, [samples[i].question for i, _, _ in items])
            chunks = context_vectors(embedder, [ctx for _, _, ctx in items])
            sims = [float(np.dot(q, c)) for q, c in zip(questions, chunks)]
            rated = []
            for (i, _, ctx), cos in zip(items, sims):
                share = term_share(samples[i].question, ctx)
                rated.append({"score": round(0.5 * mapped_cosine(cos) + 0.5 * share, 6),
                              "cosine": round(cos, 6), "term_share": round(share, 6)})
            base = {"judge": str(self.judge), "method": "heuristic", "embedder": embedder_name(embedder)}
        else:
            replies = llm.map(lambda it: ask(llm, "context_relevance", rating_of, question=samples[it[0]].question,
                                             passage=it[2]), items)
            rated = [r if r.status != "ok" else {**r.value, "score": r.value["rating"] / TOP} for r in replies]
            base = {"judge": str(self.judge), "method": "llm"}
        per: list[list] = [[] for _ in samples]
        for (i, j, _), r in zip(items, rated):
            per[i].append((j, r))
        out = []
        for s, chunks in zip(samples, per):
            bad = [r for _, r in chunks if not isinstance(r, dict)]
            if bad:
                out.append(failed_score(bad[0], base))
                continue
            rows = [{"chunk": chunk_id(s, j), "rank": j + 1, **r} for j, r in chunks]
            out.append(Score.ok(float(np.mean([r["score"] for r in rows])), {**base, "chunks": rows}))
        return out


def check_ratings(n: int, n_passages: int):
    """A check of a validated ``Ratings``: one rating per answer sentence 1..n, passages in range."""

    def check(reply: Ratings) -> list[dict]:
        return [{"rating": r.rating, "reason": r.reason, "passage": passage_index(r.passage, n_passages),
                 "quote": r.quote} for r in numbered_entries(reply.ratings, "sentence", n)]

    return check


@dataclass(frozen=True)
class Groundedness(_Triad):
    """How well each answer sentence is backed by the retrieved context, with evidence.

    ``groundedness = (1/m) sum_s rating_s / 3`` over the m answer sentences that carry claims
    (greetings, questions and refusals dropped; a leading pronoun replaced by the last named
    subject; a short answer is the claim its question makes of it,
    :func:`rageval.claims.extract.question_claim`). Judge: rating 0-3 per sentence with a quoted
    passage sentence (``groundedness.txt``, up to 8 sentences per call, the first 40 sentences
    of an answer; a longer answer is scored on those). Offline: rating 3 when the offline check
    (:func:`rageval.claims.offline.offline_verify`) finds the sentence SUPPORTED (copied from a
    context); an UNVERIFIED sentence is left out (rating null) and the mean is over the decided
    ones, with ``coverage = decided / m`` in the details (so offline the value is 1 or unscored
    ``no_decided_claims``, and the coverage carries the information). No sentences -> unscored
    ``no_claims``.
    """

    name = "groundedness"
    needs = frozenset({"answer", "contexts"})
    prompt = "groundedness"

    def signature(self) -> str:
        """The answer's sentences come from the one segmenter for every judge, so its rules are
        pinned for every judge (offline through :func:`offline_parts`)."""
        text = () if not self.judge.online else (text_version(),)
        return signature(self.name, self.judge, (self.prompt,), *offline_parts(self.judge, self.embedder), *text)

    def llm_calls(self, shape: Any) -> int:
        """``ceil(min(sentences, MAX_SENTENCES) / 8)``; before the answer exists, MAX_SENTENCES."""
        if not shape.passages:
            return 0
        n = MAX_SENTENCES if shape.answer is None else min(len(resolved_sentences(shape.answer)), MAX_SENTENCES)
        return math.ceil(n / SENTENCES_PER_CALL)

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        llm = None if not self.judge.online else judge_client(self.name, self.judge, resources)
        sentences = [resolved_sentences(s.answer or "") for s in samples]
        if llm is None:
            embedder = resources.embedder
            sentences = [[question_claim(s.question or "", s.answer or "")] if is_short_answer(s.answer or "")
                         and sents else sents for s, sents in zip(samples, sentences)]
            verdicts = offline_verify(embedder, [(sents, s.contexts) for sents, s in zip(sentences, samples)])
            base = {"judge": str(self.judge), "method": "heuristic", "embedder": embedder_name(embedder)}
            rows_of = [[{"text": t, "rating": (TOP if v.label == SUPPORTED else 0) if v.label in DECIDED else None,
                         "verdict": v.label, "evidence": v.evidence, "evidence_chunk": chunk_id(s, v.context_index),
                         "span": list(v.span) if v.span else None, "reason": v.reason, "hints": list(v.hints)}
                        for t, v in zip(sents, vs)] for sents, vs, s in zip(sentences, verdicts, samples)]
        else:
            base = {"judge": str(self.judge), "method": "llm"}
            rows_of = self._judged(llm, samples, sentences)
        out = []
        for s, rows in zip(samples, rows_of):
            if not isinstance(rows, list):
                out.append(failed_score(rows, base))
            elif not rows:
                out.append(Score.unscored(why_no_claims(s.answer or ""), {**base, "sentences": []}))
            elif llm is None:
                rated = [r["rating"] for r in rows if r["rating"] is not None]
                out.append(coverage_score(sum(rated) / TOP, len(rated), len(rows), {**base, "sentences": rows}))
            else:
                value = float(np.mean([r["rating"] for r in rows])) / TOP
                out.append(Score.ok(value, {**base, "sentences": rows}))
        return out

    def _judged(self, llm: Any, samples: Sequence[Sample], sentences: list[list[str]]) -> list:
        calls = [(i, sents[lo:lo + SENTENCES_PER_CALL]) for i, sents in enumerate(sentences)
                 for lo in range(0, min(len(sents), MAX_SENTENCES), SENTENCES_PER_CALL)]

        def one(call: tuple[int, list[str]]) -> Any:
            i, sents = call
            ctxs = samples[i].contexts
            reply = ask(llm, "groundedness", check_ratings(len(sents), len(ctxs)), passages=numbered(ctxs),
                        sentences="\n".join(f"{n}. {t}" for n, t in enumerate(sents, 1)))
            if reply.status != "ok":
                return reply
            rows = []
            for t, r in zip(sents, reply.value):
                ctx, evidence, span, _ = evidence_of(r["quote"], ctxs, r["passage"])
                rows.append({"text": t, "rating": r["rating"], "evidence": evidence,
                             "evidence_chunk": chunk_id(samples[i], ctx), "span": list(span) if span else None,
                             "reason": r["reason"]})
            return rows

        merged: list[Any] = [[] for _ in samples]
        for (i, _), got in zip(calls, llm.map(one, calls)):
            if isinstance(merged[i], list):
                merged[i] = merged[i] + got if isinstance(got, list) else got
        return merged


@dataclass(frozen=True)
class AnswerRelevance(_Triad):
    """How relevant the answer is to the question (the triad's answer relevance).

    Judge: ``answer_relevance = rating / 3`` with rating 0-3 (``answer_relevance.txt``; a
    refusal is at most 1). Offline: ``answer_relevance = 0.5 * clip((cos(e_q, e_answer) - 0.1)
    / 0.5, 0, 1) + 0.5 * share of the question's content words found in the answer``, capped at
    1/3 when the answer abstains.
    """

    name = "answer_relevance"
    needs = frozenset({"answer", "question"})
    prompt = "answer_relevance"

    def llm_calls(self, shape: Any) -> int:
        return 1

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        llm = None if not self.judge.online else judge_client(self.name, self.judge, resources)
        if llm is None:
            embedder = resources.embedder
            sims = cosines(embedder, [(s.question, s.answer or "") for s in samples])
            out = []
            for s, cos in zip(samples, sims):
                share = term_share(s.question, s.answer or "")
                cues = abstention_cues(s.answer or "")
                value = 0.5 * mapped_cosine(cos) + 0.5 * share
                if cues:
                    value = min(value, 1 / TOP)
                out.append(Score.ok(value, {"judge": str(self.judge), "method": "heuristic", "cosine": round(cos, 6),
                                            "term_share": round(share, 6), "abstention_cues": cues,
                                            "embedder": embedder_name(embedder)}))
            return out
        replies = llm.map(lambda s: ask(llm, "answer_relevance", rating_of, question=s.question,
                                        answer=s.answer or ""), list(samples))
        base = {"judge": str(self.judge), "method": "llm"}
        return [failed_score(r, base) if r.status != "ok" else Score.ok(r.value["rating"] / TOP, {**base, **r.value})
                for r in replies]
