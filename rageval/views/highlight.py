"""Highlight spans for the Answers page: where each claim sits in its answer, and where its
evidence sits in a retrieved chunk. Pure functions (no streamlit).

A text is split into :class:`Segment` pieces that cover it exactly; where claims overlap, the
piece takes the most severe verdict (CONTRADICTED > NOT_MENTIONED > UNVERIFIED > SUPPORTED) and lists every
claim number that covers it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

from rageval.report.summary import is_low_confidence
from rageval.text.sentences import split_sentences

_SEVERITY = {"SUPPORTED": 0, "UNVERIFIED": 1, "NOT_MENTIONED": 2, "CONTRADICTED": 3}


class _Context(Protocol):
    chunk_id: str | None
    text: str


class _View(Protocol):
    contexts: Sequence[_Context]


@dataclass(frozen=True)
class Segment:
    """A piece of text; ``verdict`` None means plain text, ``labels`` the claim numbers (1-based)."""

    text: str
    verdict: str | None = None
    labels: tuple[int, ...] = ()


_WORD = re.compile(r"\w+")


def _valid(span: Any, n: int) -> tuple[int, int] | None:
    if isinstance(span, (list, tuple)) and len(span) == 2 and all(isinstance(x, int) for x in span):
        if 0 <= span[0] < span[1] <= n:
            return span[0], span[1]
    return None


def claim_span(answer: str, claim: dict[str, Any], start: int = 0) -> tuple[int, int] | None:
    """Where ``claim`` sits in ``answer``: its stored span, else its text, else its best sentence.

    The best sentence is the one sharing most words with the claim, if it shares at least half
    of the claim's words.
    """
    details = claim.get("details") or {}
    for key in ("answer_span", "source_span", "span_in_answer"):
        found = _valid(details.get(key), len(answer))
        if found:
            return found
    text = (claim.get("text") or "").strip()
    if not text:
        return None
    lower = answer.lower()
    for needle in dict.fromkeys((text.lower(), text.lower().rstrip(".!?;: "))):
        if not needle:
            continue
        at = lower.find(needle, start)
        at = at if at >= 0 else lower.find(needle)
        if at >= 0:
            return at, at + len(needle)
    words = {w.lower() for w in _WORD.findall(text)}
    best, best_overlap = None, 0.0
    for sentence in split_sentences(answer):
        overlap = len(words & {w.lower() for w in _WORD.findall(sentence.text)}) / max(len(words), 1)
        if overlap > best_overlap:
            best, best_overlap = sentence, overlap
    if best is None or best_overlap < 0.5:
        return None
    return best.start, best.end


def segments(text: str, spans: Sequence[tuple[int, int, str, int]]) -> list[Segment]:
    """Split ``text`` by ``(start, end, verdict, label)`` spans into Segments covering it exactly."""
    cuts = sorted({0, len(text), *(p for s, e, _, _ in spans for p in (s, e) if 0 <= p <= len(text))})
    out: list[Segment] = []
    for a, b in zip(cuts, cuts[1:]):
        cover = [(v, lab) for s, e, v, lab in spans if s <= a and b <= e]
        verdict = max((v for v, _ in cover), key=lambda v: _SEVERITY.get(v, 1)) if cover else None
        labels = tuple(sorted({lab for _, lab in cover}))
        if out and out[-1].verdict == verdict and out[-1].labels == labels:
            out[-1] = Segment(out[-1].text + text[a:b], verdict, labels)
        else:
            out.append(Segment(text[a:b], verdict, labels))
    return out


def shown_verdict(claim: dict[str, Any]) -> str:
    """The verdict a highlight shows: ``"CONTRADICTED?"`` for a low-confidence one (drawn dashed and
    ranked below a firm verdict where highlights overlap), else the verdict itself."""
    return f"{claim['verdict']}?" if is_low_confidence(claim) else str(claim["verdict"])


def answer_segments(answer: str, claims: Sequence[dict[str, Any]]) -> tuple[list[Segment], list[int]]:
    """The answer split by claim verdicts, and the numbers of claims that could not be located."""
    spans, lost, cursor = [], [], 0
    for n, claim in enumerate(claims, start=1):
        found = claim_span(answer, claim, cursor)
        if found is None:
            lost.append(n)
            continue
        spans.append((found[0], found[1], shown_verdict(claim), n))
        cursor = found[1]
    return segments(answer, spans), lost


def evidence_location(view: _View, claim: dict[str, Any]) -> tuple[int, int, int] | None:
    """``(context index, start, end)`` of a claim's evidence inside a retrieved context.

    The stored chunk id and span are used when they agree with the context; otherwise the
    evidence sentence is searched for in the contexts (the evidence chunk first).
    """
    order = list(range(len(view.contexts)))
    chunk = claim.get("evidence_chunk")
    hit = next((i for i, c in enumerate(view.contexts) if chunk and c.chunk_id == chunk), None)
    positional = re.fullmatch(r"context\[(\d+)\]|(\d+)", chunk) if isinstance(chunk, str) else None
    if hit is None and positional and int(positional.group(1) or positional.group(2)) < len(view.contexts):
        hit = int(positional.group(1) or positional.group(2))  # answers imported without chunk ids
    if hit is not None:
        order.remove(hit)
        order.insert(0, hit)
        span = _valid([claim.get("span_start"), claim.get("span_end")], len(view.contexts[hit].text))
        evidence = claim.get("evidence")
        if span and (not evidence or view.contexts[hit].text[span[0]:span[1]].strip() == evidence.strip()):
            return hit, span[0], span[1]
    evidence = (claim.get("evidence") or "").strip()
    if not evidence:
        return None
    for i in order:
        at = view.contexts[i].text.find(evidence)
        if at >= 0:
            return i, at, at + len(evidence)
    return None
