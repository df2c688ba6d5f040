"""The LLM-judge path of claim extraction and verification (prompts in ``rageval/prompts``).

Extraction is one call per answer (``claim_extract.txt``). Verification sends up to
``CLAIMS_PER_CALL`` claims of one answer with the same numbered passages in one call
(``claim_verify.txt``); each claim is judged on its own, so its verdict must not depend on
which other claims share the call (tests check this with a scripted judge). Calls fan out on
``llm.map``. A failed or unparseable reply marks only the answer it belongs to.

The judge's quote is located in the passage it names (exactly, then ignoring case and
whitespace, then in any passage); when it cannot be found the evidence keeps the quote with no
span.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from rageval.metrics.claim_verify import LABELS, Verdict
from rageval.metrics.judge_io import ask, index, numbered, render, strings

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


def validate_claims(value: Any) -> list[str]:
    """``{"claims": [str, ...]}`` -> at most MAX_CLAIMS non-empty claims."""
    return strings(value, "claims")[:MAX_CLAIMS]


def _label(value: Any) -> str:
    text = re.sub(r"[\s\-]+", "_", str(value).strip().upper())
    if text not in LABELS:
        raise ValueError(f"verdict must be one of {', '.join(LABELS)}, not {value!r}")
    return text


def verdict_validator(n_claims: int, n_passages: int) -> Callable[[Any], list[dict]]:
    """A validator for ``{"verdicts": [...]}`` with exactly one entry per claim 1..n_claims."""

    def validate(value: Any) -> list[dict]:
        items = value.get("verdicts") if isinstance(value, dict) else None
        if not isinstance(items, list):
            raise ValueError('expected a JSON object with a list "verdicts"')
        found: dict[int, dict] = {}
        for pos, item in enumerate(items, 1):
            if not isinstance(item, dict):
                raise ValueError("each verdict must be a JSON object")
            k = index(item.get("claim", pos), n_claims, "claim")
            if k is None:
                raise ValueError(f"claim must be a number from 1 to {n_claims}")
            conflict = item.get("conflict", False)
            found[k] = {
                "verdict": _label(item.get("verdict")),
                "passage": index(item.get("passage"), n_passages, "passage"),
                "quote": str(item.get("quote") or "").strip(),
                "reason": str(item.get("reason") or "").strip(),
                "conflict": conflict is True or str(conflict).lower() == "true",
            }
        if sorted(found) != list(range(1, n_claims + 1)):
            raise ValueError(f"expected exactly one verdict for each of the {n_claims} claims")
        return [found[k] for k in range(1, n_claims + 1)]

    return validate


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


def extract(llm: Any, questions: Sequence[str], answers: Sequence[str]) -> list[list[str] | Failure]:
    """Claims of each answer by the judge (one call each, fanned out)."""

    def one(pair: tuple[str, str]) -> list[str] | Failure:
        reply = ask(llm, render("claim_extract", question=pair[0] or "(not given)", answer=pair[1]),
                    validate_claims)
        return reply.value if reply.status == "ok" else Failure.of(reply)

    return llm.map(one, list(zip(questions, answers)))


def verify(llm: Any, jobs: Sequence[tuple[Sequence[str], Sequence[str]]],
           *, per_call: int = CLAIMS_PER_CALL) -> list[list[Verdict] | Failure]:
    """``[(claims, contexts), ...]`` -> verdicts per job, or the first Failure among its calls."""
    calls = []
    for j, (claims, contexts) in enumerate(jobs):
        for lo in range(0, len(claims), per_call):
            calls.append((j, list(claims[lo:lo + per_call]), list(contexts)))

    def one(call: tuple[int, list[str], list[str]]) -> list[Verdict] | Failure:
        _, claims, contexts = call
        prompt = render(
            "claim_verify",
            passages=numbered(contexts, width=PASSAGE_CHARS),
            claims="\n".join(f"{i}. {c}" for i, c in enumerate(claims, 1)),
        )
        reply = ask(llm, prompt, verdict_validator(len(claims), len(contexts)))
        if reply.status != "ok":
            return Failure.of(reply)
        out = []
        for item in reply.value:
            ctx, span = locate(item["quote"], contexts, item["passage"])
            out.append(Verdict(item["verdict"], evidence=item["quote"] or None, context_index=ctx, span=span,
                               reason=item["reason"], conflict=item["conflict"]))
        return out

    results = llm.map(one, calls)
    merged: list[list[Verdict] | Failure] = [[] for _ in jobs]
    for (j, _, _), got in zip(calls, results):
        if isinstance(merged[j], Failure):
            continue
        merged[j] = got if isinstance(got, Failure) else merged[j] + got  # type: ignore[operator]
    return merged
