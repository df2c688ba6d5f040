"""The LLM-judge path of claim extraction and verification (prompts in ``rageval/prompts``).

Extraction is one call per answer (``claim_extract.txt``). Verification sends up to
``CLAIMS_PER_CALL`` claims of one answer with the same numbered passages in one call
(``claim_verify.txt``); each claim is judged on its own, so its verdict must not depend on
which other claims share the call (tests check this with a scripted judge). Calls fan out on
``llm.map`` (the claims metrics run one task per answer: extract, then verify). A failed or unparseable reply marks only
the answer it belongs to.

The judge's quote is located in the passage it names (exactly, then ignoring case and
whitespace, then in any passage); when it cannot be found the evidence keeps the quote with no
span.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

from rageval.claims.verdict import Verdict
from rageval.judge.ask import ask, numbered
from rageval.prompts.entries import numbered_entries, passage_index
from rageval.text.sentences import enclosing

if TYPE_CHECKING:  # the reply models load pydantic; they are needed only when a judge answers
    from rageval.prompts.schemas import Claims, Verdicts

CLAIMS_PER_CALL = 8
MAX_CLAIMS = 40
PASSAGE_CHARS = 6000


@dataclass(frozen=True)
class Failure:
    """A judge reply that could not be used: ``status`` unscored/failed, ``reason``, ``raw``."""

    status: str
    reason: str
    raw: str | None = None

    @classmethod
    def of(cls, reply: Any) -> "Failure":
        return cls(reply.status, reply.reason or reply.status, reply.raw)


def claims_of(reply: Claims) -> list[str]:
    """A validated ``{"claims": [...]}`` -> at most MAX_CLAIMS non-empty claims."""
    return reply.claims[:MAX_CLAIMS]


def check_verdicts(n_claims: int, n_passages: int) -> Callable[[Verdicts], list[dict]]:
    """A check of a validated ``Verdicts``: exactly one entry per claim 1..n_claims, passages in range."""

    def check(reply: Verdicts) -> list[dict]:
        return [{"verdict": v.verdict, "passage": passage_index(v.passage, n_passages), "quote": v.quote,
                 "reason": v.reason, "conflict": v.conflict}
                for v in numbered_entries(reply.verdicts, "claim", n_claims)]

    return check


def locate(quote: str, contexts: Sequence[str], passage: int | None) -> tuple[int | None, tuple[int, int] | None]:
    """(0-based context index, char span) of ``quote``; the named passage is searched first."""
    if not quote:
        return (passage - 1 if passage else None), None
    order = list(range(len(contexts)))
    if passage:
        order.remove(passage - 1)
        order.insert(0, passage - 1)
    pattern = r"\s+".join(re.escape(tok) for tok in quote.strip(" \"'").split())
    for i in order:
        at = contexts[i].find(quote)
        if at >= 0:
            return i, (at, at + len(quote))
        m = re.search(pattern, contexts[i], flags=re.IGNORECASE) if pattern else None
        if m:
            return i, (m.start(), m.end())
    return (passage - 1 if passage else None), None


def evidence_of(quote: str, contexts: Sequence[str], passage: int | None
                ) -> tuple[int | None, str | None, tuple[int, int] | None, tuple[int, int] | None]:
    """``(context index, evidence, span, quote span)`` of a judge's quote: the evidence is the whole
    sentence (or sentences, or table row) of the context holding the located quote, with its span;
    a quote that cannot be located is kept as the judge wrote it, with no span."""
    ctx, quoted = locate(quote, contexts, passage)
    whole = enclosing(contexts[ctx], *quoted) if quoted is not None and ctx is not None else None
    if whole is None:
        return ctx, quote or None, quoted, quoted
    return ctx, whole.text, (whole.start, whole.end), quoted


def extract_one(llm: Any, question: str, answer: str) -> list[str] | Failure:
    """Claims of one answer by the judge (one call)."""
    reply = ask(llm, "claim_extract", claims_of, question=question or "(not given)", answer=answer)
    return reply.value if reply.status == "ok" else Failure.of(reply)


def extract(llm: Any, questions: Sequence[str], answers: Sequence[str]) -> list[list[str] | Failure]:
    """Claims of each answer by the judge (one call each, fanned out)."""
    return llm.map(lambda pair: extract_one(llm, *pair), list(zip(questions, answers)))


def verify(llm: Any, jobs: Sequence[tuple[Sequence[str], Sequence[str]]],
           *, per_call: int = CLAIMS_PER_CALL) -> list[list[Verdict] | Failure]:
    """``[(claims, contexts), ...]`` -> verdicts per job, or the first Failure among its calls."""
    calls = []
    for j, (claims, contexts) in enumerate(jobs):
        for lo in range(0, len(claims), per_call):
            calls.append((j, list(claims[lo:lo + per_call]), list(contexts)))

    def one(call: tuple[int, list[str], list[str]]) -> list[Verdict] | Failure:
        _, claims, contexts = call
        reply = ask(llm, "claim_verify", check_verdicts(len(claims), len(contexts)),
                    passages=numbered(contexts, width=PASSAGE_CHARS),
                    claims="\n".join(f"{i}. {c}" for i, c in enumerate(claims, 1)))
        if reply.status != "ok":
            return Failure.of(reply)
        out = []
        for item in reply.value:
            ctx, evidence, span, quoted = evidence_of(item["quote"], contexts, item["passage"])
            out.append(Verdict(item["verdict"], evidence=evidence, context_index=ctx, span=span,
                               reason=item["reason"], conflict=item["conflict"], quote_span=quoted))
        return out

    results = llm.map(one, calls)
    merged: list[list[Verdict] | Failure] = [[] for _ in jobs]
    for (j, _, _), got in zip(calls, results):
        if isinstance(merged[j], Failure):
            continue
        merged[j] = got if isinstance(got, Failure) else merged[j] + got  # type: ignore[operator]
    return merged
